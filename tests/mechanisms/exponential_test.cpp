#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/exponential.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

TEST_CASE("selectors validate the candidate list and parameters") {
  privet::testing::seeded_release_generator gen(1);
  const privet::exponential_mechanism em(1.0, 1.0);
  CHECK_THROWS_WITH_AS(em(std::vector<double>{}, gen),
                       "privet: scores is empty; allowed: at least one element",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::permute_and_flip(1.0, 0.0),
                       "privet: sensitivity = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK(em.guarantee().epsilon() == 1.0);
}

TEST_CASE_TEMPLATE("a single candidate or a dominant one is returned", Noise, privet::secure_noise,
                   privet::constant_time_noise) {
  privet::testing::seeded_release_generator gen(2);
  const privet::permute_and_flip<Noise> pf(1.0, 1.0);
  CHECK(pf(std::vector<double>{5.0}, gen) == 0);
  const privet::exponential_mechanism<Noise> em(50.0, 1.0);
  for (int i = 0; i < 100; ++i) CHECK(em(std::vector<double>{0, 1000, 0}, gen) == 1);
}

TEST_CASE("report-noisy-max names the exactly equivalent mechanisms") {
  static_assert(std::is_same_v<privet::report_noisy_max<privet::gumbel_noise>,
                               privet::exponential_mechanism<>>);
  static_assert(std::is_same_v<privet::report_noisy_max<privet::exponential_noise>,
                               privet::permute_and_flip<>>);
  static_assert(
      std::is_same_v<privet::report_noisy_max<privet::exponential_noise, privet::secure_noise>,
                     privet::permute_and_flip<privet::secure_noise>>);
  static_assert(!privet::report_noisy_max_noise<double>);
  privet::testing::seeded_release_generator gen(3);
  const privet::report_noisy_max<privet::exponential_noise> rnm(1.0, 1.0);
  CHECK(rnm(std::vector<double>{0, 100, 0}, gen) == 1);
}

TEST_CASE("selectors name a bad epsilon") {
  CHECK_THROWS_WITH_AS(privet::exponential_mechanism(0.0, 1.0),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::permute_and_flip(1.0, -1.0, true),
                       "privet: sensitivity = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
}

// Issue 22: scores are data, so no score makes a selection throw. +inf is
// read as the largest double, -inf and NaN as the lowest.
TEST_CASE_TEMPLATE("non-finite and extreme scores select, never throw", Noise, privet::secure_noise,
                   privet::constant_time_noise) {
  privet::testing::seeded_release_generator gen(5);
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double top = std::numeric_limits<double>::max();
  constexpr double low = std::numeric_limits<double>::lowest();
  CHECK(privet::exponential_mechanism<>::finite_score(inf) == top);
  CHECK(privet::exponential_mechanism<>::finite_score(-inf) == low);
  CHECK(privet::exponential_mechanism<>::finite_score(NAN) == low);
  CHECK(privet::exponential_mechanism<>::finite_score(-0.5) == -0.5);
  const privet::exponential_mechanism<Noise> em(1.0, 1.0);
  const privet::permute_and_flip<Noise> pf(1.0, 1.0);
  for (int i = 0; i < 50; ++i) {
    // exp(-(top - 0) / 2) is 0 to any precision: the best candidate wins.
    CHECK(em(std::vector<double>{0, inf}, gen) == 1);
    CHECK(pf(std::vector<double>{NAN, 0}, gen) == 1);
    CHECK(em(std::vector<double>{-inf, top, low}, gen) == 1);
    CHECK(pf(std::vector<double>{low, -inf, top}, gen) == 2);
    // A neighbouring pair at the extremes: both release.
    CHECK_NOTHROW((void)em(std::vector<double>{top, top, NAN}, gen));
    CHECK_NOTHROW((void)em(std::vector<double>{top, inf, -inf}, gen));
    CHECK_NOTHROW((void)pf(std::vector<double>{inf, inf}, gen));
  }
  // All scores undefined: every candidate is equally (un)preferred.
  int first = 0;
  for (int i = 0; i < 400; ++i) first += em(std::vector<double>{NAN, -inf}, gen) == 0 ? 1 : 0;
  CHECK(first > 120);  // Binomial(400, 1/2): 8 standard deviations (false alarm < 1e-15)
  CHECK(first < 280);
}

TEST_CASE_TEMPLATE("the selection probabilities stay exact next to the largest double", Noise,
                   privet::secure_noise, privet::constant_time_noise) {
  // Scores DBL_MAX and the next double below it (one ulp = 2^971 apart),
  // sensitivity 2^971, eps = 1, non-monotonic: P[0] / P[1] = exp(1 / 2), so
  // P[0] = 1 / (1 + e^-0.5) = 0.62246.
  privet::testing::seeded_release_generator gen(6);
  constexpr double top = std::numeric_limits<double>::max();
  const double below = std::nextafter(top, 0.0);
  // (With constant_time_noise the grid is 2^941 and eps' is within 2^-30
  // of eps: P[0] moves by less than 1e-10.)
  const privet::exponential_mechanism<Noise> em(1.0, std::ldexp(1.0, 971));
  const int n = 4000;
  int zero = 0;
  for (int i = 0; i < n; ++i) zero += em(std::vector<double>{top, below}, gen) == 0 ? 1 : 0;
  const double p = 1 / (1 + std::exp(-0.5));
  // 5 standard deviations: false alarm about 6e-7.
  CHECK(std::fabs(zero / double(n) - p) < 5 * std::sqrt(p * (1 - p) / n));
}
