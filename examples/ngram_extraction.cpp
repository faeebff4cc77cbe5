// DPNE: differentially private n-gram extraction (Kim, Gopi, Kulkarni &
// Yekhanin 2021, "Differentially Private n-gram Extraction", NeurIPS) on real
// English text, against the paper's baselines.
//
//   ngram_extraction [--corpus DIR] [--sample FILE] [--sentences-per-user S]
//                    [--epsilon E] [--delta D] [--length T] [--delta0 D0]
//                    [--eta ETA] [--threads N] [--seed S] [--simulation]
//                    [--exact-sampler] [--only-dpne] [--svg FILE] [--quick]
//                    (--help: defaults)
//
// Text: the sentences of the `nlp-corpus` npm package (fetched by CMake into
// the build tree; DIR holds its builds/doc-*.json), split into users of S
// consecutive sentences each (a partition: every sentence belongs to one
// user); T = 6 by default, as long as the data supports (see `length`).
// Without the corpus, the embedded sample examples/data/ngram_sample.txt is
// used; it is small, so its users are simulated: each writes S sentences
// drawn from a trigram model of the sample (the example says so).
// Words are lower-cased runs of letters and digits (privet::word_tokenizer).
//
// Printed: the data used; the paper's Table 3 layout (k-grams released per
// length) for DPNE and the baselines DPSU-all, DPSU-even, DPSU-single; the
// spurious share of DPNE's output, measured against the true n-gram sets;
// the pruning rules and sigma schedules compared; the coverage of the
// n-grams used by at least K users (K = 10, 50, 100); the privacy spent
// (from the accounting layer); and an SVG plot of the counts per length.
//
// Noise: release-grade and constant time (privet::constant_time_noise, issue
// 36: discrete samplers from the OS CSPRNG whose work does not depend on the
// noise, so a release's timing says nothing about it; the guarantee adds the
// samplers' total variation to the exact noise's, which is printed), unless
// --exact-sampler (privet::secure_noise: the exact, variable-time samplers)
// or --simulation, which switches every method to simulation_only_noise's
// continuous Gaussian (and says so).
#include <privet/algorithms/dpne.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/tokenizer.hpp>

#include "support/command_line.hpp"
#include "support/progress.hpp"
#include "support/svg_plot.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace dpne = privet::dpne;
namespace ex = privet::examples;
using privet::ngram_table;

namespace {

struct options {
  std::string corpus_dir, sample, svg = "ngram_counts.svg";
  std::size_t sentences_per_user = 1;
  double epsilon = 4, delta = 1e-7, eta = 0.01;
  // 0: T = 6 on nlp-corpus, the longest length at which DPNE finds n-grams
  // in every run we made (at T = 7, about half the runs find one 7-gram);
  // the paper's T = 9 on the sample.
  std::size_t length = 0;
  std::uint64_t delta0 = 100;
  unsigned threads = 0;
  std::uint64_t seed = 0;  // 0: the OS CSPRNG
  bool simulation = false, exact_sampler = false, only_dpne = false, quick = false;
};

struct text_data {
  std::string source;
  std::vector<std::vector<std::string>> sentences;  // tokenised
};

text_data load(const options& o) {
  text_data t;
  const privet::word_tokenizer tok;
  auto add = [&](std::string_view s) {
    std::vector<std::string> words;
    tok.for_each(s, [&](std::string_view w) { words.emplace_back(w); });
    if (!words.empty()) t.sentences.push_back(std::move(words));
  };
  if (!o.corpus_dir.empty()) {
    std::vector<std::pair<int, std::filesystem::path>> files;
    for (const auto& e : std::filesystem::directory_iterator(o.corpus_dir)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() == ".json" && name.rfind("doc-", 0) == 0)
        files.emplace_back(std::stoi(name.substr(4)), e.path());
    }
    std::sort(files.begin(), files.end());
    if (o.quick && files.size() > 20) files.resize(20);
    ex::progress bar("reading nlp-corpus", files.size(), "files");
    std::size_t done = 0;
    for (const auto& [n, f] : files) {
      std::ifstream in(f);
      for (const auto& s : nlohmann::json::parse(in)) add(s.get<std::string>());
      bar.update(++done);
    }
    t.source = "nlp-corpus 4.4.0 (npm), " + std::to_string(files.size()) + " files";
  } else {
    std::ifstream in(o.sample);
    if (!in) throw std::runtime_error("cannot open " + o.sample);
    for (std::string line; std::getline(in, line);) add(line);
    t.source = "embedded sample " + std::filesystem::path(o.sample).filename().string();
  }
  // The simulated users of a sample are drawn from a trigram model of it,
  // which needs words: an empty sample is a bad input, not data. A corpus is
  // the users' own text: an empty one is a day with no user, released (empty)
  // like any other, so that the exit status never depends on the data.
  if (t.sentences.empty() && o.corpus_dir.empty())
    throw std::runtime_error("no words in " + t.source +
                             " (the simulated users are drawn from a model of the sample)");
  return t;
}

// The true n-gram sets: for every gram of the index (all lengths <= T),
// the number of distinct users whose text contains it.
std::vector<std::uint32_t> user_counts(const dpne::corpus& c, const dpne::ngram_index& index) {
  std::vector<std::uint32_t> users(index.table().size(), 0);
  std::vector<ngram_table::id> mine;
  for (std::size_t u = 0; u < c.users(); ++u) {
    mine.clear();
    index.user_ngrams(c, u, 1, index.max_length(), mine);
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    for (auto g : mine) ++users[g];
  }
  return users;
}

// A DPNE gram's id in the truth table, if the corpus has it.
std::optional<ngram_table::id> in_truth(const dpne::extraction& r, ngram_table::id g,
                                        const ngram_table& table) {
  const auto words = r.vocabulary_words(g);
  ngram_table::id t = words[0];
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto next = table.find_extension(t, words[i]);
    if (!next) return std::nullopt;
    t = *next;
  }
  return t;
}

std::string thousands(std::size_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

template <class Noise, class G>
int run(const options& o, const text_data& text, G& gen) {
  // ---- users and the truth -------------------------------------------------------
  ngram_table table;
  dpne::corpus corpus;
  const bool simulated_users = o.corpus_dir.empty();
  std::vector<ngram_table::id> ids;
  auto add_sentence = [&](const std::vector<std::string>& s) {
    ids.clear();
    for (const auto& w : s) ids.push_back(table.word(w));
    corpus.add_sequence(ids);
  };
  if (!simulated_users) {
    for (std::size_t i = 0; i < text.sentences.size(); ++i) {
      if (i % o.sentences_per_user == 0) corpus.add_user();
      add_sentence(text.sentences[i]);
    }
  } else {
    // A small sample supports no user-level DP release when split, and
    // repeating its sentences whole would make every n-gram of a sentence
    // exactly as common as its words. Users instead write sentences drawn
    // from a trigram model of the sample (each word follows the two before
    // it as somewhere in the sample), so that, as in real text, an n-gram is
    // rarer the longer it is.
    privet::seeded_generator pop(7);
    const std::string boundary;  // sentence start and end
    std::map<std::pair<std::string, std::string>, std::vector<std::string>> next;
    for (const auto& sentence : text.sentences) {
      std::string a = boundary, b = boundary;
      for (const auto& w : sentence) {
        next[{a, b}].push_back(w);
        a = b;
        b = w;
      }
      next[{a, b}].push_back(boundary);
    }
    const std::size_t user_count = o.quick ? 6000 : 30000;
    std::vector<std::string> sentence;
    for (std::size_t u = 0; u < user_count; ++u) {
      corpus.add_user();
      for (std::size_t j = 0; j < o.sentences_per_user; ++j) {
        sentence.clear();
        std::string a = boundary, b = boundary;
        while (sentence.size() < 40) {
          const auto& options = next.at({a, b});
          const std::string& w = options[privet::uniform_below(pop, options.size())];
          if (w.empty()) break;
          sentence.push_back(w);
          a = b;
          b = w;
        }
        add_sentence(sentence);
      }
    }
  }
  const std::size_t T = o.length;
  const std::size_t words = table.size();
  // The truth (every n-gram up to T and its users): what the baselines count
  // and what the releases are measured against. --only-dpne skips it, to
  // show what DPNE alone needs.
  std::optional<dpne::ngram_index> index;
  std::vector<std::uint32_t> users_of;
  std::vector<std::size_t> distinct(T + 1, 0), shared(3 * (T + 1), 0);
  const std::size_t Ks[] = {10, 50, 100};
  if (!o.only_dpne) {
    index.emplace(corpus, table, T);
    users_of = user_counts(corpus, *index);
    for (ngram_table::id g = 0; g < table.size(); ++g) {
      const std::size_t k = table.length(g);
      ++distinct[k];
      for (std::size_t j = 0; j < 3; ++j) shared[j * (T + 1) + k] += users_of[g] >= Ks[j];
    }
  }

  std::printf("data: %s; %zu sentences, %zu tokens, %zu distinct words, %s\n", text.source.c_str(),
              corpus.sequences(), corpus.tokens(), words,
              simulated_users ? "users SIMULATED: sentences from a trigram model of the sample"
                              : "users = consecutive sentences (a partition of the text)");
  std::printf("users: %s of %zu sentence(s) each", thousands(corpus.users()).c_str(),
              o.sentences_per_user);
  if (index) {
    std::printf("; distinct k-grams, k = 1..%zu:", T);
    for (std::size_t k = 1; k <= T; ++k) std::printf(" %s", thousands(distinct[k]).c_str());
  }
  std::printf(
      "\nparameters: eps = %g, delta = %g, T = %zu, Delta_0 = %llu, eta = %g, %u threads; noise: "
      "%s\n",
      o.epsilon, o.delta, T, static_cast<unsigned long long>(o.delta0), o.eta, o.threads,
      std::is_same_v<Noise, privet::constant_time_noise>
          ? "constant-time discrete samplers (same work for every draw), OS CSPRNG"
      : std::is_same_v<Noise, privet::secure_noise>
          ? "secure (exact discrete samplers, variable time), OS CSPRNG"
          : "SIMULATION ONLY (continuous floating-point Gaussian, not for release)");

  dpne::parameters p;
  p.epsilon = o.epsilon;
  p.delta = o.delta;
  p.max_length = T;
  p.max_ngrams = o.delta0;
  p.eta = o.eta;
  p.threads = o.threads;

  struct method {
    std::string name;
    std::vector<std::size_t> counts;  // per length
    std::size_t total = 0;
    double seconds = 0;
  };
  std::vector<method> methods;
  auto counts_of = [&](const dpne::extraction& r) {
    method m;
    for (std::size_t k = 1; k <= T; ++k) m.counts.push_back(r.released(k).size());
    m.total = r.total();
    return m;
  };

  const std::size_t runs = o.only_dpne ? 1 : 5 + T;
  ex::progress bar("releases", runs, "runs");
  std::size_t done = 0;
  auto timed = [&](auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bar.update(++done);
    return std::pair{std::move(r), s};
  };

  auto [main_run, main_secs] = timed([&] { return dpne::extract<Noise>(corpus, table, p, gen); });
  methods.push_back(counts_of(main_run));
  methods.back().name = "DPNE";
  methods.back().seconds = main_secs;

  std::optional<dpne::extraction> single_side, geometric, all, even;
  std::vector<std::size_t> single_counts(T, 0);
  double single_secs = 0;
  privet::approx_dp single_spent(0, 0);
  if (!o.only_dpne) {
    dpne::parameters ps = p;
    ps.prune = dpne::pruning::single_side;
    auto [r1, s1] = timed([&] { return dpne::extract<Noise>(corpus, table, ps, gen); });
    single_side.emplace(std::move(r1));
    dpne::parameters pg = p;
    pg.decay = 0.9;
    auto [r2, s2] = timed([&] { return dpne::extract<Noise>(corpus, table, pg, gen); });
    geometric.emplace(std::move(r2));
    auto [r3, s3] = timed([&] { return dpne::dpsu_all<Noise>(corpus, *index, p, gen); });
    all.emplace(std::move(r3));
    methods.push_back(counts_of(*all));
    methods.back().name = "DPSU-all";
    methods.back().seconds = s3;
    auto [r4, s4] = timed([&] { return dpne::dpsu_even<Noise>(corpus, *index, p, gen); });
    even.emplace(std::move(r4));
    methods.push_back(counts_of(*even));
    methods.back().name = "DPSU-even";
    methods.back().seconds = s4;
    for (std::size_t k = 1; k <= T; ++k) {
      auto [r, s] = timed([&] { return dpne::dpsu_single<Noise>(corpus, *index, p, k, gen); });
      single_counts[k - 1] = r.released(k).size();
      single_spent = std::max(single_spent, r.privacy().spent, [](const auto& a, const auto& b) {
        return a.epsilon() < b.epsilon();
      });
      single_secs += s;
    }
    bar.update(runs);
  }

  // ---- Table 3 ------------------------------------------------------------------------
  std::printf("\nk-grams released per length (the paper's Table 3 layout):\n\n| k |");
  for (std::size_t k = 1; k <= T; ++k) std::printf(" %zu |", k);
  std::printf(" total |\n| --- |");
  for (std::size_t k = 0; k <= T; ++k) std::printf(" ---: |");
  std::printf("\n");
  for (const auto& m : methods) {
    std::printf("| %s |", m.name.c_str());
    for (auto c : m.counts) std::printf(" %s |", thousands(c).c_str());
    std::printf(" %s |\n", thousands(m.total).c_str());
  }
  if (!o.only_dpne) {
    std::printf("| DPSU-single |");
    for (auto c : single_counts) std::printf(" %s |", thousands(c).c_str());
    std::printf(" – |\n");
  }

  // ---- spurious share, against the true n-gram sets ---------------------------------
  if (o.only_dpne) {
    const auto& pr = main_run.privacy();
    std::printf(
        "\nprivacy spent by DPNE (accounting layer): (%.4f, %.3g)-DP for the target (%g, %g)\n",
        pr.spent.epsilon(), pr.spent.delta(), pr.target.epsilon(), pr.target.delta());
    std::printf(
        "(--only-dpne: no truth table, so no spurious share or coverage)\ntime: DPNE %.2f s\n",
        methods[0].seconds);
    return 0;
  }
  auto spurious = [&](const dpne::extraction& r, std::size_t k) {
    std::size_t n = 0;
    for (auto g : r.released(k))
      if (!in_truth(r, g, table)) ++n;
    return n;
  };
  std::printf("\nDPNE spurious share (released k-grams no user wrote; eta = %g):\n\n| k |", o.eta);
  for (std::size_t k = 1; k <= T; ++k) std::printf(" %zu |", k);
  std::printf(" total |\n| --- |");
  for (std::size_t k = 0; k <= T; ++k) std::printf(" ---: |");
  std::printf("\n| spurious |");
  std::size_t spur_total = 0;
  for (std::size_t k = 1; k <= T; ++k) {
    const std::size_t s = spurious(main_run, k);
    spur_total += s;
    std::printf(" %zu |", s);
  }
  std::printf(" %zu |\n| share |", spur_total);
  for (std::size_t k = 1; k <= T; ++k) {
    const double n = static_cast<double>(main_run.released(k).size());
    std::printf(" %.2f %% |", n > 0 ? 100 * static_cast<double>(spurious(main_run, k)) / n : 0.0);
  }
  const double share = main_run.total() > 0
                           ? static_cast<double>(spur_total) / static_cast<double>(main_run.total())
                           : 0;
  std::printf(" %.2f %% |\n", 100 * share);
  std::printf(
      "(rho_k holds the expected spurious count of length k to eta |S_{k-1}|, so a length whose "
      "output shrinks can exceed eta; the total is the paper's measure)\n");

  // ---- pruning rules and schedules -----------------------------------------------
  if (!o.only_dpne) {
    std::printf(
        "\npruning rules and sigma schedules (DPNE k-grams; spurious share of the total):\n\n| "
        "variant |");
    for (std::size_t k = 1; k <= T; ++k) std::printf(" %zu |", k);
    std::printf(" total | spurious |\n| --- |");
    for (std::size_t k = 0; k <= T + 1; ++k) std::printf(" ---: |");
    std::printf("\n");
    auto row = [&](const char* name, const dpne::extraction& r) {
      std::printf("| %s |", name);
      std::size_t s = 0;
      for (std::size_t k = 1; k <= T; ++k) {
        std::printf(" %s |", thousands(r.released(k).size()).c_str());
        s += spurious(r, k);
      }
      std::printf(
          " %s | %.2f %% |\n", thousands(r.total()).c_str(),
          r.total() > 0 ? 100.0 * static_cast<double>(s) / static_cast<double>(r.total()) : 0.0);
    };
    row("both-side pruning, equal sigma_k", main_run);
    row("single-side pruning, equal sigma_k", *single_side);
    row("both-side pruning, sigma_k = 0.9 sigma_{k-1}", *geometric);
    std::printf("\n|V_k| (candidates) under both-side vs single-side pruning:\n\n| k |");
    for (std::size_t k = 2; k <= T; ++k) std::printf(" %zu |", k);
    std::printf("\n| --- |");
    for (std::size_t k = 2; k <= T; ++k) std::printf(" ---: |");
    std::printf("\n| both-side |");
    for (std::size_t k = 2; k <= T; ++k)
      std::printf(" %s |", thousands(main_run.levels()[k - 1].candidates_exact).c_str());
    std::printf("\n| single-side |");
    for (std::size_t k = 2; k <= T; ++k)
      std::printf(" %s |", thousands(single_side->levels()[k - 1].candidates_exact).c_str());
    std::printf("\n");
  }

  // ---- coverage of the n-grams many users share --------------------------------------
  std::printf(
      "\ncoverage: share of the k-grams used by >= K users that each method released\n\n| method | "
      "K |");
  for (std::size_t k = 1; k <= T; ++k) std::printf(" %zu |", k);
  std::printf("\n| --- | ---: |");
  for (std::size_t k = 1; k <= T; ++k) std::printf(" ---: |");
  std::printf("\n");
  auto coverage_rows = [&](const char* name, const dpne::extraction& r, bool via_truth) {
    std::vector<std::vector<std::uint32_t>> released_users(T + 1);
    for (std::size_t k = 1; k <= T; ++k) {
      for (auto g : r.released(k)) {
        std::optional<ngram_table::id> t = via_truth ? in_truth(r, g, table) : std::optional(g);
        if (t) released_users[k].push_back(users_of[*t]);
      }
    }
    for (std::size_t j = 0; j < 3; ++j) {
      const std::size_t K = Ks[j];
      std::printf("| %s | %zu |", name, K);
      for (std::size_t k = 1; k <= T; ++k) {
        std::size_t hit = 0;
        const std::size_t all_k = shared[j * (T + 1) + k];
        for (auto c : released_users[k]) hit += c >= K;
        if (all_k == 0) {
          std::printf(" – |");
        } else {
          std::printf(" %.1f %% (%zu) |",
                      100.0 * static_cast<double>(hit) / static_cast<double>(all_k), all_k);
        }
      }
      std::printf("\n");
    }
  };
  coverage_rows("DPNE", main_run, true);
  coverage_rows("DPSU-all", *all, false);
  coverage_rows("DPSU-even", *even, false);

  // ---- the paper's orderings, checked ------------------------------------------------
  if (!o.only_dpne) {
    bool beats = methods[0].total > methods[1].total && methods[0].total > methods[2].total;
    std::string lost;
    for (std::size_t k = 3; k <= T; ++k) {
      if (!(methods[0].counts[k - 1] > methods[1].counts[k - 1] &&
            methods[0].counts[k - 1] > methods[2].counts[k - 1])) {
        beats = false;
        lost += " " + std::to_string(k);
      }
    }
    std::printf(
        "\nDPNE releases more than DPSU-all and DPSU-even for every k >= 3 and in total: %s%s\n",
        beats ? "yes" : "NO (k =", beats ? "" : (lost + ")").c_str());
    std::printf("DPNE spurious share %.2f %% %s eta = %g %%\n", 100 * share,
                share <= o.eta ? "<=" : ">", 100 * o.eta);
  }

  // ---- privacy ------------------------------------------------------------------------
  const auto& pr = main_run.privacy();
  std::printf(
      "\nprivacy spent by DPNE (accounting layer): (%.4f, %.3g)-DP for the target (%g, %g)\n  %s\n"
      "  sigma* = %.4f; sigma_1..sigma_T =",
      pr.spent.epsilon(), pr.spent.delta(), pr.target.epsilon(), pr.target.delta(),
      pr.method.c_str(), pr.sigma_star);
  for (double s : pr.sigmas) std::printf(" %.3f", s);
  if (pr.total_variation > 0) {
    std::printf(
        "\n  total variation TV = %.3g to Algorithm 1's law (constant-time samplers: 2^64 "
        "items per length, a bound that does not depend on the data; the spurious grams' "
        "certified pass probability: Delta_0 (2^-48 eta + 2^-70) a length), (1 + e^eps) TV = "
        "%.3g of the delta spent",
        pr.total_variation,
        privet::add_total_variation(privet::approx_dp(pr.spent.epsilon(), 0), pr.total_variation)
            .delta());
  }
  std::printf("; rho_1 = %.3f, rho_k (k >= 2) =", main_run.levels()[0].threshold);
  for (std::size_t k = 2; k <= T; ++k) std::printf(" %.2f", main_run.levels()[k - 1].threshold);
  std::printf("\n");
  if (!o.only_dpne) {
    std::printf(
        "  DPSU-all: (%.4f, %.3g)-DP; DPSU-even: (%.4f, %.3g)-DP; each DPSU-single: (%.4f, "
        "%.3g)-DP "
        "(one length each; not composed)\n",
        all->privacy().spent.epsilon(), all->privacy().spent.delta(),
        even->privacy().spent.epsilon(), even->privacy().spent.delta(), single_spent.epsilon(),
        single_spent.delta());
  }
  std::printf("DPNE per length: |supp H_k|, |V_k|, valid occurrences, spurious drawn:\n");
  for (const auto& l : main_run.levels()) {
    std::printf("  k = %zu: support %s, |V_k| %s, occurrences %s, spurious %llu%s, released %s\n",
                l.length, thousands(l.support).c_str(),
                l.length == 1 ? "-" : thousands(l.candidates_exact).c_str(),
                thousands(l.occurrences).c_str(), static_cast<unsigned long long>(l.spurious),
                l.length == 1              ? ""
                : l.spurious_constant_time ? " (drawn in constant time)"
                                           : " (drawn by the exact, variable-time sampler)",
                thousands(l.released).c_str());
  }

  // ---- plot ---------------------------------------------------------------------------
  ex::svg_plot plot("k-grams released per length", "k (n-gram length)", "k-grams released");
  const char* colours[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd"};
  for (std::size_t m = 0; m < methods.size(); ++m) {
    ex::svg_plot::series s{methods[m].name, {}, {}, true, colours[m % 4]};
    for (std::size_t k = 1; k <= T; ++k) {
      s.x.push_back(static_cast<double>(k));
      s.y.push_back(static_cast<double>(methods[m].counts[k - 1]));
    }
    plot.add(s);
  }
  if (!o.only_dpne) {
    ex::svg_plot::series s{"DPSU-single", {}, {}, true, colours[3]};
    for (std::size_t k = 1; k <= T; ++k) {
      s.x.push_back(static_cast<double>(k));
      s.y.push_back(static_cast<double>(single_counts[k - 1]));
    }
    plot.add(s);
  }
  // The plot, its numbers and Table 3 appear together or not at all.
  ex::output_set files;
  plot.log_y().write(o.svg, files);
  // Table 3 as CSV beside the plot: one row per method, one column per k.
  std::vector<std::string> header{"method"};
  for (std::size_t k = 1; k <= T; ++k) header.push_back("k=" + std::to_string(k));
  header.push_back("total");
  ex::csv_table table3(header);
  for (const auto& m : methods) {
    std::vector<std::string> row{m.name};
    for (auto c : m.counts) row.push_back(std::to_string(c));
    row.push_back(std::to_string(m.total));
    table3.row(row);
  }
  if (!o.only_dpne) {
    std::vector<std::string> row{"DPSU-single"};
    for (auto c : single_counts) row.push_back(std::to_string(c));
    row.push_back("");
    table3.row(row);
  }
  table3.write(ex::csv_beside(o.svg, "table3"), files);
  files.commit();
  std::printf("\ntimes: DPNE %.2f s", methods[0].seconds);
  for (std::size_t m = 1; m < methods.size(); ++m)
    std::printf(", %s %.2f s", methods[m].name.c_str(), methods[m].seconds);
  if (!o.only_dpne) std::printf(", DPSU-single (all k) %.2f s", single_secs);
  std::printf("; plot: %s (numbers: %s, Table 3: %s)\n", o.svg.c_str(),
              ex::csv_beside(o.svg).c_str(), ex::csv_beside(o.svg, "table3").c_str());
  return 0;
}

// The noise the options ask for: constant-time unless --exact-sampler or
// --simulation.
template <class G>
int run_with(const options& o, const text_data& text, G& gen) {
  if (o.simulation) return run<privet::simulation_only_noise>(o, text, gen);
  if (o.exact_sampler) return run<privet::secure_noise>(o, text, gen);
  return run<privet::constant_time_noise>(o, text, gen);
}

}  // namespace

int main(int argc, char** argv) try {
  options o;
#ifdef PRIVET_NLP_CORPUS_DIR
  if (std::filesystem::exists(PRIVET_NLP_CORPUS_DIR)) o.corpus_dir = PRIVET_NLP_CORPUS_DIR;
#endif
#ifdef PRIVET_EXAMPLES_DATA_DIR
  o.sample = std::string(PRIVET_EXAMPLES_DATA_DIR) + "/ngram_sample.txt";
#endif
  std::optional<std::size_t> sentences_per_user, length;
  ex::command_line cli("ngram_extraction",
                       "DPNE (Kim, Gopi, Kulkarni & Yekhanin 2021): differentially private n-gram "
                       "extraction on English text, against the DPSU baselines.");
  cli.input_directory("--corpus", o.corpus_dir,
                      "nlp-corpus builds directory (doc-*.json files); used when present");
  cli.input_file("--sample", o.sample,
                 "text sample, one sentence a line; given, it replaces the corpus");
  cli.count("--sentences-per-user", sentences_per_user, "sentences each user writes S", 1,
            1'000'000, "1 on nlp-corpus, 3 on the sample");
  cli.real("--epsilon", o.epsilon, "privacy budget epsilon", ex::positive);
  cli.real("--delta", o.delta, "privacy budget delta", ex::open_unit);
  // The truth table holds every n-gram up to T: beyond 20 words, sentences
  // of this text share almost nothing, and memory grows with T.
  cli.count("--length", length, "longest n-gram length T", 1, 20,
            "6 on nlp-corpus, 9 on the sample");
  cli.count("--delta0", o.delta0, "n-grams kept per user (Delta_0)", 1, 1'000'000);
  cli.real("--eta", o.eta, "target spurious share eta", ex::open_unit);
  cli.threads("--threads", o.threads);
  cli.count("--seed", o.seed, "seed of a repeatable (not releasable) run; 0: the OS CSPRNG");
  cli.output_file("--svg", o.svg,
                  "plot of the counts per length (and its .csv and Table 3's _table3.csv beside "
                  "it)",
                  "", [](const std::string& p) {
                    return std::vector<std::string>{ex::csv_beside(p), ex::csv_beside(p, "table3")};
                  });
  cli.flag("--simulation", o.simulation,
           "continuous Gaussian noise for every method (simulation only, not for release)");
  cli.flag("--exact-sampler", o.exact_sampler,
           "release with the exact, variable-time discrete samplers (secure_noise) instead of "
           "the constant-time ones");
  cli.flag("--only-dpne", o.only_dpne, "run DPNE alone, without the truth table and baselines");
  cli.flag("--quick", o.quick, "a small run: 20 corpus files, or 6000 simulated users");
  if (auto exit_code = cli.parse(argc, argv)) return *exit_code;
  if (cli.given("--sample")) o.corpus_dir.clear();
  o.sentences_per_user = sentences_per_user.value_or(o.corpus_dir.empty() ? 3 : 1);
  o.length = length.value_or(o.corpus_dir.empty() ? 9 : 6);
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  const text_data text = load(o);
  if (o.seed != 0) {
    // --seed asks for a repeatable experiment, not a release.
    privet::testing::seeded_release_generator gen(o.seed);
    std::printf("randomness: seeded generator (seed %llu), for reproducible runs, not a release\n",
                static_cast<unsigned long long>(o.seed));
    return run_with(o, text, gen);
  }
  privet::csprng& gen = privet::secure_generator();
  return run_with(o, text, gen);
} catch (const std::exception& e) {
  std::fprintf(stderr, "ngram_extraction: %s\n", e.what());
  return 1;
}
