// Frequencies of randomised reports against p_true / p_other, and
// unbiasedness of the estimators. Bands are 5.5 standard deviations: each
// CHECK fails a correct implementation with probability < 4e-8.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/randomized_response.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

TEST_CASE("k-ary randomised response reports with the right probabilities") {
  for (double eps : {0.5, 2.0, 6.0}) {
    const privet::randomized_response rr(eps, 6);
    privet::testing::seeded_release_generator gen(21);
    const int n = 200'000;
    std::vector<std::uint64_t> counts(6);
    for (int i = 0; i < n; ++i) ++counts[rr(2, gen)];
    for (std::uint64_t v = 0; v < 6; ++v) {
      const double p = v == 2 ? rr.p_true() : rr.p_other();
      CAPTURE(eps);
      CAPTURE(v);
      CHECK(std::fabs(static_cast<double>(counts[v]) / n - p) <= 5.5 * std::sqrt(p * (1 - p) / n));
    }
  }
}

TEST_CASE("frequency estimates are unbiased, within their stated variance") {
  const privet::randomized_response rr(1.0, 4);
  privet::testing::seeded_release_generator gen(22);
  // 30000 users: 15000 hold 0, 10000 hold 1, 5000 hold 2, none hold 3.
  const std::vector<double> truth{15000, 10000, 5000, 0};
  std::vector<std::uint64_t> counts(4);
  for (std::uint64_t v = 0; v < 4; ++v)
    for (int i = 0; i < static_cast<int>(truth[v]); ++i) ++counts[rr(v, gen)];
  const auto est = rr.estimate_counts(counts);
  for (std::size_t v = 0; v < 4; ++v) {
    CAPTURE(v);
    CHECK(std::fabs(est[v] - truth[v]) <= 5.5 * std::sqrt(rr.estimate_variance(30000, truth[v])));
  }
}

TEST_CASE("binary randomised response estimates a proportion") {
  const privet::binary_randomized_response rr(0.8);
  privet::testing::seeded_release_generator gen(23);
  std::uint64_t yes = 0;
  const std::uint64_t n = 100'000;
  for (std::uint64_t i = 0; i < n; ++i) yes += rr(i % 10 < 3, gen);  // 30% hold true
  const double est = rr.estimate_count(yes, n);
  const double p = rr.p_true(), r = 1 - p;
  const double sd = std::sqrt(n * p * (1 - p)) / (p - r);
  CHECK(std::fabs(est - 30'000) <= 5.5 * sd);
}
