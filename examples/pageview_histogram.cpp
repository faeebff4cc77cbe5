// The DP pageview histogram by page, project and country (Wikimedia's
// release with Tumult Labs: Adeleye et al. 2023, "Publishing Wikipedia usage
// data with strong privacy guarantees", arXiv:2308.16298), end to end on a
// generated day or on a TSV/CSV file in Wikimedia's column layout:
//
//   pageview_histogram [--rows N] [--threads T] [--seed S] [--tsv FILE]
//                      [--write-tsv FILE] [--svg FILE]
//                      [--tune-rows N] [--tune-seed S] [--tune-tsv FILE]
//                      [--tune-draws R] [--tune-k LIST] [--tune-tau LIST]
//
// It prints the data used, the parameters, the privacy guarantee spent, the
// utility report (overall, by continent, subregion and country) against the
// requirements of Wikimedia's problem statement, with the drop rate three
// ways (share of non-zero cells, share of views, share of cells whose true
// count reaches tau), the time of every stage, and writes a plot of relative
// error against true count. The day is read once, in chunks of 2^16 rows
// (with --threads >= 2, one thread reads and parses while another bounds
// per actor), in memory that follows the distinct (actor, kept tuple) pairs
// and the pages, not the rows, with a progress line on stderr; the bound
// keeps the same tuples in any row order. Threads then release disjoint
// sets of pages, each from the shared secret's streams, so the result is
// the same for any number of threads. --write-tsv FILE writes the
// generated day as a TSV file that --tsv reads back (the same views: its
// actor column is the generator's signature text). A day with no row to
// release is a release like any other (reported, exit 0). Files are written
// whole or not at all, never over an input (support/output_files.hpp).
//
// Then a parameter-selection report: for a grid of k (--tune-k, comma
// separated) and tau (--tune-tau) at the same budget and candidate
// threshold, whether the requirements are met on every one of R noise draws
// (--tune-draws), and the smallest tau and largest k that meet both. It runs
// on data the caller declares public or synthetic, never on the day being
// released: a generated day of the same size with another seed (--tune-rows,
// default the day's row count; --tune-seed), or a file the caller declares
// public, e.g. a day already published (--tune-tsv). Choosing parameters
// from the private day's truth would spend budget that the guarantee does
// not count. --tune-rows 0 skips the report.
#include <privet/accounting/zcdp.hpp>
#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/algorithms/release_utility.hpp>
#include <privet/io/pageview_reader.hpp>

#include "support/command_line.hpp"
#include "support/output_files.hpp"
#include "support/pageview_generator.hpp"
#include "support/progress.hpp"
#include "support/svg_plot.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace pv = privet::pageview;
namespace ex = privet::examples;

namespace {

// The release's noise: discrete Gaussian from the constant-time sampler.
using release_mechanism =
    privet::discrete_gaussian_mechanism<std::int64_t, privet::constant_time_noise>;

}  // namespace

namespace {

struct options {
  std::uint64_t rows = 10'000'000;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::uint64_t seed = 20261123;
  std::string tsv, write_tsv, svg = "pageview_error.svg";
  // The parameter-selection report (header comment); tune_rows 0 = the day's
  // row count, tune_seed 0 = seed + 1.
  bool tune = true;
  std::uint64_t tune_rows = 0, tune_seed = 0;
  std::string tune_tsv;
  unsigned tune_draws = 2;
  std::vector<std::uint64_t> tune_k{4, 5, 6, 7, 8, 10, 12};
  std::vector<std::int64_t> tune_tau{60, 70, 80, 90, 100, 110, 120, 130, 150, 200};
};

// A comma-separated list of whole numbers >= 1 (e.g. "4,5,10"), or nullopt.
template <class T>
std::optional<std::vector<T>> parse_list(const std::string& text) {
  std::vector<T> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    if (item.empty() || item.size() > 12 ||
        item.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    const long long v = std::stoll(item);
    if (v < 1) return std::nullopt;
    out.push_back(static_cast<T>(v));
    start = end + 1;
  }
  return out;
}

template <class T>
std::string list_text(const std::vector<T>& xs) {
  std::string s;
  for (const T& x : xs) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

// Fills o from the command line; an exit code when the program should stop
// (0 after --help, 2 after a one-line refusal).
std::optional<int> parse(int argc, char** argv, options& o) {
  ex::command_line cli("pageview_histogram",
                       "Wikimedia's DP pageview histogram by page, project and country over one "
                       "day (generated, or read from a TSV file), with a utility report by "
                       "region and a parameter-selection report on public or synthetic data.");
  cli.count("--rows", o.rows, "rows of the generated day (ignored with --tsv)", 1, 4'000'000'000);
  cli.threads("--threads", o.threads);
  cli.count("--seed", o.seed, "seed of the generated day (not of the noise: that is a CSPRNG)", 1,
            std::numeric_limits<std::uint64_t>::max());
  cli.input_file("--tsv", o.tsv, "read the day from this TSV file (actor, page, project, country)");
  cli.output_file("--write-tsv", o.write_tsv, "also write the generated day as TSV here");
  cli.output_file("--svg", o.svg, "error-against-count plot (a CSV is written beside it)", "",
                  ex::with_csv_beside);
  std::optional<std::uint64_t> tune_rows;
  cli.count("--tune-rows", tune_rows,
            "rows of the synthetic day the parameter-selection report tunes on; 0 skips the "
            "report",
            0, 4'000'000'000, "as many as the day");
  cli.count("--tune-seed", o.tune_seed, "seed of the synthetic tuning day (0 = --seed + 1)", 0,
            std::numeric_limits<std::uint64_t>::max());
  cli.input_file("--tune-tsv", o.tune_tsv,
                 "tune on this TSV file instead, which you declare public");
  cli.count("--tune-draws", o.tune_draws,
            "noise draws per grid point (a point is met only if met on every draw)", 1, 100);
  std::string k_list = list_text(o.tune_k), tau_list = list_text(o.tune_tau);
  const auto list_check = [](const std::string& v) -> std::string {
    return parse_list<std::int64_t>(v)
               ? std::string()
               : "'" + v + "' is not a list; allowed: whole numbers >= 1 separated by commas";
  };
  const auto k_check = [](const std::string& v) -> std::string {
    const auto ks = parse_list<std::int64_t>(v);
    const bool ok = ks && std::all_of(ks->begin(), ks->end(), [](std::int64_t k) {
                      return k <= (std::int64_t{1} << 24) - 1;
                    });
    return ok ? std::string()
              : "'" + v +
                    "' is not a list of k; allowed: whole numbers from 1 to 16777215 (2^24 - 1, "
                    "the streaming bound's limit) separated by commas";
  };
  cli.text("--tune-k", k_list, "values of k (rows kept per actor) the report tries", k_check,
           "LIST");
  cli.text("--tune-tau", tau_list, "suppression thresholds tau the report tries", list_check,
           "LIST");
  if (auto exit_code = cli.parse(argc, argv)) return exit_code;
  // Tuning on the released day would spend budget the guarantee does not
  // count (header comment): the same file under another name is refused too.
  if (!o.tune_tsv.empty() && !o.tsv.empty() && ex::same_file(o.tune_tsv, o.tsv)) {
    return cli.refuse("--tune-tsv: '" + o.tune_tsv + "' is the same file as --tsv '" + o.tsv +
                      "', the day being released; allowed: a file you declare public, other "
                      "than the released day (tuning on it would spend budget the guarantee "
                      "does not count)");
  }
  if (tune_rows) {
    o.tune_rows = *tune_rows;
    o.tune = *tune_rows > 0;
  }
  o.tune_k = *parse_list<std::uint64_t>(k_list);
  o.tune_tau = *parse_list<std::int64_t>(tau_list);
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  if (o.tune_seed == 0) o.tune_seed = o.seed + 1;
  return std::nullopt;
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
  std::printf("| %-34s | %9zu | %9s | %9s | %9s | %9s | %9s | %8s |\n", name.c_str(), m.published,
              pct(m.median_relative_error).c_str(), pct(m.share_below_half).c_str(),
              pct(m.drop_rate()).c_str(), pct(m.view_drop_rate()).c_str(),
              pct(m.large_drop_rate()).c_str(), pct(m.spurious_rate()).c_str());
}

// Dropped three ways (release_utility.hpp): of the non-zero cells, of the
// views, of the cells whose true count reaches tau.
void print_table(const std::string& title,
                 const std::map<std::string, privet::utility_metrics>& by) {
  std::printf("\n%s\n\n| %-34s | %9s | %9s | %9s | %9s | %9s | %9s | %8s |\n", title.c_str(),
              "group", "published", "median RE", "RE < 50%", "drop cell", "drop view", "drop>=tau",
              "spurious");
  std::printf("| %s | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
              std::string(34, '-').c_str());
  for (const auto& [g, m] : by) print_row(g, m);
}

// The day's rows, streamed: read once (from a TSV file, or the generator)
// in chunks of views that a second thread bounds (per actor, in memory that
// follows the distinct (actor, kept tuple) pairs) while the next chunk is
// read; the public, non-deduplicated page counts are added on the fly.
struct day_stats {
  pv::page_counts public_counts;
  std::uint64_t rows = 0, actors = 0, skipped = 0, bytes = 0;
  std::string description;
};

// Chunks handed from the reading thread to the bounding thread: at most
// `depth` in flight, so memory holds a few chunks, never the day.
class chunk_queue {
 public:
  using chunk = std::vector<pv::view>;
  void push(chunk c) {
    std::unique_lock lock(m_);
    room_.wait(lock, [&] { return q_.size() < depth; });
    q_.push_back(std::move(c));
    ready_.notify_one();
  }
  void close() {
    std::lock_guard lock(m_);
    closed_ = true;
    ready_.notify_one();
  }
  // The next chunk, or an empty one once closed and drained.
  chunk pop() {
    std::unique_lock lock(m_);
    ready_.wait(lock, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return {};
    chunk c = std::move(q_.front());
    q_.pop_front();
    room_.notify_one();
    return c;
  }

 private:
  static constexpr std::size_t depth = 4;
  std::mutex m_;
  std::condition_variable ready_, room_;
  std::deque<chunk> q_;
  bool closed_ = false;
};

// A progress line on stderr: rows, rows/s, MB read and time left (from the
// file's size, or the rows asked of the generator), redrawn every half second.
class day_progress {
 public:
  day_progress(std::string what, std::uint64_t total_bytes, std::uint64_t total_rows)
      : what_(std::move(what)), total_bytes_(total_bytes), total_rows_(total_rows) {}
  void update(std::uint64_t rows, std::uint64_t bytes, bool last = false) {
    const auto now = std::chrono::steady_clock::now();
    if (!last && now - shown_ < std::chrono::milliseconds(500)) return;
    shown_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double done = total_bytes_ > 0 ? static_cast<double>(bytes) / total_bytes_
                                         : static_cast<double>(rows) / total_rows_;
    const double left = done > 0 ? secs * (1 - done) / done : 0;
    std::fprintf(stderr, "\r%s: %.2f M rows, %.2f M rows/s", what_.c_str(), rows / 1e6,
                 secs > 0 ? rows / secs / 1e6 : 0.0);
    if (total_bytes_ > 0) std::fprintf(stderr, ", %.1f / %.1f MB", bytes / 1e6, total_bytes_ / 1e6);
    std::fprintf(stderr, ", %.0f s left   %s", last ? 0.0 : left, last ? "\n" : "");
    std::fflush(stderr);
  }

 private:
  std::string what_;
  std::uint64_t total_bytes_, total_rows_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), shown_{};
};

// Rows as TSV in Wikimedia's layout, formatted into a 1 MiB buffer, into a
// file of the run's output_set: it appears whole with the run's other
// outputs, or not at all.
class tsv_writer {
 public:
  tsv_writer(ex::output_set& files, const std::string& path,
             const std::vector<std::string>& projects, const std::vector<std::string>& countries)
      : out_(files.add(path)), projects_(projects), countries_(countries) {
    text_ = "page_id\tpage_title\tproject\tcountry\tdate\tactor_signature\n";
  }
  // The row's actor_signature column is the generator's signature text,
  // which the reader hashes back to v.actor (pageview_generator.hpp).
  void write(const pv::view& v, std::string_view signature) {
    char page[24];
    const std::string_view id(
        page,
        static_cast<std::size_t>(std::to_chars(page, page + sizeof page, v.tuple.page).ptr - page));
    text_.append(id).append("\tPage_").append(id).append("\t");
    text_.append(projects_[v.tuple.project]).append("\t").append(countries_[v.tuple.country]);
    text_.append("\t2026-11-22\t").append(signature).append("\n");
    if (text_.size() > (1u << 20)) flush();
  }
  void finish() { flush(); }

 private:
  void flush() {
    out_.write(text_);
    text_.clear();
  }
  ex::output_file& out_;
  const std::vector<std::string>& projects_;
  const std::vector<std::string>& countries_;
  std::string text_;
};

// Streams a day (the file `tsv`, or `rows` generated rows of `seed`, also
// written to `write_tsv` in `files` if given) into `bounder`, with the public counts;
// `threads` > 1 bounds on a second thread while the next chunk is read.
day_stats stream_day(const std::string& tsv, std::uint64_t rows, std::uint64_t seed,
                     const std::string& write_tsv, ex::output_set& files,
                     const std::vector<std::string>& project_names,
                     const std::vector<std::string>& country_codes, pv::view_bounder& bounder,
                     unsigned threads, const char* what) {
  day_stats d;
  constexpr std::size_t chunk_rows = std::size_t{1} << 16;
  chunk_queue queue;
  std::exception_ptr failed;
  auto consume = [&](const std::vector<pv::view>& c) {
    bounder.add(std::span<const pv::view>(c));
    for (const pv::view& v : c) d.public_counts.add(v.tuple.page_of());
  };
  std::thread worker;
  if (threads > 1) {
    worker = std::thread([&] {
      try {
        for (auto c = queue.pop(); !c.empty(); c = queue.pop()) consume(c);
      } catch (...) {
        failed = std::current_exception();
        for (auto c = queue.pop(); !c.empty(); c = queue.pop()) {
        }  // drain, so the reader never waits forever
      }
    });
  }
  std::vector<pv::view> chunk;
  chunk.reserve(chunk_rows);
  auto hand_off = [&] {
    if (threads > 1) {
      queue.push(std::move(chunk));
      chunk = {};
      chunk.reserve(chunk_rows);
    } else {
      consume(chunk);
      chunk.clear();
    }
  };
  try {
    if (!tsv.empty()) {
      std::ifstream in(tsv, std::ios::binary);
      if (!in) throw std::runtime_error("cannot open " + tsv);
      const std::uint64_t size = std::filesystem::file_size(tsv);
      day_progress bar(what, size, 0);
      privet::io::pageview_reader reader(in, privet::io::name_index(project_names),
                                         privet::io::name_index(country_codes));
      reader.for_each([&](const pv::view& v) {
        chunk.push_back(v);
        if (chunk.size() == chunk_rows) {
          hand_off();
          bar.update(reader.rows(), reader.bytes());
        }
      });
      hand_off();
      bar.update(reader.rows(), reader.bytes(), true);
      d.rows = reader.rows();
      d.skipped = reader.skipped_rows();
      d.bytes = reader.bytes();
      d.description = "file " + tsv;
    } else {
      ex::generator_options g;
      g.rows = rows;
      g.seed = seed;
      ex::pageview_generator gen(g);
      day_progress bar(what, 0, rows);
      std::optional<tsv_writer> out;
      if (!write_tsv.empty()) out.emplace(files, write_tsv, project_names, country_codes);
      d.actors = gen.generate([&](const pv::view& v) {
        chunk.push_back(v);
        if (out) out->write(v, gen.signature());
        if (chunk.size() == chunk_rows) {
          d.rows += chunk.size();
          hand_off();
          bar.update(d.rows, 0);
        }
      });
      d.rows += chunk.size();
      hand_off();
      bar.update(d.rows, 0, true);
      if (out) out->finish();
      d.description = "a generated day (seed " + std::to_string(seed) + ", " +
                      std::to_string(d.actors) + " actors, " + std::to_string(d.rows) + " rows)";
    }
  } catch (...) {
    if (worker.joinable()) {
      queue.close();
      worker.join();
    }
    throw;
  }
  if (worker.joinable()) {
    queue.close();
    worker.join();
  }
  if (failed) std::rethrow_exception(failed);
  return d;
}

std::string grid_cell(const pv::grid_point& p) {
  char b[48];
  const double med = p.worst_median();
  if (std::isinf(med)) {
    std::snprintf(b, sizeof b, "nothing %s", p.met ? "ok" : "--");
  } else {
    std::snprintf(b, sizeof b, "%.2f/%.1f %s", 100 * med, 100 * p.worst_share(),
                  p.met ? "ok" : "--");
  }
  return b;
}

void tuning_report(const options& o, const pv::parameters<>& params, std::uint32_t countries,
                   const std::vector<std::string>& project_names,
                   const std::vector<std::string>& country_codes, std::uint64_t day_rows) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t rows = o.tune_rows > 0 ? o.tune_rows : day_rows;
  std::vector<privet::keyed_streams> secrets(o.tune_draws);  // fresh secrets, one per draw
  // The tuning day streams into one bound at the grid's largest k, from the
  // first secret's bounding stream: every k of the grid is read from it.
  auto gen = pv::histogram<>::bounding_stream(secrets.front());
  auto day = pv::bound_per_actor(*std::max_element(o.tune_k.begin(), o.tune_k.end())).start(gen);
  ex::output_set none;  // a tuning day is never written
  const day_stats d = stream_day(o.tune_tsv, rows, o.tune_seed, "", none, project_names,
                                 country_codes, day, o.threads, "streaming a tuning day");
  std::printf(
      "\nparameter selection at the same budget (rho = %g) and candidate filter (t = %lld), on "
      "%s:\n%s\nTuning on the private day itself would spend budget: the parameters would "
      "depend on its un-noised truth, which no privacy map here counts.\n",
      params.budget.rho(), static_cast<long long>(params.candidate_threshold),
      d.description.c_str(),
      o.tune_tsv.empty()
          ? "synthetic data from the example's generator with another seed (the private day "
            "is not read)."
          : "data the caller declares public (e.g. a day already published).");
  const privet::utility_requirements req;  // < 5 % median, 95 % within 50 %
  const auto grid = pv::tune_parameters(day, d.public_counts, params, countries, o.tune_k,
                                        o.tune_tau, secrets, req);
  if (grid.candidate_cells == 0) {
    std::printf(
        "no page of the tuning day reaches t = %lld public views: nothing to tune on a "
        "day this small (time %.2f s).\n",
        static_cast<long long>(params.candidate_threshold), seconds_since(t0));
    return;
  }
  std::size_t k_default = grid.ks.size();
  for (std::size_t i = 0; i < grid.ks.size(); ++i)
    if (grid.ks[i] == params.k) k_default = i;
  std::printf(
      "\neach cell: worst median relative error / worst share within 50 %% over %u noise "
      "draws, in %%; ok = both requirements met on every draw. %zu candidate cells.\n\n| k | "
      "views kept |",
      o.tune_draws, grid.candidate_cells);
  for (const auto tau : grid.taus) std::printf(" tau %lld |", static_cast<long long>(tau));
  std::printf("\n| ---: | ---: |");
  for (std::size_t j = 0; j < grid.taus.size(); ++j) std::printf(" ---: |");
  std::printf("\n");
  for (std::size_t i = 0; i < grid.ks.size(); ++i) {
    const std::string kept = k_default < grid.ks.size() && grid.bounded_views[k_default] > 0
                                 ? pct(grid.bounded_views[i] / grid.bounded_views[k_default]) +
                                       " of k=" + std::to_string(params.k)
                                 : std::to_string(static_cast<long long>(grid.bounded_views[i]));
    std::printf("| %llu | %s |", static_cast<unsigned long long>(grid.ks[i]), kept.c_str());
    for (std::size_t j = 0; j < grid.taus.size(); ++j)
      std::printf(" %s |", grid_cell(grid.at(i, j)).c_str());
    std::printf("\n");
  }
  auto say_tau = [&](std::uint64_t k) {
    const auto t = grid.smallest_tau(k);
    return t ? "tau = " + std::to_string(*t) : std::string("no tau of the grid");
  };
  auto say_k = [&](std::int64_t tau) {
    const auto k = grid.largest_k(tau);
    return k ? "k = " + std::to_string(*k) : std::string("no k of the grid");
  };
  std::printf("\nsmallest tau meeting both, per k:");
  for (const auto k : grid.ks)
    std::printf(" k=%llu: %s;", static_cast<unsigned long long>(k),
                grid.smallest_tau(k) ? std::to_string(*grid.smallest_tau(k)).c_str() : "none");
  std::printf("\n");
  if (std::find(grid.ks.begin(), grid.ks.end(), params.k) != grid.ks.end()) {
    std::printf("at the default k = %llu: the smallest tau that meets both is %s.\n",
                static_cast<unsigned long long>(params.k), say_tau(params.k).c_str());
  }
  if (std::find(grid.taus.begin(), grid.taus.end(), params.release_threshold) != grid.taus.end()) {
    std::printf("at the default tau = %lld: the largest k that meets both is %s.\n",
                static_cast<long long>(params.release_threshold),
                say_k(params.release_threshold).c_str());
  }
  std::printf("(only grid values are tried; time %.2f s)\n", seconds_since(t0));
}

}  // namespace

int main(int argc, char** argv) try {
  options o;
  if (const auto exit_code = parse(argc, argv, o)) return *exit_code;
  const auto& country_list = ex::countries();
  const auto& project_list = ex::projects();
  std::vector<std::string> country_codes, project_names;
  for (const auto& c : country_list) country_codes.emplace_back(c.code);
  for (const auto& p : project_list) project_names.emplace_back(p.name);

  // ---- the pipeline: Wikimedia's published defaults, a fresh secret ---------------
  const pv::parameters<> params;
  // The release's noise from the constant-time sampler (issue 36): every
  // draw takes the same work, so the release's timing says nothing about
  // the noise; the guarantee adds the sampler's distance to the exact law.
  const pv::histogram<pv::bound_per_actor, release_mechanism> h(
      params, static_cast<std::uint32_t>(country_list.size()));
  const privet::keyed_streams streams;  // a fresh secret from the OS CSPRNG

  // ---- the day, read once and bounded per actor as it streams --------------------
  const auto t0 = std::chrono::steady_clock::now();
  auto bounding_gen = pv::histogram<>::bounding_stream(streams);
  std::optional<pv::view_bounder> bounder(h.bounder(bounding_gen));
  // Every file of the run (--write-tsv, the plot and its CSV) appears
  // together at the end, or none does.
  ex::output_set files;
  const day_stats day =
      stream_day(o.tsv, o.rows, o.seed, o.write_tsv, files, project_names, country_codes, *bounder,
                 o.threads, o.tsv.empty() ? "generating a day" : "reading the day");
  const pv::page_counts& public_counts = day.public_counts;
  const std::uint64_t rows = day.rows;
  std::string data = day.description;
  if (o.tsv.empty()) {
    data = "a generated day (seed " + std::to_string(o.seed) + ", " + std::to_string(day.actors) +
           " actors, " + std::to_string(project_list.size()) + " projects, " +
           std::to_string(country_list.size()) +
           " countries; model in examples/support/pageview_generator.hpp)";
  }
  const double t_data = seconds_since(t0);
  std::printf("data: %s\n      %llu rows (%llu malformed rows skipped), %zu pages with views\n",
              data.c_str(), static_cast<unsigned long long>(rows),
              static_cast<unsigned long long>(day.skipped), public_counts.size());
  std::printf(
      "bounding state: %llu actors, %llu (actor, kept tuple) pairs, %.1f MB (%.1f bytes per "
      "pair)\n",
      static_cast<unsigned long long>(bounder->actors()),
      static_cast<unsigned long long>(bounder->state().kept()),
      static_cast<double>(bounder->state().memory_bytes()) / 1e6,
      static_cast<double>(bounder->state().memory_bytes()) /
          static_cast<double>(std::max<std::uint64_t>(1, bounder->state().kept())));
  // No row is a day like any other: its release (empty) is written and
  // reported below, and the exit status does not depend on the data.

  const auto t1 = std::chrono::steady_clock::now();
  const pv::tuple_counts truth = bounder->counts();
  bounder.reset();  // the bounding state is not needed again
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
  const auto spent = h.guarantee();
  const auto as_dp = privet::to_approx_dp(spent, 1e-7);
  std::printf(
      "\nparameters (Wikimedia's published defaults): rho = %g per day, k = %llu distinct "
      "tuples per actor, candidate filter t = %lld public views, release threshold tau = %lld\n"
      "noise: discrete Gaussian, sigma^2 = %.6f (sigma = %.2f), constant-time sampler, on %zu "
      "candidate pages x %zu countries = %zu cells\n"
      "privacy spent per actor per day: %g-zCDP within total variation %.2g (the sampler's "
      "distance to the exact noise, over the %llu cells an actor can change), i.e. (%.4f, "
      "1e-7)-DP (Canonne-Kamath-Steinke conversion)\n",
      params.budget.rho(), static_cast<unsigned long long>(params.k),
      static_cast<long long>(params.candidate_threshold),
      static_cast<long long>(params.release_threshold), h.mechanism().distribution().sigma2(),
      h.mechanism().distribution().sigma(), candidates.size(), country_list.size(),
      candidates.size() * country_list.size(), spent.base().rho(), spent.total_variation(),
      static_cast<unsigned long long>(params.k), as_dp.epsilon());

  // ---- utility --------------------------------------------------------------------
  const std::int64_t tau = params.release_threshold;
  const auto overall = privet::utility(truth, released, tau);
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
  print_table("by continent", privet::utility_by(truth, released, continent, tau));
  print_table("by subregion", privet::utility_by(truth, released, subregion, tau));
  print_table("by country", privet::utility_by(truth, released, country, tau));

  const bool median_ok = overall.median_relative_error < 0.05;
  const bool share_ok = overall.share_below_half >= 0.95;
  std::printf(
      "\nrequirements: median relative error < 5 %%: %s (%s); relative error < 50 %% for 95 %% "
      "of published counts: %s (%s)\n",
      median_ok ? "met" : "NOT met", pct(overall.median_relative_error).c_str(),
      share_ok ? "met" : "NOT met", pct(overall.share_below_half).c_str());
  std::printf(
      "dropped: %s of the %zu non-zero cells, but %s of the views; %s of the %zu cells whose "
      "true count is at least tau = %lld (most non-zero cells of a long-tailed day are counts "
      "of 1 or 2 that no threshold above the noise can keep).\n",
      pct(overall.drop_rate()).c_str(), overall.true_nonzero, pct(overall.view_drop_rate()).c_str(),
      pct(overall.large_drop_rate()).c_str(), overall.true_large, static_cast<long long>(tau));
  if (candidates.empty()) {
    std::printf(
        "nothing was released: no page reached t = %lld public views on a day this small.\n",
        static_cast<long long>(params.candidate_threshold));
  } else if (!median_ok || !share_ok) {
    std::printf(
        "why: the noise (sigma = %.1f) is fixed by rho and k; published counts close to tau = "
        "%lld carry relative errors near sigma / tau. Raising tau trades published cells for "
        "accuracy, lowering k trades coverage of heavy readers for less noise: see the "
        "parameter-selection report below, computed on other data (choosing tau or k from this "
        "day's truth would spend budget).\n",
        h.mechanism().distribution().sigma(), static_cast<long long>(params.release_threshold));
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
  plot.add(dots).add(median).add(limit).write(o.svg, files);
  files.commit();

  const double total = seconds_since(t0);
  std::printf(
      "\ntime: data read and bounded %.2f s (%.2f M rows/s), counts from the bound %.2f s, "
      "noise and release %.2f s (%.2f M cells/s), total %.2f s\nplot: %s\n",
      t_data, static_cast<double>(rows) / t_data / 1e6, t_bound, t_release,
      static_cast<double>(candidates.size() * country_list.size()) / t_release / 1e6, total,
      o.svg.c_str());

  // ---- parameter selection on public or synthetic data ------------------------
  if (o.tune) {
    tuning_report(o, params, static_cast<std::uint32_t>(country_list.size()), project_names,
                  country_codes, rows);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "pageview_histogram: %s\n", e.what());
  return 1;
}
