// LDP TrieHH: private discovery of out-of-vocabulary words (Sun, Kairouz,
// Sun, Gascón & Suresh 2024, "Private federated discovery of
// out-of-vocabulary words for Gboard", arXiv:2404.11607, Algorithm 2) on real
// English text.
//
//   oov_discovery [--corpus DIR] [--sample FILE] [--seeds S] [--quick]
//                 [--users-per-layer N] [--max-prefixes E] [--contributions B]
//                 [--typed T] [--vocabulary V]
//
// The scale flags override the defaults below (N users per layer of one
// pass, eta_max, B items per user, T words typed per user, the V most
// frequent words known); the run needs D * N users.
//
// Text: the sentences of the `nlp-corpus` npm package (fetched by CMake into
// the build tree; DIR holds its builds/doc-*.json), or the embedded sample
// examples/data/oov_sample.txt. Words are lower-cased runs of the letters
// a-z. The known vocabulary is the corpus's own most frequent words (a
// stand-in for a common-word list); every other word is out of vocabulary.
// Simulated users each type `typed` words over as many days, drawn from the
// corpus's word stream; each contributes B items to one layer only.
//
// Printed: the data and scale used, the coverage table in the paper's
// layout (GreedySampling and RandomSampling, one and two passes at the same
// total number of users), coverage against epsilon over several seeds, the
// privacy report (item-level LDP, central epsilon after shuffling, the
// approximate k-anonymity), and an SVG plot of coverage against epsilon.
#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/tokenizer.hpp>
#include <privet/sketches/utf8.hpp>

#include "support/progress.hpp"
#include "support/svg_plot.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace th = privet::triehh;
namespace ex = privet::examples;

namespace {

struct scale {
  std::size_t vocabulary;  // known words: the most frequent ones
  std::uint64_t typed;     // words each user types (one a day)
  th::parameters p;        // B, N (one pass), eta_max, D
  std::vector<double> epsilons;
  std::uint64_t seeds;
};

struct corpus {
  std::string source;
  std::vector<std::string> tokens;  // the word stream
};

corpus load(const std::string& dir, const std::string& sample) {
  corpus c;
  const privet::word_tokenizer tok;
  auto add_text = [&](std::string_view text) {
    tok.for_each(text, [&](std::string_view w) {
      if (!w.empty() &&
          std::all_of(w.begin(), w.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; }))
        c.tokens.emplace_back(w);
    });
  };
  std::size_t sentences = 0;
  if (!dir.empty()) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      const auto doc = nlohmann::json::parse(in);
      for (const auto& s : doc) {
        add_text(s.get<std::string>());
        ++sentences;
      }
    }
    c.source = "nlp-corpus (npm), " + std::to_string(files.size()) + " files, " +
               std::to_string(sentences) + " sentences";
  } else {
    std::ifstream in(sample);
    if (!in) throw std::runtime_error("cannot open " + sample);
    for (std::string line; std::getline(in, line); ++sentences) add_text(line);
    c.source = "embedded sample " + sample + ", " + std::to_string(sentences) + " sentences";
  }
  if (c.tokens.empty()) throw std::runtime_error("no words in " + c.source);
  return c;
}

th::word to_word(const std::string& s) {
  return th::word(s.begin(), s.end());
}

struct outcome {
  double coverage, precision;
  std::size_t discovered;
  std::uint64_t last_threshold;
};

}  // namespace

int main(int argc, char** argv) try {
  std::string corpus_dir, sample;
#ifdef PRIVET_NLP_CORPUS_DIR
  if (std::filesystem::exists(PRIVET_NLP_CORPUS_DIR)) corpus_dir = PRIVET_NLP_CORPUS_DIR;
#endif
#ifdef PRIVET_EXAMPLES_DATA_DIR
  sample = std::string(PRIVET_EXAMPLES_DATA_DIR) + "/oov_sample.txt";
#endif
  std::uint64_t seeds_override = 0;
  bool quick = false;
  std::map<std::string, std::uint64_t> overrides;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--corpus")
      corpus_dir = value();
    else if (a == "--sample")
      sample = value(), corpus_dir.clear();
    else if (a == "--seeds")
      seeds_override = std::stoull(value());
    else if (a == "--quick")
      quick = true;
    else if (a == "--users-per-layer" || a == "--max-prefixes" || a == "--contributions" ||
             a == "--typed" || a == "--vocabulary")
      overrides[a] = std::stoull(value());
    else
      throw std::invalid_argument("unknown option " + a);
  }

  const corpus text = load(corpus_dir, sample);
  const bool full = !corpus_dir.empty();
  scale sc;
  if (full) {
    sc = {1000, 20, {}, {2, 4, 6, 8, 10}, 5};
    sc.p.contributions = 4;
    sc.p.users_per_layer = 4000;
    sc.p.max_prefixes = 300;
    sc.p.max_depth = 10;
  } else {
    sc = {60, 10, {}, {2, 6, 10}, 3};
    sc.p.contributions = 2;
    sc.p.users_per_layer = 400;
    sc.p.max_prefixes = 40;
    sc.p.max_depth = 10;
  }
  if (quick) sc.epsilons = {4, 10}, sc.seeds = 2;
  if (seeds_override) sc.seeds = seeds_override;
  for (const auto& [flag, v] : overrides) {
    if (v == 0) throw std::invalid_argument(flag + " must be >= 1");
    if (flag == "--users-per-layer") sc.p.users_per_layer = v;
    if (flag == "--max-prefixes") sc.p.max_prefixes = v;
    if (flag == "--contributions") sc.p.contributions = v;
    if (flag == "--typed") sc.typed = v;
    if (flag == "--vocabulary") sc.vocabulary = static_cast<std::size_t>(v);
  }

  // Vocabulary: the most frequent words; targets: every other word.
  std::unordered_map<std::string, std::uint64_t> freq;
  for (const auto& t : text.tokens) ++freq[t];
  std::vector<std::pair<std::string, std::uint64_t>> ranked(freq.begin(), freq.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::unordered_set<th::word> vocabulary;
  for (std::size_t i = 0; i < std::min(sc.vocabulary, ranked.size()); ++i)
    vocabulary.insert(to_word(ranked[i].first));

  const th::word alphabet = U"abcdefghijklmnopqrstuvwxyz";
  const char32_t eow = U'$';
  const std::uint64_t users_needed = sc.p.max_depth * sc.p.users_per_layer;
  std::printf(
      "data: %s; %zu words, %zu distinct; known vocabulary: the %zu most frequent words\n"
      "scale: %llu simulated users typing %llu words each (one a day), B = %llu items per user, "
      "N = %llu users per layer (one pass) or %llu (each of two passes), eta_max = %llu, "
      "D = %zu, |X| = 27; %llu seeds\n",
      text.source.c_str(), text.tokens.size(), freq.size(), vocabulary.size(),
      static_cast<unsigned long long>(users_needed), static_cast<unsigned long long>(sc.typed),
      static_cast<unsigned long long>(sc.p.contributions),
      static_cast<unsigned long long>(sc.p.users_per_layer),
      static_cast<unsigned long long>(sc.p.users_per_layer / 2),
      static_cast<unsigned long long>(sc.p.max_prefixes), sc.p.max_depth,
      static_cast<unsigned long long>(sc.seeds));

  enum method { greedy_one, random_one, random_two };
  const char* names[] = {"GreedySampling, one pass", "RandomSampling, one pass",
                         "RandomSampling, two passes"};
  // results[method][epsilon index] = outcomes over seeds
  std::vector<std::vector<std::vector<outcome>>> results(
      3, std::vector<std::vector<outcome>>(sc.epsilons.size()));
  ex::progress bar("TrieHH runs", 3 * sc.epsilons.size() * sc.seeds, "runs");
  std::uint64_t done = 0;
  const auto t0 = std::chrono::steady_clock::now();
  double trie_secs = 0;         // inside th::run, without building the populations
  std::uint64_t simulated = 0;  // users who sent a vote, over all runs
  for (std::uint64_t seed = 0; seed < sc.seeds; ++seed) {
    // The population: each user's words drawn from the word stream.
    privet::seeded_generator pop(1000 + seed);
    std::vector<th::user_data> users(users_needed);
    std::unordered_map<th::word, std::uint64_t> typed_total;
    for (auto& u : users) {
      std::map<th::word, std::uint64_t> mine;
      for (std::uint64_t d = 0; d < sc.typed; ++d) {
        const auto& t =
            text.tokens[static_cast<std::size_t>(privet::uniform_below(pop, text.tokens.size()))];
        ++mine[to_word(t)];
      }
      for (const auto& [w, n] : mine) {
        u.emplace_back(w, n);
        typed_total[w] += n;
      }
    }
    double target_total = 0;
    for (const auto& [w, n] : typed_total)
      if (!vocabulary.contains(w) && w.size() <= sc.p.max_depth)
        target_total += static_cast<double>(n);

    for (std::size_t e = 0; e < sc.epsilons.size(); ++e) {
      for (int m = 0; m < 3; ++m) {
        th::parameters p = sc.p;
        p.epsilon = sc.epsilons[e];
        std::size_t passes = 1;
        if (m == random_two) {
          p.users_per_layer /= 2;
          passes = 2;
        }
        // A repeatable experiment, not a release: the test-only marker.
        privet::testing::seeded_release_generator gen(seed * 7919 + e * 31 +
                                                      static_cast<std::uint64_t>(m));
        const auto run_start = std::chrono::steady_clock::now();
        std::vector<th::pass_result> r =
            m == greedy_one
                ? th::run(users, vocabulary, alphabet, eow, p, passes, gen, th::greedy_sampling{})
                : th::run(users, vocabulary, alphabet, eow, p, passes, gen, th::random_sampling{});
        trie_secs +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
        for (const auto& pass : r) simulated += pass.layers.size() * p.users_per_layer;
        double covered = 0;
        std::size_t found = 0, real = 0;
        for (const auto& pass : r) {
          for (const auto& w : pass.discovered) {
            ++found;
            const auto it = typed_total.find(w);
            if (it != typed_total.end()) {
              ++real;
              covered += static_cast<double>(it->second);
            }
          }
        }
        results[static_cast<std::size_t>(m)][e].push_back(
            {target_total > 0 ? covered / target_total : 0,
             found > 0 ? static_cast<double>(real) / static_cast<double>(found) : 1.0, found,
             r.back().layers.empty() ? 0 : r.back().layers.back().threshold});
        bar.update(++done);
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  auto mean = [](const std::vector<outcome>& v, auto field) {
    double s = 0;
    for (const auto& o : v) s += field(o);
    return s / static_cast<double>(v.size());
  };
  auto sd = [&](const std::vector<outcome>& v, auto field) {
    const double m = mean(v, field);
    double s = 0;
    for (const auto& o : v) s += (field(o) - m) * (field(o) - m);
    return v.size() > 1 ? std::sqrt(s / static_cast<double>(v.size() - 1)) : 0.0;
  };
  auto cov = [](const outcome& o) { return o.coverage; };
  auto prec = [](const outcome& o) { return o.precision; };
  auto cnt = [](const outcome& o) { return static_cast<double>(o.discovered); };

  const std::size_t top = sc.epsilons.size() - 1;
  std::printf(
      "\ncoverage of out-of-vocabulary words at epsilon = %g (the paper's Table layout; "
      "mean +- sd over %llu seeds):\n\n| method | coverage | precision | words found |\n"
      "| --- | ---: | ---: | ---: |\n",
      sc.epsilons[top], static_cast<unsigned long long>(sc.seeds));
  for (int m = 0; m < 3; ++m) {
    const auto& v = results[static_cast<std::size_t>(m)][top];
    std::printf("| %s | %.1f %% +- %.1f | %.1f %% | %.1f |\n", names[m], 100 * mean(v, cov),
                100 * sd(v, cov), 100 * mean(v, prec), mean(v, cnt));
  }
  std::printf("\ncoverage against epsilon (mean over seeds):\n\n| epsilon |");
  for (const char* n : names) std::printf(" %s |", n);
  std::printf("\n| ---: | ---: | ---: | ---: |\n");
  for (std::size_t e = 0; e < sc.epsilons.size(); ++e) {
    std::printf("| %g |", sc.epsilons[e]);
    for (int m = 0; m < 3; ++m)
      std::printf(" %.1f %% |", 100 * mean(results[static_cast<std::size_t>(m)][e], cov));
    std::printf("\n");
  }

  // The paper's orderings, checked and stated.
  const double gs = mean(results[greedy_one][top], cov), rs = mean(results[random_one][top], cov),
               rs2 = mean(results[random_two][top], cov);
  std::printf(
      "\norderings at epsilon = %g: RandomSampling %s GreedySampling (%.1f vs %.1f %%); "
      "two passes %s one pass (%.1f vs %.1f %%)\n",
      sc.epsilons[top], rs >= gs ? ">=" : "<", 100 * rs, 100 * gs, rs2 >= rs ? ">=" : "<",
      100 * rs2, 100 * rs);

  // Privacy, from the accounting layer.
  th::parameters at = sc.p;
  at.epsilon = sc.epsilons[top];
  const auto rep = th::report(at, 1e-10);
  std::printf(
      "\nprivacy spent at epsilon = %g: item-level %g-LDP per report; each user joins one "
      "layer, so layers compose in parallel; after shuffling the N B = %llu reports of a "
      "layer: (%.4f, 1e-10)-DP by the numerical bound (Feldman, McMillan & Talwar 2021)",
      at.epsilon, rep.local->epsilon(), static_cast<unsigned long long>(rep.reports_per_layer),
      rep.central_numerical->epsilon());
  if (rep.central_closed_form) {
    std::printf(", (%.4f, 1e-10)-DP by the closed form\n", rep.central_closed_form->epsilon());
  } else {
    std::printf("; the closed form does not apply at this n and epsilon\n");
  }
  const std::uint64_t tau = th::typical_threshold(at, 27);
  std::printf(
      "approximate k-anonymity (Lemma 1, alpha = 0.5, typical threshold %llu): prefixes "
      "contributed at most %llu times are kept with probability <= 0.5\n",
      static_cast<unsigned long long>(tau),
      static_cast<unsigned long long>(th::approximate_k_anonymity(at, 27, tau, 0.5)));

  ex::svg_plot plot("LDP TrieHH: coverage of out-of-vocabulary words", "epsilon",
                    "coverage (share of OOV contributions)");
  const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c"};
  for (int m = 0; m < 3; ++m) {
    ex::svg_plot::series s{names[m], {}, {}, true, colours[m]};
    for (std::size_t e = 0; e < sc.epsilons.size(); ++e) {
      s.x.push_back(sc.epsilons[e]);
      s.y.push_back(mean(results[static_cast<std::size_t>(m)][e], cov));
    }
    plot.add(s);
  }
  plot.y_range(0, 1).write("oov_coverage.svg");
  const std::size_t runs = 3 * sc.epsilons.size() * sc.seeds;
  std::printf(
      "\n%zu runs in %.1f s (TrieHH itself %.1f s, %.0f ms a run, %.0f users/s); plot: "
      "oov_coverage.svg\n",
      runs, secs, trie_secs, 1000 * trie_secs / static_cast<double>(runs),
      static_cast<double>(simulated) / trie_secs);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "oov_discovery: %s\n", e.what());
  return 1;
}
