// The DP pageview histogram by page, project and country (Wikimedia's
// release with Tumult Labs: Adeleye et al. 2023, "Publishing Wikipedia usage
// data with strong privacy guarantees", arXiv:2308.16298), end to end on a
// generated day or on a TSV/CSV file in Wikimedia's column layout:
//
//   pageview_histogram [--rows N] [--threads T] [--seed S] [--tsv FILE]
//                      [--write-tsv FILE] [--svg FILE]
//
// It prints the data used, the parameters, the privacy guarantee spent, the
// utility report (overall, by continent, subregion and country) against the
// requirements of Wikimedia's problem statement, the time of every stage, and
// writes a plot of relative error against true count. Threads bound disjoint
// sets of actors and release disjoint sets of pages, each from the shared
// secret's streams, so the result is the same for any number of threads.
#include <privet/accounting/zcdp.hpp>
#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/algorithms/release_utility.hpp>
#include <privet/io/pageview_reader.hpp>

#include "support/pageview_generator.hpp"
#include "support/progress.hpp"
#include "support/svg_plot.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace pv = privet::pageview;
namespace ex = privet::examples;

namespace {

struct options {
  std::uint64_t rows = 10'000'000;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::uint64_t seed = 20261123;
  std::string tsv, write_tsv, svg = "pageview_error.svg";
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--rows")
      o.rows = std::stoull(value());
    else if (a == "--threads")
      o.threads = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--seed")
      o.seed = std::stoull(value());
    else if (a == "--tsv")
      o.tsv = value();
    else if (a == "--write-tsv")
      o.write_tsv = value();
    else if (a == "--svg")
      o.svg = value();
    else
      throw std::invalid_argument("unknown option " + a);
  }
  if (o.threads == 0) throw std::invalid_argument("--threads must be at least 1");
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string pct(double x) {
  if (std::isnan(x)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%.2f %%", 100 * x);
  return b;
}

void print_row(const std::string& name, const privet::utility_metrics& m) {
  std::printf("| %-34s | %9zu | %9s | %9s | %8s | %8s |\n", name.c_str(), m.published,
              pct(m.median_relative_error).c_str(), pct(m.share_below_half).c_str(),
              pct(m.drop_rate()).c_str(), pct(m.spurious_rate()).c_str());
}

void print_table(const std::string& title,
                 const std::map<std::string, privet::utility_metrics>& by) {
  std::printf("\n%s\n\n| %-34s | %9s | %9s | %9s | %8s | %8s |\n", title.c_str(), "group",
              "published", "median RE", "RE < 50%", "dropped", "spurious");
  std::printf("| %s | ---: | ---: | ---: | ---: | ---: |\n", std::string(34, '-').c_str());
  for (const auto& [g, m] : by) print_row(g, m);
}

}  // namespace

int main(int argc, char** argv) try {
  const options o = parse(argc, argv);
  const auto& country_list = ex::countries();
  const auto& project_list = ex::projects();
  std::vector<std::string> country_codes, project_names;
  for (const auto& c : country_list) country_codes.emplace_back(c.code);
  for (const auto& p : project_list) project_names.emplace_back(p.name);

  // ---- the day's rows, split by actor into one shard per thread ----------------
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<pv::view>> shards(o.threads);
  pv::page_counts public_counts;  // non-deduplicated views per page: public
  std::uint64_t rows = 0, actors = 0;
  auto keep = [&](const pv::view& v) {
    shards[privet::detail::mix64(v.actor) % o.threads].push_back(v);
    public_counts.add(v.tuple.page_of());
    ++rows;
  };
  std::string data;
  if (!o.tsv.empty()) {
    std::ifstream in(o.tsv);
    if (!in) throw std::runtime_error("cannot open " + o.tsv);
    privet::io::pageview_reader reader(in, privet::io::name_index(project_names),
                                       privet::io::name_index(country_codes));
    reader.for_each(keep);
    data = "file " + o.tsv;
  } else {
    ex::generator_options g;
    g.rows = o.rows;
    g.seed = o.seed;
    ex::pageview_generator gen(g);
    ex::progress bar("generating a day", g.rows);
    std::ofstream out;
    if (!o.write_tsv.empty()) {
      out.open(o.write_tsv);
      out << "page_id\tpage_title\tproject\tcountry\tdate\tactor_signature\n";
    }
    actors = gen.generate([&](const pv::view& v) {
      keep(v);
      if (out.is_open()) {
        out << v.tuple.page << "\tPage_" << v.tuple.page << '\t' << project_names[v.tuple.project]
            << '\t' << country_codes[v.tuple.country] << "\t2026-11-22\t" << std::hex << v.actor
            << std::dec << '\n';
      }
      if ((rows & 0xFFFF) == 0) bar.update(rows);
    });
    bar.update(rows);
    data = "a generated day (seed " + std::to_string(o.seed) + ", " + std::to_string(actors) +
           " actors, " + std::to_string(project_list.size()) + " projects, " +
           std::to_string(country_list.size()) +
           " countries; model in "
           "examples/support/pageview_generator.hpp)";
  }
  const double t_data = seconds_since(t0);
  std::printf("data: %s\n      %llu rows, %zu pages with views\n", data.c_str(),
              static_cast<unsigned long long>(rows), public_counts.size());
  if (rows == 0) throw std::runtime_error("no rows: nothing to release");

  // ---- the pipeline ---------------------------------------------------------------
  const pv::parameters<> params;  // Wikimedia's published defaults
  const pv::histogram<> h(params, static_cast<std::uint32_t>(country_list.size()));
  const privet::keyed_streams streams;  // a fresh secret from the OS CSPRNG

  const auto t1 = std::chrono::steady_clock::now();
  std::vector<pv::tuple_counts> bounded(o.threads);
  {
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < o.threads; ++t) {
      workers.emplace_back([&, t] {
        auto gen = pv::histogram<>::bounding_stream(streams);
        bounded[t] = h.bounded_counts(shards[t], gen);
      });
    }
    for (auto& w : workers) w.join();
  }
  pv::tuple_counts truth = std::move(bounded[0]);
  for (unsigned t = 1; t < o.threads; ++t) truth.merge(bounded[t]);
  const double t_bound = seconds_since(t1);

  const auto t2 = std::chrono::steady_clock::now();
  const auto candidates = pv::candidate_pages(public_counts, params.candidate_threshold);
  std::vector<std::vector<pv::release_row>> parts(o.threads);
  {
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < o.threads; ++t) {
      workers.emplace_back([&, t] {
        std::vector<pv::page_key> mine;
        for (std::size_t i = t; i < candidates.size(); i += o.threads)
          mine.push_back(candidates[i]);
        parts[t] = h.release_pages(truth, mine, streams);
      });
    }
    for (auto& w : workers) w.join();
  }
  std::vector<pv::release_row> released;
  for (const auto& p : parts) released.insert(released.end(), p.begin(), p.end());
  std::sort(released.begin(), released.end());
  const double t_release = seconds_since(t2);

  // ---- what was spent -------------------------------------------------------------
  const auto rho = h.guarantee();
  const auto as_dp = privet::to_approx_dp(rho, 1e-7);
  std::printf(
      "\nparameters (Wikimedia's published defaults): rho = %g per day, k = %llu distinct "
      "tuples per actor, candidate filter t = %lld public views, release threshold tau = %lld\n"
      "noise: discrete Gaussian, sigma^2 = %.6f (sigma = %.2f), on %zu candidate pages x "
      "%zu countries = %zu cells\n"
      "privacy spent per actor per day: %g-zCDP, i.e. (%.4f, 1e-7)-DP "
      "(Canonne-Kamath-Steinke conversion)\n",
      params.budget.rho(), static_cast<unsigned long long>(params.k),
      static_cast<long long>(params.candidate_threshold),
      static_cast<long long>(params.release_threshold), h.mechanism().distribution().sigma2(),
      h.mechanism().distribution().sigma(), candidates.size(), country_list.size(),
      candidates.size() * country_list.size(), rho.rho(), as_dp.epsilon());

  // ---- utility --------------------------------------------------------------------
  const auto overall = privet::utility(truth, released);
  std::printf("\nutility against the bounded, deduplicated truth (%zu non-zero cells):\n",
              truth.size());
  print_table("overall", {{"all", overall}});
  auto continent = [&](const pv::tuple_key& k) {
    return std::string(country_list[k.country].continent);
  };
  auto subregion = [&](const pv::tuple_key& k) {
    return std::string(country_list[k.country].subregion);
  };
  auto country = [&](const pv::tuple_key& k) { return std::string(country_list[k.country].code); };
  print_table("by continent", privet::utility_by(truth, released, continent));
  print_table("by subregion", privet::utility_by(truth, released, subregion));
  print_table("by country", privet::utility_by(truth, released, country));

  const bool median_ok = overall.median_relative_error < 0.05;
  const bool share_ok = overall.share_below_half >= 0.95;
  std::printf(
      "\nrequirements: median relative error < 5 %%: %s (%s); relative error < 50 %% for 95 %% "
      "of published counts: %s (%s)\n",
      median_ok ? "met" : "NOT met", pct(overall.median_relative_error).c_str(),
      share_ok ? "met" : "NOT met", pct(overall.share_below_half).c_str());
  // The same noise (same secret, same streams) before suppression: how the
  // requirements move with tau. An evaluation against the truth, not a release.
  pv::parameters<> unsuppressed = params;
  unsuppressed.release_threshold = std::numeric_limits<std::int64_t>::min();
  const auto all_cells =
      pv::histogram<>(unsuppressed, static_cast<std::uint32_t>(country_list.size()))
          .release_pages(truth, candidates, streams);
  std::printf(
      "\nthe same noisy counts at other release thresholds:\n\n"
      "| tau | published | median RE | RE < 50%% | spurious |\n| ---: | ---: | ---: | ---: | ---: "
      "|\n");
  std::int64_t first_ok = -1;
  for (std::int64_t tau : {60, 90, 120, 150, 200, 300}) {
    std::vector<pv::release_row> kept;
    for (const auto& r : all_cells)
      if (r.second >= tau) kept.push_back(r);
    const auto m = privet::utility(truth, kept);
    if (first_ok < 0 && m.median_relative_error < 0.05 && m.share_below_half >= 0.95) {
      first_ok = tau;
    }
    std::printf("| %lld%s | %zu | %s | %s | %s |\n", static_cast<long long>(tau),
                tau == params.release_threshold ? " (default)" : "", m.published,
                pct(m.median_relative_error).c_str(), pct(m.share_below_half).c_str(),
                pct(m.spurious_rate()).c_str());
  }
  if (candidates.empty()) {
    std::printf(
        "nothing was released: no page reached t = %lld public views on a day this small.\n",
        static_cast<long long>(params.candidate_threshold));
  } else if (!median_ok || !share_ok) {
    std::printf(
        "why: the noise (sigma = %.1f) is fixed by rho and k; published counts close to tau = "
        "%lld carry relative errors near sigma / tau. Raising tau trades published cells for "
        "accuracy, lowering k trades coverage of heavy readers for less noise.\n",
        h.mechanism().distribution().sigma(), static_cast<long long>(params.release_threshold));
    if (first_ok > 0) {
      std::printf("on this day tau = %lld is the smallest threshold above that meets both.\n",
                  static_cast<long long>(first_ok));
    }
  }

  // ---- plot: relative error against true count ------------------------------------
  ex::svg_plot plot("DP pageview histogram: relative error of published counts",
                    "true count (after bounding)", "relative error");
  plot.log_x().log_y().y_range(1e-4, 10);
  ex::svg_plot::series dots{"published cells", {}, {}, false, "#1f77b4"};
  const std::size_t step = std::max<std::size_t>(1, released.size() / 4000);
  std::map<int, std::vector<double>> bins;
  for (std::size_t i = 0; i < released.size(); ++i) {
    const auto t = truth[released[i].first];
    if (t <= 0) continue;
    const double re =
        std::fabs(static_cast<double>(released[i].second - t)) / static_cast<double>(t);
    bins[static_cast<int>(std::floor(std::log10(static_cast<double>(t)) * 4))].push_back(re);
    if (i % step == 0) {
      dots.x.push_back(static_cast<double>(t));
      dots.y.push_back(std::max(re, 1e-4));
    }
  }
  ex::svg_plot::series median{"median per bin", {}, {}, true, "#d62728"};
  ex::svg_plot::series limit{"5 % requirement", {}, {}, true, "#2ca02c"};
  for (auto& [b, v] : bins) {
    std::sort(v.begin(), v.end());
    median.x.push_back(std::pow(10, (b + 0.5) / 4));
    median.y.push_back(std::max(v[v.size() / 2], 1e-4));
  }
  if (!median.x.empty()) {
    limit.x = {median.x.front(), median.x.back()};
    limit.y = {0.05, 0.05};
  }
  plot.add(dots).add(median).add(limit).write(o.svg);

  const double total = seconds_since(t0);
  std::printf(
      "\ntime: data %.2f s, bounding %.2f s (%.2f M rows/s on %u threads), noise and release "
      "%.2f s (%.2f M cells/s), total %.2f s\nplot: %s\n",
      t_data, t_bound, static_cast<double>(rows) / t_bound / 1e6, o.threads, t_release,
      static_cast<double>(candidates.size() * country_list.size()) / t_release / 1e6, total,
      o.svg.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "pageview_histogram: %s\n", e.what());
  return 1;
}
