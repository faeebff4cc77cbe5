// Keep rates of the partition-selection policies against keep_probability():
// a two-cell chi-square test per (policy, n) at alpha = 1e-6, so each CHECK
// of passes() fails a correct sampler with probability 1e-6 (about 4e-5 for
// the whole file, 36 checks; the constant-time samplers' keep probabilities
// are within 2^-100 of keep_probability(), far below what 20,000 draws see). Seeds are fixed, so a
// given build always passes or always fails. The last test shows the same statistic rejects a wrong
// probability.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/partition_selection.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cstdint>
#include <vector>

using privet::approx_dp;

namespace {

constexpr double alpha = 1e-6;
constexpr int draws = 20'000;

template <class Policy>
std::vector<std::uint64_t> keep_counts(const Policy& p, std::uint64_t n, std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  std::vector<std::uint64_t> counts(2);
  for (int i = 0; i < draws; ++i) ++counts[p.keep(n, gen) ? 1 : 0];
  return counts;
}

privet::test::chi_square_result fit(const std::vector<std::uint64_t>& counts, double p) {
  return privet::test::chi_square_cells(counts, {1 - p, p}, alpha);
}

// The least n whose keep probability reaches `level`: the test points sit
// where the coin is far from certain, on the rising part of each curve.
template <class Policy>
std::uint64_t n_at(const Policy& p, double level) {
  std::uint64_t n = 1;
  while (p.keep_probability(n) < level) ++n;
  return n;
}

}  // namespace

TEST_CASE_TEMPLATE("empirical keep rates match keep_probability", Policy,
                   privet::laplace_partition_selection<privet::secure_noise>,
                   privet::gaussian_partition_selection<privet::secure_noise>,
                   privet::optimal_partition_selection<privet::secure_noise>,
                   privet::laplace_partition_selection<privet::constant_time_noise>,
                   privet::gaussian_partition_selection<privet::constant_time_noise>,
                   privet::optimal_partition_selection<privet::constant_time_noise>) {
  std::uint64_t seed = 500;
  for (std::uint64_t max_partitions : {1u, 4u}) {
    const Policy p(approx_dp(1.0, 1e-5), max_partitions);
    for (double level : {0.1, 0.5, 0.9}) {
      const std::uint64_t n = n_at(p, level);
      const double prob = p.keep_probability(n);
      const auto r = fit(keep_counts(p, n, ++seed), prob);
      CAPTURE(max_partitions);
      CAPTURE(n);
      CAPTURE(prob);
      CAPTURE(r.statistic);
      CHECK(r.passes());
    }
  }
}

TEST_CASE("a rare keep (probability 1e-3) has the right rate") {
  // eps = 2, delta = 1e-3, one partition: pi(1) = delta (1 - 2^-32) for the
  // optimal rule; 200,000 draws expect 200 keeps.
  const privet::optimal_partition_selection<privet::secure_noise> p(approx_dp(2.0, 1e-3), 1);
  privet::testing::seeded_release_generator gen(601);
  std::vector<std::uint64_t> counts(2);
  for (int i = 0; i < 200'000; ++i) ++counts[p.keep(1, gen) ? 1 : 0];
  const auto r = fit(counts, p.keep_probability(1));
  CAPTURE(r.statistic);
  CHECK(r.passes());
}

TEST_CASE("the chi-square test rejects a wrong keep probability") {
  // The optimal rule's samples at the n where Laplace keeps with probability
  // 1/2, tested against Laplace's probability there (the rules differ by
  // about 0.18 at that n, some 60 standard deviations), and against the true probability shifted by
  // 0.05 (about 14 standard deviations of the rate with 20,000 draws).
  const approx_dp target(1.0, 1e-5);
  const privet::optimal_partition_selection<privet::secure_noise> opt(target, 1);
  const privet::laplace_partition_selection<privet::secure_noise> lap(target, 1);
  const std::uint64_t n = n_at(lap, 0.5);
  REQUIRE(opt.keep_probability(n) - lap.keep_probability(n) > 0.1);
  const auto counts = keep_counts(opt, n, 701);
  CHECK(fit(counts, opt.keep_probability(n)).passes());
  CHECK_FALSE(fit(counts, lap.keep_probability(n)).passes());
  const double shifted = opt.keep_probability(n) > 0.5 ? opt.keep_probability(n) - 0.05
                                                       : opt.keep_probability(n) + 0.05;
  CHECK_FALSE(fit(counts, shifted).passes());
}
