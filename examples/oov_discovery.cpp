// LDP TrieHH: private discovery of out-of-vocabulary words (Sun, Kairouz,
// Sun, Gascón & Suresh 2024, "Private federated discovery of
// out-of-vocabulary words for Gboard", arXiv:2404.11607, Algorithm 2) on real
// English text, at the paper's parameters.
//
//   oov_discovery [--corpus DIR] [--sample FILE] [--seeds S] [--quick] [--sweep]
//                 [--users-per-layer N] [--max-prefixes E] [--contributions B]
//                 [--depth D] [--typed T] [--vocabulary V] [--held-out H]
//                 [--exact-users N]
//
// Defaults on the corpus are the paper's: B = 60 items per user, eta_max =
// 10^4, D = 15 layers, eps = 10 per report, delta = 1e-10, N = 10^6 users
// per layer, so one pass hears D N = 1.5 x 10^7 users (two passes: N / 2
// per layer each, the same total); one seed (--seeds S for more). The
// default run is Table 1; --sweep adds Figure 1 (7 more runs a seed);
// --quick is a smoke test.
//
// Text: the sentences of the `nlp-corpus` npm package (fetched by CMake into
// the build tree; DIR holds its builds/doc-*.json), or the embedded sample
// examples/data/oov_sample.txt. Words are lower-cased runs of the letters
// a-z, so |X| = 26 letters plus the end-of-word symbol. The known
// vocabulary is the corpus's V most frequent words (a stand-in for a
// common-word list).
//
// Typing model (what decides whether B binds): user i types T words
// (default 60: the paper's T = 60 days at one word a day on average), each
// drawn independently and uniformly from the corpus's word stream (so with
// the corpus's word frequencies), a counter-based hash of (seed, i)
// choosing them. 28.8 % of the stream is out of vocabulary, so a user holds
// about 17 out-of-vocabulary words (sd 3.5): B = 60 never binds and the two
// samplers coincide. --typed 300 (about 86 out-of-vocabulary words) makes B
// bind at the first layers, where most of them have a valid prefix: that is
// where RandomSampling beats GreedySampling (at N = 64 000: 82.4 against
// 76.3 %, the paper's 83.1 and 77.1). More words a user means more signal:
// at N = 10^6, T = 20 / 60 / 208 / 300 give 65.9 / 81.1 / 88.9 / 89.4 %
// one-pass RandomSampling coverage against the same 90.0 % ceiling.
//
// Target words: every out-of-vocabulary word of the corpus with at most D
// letters (what D layers can spell). Coverage (the paper's measure): the
// share of the target words' contributions (typings) by a held-out group of
// H users (default 10^5), who vote in no layer, that belongs to discovered
// words (triehh::coverage). The no-noise ceiling is the same run at eps =
// inf.
//
// Paths: every run goes through the library's server by the distribution
// path (triehh::run_distribution: each user's local step exactly, then
// each candidate's count drawn from Bin(a_c, p) + Bin(N B - a_c, q)); a
// cross-check runs the exact per-user path (triehh::run, every client's B
// subset-selection reports) and the distribution path on the same users at
// a smaller N (--exact-users, default 5000; 0 skips it).
//
// Printed: data and scale, Table 1's layout (GreedySampling, RandomSampling,
// RandomSampling two passes at eps = 10) with the no-noise ceiling, Figure
// 1's coverage against eps (2 to 14; with --sweep, or on the sample), the
// exact cross-check, the privacy report (local eps, central eps after
// shuffling by FMT 2021's numerical bound and closed form, both of which
// hold for subset selection; FMT 2023's does not, see accounting/shuffle.hpp), approximate
// k-anonymity at alpha = 0.95, per layer), times, and with the figure the
// plot oov_coverage.svg.
#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/algorithms/triehh_simulation.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/lazy_range.hpp>
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
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace th = privet::triehh;
namespace ex = privet::examples;

namespace {

struct corpus {
  std::string source;
  std::vector<th::word> words;        // distinct words, most frequent first
  std::vector<std::uint64_t> counts;  // their frequencies
  std::vector<std::uint32_t> stream;  // the word stream, as indices into words
};

corpus load(const std::string& dir, const std::string& sample) {
  std::vector<std::string> tokens;
  const privet::word_tokenizer tok;
  auto add_text = [&](std::string_view text) {
    tok.for_each(text, [&](std::string_view w) {
      if (!w.empty() &&
          std::all_of(w.begin(), w.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; }))
        tokens.emplace_back(w);
    });
  };
  corpus c;
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
  if (tokens.empty()) throw std::runtime_error("no words in " + c.source);
  std::unordered_map<std::string, std::uint64_t> freq;
  for (const auto& t : tokens) ++freq[t];
  std::vector<std::pair<std::string, std::uint64_t>> ranked(freq.begin(), freq.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::unordered_map<std::string, std::uint32_t> index;
  for (const auto& [w, n] : ranked) {
    index.emplace(w, static_cast<std::uint32_t>(c.words.size()));
    c.words.emplace_back(w.begin(), w.end());
    c.counts.push_back(n);
  }
  c.stream.reserve(tokens.size());
  for (const auto& t : tokens) c.stream.push_back(index.at(t));
  return c;
}

// SplitMix64's finaliser (Steele, Lea & Flood 2014): a counter-based hash,
// so that user i's words are a function of (seed, i) alone and any thread
// can draw any user.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The typing model: user i types `typed` words, each a uniform draw from the
// word stream. A user is a list of references into the corpus's words (a
// triehh::typed_words range), built when the library asks for it. Known
// words are left out of the list, since a client never votes for one and
// coverage counts only targets: the number K of out-of-vocabulary words
// among the T is drawn from Bin(T, share of out-of-vocabulary words) by
// inversion, then K draws from the out-of-vocabulary part of the stream,
// which is the same law as T draws with the known ones dropped.
struct typing_model {
  const corpus* text;
  const std::vector<std::uint32_t>* oov_stream;  // the stream without known words
  const std::vector<double>* oov_count_cdf;      // P[K <= k], k = 0..T
  std::uint64_t seed;

  std::vector<std::pair<const th::word&, std::uint64_t>> operator()(std::uint64_t i) const {
    std::vector<std::pair<const th::word&, std::uint64_t>> out;
    const std::uint64_t base = mix(seed ^ mix(i));
    const double u = static_cast<double>(base >> 11) * 0x1p-53;
    const auto k = static_cast<std::size_t>(
        std::upper_bound(oov_count_cdf->begin(), oov_count_cdf->end() - 1, u) -
        oov_count_cdf->begin());
    out.reserve(k);
    const auto n = static_cast<privet::detail::uint128>(oov_stream->size());
    for (std::uint64_t j = 0; j < k; ++j) {
      // Multiply-shift to [0, n): bias below n / 2^64, about 10^-13 here.
      const auto pos = static_cast<std::size_t>((mix(base + 1 + j) * n) >> 64);
      out.emplace_back(text->words[(*oov_stream)[pos]], 1);
    }
    return out;
  }
};

enum class method { greedy_one, random_one, random_two };
const char* const method_names[] = {"GreedySampling, one pass", "RandomSampling, one pass",
                                    "RandomSampling, two passes"};

struct outcome {
  double coverage = 0;
  double precision = 0;  // share of the discovered words that occur in the corpus
  std::size_t discovered = 0;
  std::vector<th::layer_stats> layers;  // every pass's, in order
  double seconds = 0;
};

struct experiment {
  const corpus* text;
  std::unordered_set<th::word> vocabulary, targets, corpus_words;
  std::vector<std::uint32_t> oov_stream;
  std::vector<double> oov_count_cdf;
  std::uint64_t typed, held_out;
  th::word alphabet = U"abcdefghijklmnopqrstuvwxyz";
  char32_t eow = U'$';

  th::coverage_result measure(const std::vector<th::pass_result>& r, std::uint64_t seed) const {
    // The held-out users: the same model under another seed.
    const typing_model held{text, &oov_stream, &oov_count_cdf, mix(seed) ^ 0x48454c444f5554ull};
    const auto users = privet::detail::generated(static_cast<std::size_t>(held_out), held);
    return th::coverage(th::discovered_words(r), targets, users);
  }

  outcome summarise(const std::vector<th::pass_result>& r, std::uint64_t seed, double secs) const {
    outcome o;
    o.coverage = measure(r, seed).value();
    std::size_t real = 0;
    for (const auto& pass : r) {
      for (const auto& w : pass.discovered) {
        ++o.discovered;
        real += corpus_words.contains(w) ? 1 : 0;
      }
      o.layers.insert(o.layers.end(), pass.layers.begin(), pass.layers.end());
    }
    o.precision = o.discovered ? static_cast<double>(real) / static_cast<double>(o.discovered) : 1;
    o.seconds = secs;
    return o;
  }

  // One run by the distribution path over a population drawn under `seed`.
  outcome run(method m, th::parameters p, std::uint64_t seed) const {
    std::size_t passes = 1;
    if (m == method::random_two) {
      p.users_per_layer = std::max<std::uint64_t>(1, p.users_per_layer / 2);
      passes = 2;
    }
    const typing_model users{text, &oov_stream, &oov_count_cdf, seed};
    const std::uint64_t population = passes * p.max_depth * p.users_per_layer;
    privet::seeded_generator gen(seed * 7919 + static_cast<std::uint64_t>(m) * 31 +
                                 static_cast<std::uint64_t>(std::isinf(p.epsilon) ? 0 : p.epsilon));
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = m == method::greedy_one
                       ? th::run_distribution(users, population, vocabulary, alphabet, eow, p,
                                              passes, gen, th::greedy_sampling{})
                       : th::run_distribution(users, population, vocabulary, alphabet, eow, p,
                                              passes, gen, th::random_sampling{});
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return summarise(r, seed, secs);
  }
};

double mean(const std::vector<outcome>& v, double outcome::*f) {
  double s = 0;
  for (const auto& o : v) s += o.*f;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}
double sd(const std::vector<outcome>& v, double outcome::*f) {
  const double m = mean(v, f);
  double s = 0;
  for (const auto& o : v) s += (o.*f - m) * (o.*f - m);
  return v.size() > 1 ? std::sqrt(s / static_cast<double>(v.size() - 1)) : 0.0;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string corpus_dir, sample;
#ifdef PRIVET_NLP_CORPUS_DIR
  if (std::filesystem::exists(PRIVET_NLP_CORPUS_DIR)) corpus_dir = PRIVET_NLP_CORPUS_DIR;
#endif
#ifdef PRIVET_EXAMPLES_DATA_DIR
  sample = std::string(PRIVET_EXAMPLES_DATA_DIR) + "/oov_sample.txt";
#endif
  bool quick = false, sweep = false;
  std::optional<std::uint64_t> seeds_opt, users_opt, prefixes_opt, contributions_opt, typed_opt,
      vocabulary_opt, depth_opt, held_out_opt, exact_opt;
  privet::examples::command_line cli(
      "oov_discovery",
      "LDP TrieHH (Gboard's private discovery of out-of-vocabulary words) at the paper's "
      "parameters on nlp-corpus text: Table 1 (GreedySampling, RandomSampling, two passes) and, "
      "with --sweep, Figure 1's coverage against epsilon, with the privacy report.");
  const std::string corpus_default = corpus_dir.empty() ? "none (not fetched)" : corpus_dir;
  cli.input_directory("--corpus", corpus_dir, "nlp-corpus's builds directory", corpus_default);
  cli.input_file("--sample", sample, "a text file to run on instead of the corpus");
  cli.flag("--quick", quick, "a small run (the test suite's)");
  cli.flag("--sweep", sweep, "also coverage against epsilon 2..14 (Figure 1; minutes)");
  cli.count("--seeds", seeds_opt, "seeds per table entry", 1, 100,
            "1 on the corpus, 3 on a sample, 1 with --quick");
  cli.count("--users-per-layer", users_opt, "N: users per layer", 1, 100'000'000,
            "10^6 on the corpus, 2000 on a sample");
  cli.count("--max-prefixes", prefixes_opt, "eta_max: prefixes kept per layer", 1, 10'000'000,
            "10^4 on the corpus, 200 on a sample");
  cli.count("--contributions", contributions_opt, "B: items each user reports per layer", 1,
            100'000, "60");
  cli.count("--typed", typed_opt, "T: words each user types (the typing model)", 1, 1'000'000,
            "60 on the corpus (the paper's 60 days, a word a day), 10 on a sample");
  cli.count("--vocabulary", vocabulary_opt, "the most frequent words that count as in-vocabulary",
            1, 100'000'000, "1000 on the corpus, 60 on a sample");
  cli.count("--depth", depth_opt, "D: layers (longest word found: D letters)", 1, 64,
            "15 on the corpus, 10 on a sample");
  cli.count("--held-out", held_out_opt, "held-out users coverage is counted on", 1, 100'000'000,
            "10^5 on the corpus, 5000 on a sample");
  cli.count("--exact-users", exact_opt, "N of the exact per-user cross-check (0 skips it)", 0,
            10'000'000, "5000 on the corpus, 500 on a sample");
  // The figure (and its CSV) goes to the working directory whenever it is
  // drawn (below: with --sweep, or on a sample): checked like any output.
  cli.fixed_output(
      "the figure",
      [&]() -> std::string {
        const bool on_corpus = !corpus_dir.empty() && !cli.given("--sample");
        return sweep || !on_corpus ? "oov_coverage.svg" : "";
      },
      privet::examples::with_csv_beside);
  if (auto exit_code = cli.parse(argc, argv)) return *exit_code;
  if (cli.given("--sample")) corpus_dir.clear();

  const corpus text = load(corpus_dir, sample);
  const bool full = !corpus_dir.empty();
  // One seed keeps the paper-scale table within 10 minutes on 2 cores.
  const std::uint64_t full_default_seeds = full ? 1 : 3;
  th::parameters p;  // the paper's: eps = 10, B = 60, eta_max = 10^4, D = 15
  p.users_per_layer = 1'000'000;
  std::uint64_t typed = 60, vocabulary_size = 1000, held_out = 100'000, exact_users = 5000;
  std::uint64_t seeds = full_default_seeds;
  std::vector<double> epsilons{2, 4, 6, 8, 10, 12, 14};
  const double table_epsilon = 10, delta = 1e-10;
  if (!full) {  // the embedded sample: a few thousand words
    p.users_per_layer = 2000;
    p.max_prefixes = 200;
    p.max_depth = 10;
    vocabulary_size = 60;
    typed = 10;
    held_out = 5000;
    exact_users = 500;
  }
  if (quick) {
    p.users_per_layer = std::min<std::uint64_t>(p.users_per_layer, 2000);
    p.max_prefixes = std::min<std::uint64_t>(p.max_prefixes, 200);
    held_out = std::min<std::uint64_t>(held_out, 5000);
    exact_users = std::min<std::uint64_t>(exact_users, 500);
    epsilons = {4, 10};
    seeds = 1;
  }
  if (seeds_opt) seeds = *seeds_opt;
  if (users_opt) p.users_per_layer = *users_opt;
  if (prefixes_opt) p.max_prefixes = *prefixes_opt;
  if (contributions_opt) p.contributions = *contributions_opt;
  if (depth_opt) p.max_depth = static_cast<std::size_t>(*depth_opt);
  if (typed_opt) typed = *typed_opt;
  if (vocabulary_opt) vocabulary_size = *vocabulary_opt;
  if (held_out_opt) held_out = *held_out_opt;
  if (exact_opt) exact_users = *exact_opt;
  p.epsilon = table_epsilon;
  p.validate();

  experiment x{&text, {}, {}, {}, {}, {}, typed, held_out};
  for (std::uint32_t w : text.stream)
    if (w >= vocabulary_size) x.oov_stream.push_back(w);
  {
    // P[K <= k] for K ~ Bin(T, share), by the pmf recurrence.
    const double share =
        static_cast<double>(x.oov_stream.size()) / static_cast<double>(text.stream.size());
    double pmf = std::pow(1 - share, static_cast<double>(typed)), cdf = 0;
    for (std::uint64_t k = 0; k <= typed; ++k) {
      cdf += pmf;
      x.oov_count_cdf.push_back(std::min(cdf, 1.0));
      pmf *= share / (1 - share) * static_cast<double>(typed - k) / static_cast<double>(k + 1);
    }
    x.oov_count_cdf.back() = 1;
  }
  for (std::size_t i = 0; i < text.words.size(); ++i) {
    x.corpus_words.insert(text.words[i]);
    if (i < vocabulary_size) {
      x.vocabulary.insert(text.words[i]);
    } else if (text.words[i].size() <= p.max_depth) {
      x.targets.insert(text.words[i]);
    }
  }
  std::uint64_t oov_tokens = 0, target_tokens = 0;
  for (std::size_t i = vocabulary_size; i < text.words.size(); ++i) {
    oov_tokens += text.counts[i];
    if (text.words[i].size() <= p.max_depth) target_tokens += text.counts[i];
  }
  std::printf(
      "data: %s; %zu words, %zu distinct; known vocabulary: the %zu most frequent words; "
      "out-of-vocabulary: %.1f %% of the words\n"
      "target words: the %zu out-of-vocabulary words of at most D = %zu letters (%.1f %% of the "
      "out-of-vocabulary words typed)\n"
      "typing model: each user types %llu words drawn from the word stream; coverage counted on "
      "%llu held-out users\n"
      "scale (the paper's Table 1): eps = %g, B = %llu, eta_max = %llu, D = %zu, |X| = 27, "
      "N = %llu users per layer (%llu users in all; two passes: N / 2 per layer each); "
      "%llu seeds\n",
      text.source.c_str(), text.stream.size(), text.words.size(), x.vocabulary.size(),
      100.0 * static_cast<double>(oov_tokens) / static_cast<double>(text.stream.size()),
      x.targets.size(), p.max_depth,
      oov_tokens ? 100.0 * static_cast<double>(target_tokens) / static_cast<double>(oov_tokens)
                 : 0.0,
      static_cast<unsigned long long>(typed), static_cast<unsigned long long>(held_out), p.epsilon,
      static_cast<unsigned long long>(p.contributions),
      static_cast<unsigned long long>(p.max_prefixes), p.max_depth,
      static_cast<unsigned long long>(p.users_per_layer),
      static_cast<unsigned long long>(p.users_per_layer * p.max_depth),
      static_cast<unsigned long long>(seeds));

  const auto t_start = std::chrono::steady_clock::now();
  // The figure is the long part at the paper's scale: behind --sweep there.
  const std::uint64_t figure_seeds = sweep || !full ? seeds : 0;
  std::uint64_t total_runs = 3 * seeds + seeds + epsilons.size() * figure_seeds;
  ex::progress bar("TrieHH runs", total_runs, "runs");
  std::uint64_t done = 0;
  double run_secs = 0;
  std::uint64_t runs = 0;
  auto record = [&](const outcome& o) {
    run_secs += o.seconds;
    ++runs;
    bar.update(++done);
  };

  // Table 1: the three methods at eps = 10.
  std::vector<std::vector<outcome>> table(3);
  std::vector<outcome> ceiling;
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    for (int m = 0; m < 3; ++m) {
      table[static_cast<std::size_t>(m)].push_back(x.run(static_cast<method>(m), p, seed));
      record(table[static_cast<std::size_t>(m)].back());
    }
    th::parameters exact = p;
    exact.epsilon = std::numeric_limits<double>::infinity();
    ceiling.push_back(x.run(method::random_one, exact, seed));
    record(ceiling.back());
  }
  // Figure 1: RandomSampling, one pass, against eps.
  std::vector<std::vector<outcome>> figure(epsilons.size());
  for (std::uint64_t seed = 0; seed < figure_seeds; ++seed) {
    for (std::size_t e = 0; e < epsilons.size(); ++e) {
      th::parameters q = p;
      q.epsilon = epsilons[e];
      if (q.epsilon == table_epsilon && seed < table[1].size()) {
        figure[e].push_back(table[1][seed]);  // already run
        bar.update(++done);
        continue;
      }
      figure[e].push_back(x.run(method::random_one, q, seed));
      record(figure[e].back());
    }
  }

  std::printf(
      "\nTable 1's layout: coverage at eps = %g (mean +- sd over %llu seeds; distribution "
      "path)\n\n| method | coverage | precision | words found |\n| --- | ---: | ---: | ---: |\n",
      table_epsilon, static_cast<unsigned long long>(seeds));
  for (int m = 0; m < 3; ++m) {
    const auto& v = table[static_cast<std::size_t>(m)];
    double words = 0;
    for (const auto& o : v) words += static_cast<double>(o.discovered);
    std::printf("| %s | %.1f %% +- %.1f | %.1f %% | %.0f |\n", method_names[m],
                100 * mean(v, &outcome::coverage), 100 * sd(v, &outcome::coverage),
                100 * mean(v, &outcome::precision), words / static_cast<double>(v.size()));
  }
  std::printf("| no noise (eps = inf), RandomSampling, one pass | %.1f %% +- %.1f | %.1f %% | |\n",
              100 * mean(ceiling, &outcome::coverage), 100 * sd(ceiling, &outcome::coverage),
              100 * mean(ceiling, &outcome::precision));

  if (figure_seeds > 0)
    std::printf(
        "\nFigure 1: coverage against eps, RandomSampling, one pass (%llu seed%s; no-noise "
        "ceiling %.1f %%)\n\n| eps | coverage | words found |\n| ---: | ---: | ---: |\n",
        static_cast<unsigned long long>(figure_seeds), figure_seeds > 1 ? "s" : "",
        100 * mean(ceiling, &outcome::coverage));
  for (std::size_t e = 0; e < epsilons.size() && figure_seeds > 0; ++e) {
    double words = 0;
    for (const auto& o : figure[e]) words += static_cast<double>(o.discovered);
    std::printf("| %g | %.1f %% | %.0f |\n", epsilons[e], 100 * mean(figure[e], &outcome::coverage),
                words / static_cast<double>(figure[e].size()));
  }

  const double gs = mean(table[0], &outcome::coverage), rs = mean(table[1], &outcome::coverage),
               rs2 = mean(table[2], &outcome::coverage);
  std::printf(
      "\norderings at eps = %g: RandomSampling %s GreedySampling (%.1f vs %.1f %%); two passes "
      "%s one pass (%.1f vs %.1f %%)%s\n",
      table_epsilon, rs >= gs ? ">=" : "<", 100 * rs, 100 * gs, rs2 >= rs ? ">=" : "<", 100 * rs2,
      100 * rs,
      typed <= p.contributions ? "; B does not bind at this typing model, so the samplers coincide"
                               : "");

  // The exact per-user path against the distribution path on the same users.
  if (exact_users > 0) {
    th::parameters small = p;
    small.users_per_layer = exact_users;
    const typing_model model{&text, &x.oov_stream, &x.oov_count_cdf, 5000};
    std::vector<th::user_data> users(static_cast<std::size_t>(small.max_depth * exact_users));
    for (std::size_t i = 0; i < users.size(); ++i)
      for (const auto& [w, n] : model(i)) users[i].emplace_back(w, n);
    privet::testing::seeded_release_generator gen(77);  // repeatable, not a release
    auto t0 = std::chrono::steady_clock::now();
    const auto exact = th::run(users, {}, x.alphabet, x.eow, small, 1, gen);
    const double exact_secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // The same users in the order the exact run gave them to its layers.
    std::vector<std::uint64_t> order;
    for (const auto& g : exact[0].groups) order.insert(order.end(), g.begin(), g.end());
    const th::user_data none;
    auto in_order = [&](std::uint64_t i) -> const th::user_data& {
      return order[i] < users.size() ? users[order[i]] : none;
    };
    privet::seeded_generator sim(78);
    t0 = std::chrono::steady_clock::now();
    const auto dist =
        th::run_distribution(in_order, order.size(), {}, x.alphabet, x.eow, small, 1, sim);
    const double dist_secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto a = x.summarise(exact, 5000, exact_secs), b = x.summarise(dist, 5000, dist_secs);
    std::printf(
        "\nexact cross-check at N = %llu (%llu users, RandomSampling, eps = %g): exact per-user "
        "path %.1f %% coverage, %zu words, %.1f s (%.0f users/s); distribution path %.1f %%, "
        "%zu words, %.1f s\n",
        static_cast<unsigned long long>(exact_users), static_cast<unsigned long long>(users.size()),
        small.epsilon, 100 * a.coverage, a.discovered, exact_secs,
        static_cast<double>(users.size()) / exact_secs, 100 * b.coverage, b.discovered, dist_secs);
  }

  // Privacy, from the accounting layer.
  const auto rep = th::report(p, delta);
  std::printf(
      "\nprivacy at eps = %g: item-level %g-LDP per report; user level, a client's B reports "
      "together: %g-LDP (basic composition); each user joins one layer, so "
      "layers compose in parallel; after shuffling the N B = %llu reports of a layer: "
      "(%.4f, %g)-DP item level by the numerical bound (Feldman, McMillan & Talwar 2021)",
      p.epsilon, rep.local->epsilon(), rep.local_per_user->epsilon(),
      static_cast<unsigned long long>(rep.reports_per_layer), rep.central_numerical->epsilon(),
      delta);
  // Subset selection is outside the class that FMT 2023's errata allows,
  // so the closed form is FMT 2021's, which holds for every eps0-LDP randomiser.
  if (rep.central_closed_form) {
    std::printf(", (%.4f, %g)-DP by the closed form (FMT 2021, any eps0-LDP randomiser)\n",
                rep.central_closed_form->epsilon(), delta);
  } else {
    std::printf("; the closed form (FMT 2021) does not apply at this n and eps\n");
  }
  // Approximate k-anonymity (Lemma 1) at alpha = 0.95: the typical
  // threshold, then each layer of the first RandomSampling run with its own
  // candidate count and threshold. A layer with at most eta_max candidates
  // keeps every candidate with a vote (tau = 1), whoever contributed: it
  // selects nothing and has no figure.
  const double alpha = 0.95;
  const std::uint64_t tau = th::typical_threshold(p, 27);
  if (const auto k = th::approximate_k_anonymity(p, 27, tau, alpha)) {
    std::printf(
        "approximate k-anonymity (Lemma 1, alpha = %g) at the typical threshold tau = %llu "
        "(%llu candidates): a prefix contributed at most %llu times among a layer's N B reports "
        "is kept with probability <= %g, so kept prefixes are %g-approximately %llu-anonymous\n",
        alpha, static_cast<unsigned long long>(tau),
        static_cast<unsigned long long>(p.max_prefixes * 27), static_cast<unsigned long long>(*k),
        1 - alpha, alpha, static_cast<unsigned long long>(*k + 1));
  } else {
    std::printf(
        "approximate k-anonymity (Lemma 1, alpha = %g) at the typical threshold tau = %llu: "
        "none: other users' reports alone reach it with probability above %g\n",
        alpha, static_cast<unsigned long long>(tau), 1 - alpha);
  }
  if (!table[1].empty()) {
    std::printf("per layer of the first RandomSampling run (layer: candidates, tau, k):");
    std::optional<std::uint64_t> least;
    std::size_t selecting = 0, without = 0;
    for (const auto& l : table[1].front().layers) {
      if (l.candidates <= p.max_prefixes) {
        std::printf(" %u: %llu, keeps all;", l.layer,
                    static_cast<unsigned long long>(l.candidates));
        continue;
      }
      ++selecting;
      const auto k = th::approximate_k_anonymity(p, l, alpha);
      std::printf(" %u: %llu, %llu, ", l.layer, static_cast<unsigned long long>(l.candidates),
                  static_cast<unsigned long long>(l.threshold));
      if (k) {
        std::printf("%llu;", static_cast<unsigned long long>(*k));
        if (!least || *k < *least) least = k;
      } else {
        std::printf("none;");
        ++without;
      }
    }
    std::printf("\nsmallest k over the %zu selecting layers: ", selecting);
    if (least) {
      std::printf("%llu (%zu without a figure)\n", static_cast<unsigned long long>(*least),
                  without);
    } else {
      std::printf("none\n");
    }
  }

  ex::svg_plot plot("LDP TrieHH: coverage of out-of-vocabulary words", "epsilon",
                    "coverage (held-out target contributions)");
  ex::svg_plot::series s{method_names[1], {}, {}, true, "#d62728"};
  ex::svg_plot::series top{"no noise (eps = inf)", {}, {}, true, "#7f7f7f"};
  for (std::size_t e = 0; e < epsilons.size(); ++e) {
    s.x.push_back(epsilons[e]);
    s.y.push_back(mean(figure[e], &outcome::coverage));
    top.x.push_back(epsilons[e]);
    top.y.push_back(mean(ceiling, &outcome::coverage));
  }
  plot.add(s);
  plot.add(top);
  if (figure_seeds > 0) plot.y_range(0, 1).write("oov_coverage.svg");
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  std::printf("\n%llu runs by the distribution path in %.1f s (%.1f s a run); %.1f s in all; %s\n",
              static_cast<unsigned long long>(runs), run_secs,
              runs ? run_secs / static_cast<double>(runs) : 0.0, secs,
              figure_seeds > 0 ? "plot: oov_coverage.svg" : "no figure (--sweep runs it)");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "oov_discovery: %s\n", e.what());
  return 1;
}
