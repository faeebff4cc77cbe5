#include <privet/core/pipeline.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/transformations/bounded_sum.hpp>
#include <privet/core/transformations/clamp.hpp>
#include <privet/mechanisms/laplace.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <vector>

using privet::laplace_mechanism;

TEST_CASE("Laplace from scale: guarantee is sensitivity / scale plus at most the grid step") {
  const auto m = laplace_mechanism<>::from_scale(2.0);
  CHECK(m.granularity() == std::ldexp(1.0, -39));  // 2 / 2^40 rounded to a power of two
  const double eps = m.guarantee(1.0).epsilon();
  CHECK(eps >= 0.5);
  CHECK(eps <= 0.5 + m.granularity());  // one grid step over scale 2, rounded up
  CHECK(m.guarantee(0).epsilon() == 0);
  const auto sim = laplace_mechanism<double, privet::simulation_only_noise>::from_scale(2.0);
  CHECK(sim.guarantee(1.0).epsilon() == 0.5);
}

TEST_CASE("Laplace calibrated to a target never exceeds it") {
  for (double eps : {0.01, 0.1, 1.0, 3.7, 10.0})
    for (double sens : {1.0, 0.3, 60.0, 1e6}) {
      const auto m = laplace_mechanism<>::from_guarantee(privet::pure_dp(eps), sens);
      CHECK(m.guarantee(sens).epsilon() <= eps);
      CHECK(m.guarantee(sens).epsilon() >= eps * (1 - 1e-9));  // and is not wasteful
      CHECK(m.scale() == doctest::Approx(sens / eps).epsilon(1e-9));
    }
}

TEST_CASE("Laplace secure outputs lie on the grid whatever the input") {
  privet::seeded_generator gen(1);
  const auto m = laplace_mechanism<>::from_scale(1.0);
  for (double x : {0.0, 0.1, 1.0 / 3.0, 12345.678}) {
    const double y = m(x, gen);
    CHECK(y / m.granularity() == std::nearbyint(y / m.granularity()));
  }
}

TEST_CASE("Laplace noise has the right spread (coarse check)") {
  // Mean absolute deviation of Lap(b) is b; over 20000 draws its standard
  // error is about b / 141, so a 5% band fails with probability < 1e-6.
  privet::seeded_generator gen(2);
  const auto m = laplace_mechanism<>::from_scale(3.0);
  double mad = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) mad += std::fabs(m(10.0, gen) - 10.0);
  CHECK(mad / n == doctest::Approx(3.0).epsilon(0.05));
}

TEST_CASE("Laplace rejects bad parameters and inputs with clear messages") {
  privet::seeded_generator gen(3);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_scale(0),
                       "privet: scale = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_guarantee(privet::pure_dp(0), 1),
                       "privet: target.epsilon = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  const auto m = laplace_mechanism<>::from_scale(1.0);
  CHECK_THROWS_WITH_AS(m(NAN, gen), "privet: x = nan is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  CHECK_THROWS_AS(m(1e300, gen), privet::overflow_error);
  const auto v = laplace_mechanism<>::from_scale(1.0, 3);
  CHECK(v(std::vector<double>{1, 2, 3}, gen).size() == 3);
  CHECK_THROWS_WITH_AS(v(std::vector<double>{1, 2}, gen),
                       "privet: input size = 2 is invalid; allowed: == dimension = 3",
                       privet::invalid_parameter);
}

TEST_CASE("pipeline clamp | bounded_sum | Laplace reports the composed guarantee") {
  privet::seeded_generator gen(4);
  auto p = privet::clamp(0.0, 5.0) | privet::bounded_sum(0.0, 5.0, 1000) |
           laplace_mechanism<>::from_guarantee(privet::pure_dp(0.5), 5.0);
  static_assert(std::same_as<privet::guarantee_t<decltype(p)>, privet::pure_dp>);
  // bounded_sum's stability is 5 plus its rounding margin (< 1e-12 here),
  // which the mechanism's grid rounding absorbs or adds a hair to.
  CHECK(p.guarantee(1).epsilon() >= 0.5);
  CHECK(p.guarantee(1).epsilon() < 0.5 * (1 + 1e-9));
  const double y = p(std::vector<double>{1, 2, 9}, gen);
  CHECK(std::isfinite(y));
}

TEST_CASE("Laplace names every refused parameter and the input that leaves the grid") {
  privet::seeded_generator gen(4);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_scale(1.0, 0),
                       "privet: dimension = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_guarantee(privet::pure_dp(1), 0),
                       "privet: l1_sensitivity = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_guarantee(privet::pure_dp(1), 1, 0),
                       "privet: dimension = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  const auto m = laplace_mechanism<>::from_scale(1.0);
  CHECK_THROWS_WITH_AS((void)m.guarantee(-1),
                       "privet: l1_sensitivity = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  // Scale 1: the grid is 2^-40 = 9.094947017729282e-13.
  CHECK_THROWS_WITH_AS(m(1e300, gen),
                       "privet: x = 1e+300 does not fit the noise grid (granularity "
                       "9.094947017729282e-13); allowed: |value| < 2^62 * granularity",
                       privet::overflow_error);
  const auto v = laplace_mechanism<>::from_scale(1.0, 3);
  CHECK_THROWS_WITH_AS(v(1.0, gen),
                       "privet: dimension = 3 is invalid; allowed: 1 for a scalar input (pass a "
                       "vector of that size)",
                       privet::invalid_parameter);
}
