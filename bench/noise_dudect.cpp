// A timing-independence check of the release samplers (issue 36), after
// dudect (Reparaz, Balasch and Verbauwhede 2017, "Dude, is my code constant
// time?", DATE), as bench/paillier_dudect.cpp does for Paillier.
//
// Every draw is timed with the cycle counter between serialising fences
// (rdtsc after lfence), from the CSPRNG the releases use
// (privet::secure_generator()), and the CSPRNG words it consumes are
// counted (an exact stand-in for its work). Draws are then split into two
// classes and compared by Welch's t-statistic, as dudect does, on all
// measurements and on those below the pooled 50th, 75th and 90th
// percentiles (the upper tail is mostly interference); the largest |t| is
// reported, and |t| >= 4.5 (dudect's threshold) says the two timing
// distributions differ. Splits:
//  - by output: bottom against top quartile of |noise| (the middle half is
//    left out), and noise = 0 against noise != 0 (for the samplers whose
//    zero has probability above 1 %);
//  - by input, for the mechanisms: x = 0 against x = 10^6, each draw's
//    class chosen at random before it is made;
//  - the release paths that threshold noise: partition selection's keep()
//    (input n = 1 against n = 10^6, output kept against dropped) and
//    AboveThreshold's query (answer 0 against 10^6 with threshold 3, a
//    fresh instance per draw: output halted against not);
//  - the local randomisers (randomized_response, subset_selection): the
//    true value 0 against k - 1 (s - 1), and the output split kept (the
//    report holds the true value) against not kept;
//  - the selectors (exponential_mechanism, permute_and_flip) over 10
//    candidates: scores ascending against descending and shifted by 10^6,
//    and the selected candidate's gap to the best (quartiles; best or not);
//  - DP-SGD's batch draws over 1024 units: the batch size (Poisson) or its
//    least member (fixed size) by quartile;
//  - the binomial count (binomial_distribution, constant_time_binomial) and
//    the Poisson sample of a large population drawn from it (the control:
//    the exact count, then uniform_subset), by the count's quartile; and
//    one DPNE level's release (the support noised, the spurious grams
//    drawn and looked up, the set sorted) by the number of spurious grams.
// The exact samplers (discrete_laplace_distribution,
// discrete_gaussian_distribution, and the mechanisms with secure_noise) are
// the control: they are known to leak, so the harness must flag them. For
// the local randomisers the control is a copy of their earlier exact
// report (one logistic_bernoulli coin, then a uniform draw or Floyd's
// subset with a hash set), kept here only for that purpose.
//
// This is a benchmark, not a test: timing never goes into the test suite.
// It needs a quiet machine; results in bench/README.md.
//
// Usage: noise_dudect [draws=1000000] [slow_draws=draws] [only]
//   slow_draws applies to the constant-time rejection sampler (forced with
//   max_table = 0), which takes 50-150 us a draw; only, when given, runs
//   the rows whose name contains it.
#include <privet/algorithms/dpne.hpp>
#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/algorithms/triehh_constant_time.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/detail/ct_word.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/binomial.hpp>
#include <privet/mechanisms/constant_time_binomial.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/exponential.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/mechanisms/integer_noise.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/mechanisms/partition_selection.hpp>
#include <privet/mechanisms/randomized_response.hpp>
#include <privet/mechanisms/sparse_vector.hpp>
#include <privet/mechanisms/subset_selection.hpp>
#include <privet/ml/dpsgd.hpp>
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/lstm.hpp>
#include <privet/ml/mlp.hpp>

#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <ctime>
#endif

namespace {

// The cycle counter between fences: no earlier instruction is still running
// when it is read, and no later one has started.
inline std::uint64_t cycles() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_lfence();
  const std::uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
#else
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
#endif
}

// privet::secure_generator(), counting the words drawn through it.
class counted_csprng {
 public:
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    ++words;
    return privet::secure_generator()();
  }
  std::uint64_t words = 0;
};

}  // namespace

template <>
struct privet::generator_traits<counted_csprng> {
  static constexpr bool cryptographically_secure = true;  // it is the CSPRNG
};

namespace {

struct welch {
  double n[2] = {0, 0};
  double mean[2] = {0, 0};
  double m2[2] = {0, 0};
  void push(int cls, double x) {
    n[cls] += 1;
    const double d = x - mean[cls];
    mean[cls] += d / n[cls];
    m2[cls] += d * (x - mean[cls]);
  }
  [[nodiscard]] double t() const {
    if (n[0] < 2 || n[1] < 2) return 0;
    const double v0 = m2[0] / (n[0] - 1);
    const double v1 = m2[1] / (n[1] - 1);
    if (v0 + v1 == 0) return mean[0] == mean[1] ? 0 : std::numeric_limits<double>::infinity();
    return (mean[0] - mean[1]) / std::sqrt(v0 / n[0] + v1 / n[1]);
  }
};

struct draw {
  double cycles;
  double magnitude;  // |noise|
  int input_class;   // -1 when the split is by output
  std::uint64_t words;
};

struct verdict {
  double max_abs_t = 0;
  double t_all = 0;
  double mean[2] = {0, 0};
  double n[2] = {0, 0};
  double words_t = 0;  // Welch t of the word counts (0 when constant)
};

// dudect's crops: all draws, then those below the pooled percentiles.
verdict compare(const std::vector<draw>& draws, const std::function<int(const draw&)>& cls) {
  std::vector<double> sorted;
  sorted.reserve(draws.size());
  for (const auto& d : draws) {
    if (cls(d) >= 0) sorted.push_back(d.cycles);
  }
  std::sort(sorted.begin(), sorted.end());
  verdict v;
  if (sorted.empty()) return v;
  for (double pct : {1.0, 0.9, 0.75, 0.5}) {
    const double cut = sorted[std::min(
        sorted.size() - 1, static_cast<std::size_t>(pct * static_cast<double>(sorted.size())))];
    welch w;
    for (const auto& d : draws) {
      const int c = cls(d);
      if (c >= 0 && (pct == 1.0 || d.cycles <= cut)) w.push(c, d.cycles);
    }
    if (pct == 1.0) {
      v.t_all = w.t();
      for (int c = 0; c < 2; ++c) {
        v.mean[c] = w.mean[c];
        v.n[c] = w.n[c];
      }
    }
    v.max_abs_t = std::max(v.max_abs_t, std::abs(w.t()));
  }
  welch words;
  for (const auto& d : draws) {
    const int c = cls(d);
    if (c >= 0) words.push(c, static_cast<double>(d.words));
  }
  v.words_t = words.t();
  return v;
}

void report(const std::string& name, const std::string& split, const verdict& v,
            std::uint64_t min_words, std::uint64_t max_words) {
  std::printf("| %-44s | %-26s | %8.0f / %8.0f | %7.0f / %7.0f | %+9.2f | %8.2f | %s | ",
              name.c_str(), split.c_str(), v.n[0], v.n[1], v.mean[0], v.mean[1], v.t_all,
              v.max_abs_t, v.max_abs_t < 4.5 ? "no leak " : "LEAK    ");
  if (min_words == max_words) {
    std::printf("%llu (constant) |\n", static_cast<unsigned long long>(min_words));
  } else {
    std::printf("%llu..%llu, t = %.1f |\n", static_cast<unsigned long long>(min_words),
                static_cast<unsigned long long>(max_words), v.words_t);
  }
  std::fflush(stdout);
}

// Runs `one(input_class, gen)` n times (returning |noise|), with a random
// input class per draw when by_input, and reports the output splits (and
// the input split when by_input).
// Only the rows whose name contains this (the third argument), when set.
std::string only;

void run(const std::string& name, std::size_t n, bool by_input, bool zero_split,
         const std::function<double(int, counted_csprng&)>& one,
         const std::function<void(counted_csprng&)>& prepare = {},
         const char* zero_label = "noise = 0 vs != 0", bool magnitude_split = true,
         const char* input_label = "input x = 0 vs 10^6",
         const std::function<void(const std::vector<draw>&, std::uint64_t, std::uint64_t)>&
             extra_splits = {}) {
  if (!only.empty() && name.find(only) == std::string::npos) return;
  counted_csprng gen;
  std::vector<draw> draws(n);
  // Warm-up: caches, tables, branch predictors.
  for (std::size_t i = 0; i < std::min<std::size_t>(n / 10, 10000); ++i) {
    if (prepare) prepare(gen);
    (void)one(0, gen);
  }
  for (auto& d : draws) {
    const int input = by_input ? static_cast<int>(privet::secure_generator()() & 1) : -1;
    if (prepare) prepare(gen);  // untimed, uncounted
    const std::uint64_t w0 = gen.words;
    const std::uint64_t c0 = cycles();
    d.magnitude = one(input < 0 ? 0 : input, gen);
    const std::uint64_t c1 = cycles();
    d.cycles = static_cast<double>(c1 - c0);
    d.words = gen.words - w0;
    d.input_class = input;
  }
  std::uint64_t min_words = std::numeric_limits<std::uint64_t>::max(), max_words = 0;
  for (const auto& d : draws) {
    min_words = std::min(min_words, d.words);
    max_words = std::max(max_words, d.words);
  }
  std::vector<double> mags;
  mags.reserve(n);
  for (const auto& d : draws) mags.push_back(d.magnitude);
  std::sort(mags.begin(), mags.end());
  const double q1 = mags[n / 4], q3 = mags[3 * n / 4];
  // Bottom: |noise| <= the first quartile; top: >= the third and above the
  // first (small scales tie at the quartiles; the bottom class then holds
  // every value at the first quartile, often all the zeros).
  if (magnitude_split) {
    report(name, "|noise| bottom vs top 25%",
           compare(draws,
                   [&](const draw& d) {
                     if (d.magnitude <= q1) return 0;
                     if (d.magnitude >= q3) return 1;
                     return -1;
                   }),
           min_words, max_words);
  }
  if (zero_split) {
    report(name, zero_label, compare(draws, [](const draw& d) { return d.magnitude == 0 ? 0 : 1; }),
           min_words, max_words);
  }
  if (by_input) {
    report(name, input_label, compare(draws, [](const draw& d) { return d.input_class; }),
           min_words, max_words);
  }
  if (extra_splits) extra_splits(draws, min_words, max_words);
}

template <class Sampler>
void sampler_pair(const std::string& name, const Sampler& s, std::size_t n, bool zero_split) {
  run(name, n, false, zero_split,
      [&](int, counted_csprng& g) { return std::fabs(static_cast<double>(s(g))); });
}

template <class Mechanism>
void mechanism(const std::string& name, const Mechanism& m, std::size_t n) {
  const double inputs[2] = {0.0, 1e6};
  const double g = m.granularity();
  run(name, n, true, false, [&](int cls, counted_csprng& gen) {
    const double x = inputs[cls];
    return std::fabs(m(x, gen) - x) / g;
  });
}

template <class Mechanism>
void integer_mechanism(const std::string& name, const Mechanism& m, std::size_t n) {
  const std::int64_t inputs[2] = {0, 1000000};
  run(name, n, true, false, [&](int cls, counted_csprng& gen) {
    const std::int64_t x = inputs[cls];
    return std::fabs(static_cast<double>(m(x, gen) - x));
  });
}

// keep(n) at n = 0 (never kept; the exact policy returns before drawing)
// against n = T (kept about half the time, by the noise's sign); the
// outcome is returned without a branch (it is public, but a branch in the
// timed region would be timed).
template <class Policy>
void selection(const std::string& name, const Policy& p, std::size_t n, std::uint64_t at) {
  const std::uint64_t inputs[2] = {0, at};
  run(
      name, n, true, true,
      [&](int cls, counted_csprng& gen) { return static_cast<double>(p.keep(inputs[cls], gen)); },
      {}, "dropped vs kept", false, "input n = 0 vs kept half the time");
}

// Queries of 0 and `high` (input split) on one instance whose threshold
// neither clears (a halted instance would have to be rebuilt, and building
// the constant-time samplers takes milliseconds): high = 10^6 under a
// threshold of 10^9 (both on the integer path), high = 10^300 under 10^301
// (the second on the order path the exact decision branches to).
template <class Noise>
void sparse_vector(const std::string& name, std::size_t n, double high, double threshold,
                   const char* label) {
  const double answers[2] = {0.0, high};
  std::optional<privet::above_threshold<Noise>> svt;
  run(
      name, n, true, false,
      [&](int cls, counted_csprng& gen) { return static_cast<double>((*svt)(answers[cls], gen)); },
      [&](counted_csprng& gen) {
        if (!svt) svt.emplace(1.0, 1.0, threshold, gen);
      },
      "", false, label);
}

// The earlier exact reports, as the control (their timing is known to
// depend on the coin: one word or two for randomised response, d - 1 or d
// Floyd draws and a hash set's probes for subset selection).
class exact_randomized_response {
 public:
  exact_randomized_response(double epsilon, std::uint64_t k) : k_(k), keep_(1, k - 1, epsilon) {}
  template <class G>
  std::uint64_t operator()(std::uint64_t value, G& gen) const {
    if (value >= k_) value = privet::uniform_below(gen, k_);
    if (keep_(gen)) return value;
    const std::uint64_t other = privet::uniform_below(gen, k_ - 1);
    return other >= value ? other + 1 : other;
  }

 private:
  std::uint64_t k_;
  privet::logistic_bernoulli keep_;
};

class exact_subset_selection {
 public:
  exact_subset_selection(double epsilon, std::uint64_t s)
      : s_(s), d_(privet::subset_selection(epsilon, s).d()), keep_(d_, s - d_, epsilon) {}
  template <class G>
  void operator()(std::uint64_t item, G& gen, std::vector<std::uint64_t>& out) const {
    if (item >= s_) item = privet::uniform_below(gen, s_);
    const std::size_t first = out.size();
    const bool with_item = keep_(gen);
    privet::uniform_subset(gen, s_ - 1, with_item ? d_ - 1 : d_, out);
    for (std::size_t i = first; i < out.size(); ++i) out[i] += out[i] >= item ? 1 : 0;
    if (with_item) out.push_back(item);
  }

 private:
  std::uint64_t s_;
  std::uint64_t d_;
  privet::logistic_bernoulli keep_;
};

// One report of value 0 or k - 1 (the input split); the output split is
// kept (0) against not kept (1).
template <class R>
void local_value(const std::string& name, const R& rr, std::size_t n, std::uint64_t k) {
  const std::uint64_t inputs[2] = {0, k - 1};
  run(
      name, n, true, true,
      [&](int cls, counted_csprng& gen) {
        const std::uint64_t z = inputs[cls];
        // Without a branch: `rr(z, gen) != z` compiles to one, on the
        // outcome, inside the timed region.
        const std::uint64_t other = privet::detail::ct_is_zero(rr(z, gen) ^ z) ^ 1;
        return static_cast<double>(static_cast<std::int64_t>(other));
      },
      {}, "kept vs not kept", false, "true value 0 vs k - 1");
}

// One report of item 0 or s - 1 into a reused buffer (as LDP TrieHH's
// clients do); kept when the report holds the item, tested over all d
// slots without an early exit.
template <class S>
void local_set(const std::string& name, const S& ss, std::size_t n, std::uint64_t s) {
  const std::uint64_t inputs[2] = {0, s - 1};
  std::vector<std::uint64_t> out;
  out.reserve(1024);
  run(
      name, n, true, true,
      [&](int cls, counted_csprng& gen) {
        const std::uint64_t z = inputs[cls];
        out.clear();
        ss(z, gen, out);
        std::uint64_t held = 0;
        for (const std::uint64_t c : out) held |= privet::detail::ct_is_zero(c ^ z);
        return static_cast<double>(static_cast<std::int64_t>(held ^ 1));
      },
      {}, "kept vs not kept", false, "true item 0 vs s - 1");
}

// One selection among 10 candidates with scores 0, 0.5, ..., 4.5 (eps 1,
// sensitivity 1): ascending, or descending and shifted by 10^6 (the input
// split). The output is the selected candidate's gap to the best score:
// bottom against top quartile, and best (gap 0) against not.
template <class S>
void selector(const std::string& name, const S& sel, std::size_t n) {
  std::vector<double> scores[2] = {std::vector<double>(10), std::vector<double>(10)};
  for (std::size_t i = 0; i < 10; ++i) {
    scores[0][i] = 0.5 * static_cast<double>(i);
    scores[1][i] = 1e6 + 0.5 * static_cast<double>(9 - i);
  }
  run(
      name, n, true, true,
      [&](int cls, counted_csprng& gen) {
        const std::size_t r = sel(scores[cls], gen);
        // Arithmetic, not `cls == 0 ? 9 : 0`: a branch on the class inside
        // the timed region would itself split the timings.
        const auto best = static_cast<double>(9 * (1 - cls));
        return 0.5 * std::fabs(static_cast<double>(r) - best);
      },
      {}, "best vs not best", true, "scores up vs down + 10^6");
}

// DP-SGD's batch draws over 1024 units (the draw alone, not the step):
// Poisson at q = 1/32 and fixed size b = 32. The output split is the batch
// (its size for Poisson, its least member for fixed size) by quartile.
// The controls are DP-SGD's exact draws under
// secure_noise: ml::detail::bernoulli_exact per unit with a push_back, and
// privet::uniform_subset (Floyd over a hash set).
constexpr std::size_t batch_units = 1024;

void poisson_batch(const std::string& name, std::size_t n, bool exact) {
  const double q = 1.0 / 32;
  const privet::detail::ct_threshold t = privet::detail::ct_threshold_below(q);
  std::vector<std::size_t> out(batch_units + 1);
  std::size_t size = 0;
  run(
      name, n, false, false,
      [&](int, counted_csprng& gen) {
        if (exact) {
          out.clear();
          for (std::size_t i = 0; i < batch_units; ++i)
            if (privet::ml::detail::bernoulli_exact(gen, q)) out.push_back(i);
          size = out.size();
        } else {
          size = privet::detail::ct_poisson_subset(gen, t, batch_units, out.data());
        }
        return static_cast<double>(size);
      },
      [&](counted_csprng&) { out.assign(batch_units + 1, 0); }, "", true);
}

void fixed_batch(const std::string& name, std::size_t n, bool exact) {
  const std::uint64_t b = 32;
  const privet::detail::ct_uniform_subset draw(batch_units, b);
  std::vector<std::uint64_t> out(b);
  run(
      name, n, false, false,
      [&](int, counted_csprng& gen) {
        if (exact) {
          const auto chosen = privet::uniform_subset(gen, batch_units, b);
          std::uint64_t least = batch_units;
          for (const auto c : chosen) least = std::min<std::uint64_t>(least, c);
          return static_cast<double>(least);
        }
        draw(gen, out.data());
        return static_cast<double>(out[0]);
      },
      {}, "", true);
}

// Where the steps' results go, so that they are computed.
volatile double benchmark_sink = 0;

// A whole noiseless DP-SGD step on a dense logistic regression (4
// features and an intercept, 1024 examples, q = 1/32), split by the batch's
// size. The control draws the batch in constant time but runs the gradient
// pass on the members alone (what steps did before batch_capacity()); the
// padded step is dpsgd<..., constant_time_noise>::privatize, whose pass
// always runs on batch_capacity() rows.
void dpsgd_step(const std::string& name, std::size_t n, bool unpadded) {
  using lr = privet::ml::logistic_regression<double, privet::ml::dense_batch<double>>;
  static const auto data = [] {
    privet::ml::dense_batch<double> b;
    b.x = xt::xtensor<double, 2>::from_shape({batch_units, std::size_t{4}});
    privet::testing::seeded_release_generator g(3);
    for (auto& v : b.x) v = static_cast<double>(g() >> 11) * 0x1p-53 * 4 - 2;
    for (std::size_t i = 0; i < batch_units; ++i) b.y.push_back(static_cast<int>(g() & 1));
    return b;
  }();
  const lr model(4, true);
  auto opt = privet::ml::dpsgd<lr>::non_private(
      5, batch_units, {.learning_rate = 0.1, .clip_norm = 1, .batch_size = batch_units / 32});
  const privet::detail::ct_threshold t = privet::detail::ct_threshold_below(1.0 / 32);
  std::vector<std::size_t> out(batch_units + 1);
  run(
      name, n, false, false,
      [&](int, counted_csprng& gen) {
        if (unpadded) {
          const std::size_t size =
              privet::detail::ct_poisson_subset(gen, t, batch_units, out.data());
          const std::vector<std::size_t> members(out.begin(),
                                                 out.begin() + static_cast<std::ptrdiff_t>(size));
          const auto sum = privet::ml::sum_of_clipped_gradients(model, data.select(members), 1.0);
          benchmark_sink = sum.sum[0];
          return static_cast<double>(size);
        }
        const auto step = opt.privatize(model, data, gen);
        benchmark_sink = step.gradient[0];
        return static_cast<double>(step.report.batch.size());
      },
      [&](counted_csprng&) { out.assign(batch_units + 1, 0); }, "", true);
}

// A user-level DP-SGD step (no noise: the pass is what is timed) over 256
// users of 1 to 16 examples (2,176 examples), Poisson at q = 1/32, split by
// the number of examples the batch's users hold (bottom against top
// quartile): the control takes every user's examples and only the batch's
// users (unit_examples = 0); the padded step runs batch_capacity() users of
// exactly m = 16 rows each (unit_examples = 16, which caps nothing here).
void dpsgd_user_step(const std::string& name, std::size_t n, bool padded) {
  using lr = privet::ml::logistic_regression<double, privet::ml::dense_batch<double>>;
  constexpr std::size_t users = 256;
  static const auto setup = [] {
    std::pair<privet::ml::dense_batch<double>, std::vector<std::size_t>> d;
    for (std::size_t u = 0; u < users; ++u) {
      for (std::size_t k = 0; k <= u % 16; ++k) d.second.push_back(u);
    }
    const std::size_t rows = d.second.size();
    d.first.x = xt::xtensor<double, 2>::from_shape({rows, std::size_t{4}});
    privet::testing::seeded_release_generator g(5);
    for (auto& v : d.first.x) v = static_cast<double>(g() >> 11) * 0x1p-53 * 4 - 2;
    for (std::size_t i = 0; i < rows; ++i) d.first.y.push_back(static_cast<int>(g() & 1));
    return d;
  }();
  const privet::ml::privacy_units units(setup.second);
  const lr model(4, true);
  auto opt = privet::ml::dpsgd<lr>::non_private(5, setup.second.size(),
                                                {.learning_rate = 0.1,
                                                 .clip_norm = 1,
                                                 .batch_size = users / 32,
                                                 .units = units,
                                                 .unit_examples = padded ? 16u : 0u});
  run(
      name, n, false, false,
      [&](int, counted_csprng& gen) {
        const auto step = opt.privatize(model, setup.first, gen);
        benchmark_sink = step.gradient[0];
        std::size_t examples = 0;
        for (const std::size_t u : step.report.batch) examples += units.examples_of(u).size();
        return static_cast<double>(examples);
      },
      {}, "", true);
}

// A noiseless example-level DP-SGD step on an LSTM (8 units, 2 classes;
// mean pooling, or a label per frame with Frames) over 512 sequences of 1
// to 16 frames of 4 features, Poisson at q = 1/64, split by the frames the
// batch's members hold (bottom against top quartile). Both pad the batch to
// batch_capacity() sequences; the control (gradient_frames = 0) runs each
// block of sequences to its longest, the padded step (gradient_frames = 16)
// every sequence for 16 steps. One TBB thread, so that the split sees the
// pass and not the scheduler.
template <bool Frames>
void dpsgd_lstm_step(const std::string& name, std::size_t n, bool padded) {
  using lstm = privet::ml::lstm_classifier<double>;
  using model_type = std::conditional_t<Frames, privet::ml::frame_lstm_classifier<double>, lstm>;
  using batch = typename model_type::batch_type;
  constexpr std::size_t count = 512;
  static const auto data = [] {
    batch b;
    privet::testing::seeded_release_generator g(7);
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t frames = 1 + (i * 7) % 16;
      xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({frames, std::size_t{4}});
      for (auto& v : x) v = static_cast<double>(g() >> 11) * 0x1p-53 * 4 - 2;
      b.x.push_back(std::move(x));
      if constexpr (Frames) {
        std::vector<int> y(frames);
        for (auto& v : y) v = static_cast<int>(g() & 1);
        b.y.push_back(std::move(y));
      } else {
        b.y.push_back(static_cast<int>(g() & 1));
      }
    }
    return b;
  }();
  const oneapi::tbb::global_control one(oneapi::tbb::global_control::max_allowed_parallelism, 1);
  privet::testing::seeded_release_generator init(8);
  const model_type model({.input_dim = 4,
                          .hidden = 8,
                          .classes = 2,
                          .gradient_frames = padded ? std::size_t{16} : std::size_t{0}},
                         init);
  auto opt = privet::ml::dpsgd<model_type>::non_private(
      model.parameter_count(), count,
      {.learning_rate = 0.1, .clip_norm = 1, .batch_size = count / 64});
  run(
      name, n, false, false,
      [&](int, counted_csprng& gen) {
        const auto step = opt.privatize(model, data, gen);
        benchmark_sink = step.gradient[0];
        double frames = 0;
        for (const std::size_t i : step.report.batch)
          frames += static_cast<double>(data.x[i].shape(0));
        return frames;
      },
      {}, "", true);
}

// Clipping 64 per-example rows of 1,024 entries to C = 1 and summing them
// (clip_and_sum_rows, the LSTM's and every per-example model's path), split
// by the input: rows of norm 0.5 (none clipped) against rows of norm 2
// (all clipped). The control is the clip before issue 36's change, which
// skipped a row within C (no pass over its entries).
void clip_rows(const std::string& name, std::size_t n, bool control) {
  constexpr std::size_t rows = 64, p = 1024;
  // One matrix of rows of norm 0.5, read the same way for both classes and
  // multiplied by 1 or 4 on the copy (so the classes differ in values only,
  // not in which memory is read).
  static const auto base = [] {
    xt::xtensor<double, 2> g = xt::xtensor<double, 2>::from_shape({rows, p});
    privet::testing::seeded_release_generator gen(9);
    for (std::size_t i = 0; i < rows; ++i) {
      double sq = 0;
      double* r = g.data() + i * p;
      for (std::size_t j = 0; j < p; ++j) {
        r[j] = static_cast<double>(gen() >> 11) * 0x1p-53 - 0.5;
        sq += r[j] * r[j];
      }
      for (std::size_t j = 0; j < p; ++j) r[j] *= 0.5 / std::sqrt(sq);
    }
    return g;
  }();
  xt::xtensor<double, 2> g = base;
  run(
      name, n, true, false,
      [&](int cls, counted_csprng&) {
        const double factor = cls == 0 ? 1.0 : 4.0;
        for (std::size_t j = 0; j < rows * p; ++j) g.data()[j] = base.data()[j] * factor;
        if (!control) {
          const auto sum = privet::ml::clip_and_sum_rows(g, 1.0);
          benchmark_sink = sum.sum[0];
          return 0.0;
        }
        for (std::size_t i = 0; i < rows; ++i) {
          double* r = g.data() + i * p;
          double sq = 0;
          for (std::size_t j = 0; j < p; ++j) sq += r[j] * r[j];
          const double norm = std::sqrt(sq);
          const double margin = static_cast<double>(p + 8) * 0x1p-52;
          if (!(norm > 1.0 - margin)) continue;  // within C: no pass
          const double f = (1.0 - margin) / norm;
          for (std::size_t j = 0; j < p; ++j) r[j] *= f;
        }
        privet::ml::detail::exact_gradient_sum acc(p, 1.0);
        for (std::size_t i = 0; i < rows; ++i) acc.add_row(g.data() + i * p);
        benchmark_sink = acc.result()[0];
        return 0.0;
      },
      {}, "", false, "rows within C vs all above C");
}

// The exact gradient sum's conversion of its int128 totals (a step of more
// than 2,048 rows), split by the input: 64 totals below 2^63 grid units
// against 64 beyond it (up to 2^100). Both classes read both tables and
// pick their values by a mask. The control is the conversion before this
// change: an int64 shortcut when the total fits, else the runtime's.
void wide_sum(const std::string& name, std::size_t n, bool control) {
  using privet::detail::int128;
  using privet::detail::uint128;
  constexpr std::size_t p = 64;
  static const auto tables = [] {
    std::array<std::array<int128, p>, 2> t{};
    privet::testing::seeded_release_generator gen(13);
    for (std::size_t j = 0; j < p; ++j) {
      const int128 sign = (gen() & 1) != 0 ? -1 : 1;
      t[0][j] = sign * static_cast<int128>(gen() >> 2);  // below 2^62
      const auto bits = 64 + static_cast<unsigned>(gen() % 37);
      t[1][j] = sign * static_cast<int128>(((static_cast<uint128>(gen()) << 64) | gen()) >>
                                           (128 - bits));  // 2^63 to 2^100
    }
    return t;
  }();
  std::array<int128, p> totals{};
  run(
      name, n, true, false,
      [&](int cls, counted_csprng&) {
        const uint128 pick = uint128{0} - static_cast<uint128>(cls);
        for (std::size_t j = 0; j < p; ++j) {
          totals[j] = static_cast<int128>((static_cast<uint128>(tables[1][j]) & pick) |
                                          (static_cast<uint128>(tables[0][j]) & ~pick));
        }
        double sum = 0;
        for (std::size_t j = 0; j < p; ++j) {
          const int128 t = totals[j];
          if (control) {
            const auto small = static_cast<std::int64_t>(t);
            sum += small == t ? static_cast<double>(small) : static_cast<double>(t);
          } else {
            sum += privet::detail::ct_round_to_double(t);
          }
        }
        benchmark_sink = sum;
        return 0.0;
      },
      {}, "", false, "totals below vs beyond 2^63");
}

// A model's clipped sum (C = 1) over a dense batch, split by the input:
// labels[0] (every label usable) against labels[1] (some equal to
// `invalid`, left out of the sum). Both classes share one batch; the
// labels are picked by a mask from both sets, so the classes differ in
// values only, not in memory read. The control sums over the usable
// examples alone, which is what skipping the others amounts to.
template <class Model>
void left_out_split(const std::string& name, std::size_t n, bool control, const Model& model,
                    privet::ml::dense_batch<double>& batch,
                    const std::array<std::vector<int>, 2>& labels, int invalid) {
  std::array<privet::ml::dense_batch<double>, 2> usable;
  for (int c = 0; c < 2; ++c) {
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < labels[c].size(); ++i) {
      if (labels[c][i] != invalid) keep.push_back(i);
    }
    auto b = batch;
    b.y = labels[c];
    usable[c] = b.select(keep);
  }
  run(
      name, n, true, false,
      [&](int cls, counted_csprng&) {
        if (control) {
          benchmark_sink = model.clipped_gradient_sum(usable[cls], 1.0).sum[0];
          return 0.0;
        }
        const auto pick = static_cast<unsigned>(0) - static_cast<unsigned>(cls);
        for (std::size_t i = 0; i < batch.y.size(); ++i) {
          batch.y[i] = static_cast<int>((static_cast<unsigned>(labels[0][i]) & ~pick) |
                                        (static_cast<unsigned>(labels[1][i]) & pick));
        }
        benchmark_sink = model.clipped_gradient_sum(batch, 1.0).sum[0];
        return 0.0;
      },
      {}, "", false, "labels all usable vs half left out");
}

// rows x features uniform in [-1, 1), labels 0.
privet::ml::dense_batch<double> uniform_rows(std::size_t rows, std::size_t features,
                                             std::uint64_t seed) {
  privet::ml::dense_batch<double> b;
  b.x = xt::xtensor<double, 2>::from_shape({rows, features});
  privet::testing::seeded_release_generator g(seed);
  for (auto& v : b.x) v = static_cast<double>(g() >> 11) * 0x1p-53 * 2 - 1;
  b.y.assign(rows, 0);
  return b;
}

// The MLP (64-64-10, relu) on 64 examples; half the labels 99 in class 1.
void mlp_left_out(const std::string& name, std::size_t n, bool control) {
  constexpr std::size_t rows = 64;
  privet::testing::seeded_release_generator init(12);
  static const privet::ml::mlp<double> model({{64, 64, 10}, privet::ml::activation::relu}, init);
  static auto batch = uniform_rows(rows, 64, 13);
  std::array<std::vector<int>, 2> labels;
  for (std::size_t i = 0; i < rows; ++i) {
    labels[0].push_back(static_cast<int>(i % 10));
    labels[1].push_back(i % 2 == 0 ? static_cast<int>(i % 10) : 99);
  }
  left_out_split(name, n, control, model, batch, labels, 99);
}

// Dense logistic regression (64 features and an intercept) on 256
// examples; half the labels 7 in class 1.
void lr_left_out(const std::string& name, std::size_t n, bool control) {
  using lr = privet::ml::logistic_regression<double, privet::ml::dense_batch<double>>;
  constexpr std::size_t rows = 256, features = 64;
  static const lr model = [] {
    lr m(features, true);
    privet::testing::seeded_release_generator g(14);
    for (auto& w : m.parameters()) w = static_cast<double>(g() >> 11) * 0x1p-53 - 0.5;
    return m;
  }();
  static auto batch = uniform_rows(rows, features, 15);
  std::array<std::vector<int>, 2> labels;
  for (std::size_t i = 0; i < rows; ++i) {
    labels[0].push_back(static_cast<int>(i % 2));
    labels[1].push_back(i % 2 == 0 ? 1 : 7);
  }
  left_out_split(name, n, control, model, batch, labels, 7);
}

// The Poisson sample of 10^5 elements at rate 10^-3 (mean 100), split by
// the number of members: the control draws the exact binomial count (a walk
// from success to success) and then that many members by Floyd's algorithm
// over a hash set; constant_time_poisson_sample does the same work for
// every count.
void poisson_population(const std::string& name, std::size_t n, bool exact) {
  constexpr std::uint64_t population = 100000;
  constexpr double rate = 1e-3;
  const privet::binomial_distribution count(population, rate);
  const privet::constant_time_poisson_sample sample(population, rate);
  std::vector<std::uint64_t> out(sample.capacity());
  run(
      name, n, false, false,
      [&](int, counted_csprng& gen) {
        if (exact) {
          const std::uint64_t c = count(gen);
          const auto members = privet::uniform_subset(gen, population, c);
          benchmark_sink = static_cast<double>(members.empty() ? 0 : members[0]);
          return static_cast<double>(c);
        }
        return static_cast<double>(sample(gen, out.data()));
      },
      {}, "", true);
}

// One DPNE level's release with constant_time_noise
// (dpne::detail::constant_time_level): 200 grams in the support with weights
// near rho = 3 (2.7 to 3.3, so each passes about half the time and the
// number of written grams released varies), noised at sigma 1; V_k = 300 x
// 300 grams in one middle; the zero entries pass with P[N(0, 1) > 3] =
// 1.35e-3 (119 expected). The control is the level's earlier draw, kept
// here only for that purpose: a branch on each support gram's coin, the
// exact count, then the grams by rejection. Splits: by |S_k| (released,
// so public), and by the number of spurious grams within one |S_k| (the
// secret: with |S_k| it tells how many written grams passed).
void dpne_level(const std::string& name, std::size_t n, bool exact) {
  using noise_t =
      privet::dpsu::fixed_point_noise<privet::dpsu::update_norm::l2, privet::constant_time_noise>;
  using entry = std::pair<std::uint64_t, std::int64_t>;
  struct middle {
    std::vector<privet::dpne::gram_id> left, right;
  };
  static const noise_t noise(1.0);
  const std::int64_t tau = noise.to_units(3.0);
  std::vector<middle> middles(1);
  for (privet::dpne::gram_id g = 0; g < 300; ++g) {
    middles[0].left.push_back(g);
    middles[0].right.push_back(1000 + g);
  }
  constexpr std::uint64_t candidates = 300 * 300;
  constexpr std::uint64_t size_unit = 4096;  // magnitude = |S_k| 4096 + spurious count
  const std::vector<std::uint64_t> cumulative = {candidates};
  std::vector<entry> support;
  privet::testing::seeded_release_generator g(5);
  for (std::uint64_t i = 0; i < 200; ++i) {
    const std::uint64_t key =
        privet::dpne::detail::pack(static_cast<privet::dpne::gram_id>(i),
                                   static_cast<privet::dpne::gram_id>(1000 + (i * 7) % 300));
    support.emplace_back(key, noise.to_units(2.7 + 0.6 * static_cast<double>(g() >> 11) * 0x1p-53));
  }
  const auto by_key = [](const entry& a, const entry& b) { return a.first < b.first; };
  std::sort(support.begin(), support.end(), by_key);
  support.erase(std::unique(support.begin(), support.end(),
                            [](const entry& a, const entry& b) { return a.first == b.first; }),
                support.end());
  const double rate = -std::log1p(-noise.pass_probability(0, tau));
  const privet::binomial_distribution count(candidates - support.size(), rate);
  run(
      name, n, false, false,
      [&](int, counted_csprng& gen) {
        if (exact) {
          std::vector<std::uint64_t> kept;
          for (const auto& [key, w] : support)
            if (noise.passes(w, tau, gen)) kept.push_back(key);
          const std::uint64_t spurious = count(gen);
          std::vector<std::uint64_t> drawn;
          while (drawn.size() < spurious) {
            const std::uint64_t pick = privet::uniform_below(gen, candidates);
            const std::uint64_t key = privet::dpne::detail::pack(middles[0].left[pick / 300],
                                                                 middles[0].right[pick % 300]);
            const auto at = std::lower_bound(support.begin(), support.end(), entry{key, 0}, by_key);
            if (at != support.end() && at->first == key) continue;
            if (std::find(drawn.begin(), drawn.end(), key) != drawn.end()) continue;
            drawn.push_back(key);
          }
          kept.insert(kept.end(), drawn.begin(), drawn.end());
          std::sort(kept.begin(), kept.end());
          benchmark_sink = static_cast<double>(kept.size());
          return static_cast<double>(kept.size() * size_unit + spurious);
        }
        privet::dpne::level_report r;
        const auto out = privet::dpne::detail::constant_time_level(
            support, noise, tau, rate, middles, cumulative, candidates, r, gen);
        benchmark_sink = static_cast<double>(out.size());
        return static_cast<double>(out.size() * size_unit + r.spurious);
      },
      {}, "", false, "",
      [&](const std::vector<draw>& draws, std::uint64_t lo, std::uint64_t hi) {
        // |S_k| is released, so its own effect on the time is public; the
        // secret is how many of its grams are spurious. Split by |S_k|'s
        // quartiles (public), then within each |S_k| by the spurious
        // count's median for that size (secret).
        std::vector<double> sizes;
        std::map<std::uint64_t, std::vector<std::uint64_t>> by_size;
        for (const auto& d : draws) {
          const auto code = static_cast<std::uint64_t>(d.magnitude);
          sizes.push_back(static_cast<double>(code / size_unit));
          by_size[code / size_unit].push_back(code % size_unit);
        }
        std::sort(sizes.begin(), sizes.end());
        const double q1 = sizes[sizes.size() / 4], q3 = sizes[3 * sizes.size() / 4];
        report(name, "|S_k| bottom vs top 25% (public)",
               compare(draws,
                       [&](const draw& d) {
                         const double size = std::floor(d.magnitude / size_unit);
                         return size <= q1 ? 0 : size >= q3 ? 1 : -1;
                       }),
               lo, hi);
        std::map<std::uint64_t, std::uint64_t> median;
        for (auto& [size, counts] : by_size) {
          std::sort(counts.begin(), counts.end());
          median[size] = counts[counts.size() / 2];
        }
        report(name, "spurious < vs > median, same |S_k|",
               compare(draws,
                       [&](const draw& d) {
                         const auto code = static_cast<std::uint64_t>(d.magnitude);
                         const std::uint64_t m = median[code / size_unit], c = code % size_unit;
                         return c < m ? 0 : c > m ? 1 : -1;
                       }),
               lo, hi);
      });
}

}  // namespace

// An LDP TrieHH client's whole vote (layer 2: 26^2 open prefixes, |X| = 27,
// eps 10, B = 8, a vocabulary of 200 words), for two users with the same
// number of typed words: 30 words none of which has a candidate against 30
// distinct valid prefixes (class 1), or no words against 30 valid ones.
// The output is the vote's length. The control is ldp_triehh.hpp's client,
// whose valid prefixes, merge and sampling take time that follows the
// data; the constant-time client (padded beforehand) reads W = 64 slots of
// L = 16 symbols either way.
void triehh_client(const std::string& name, std::size_t n, bool control, bool empty_user) {
  namespace th = privet::triehh;
  th::layer_broadcast b{2, {}, U"abcdefghijklmnopqrstuvwxyz$"};
  for (char32_t x = U'a'; x <= U'z'; ++x) {
    for (char32_t y = U'a'; y <= U'z'; ++y) b.prefixes.push_back(th::word{x, y});
  }
  th::parameters p;
  p.epsilon = 10;
  p.contributions = 8;
  const th::prepared_layer layer(b, p);
  auto vocabulary = std::make_shared<std::unordered_set<th::word>>();
  privet::testing::seeded_release_generator data(3);
  while (vocabulary->size() < 200) {
    th::word w;
    const std::uint64_t len = 3 + privet::uniform_below(data, 8);
    for (std::uint64_t i = 0; i < len; ++i) w.push_back(U'a' + privet::uniform_below(data, 26));
    vocabulary->insert(w);
  }
  th::user_data users[2];
  for (std::size_t i = 0; i < 30; ++i) {
    // Class 0: digits, which no prefix holds (or no words); class 1: 30
    // distinct prefixes followed by a letter.
    if (!empty_user) users[0].emplace_back(th::word{U'0', U'1', U'2', U'3'}, 1);
    users[1].emplace_back(th::word{U'a' + static_cast<char32_t>(i % 26),
                                   U'a' + static_cast<char32_t>(i / 26), U'q', U'r'},
                          1 + i % 3);
  }
  const th::constant_time_layer ct(layer, vocabulary.get(), {64, 0});
  // Padded once, as a device does when its store is loaded.
  const th::constant_time_client padded[2] = {{users[0], ct.bounds()}, {users[1], ct.bounds()}};
  const th::client<th::random_sampling> clients[2] = {{users[0], vocabulary},
                                                      {users[1], vocabulary}};
  th::vote v{};
  run(
      name, n, true, false,
      [&](int cls, counted_csprng& gen) {
        if (control) {
          clients[cls].respond(layer, gen, v);
        } else {
          padded[cls].respond(ct, gen, v, th::random_sampling{});
        }
        return static_cast<double>(v.indices.size());
      },
      {}, "", false,
      empty_user ? "no words vs 30 valid prefixes" : "30 words: 0 vs 30 valid prefixes");
}

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000000;
  const std::size_t slow = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : n;
  if (argc > 3) only = argv[3];
  std::printf("draws: %zu (constant-time rejection samplers: %zu); cycles from rdtsc\n\n", n, slow);
  std::printf(
      "| sampler | split | draws per class | mean cycles per class | t (all) | max abs t | verdict "
      "| "
      "CSPRNG words per draw |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");

  sampler_pair("control: discrete_laplace t = 1", privet::discrete_laplace_distribution(1, 1), n,
               true);
  sampler_pair("constant_time_discrete_laplace t = 1", privet::constant_time_discrete_laplace(1, 1),
               n, true);
  sampler_pair("control: discrete_laplace t = 100", privet::discrete_laplace_distribution(100, 1),
               n, false);
  sampler_pair("constant_time_discrete_laplace t = 100",
               privet::constant_time_discrete_laplace(100, 1), n, false);
  sampler_pair("control: discrete_gaussian sigma = 1", privet::discrete_gaussian_distribution(1, 1),
               n, true);
  sampler_pair("constant_time_discrete_gaussian sigma = 1 (table)",
               privet::constant_time_discrete_gaussian(1, 1), n, true);
  sampler_pair("control: discrete_gaussian sigma = 18.26",
               privet::discrete_gaussian_distribution(18.26), n, false);
  sampler_pair("constant_time_discrete_gaussian sigma = 18.26 (table)",
               privet::constant_time_discrete_gaussian(18.26), n, false);
  sampler_pair("control: discrete_gaussian sigma = 1000",
               privet::discrete_gaussian_distribution(1000000, 1), n, false);
  sampler_pair("constant_time_discrete_gaussian sigma = 1000 (sum of tables)",
               privet::constant_time_discrete_gaussian(1000000, 1), n, false);
  sampler_pair("constant_time_discrete_gaussian sigma = 1000 (rejection)",
               privet::constant_time_discrete_gaussian(
                   privet::discrete_gaussian_distribution(1000000, 1), 0),
               slow, false);

  mechanism("control: laplace_mechanism<double, secure_noise>, b = 1",
            privet::laplace_mechanism<double, privet::secure_noise>::from_scale(1.0), n);
  mechanism("laplace_mechanism<double, constant_time_noise>, b = 1",
            privet::laplace_mechanism<double, privet::constant_time_noise>::from_scale(1.0), n);
  mechanism("control: gaussian_mechanism<double, secure_noise>, sigma = 1",
            privet::gaussian_mechanism<double, privet::secure_noise>::from_scale(1.0), n);
  mechanism("gaussian_mechanism<double, constant_time_noise>, sigma = 1",
            privet::gaussian_mechanism<double, privet::constant_time_noise>::from_scale(1.0), n);
  integer_mechanism(
      "control: discrete_laplace_mechanism<int64, secure_noise> t = 1",
      privet::discrete_laplace_mechanism<std::int64_t, privet::secure_noise>::from_scale(1.0), n);
  integer_mechanism(
      "discrete_laplace_mechanism<int64, constant_time_noise> t = 1",
      privet::discrete_laplace_mechanism<std::int64_t, privet::constant_time_noise>::from_scale(
          1.0),
      n);
  integer_mechanism(
      "control: discrete_gaussian_mechanism<int64, secure_noise> sigma = 18.26",
      privet::discrete_gaussian_mechanism<std::int64_t, privet::secure_noise>::from_scale(18.26),
      n);
  integer_mechanism(
      "discrete_gaussian_mechanism<int64, constant_time_noise> sigma = 18.26",
      privet::discrete_gaussian_mechanism<std::int64_t, privet::constant_time_noise>::from_scale(
          18.26),
      n);
  const privet::approx_dp target(1.0, 1e-6);
  const auto thresholded = [&](const std::string& name, const auto& p) {
    selection(name, p, n, static_cast<std::uint64_t>(p.threshold()));
  };
  thresholded("control: laplace_partition_selection<secure_noise> (D0 = 4)",
              privet::laplace_partition_selection<privet::secure_noise>(target, 4));
  thresholded("laplace_partition_selection<constant_time_noise>",
              privet::laplace_partition_selection<privet::constant_time_noise>(target, 4));
  thresholded("control: gaussian_partition_selection<secure_noise> (D0 = 4)",
              privet::gaussian_partition_selection<privet::secure_noise>(target, 4));
  thresholded("gaussian_partition_selection<constant_time_noise>",
              privet::gaussian_partition_selection<privet::constant_time_noise>(target, 4));
  // The optimal rule at its n with pi(n) nearest 1/2.
  const auto optimal = [&](const std::string& name, const auto& p) {
    std::uint64_t half = 1;
    while (p.keep_probability(half) < 0.5) ++half;
    selection(name, p, n, half);
  };
  optimal("control: optimal_partition_selection<secure_noise> (D0 = 4)",
          privet::optimal_partition_selection<privet::secure_noise>(target, 4));
  optimal("optimal_partition_selection<constant_time_noise>",
          privet::optimal_partition_selection<privet::constant_time_noise>(target, 4));
  sparse_vector<privet::secure_noise>("control: above_threshold<secure_noise> (eps 1)", n, 1e6, 1e9,
                                      "answer 0 vs 10^6 (threshold 10^9)");
  sparse_vector<privet::constant_time_noise>("above_threshold<constant_time_noise>", n, 1e6, 1e9,
                                             "answer 0 vs 10^6 (threshold 10^9)");
  sparse_vector<privet::secure_noise>("control: above_threshold<secure_noise> (eps 1)", n, 1e300,
                                      1e301, "answer 0 vs 10^300 (threshold 10^301)");
  sparse_vector<privet::constant_time_noise>("above_threshold<constant_time_noise>", n, 1e300,
                                             1e301, "answer 0 vs 10^300 (threshold 10^301)");
  // Keep probabilities near 1/2: k = 1000 at eps = ln 999, and LDP TrieHH's
  // subset selection (eps 10, s = 980 101, d = 45, p = 0.503).
  const double rr_eps = std::log(999.0);
  local_value("control: randomized_response (exact coin) k = 1000",
              exact_randomized_response(rr_eps, 1000), n, 1000);
  local_value("randomized_response k = 1000", privet::randomized_response(rr_eps, 1000), n, 1000);
  local_set("control: subset_selection (exact coin, Floyd) s = 980101",
            exact_subset_selection(10.0, 980'101), n, 980'101);
  local_set("subset_selection s = 980101", privet::subset_selection(10.0, 980'101), n, 980'101);
  selector("control: exponential_mechanism<secure_noise> (10)",
           privet::exponential_mechanism<privet::secure_noise>(1.0, 1.0), n);
  selector("exponential_mechanism<constant_time_noise> (10)",
           privet::exponential_mechanism<>(1.0, 1.0), n);
  selector("control: permute_and_flip<secure_noise> (10)",
           privet::permute_and_flip<privet::secure_noise>(1.0, 1.0), n);
  selector("permute_and_flip<constant_time_noise> (10)", privet::permute_and_flip<>(1.0, 1.0), n);
  poisson_batch("control: DP-SGD Poisson batch, exact coins (1024, q 1/32)", n, true);
  poisson_batch("DP-SGD Poisson batch, ct_poisson_subset (1024, q 1/32)", n, false);
  fixed_batch("control: DP-SGD fixed batch, uniform_subset (1024, b 32)", n, true);
  fixed_batch("DP-SGD fixed batch, ct_uniform_subset (1024, b 32)", n, false);
  dpsgd_step("control: DP-SGD step, pass over the members only (1024, q 1/32)", n, true);
  dpsgd_step("DP-SGD step, padded to batch_capacity() rows (1024, q 1/32)", n, false);
  dpsgd_user_step("control: user-level DP-SGD step, unit_examples = 0 (256 users)", slow, false);
  dpsgd_user_step("user-level DP-SGD step, unit_examples = 16 (256 users)", slow, true);
  dpsgd_lstm_step<false>("control: LSTM DP-SGD step, gradient_frames = 0 (512, q 1/64)", slow,
                         false);
  dpsgd_lstm_step<false>("LSTM DP-SGD step, gradient_frames = 16 (512, q 1/64)", slow, true);
  dpsgd_lstm_step<true>("control: frame-label LSTM step, gradient_frames = 0", slow, false);
  dpsgd_lstm_step<true>("frame-label LSTM step, gradient_frames = 16", slow, true);
  clip_rows("control: clip rows, skipping rows within C (64 x 1024)", n, true);
  clip_rows("clip_and_sum_rows (64 x 1024)", n, false);
  wide_sum("control: int128 totals, int64 shortcut and runtime conversion (64)", n, true);
  wide_sum("exact sum's int128 totals, ct_round_to_double (64)", n, false);
  mlp_left_out("control: MLP clipped sum over the usable examples", n, true);
  mlp_left_out("MLP clipped_gradient_sum (64-64-10, 64)", n, false);
  lr_left_out("control: dense LR clipped sum over the usable examples", n, true);
  lr_left_out("dense LR clipped_gradient_sum (256 x 64)", n, false);
  sampler_pair("control: binomial_distribution (10^5, mean 100)",
               privet::binomial_distribution(100000, 1e-3), n, false);
  sampler_pair("constant_time_binomial (10^5, mean 100)",
               privet::constant_time_binomial(100000, 1e-3), n, false);
  poisson_population("control: exact count + uniform_subset (10^5, mean 100)", slow, true);
  poisson_population("constant_time_poisson_sample (10^5, mean 100)", slow, false);
  dpne_level("control: DPNE level, exact count and rejection (200 noised, |V| 90000)", slow, true);
  dpne_level("DPNE level, constant_time_level (200 noised, |V| 90000)", slow, false);
  triehh_client("control: TrieHH client (ldp_triehh.hpp, B 8)", slow, true, false);
  triehh_client("TrieHH constant_time_client (W 64, B 8)", slow, false, false);
  triehh_client("control: TrieHH client (ldp_triehh.hpp, B 8)", slow, true, true);
  triehh_client("TrieHH constant_time_client (W 64, B 8)", slow, false, true);
  return 0;
}
