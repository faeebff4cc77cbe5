#include <privet/core/seeded_generator.hpp>
#include <privet/mechanisms/sparse_vector.hpp>

#include <doctest/doctest.h>

#include <cmath>

TEST_CASE("AboveThreshold halts on a clearly high query and then refuses") {
  privet::seeded_generator gen(41);
  privet::above_threshold svt(1.0, 1.0, 100.0, gen);
  // Noise scales 2 and 4: answers 60 below the threshold stay below with
  // overwhelming probability (exp(-60/4) ~ 3e-7 per query side).
  for (int i = 0; i < 10; ++i) CHECK_FALSE(svt(40.0, gen));
  CHECK(svt(200.0, gen));
  CHECK(svt.halted());
  CHECK(svt.queries() == 11);
  CHECK_THROWS_WITH_AS(
      svt(0.0, gen),
      "privet: above_threshold has already reported a query above the threshold; its "
      "budget is spent (start a new instance with fresh budget)",
      privet::budget_exhausted);
}

TEST_CASE("AboveThreshold's guarantee is at most its epsilon and within a grid step of it") {
  privet::seeded_generator gen(42);
  for (double eps : {0.1, 1.0, 4.0})
    for (double sens : {1.0, 0.37, 250.0}) {
      privet::above_threshold svt(eps, sens, 0.0, gen);
      CHECK(svt.guarantee().epsilon() <= eps);
      CHECK(svt.guarantee().epsilon() >= eps * (1 - 1e-9));
    }
}

TEST_CASE("AboveThreshold validates its parameters") {
  privet::seeded_generator gen(43);
  CHECK_THROWS_WITH_AS(privet::above_threshold(-1, 1, 0, gen),
                       "privet: epsilon = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::above_threshold(1, 0, 0, gen),
                       "privet: sensitivity = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  privet::above_threshold svt(1, 1, 0, gen);
  CHECK_THROWS_WITH_AS(svt(INFINITY, gen),
                       "privet: answer = inf is invalid; allowed: a finite number",
                       privet::invalid_parameter);
}

TEST_CASE("AboveThreshold names a threshold or answer that is not finite or leaves the grid") {
  privet::seeded_generator gen(43);
  CHECK_THROWS_WITH_AS(privet::above_threshold(1, 1, std::nan(""), gen),
                       "privet: threshold = nan is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  // Sensitivity 1: the grid is 2^-40 = 9.094947017729282e-13.
  CHECK_THROWS_WITH_AS(privet::above_threshold(1, 1, 1e300, gen),
                       "privet: threshold = 1e+300 does not fit the noise grid (granularity "
                       "9.094947017729282e-13); allowed: |value| < 2^62 * granularity",
                       privet::overflow_error);
  privet::above_threshold svt(1, 1, 0, gen);
  CHECK_THROWS_WITH_AS(svt(-1e300, gen),
                       "privet: answer = -1e+300 does not fit the noise grid (granularity "
                       "9.094947017729282e-13); allowed: |value| < 2^62 * granularity",
                       privet::overflow_error);
}
