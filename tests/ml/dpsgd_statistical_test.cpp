// DP-SGD's randomness: the exact Bernoulli coin behind Poisson sampling (by
// its bits and by frequency), the batch sampler's sizes and per-example
// inclusion rates for both samplings, and the noise's standard deviation on
// the update, for secure and simulation noise. Fixed seeds; each check's
// false-alarm rate for a fresh seed is stated next to it.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/ml/dpsgd.hpp>
#include <privet/ml/logistic_regression.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {
using privet::ml::batch_sampling;
using privet::ml::dense_batch;
using privet::ml::dpsgd;
using privet::testing::seeded_release_generator;
using dense_lr = privet::ml::logistic_regression<double, dense_batch<double>>;

// Returns the words it is given, in order.
struct scripted_bits {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  std::vector<std::uint64_t> words;
  std::size_t next = 0;
  result_type operator()() { return words.at(next++); }
};

dense_batch<double> zeros(std::size_t n, std::size_t f) {
  dense_batch<double> b;
  b.x = xt::zeros<double>({n, f});
  b.y.assign(n, 1);
  return b;
}
}  // namespace

TEST_CASE("bernoulli_exact compares uniform bits with the binary expansion of q") {
  using privet::ml::detail::bernoulli_exact;
  const std::uint64_t top = std::uint64_t{1} << 63;
  // q = 1/2: one word, true iff its top bit is 0.
  scripted_bits a{{top - 1, top}};
  CHECK(bernoulli_exact(a, 0.5));
  CHECK_FALSE(bernoulli_exact(a, 0.5));
  // q = 1/4 = 2^-1 x 1/2: the first bit must be 0, then the next word's top bit 0.
  scripted_bits b{{top, 0, 0}};
  CHECK_FALSE(bernoulli_exact(b, 0.25));  // first bit 1
  CHECK(bernoulli_exact(b, 0.25));        // 0, then 0...
  // q = 2^-70 = 2^-69 x 1/2: 69 zero bits (a whole word, then the top 5
  // bits of the next), then the top bit of a fresh word must be 0.
  const double tiny = std::ldexp(1.0, -70);
  scripted_bits c{{0, std::uint64_t{1} << 59}};
  CHECK_FALSE(bernoulli_exact(c, tiny));  // bit 65 of U is 1
  scripted_bits d{{0, (std::uint64_t{1} << 59) - 1, top - 1}};
  CHECK(bernoulli_exact(d, tiny));
  scripted_bits e{{0, 0, top}};
  CHECK_FALSE(bernoulli_exact(e, tiny));
  // Certain outcomes draw nothing.
  scripted_bits none{{}};
  CHECK(bernoulli_exact(none, 1.0));
  CHECK_FALSE(bernoulli_exact(none, 0.0));
}

TEST_CASE("bernoulli_exact's frequency matches q") {
  // 10^6 coins at q = 0.3: the count is within 5 standard deviations of
  // 3e5 (false alarm 5.7e-7).
  privet::testing::seeded_release_generator gen(21);
  const double q = 0.3;
  const int n = 1'000'000;
  int hits = 0;
  for (int i = 0; i < n; ++i) hits += privet::ml::detail::bernoulli_exact(gen, q) ? 1 : 0;
  const double sd = std::sqrt(n * q * (1 - q));
  CHECK(std::abs(hits - n * q) < 5 * sd);
}

TEST_CASE("Poisson and fixed-size batches include each example at rate b / n") {
  const std::size_t n = 200, b = 20, steps = 2000;
  for (auto sampling : {batch_sampling::poisson, batch_sampling::fixed_size}) {
    CAPTURE(static_cast<int>(sampling));
    const auto data = zeros(n, 1);
    dense_lr model(1);
    auto opt = dpsgd<dense_lr>::non_private(
        1, n, {.learning_rate = 1, .clip_norm = 1, .batch_size = b, .sampling = sampling});
    privet::testing::seeded_release_generator gen(22 + static_cast<int>(sampling));
    std::vector<int> included(n, 0);
    std::size_t total = 0;
    for (std::size_t s = 0; s < steps; ++s) {
      const auto r = opt.step(model, data, gen);
      if (sampling == batch_sampling::fixed_size) CHECK(r.batch.size() == b);
      for (std::size_t i = 1; i < r.batch.size(); ++i) REQUIRE(r.batch[i - 1] < r.batch[i]);
      for (auto i : r.batch) ++included[i];
      total += r.batch.size();
    }
    const double q = static_cast<double>(b) / n;
    if (sampling == batch_sampling::poisson) {
      // Total ~ Binomial(n steps, q): within 5 sd (false alarm 5.7e-7).
      const double mean = static_cast<double>(n * steps) * q;
      CHECK(std::abs(static_cast<double>(total) - mean) < 5 * std::sqrt(mean * (1 - q)));
    }
    // Each example's count ~ Binomial(steps, q) (hypergeometric margins for
    // fixed size, with a smaller variance): every one within 5.5 sd; the
    // union over 200 examples gives a false-alarm rate below 200 x 3.8e-8.
    const double sd = std::sqrt(steps * q * (1 - q));
    for (std::size_t i = 0; i < n; ++i) {
      CAPTURE(i);
      CHECK(std::abs(included[i] - steps * q) < 5.5 * sd);
    }
  }
}

TEST_CASE_TEMPLATE("the update's noise has standard deviation z C / b", Noise, privet::secure_noise,
                   privet::simulation_only_noise) {
  // All-zero features give zero gradients, so one step with lr = 1 moves the
  // weights by -noise / b. The sample variance of P = 4000 coordinates over
  // (z C / b)^2 is chi-square(P) / P: within 5 of its sd sqrt(2 / P) of 1
  // (false alarm below 1e-6); the mean within 5 sd of 0 (5.7e-7).
  const std::size_t p = 4000, b = 4;
  const double z = 1.7, c = 0.6;
  const auto data = zeros(8, p);
  dense_lr model(p);
  dpsgd<dense_lr, Noise> opt(
      p, 8,
      {.learning_rate = 1, .clip_norm = c, .batch_size = b, .sampling = batch_sampling::fixed_size},
      z);
  privet::testing::seeded_release_generator gen(31);
  (void)opt.step(model, data, gen);
  const double expected_sd = z * c / b;
  double sum = 0, sq = 0;
  for (double w : model.parameters()) {
    sum += w;
    sq += w * w;
  }
  const double mean = sum / p;
  CHECK(std::abs(mean) < 5 * expected_sd / std::sqrt(static_cast<double>(p)));
  const double ratio = sq / p / (expected_sd * expected_sd);
  CHECK(std::abs(ratio - 1) < 5 * std::sqrt(2.0 / p));
}
