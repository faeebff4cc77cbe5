#include <privet/core/validate.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

TEST_CASE("validators accept their ranges") {
  CHECK(privet::validate_epsilon(0.5) == 0.5);
  CHECK(privet::validate_delta(0) == 0);
  CHECK(privet::validate_delta(1e-9) == 1e-9);
  CHECK(privet::validate_probability(1.0, "p") == 1.0);
  CHECK(privet::validate_non_negative(0.0, "x") == 0.0);
  CHECK(privet::validate_at_least<int>(3, 1, "k") == 3);
}

TEST_CASE("validators reject with messages naming parameter, value and range") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(privet::validate_epsilon(-1),
                       "privet: epsilon = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_epsilon(nan),
                       "privet: epsilon = nan is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_epsilon(inf, "eps_1"),
                       "privet: eps_1 = inf is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_delta(1), "privet: delta = 1 is invalid; allowed: [0, 1)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_delta_positive(0),
                       "privet: delta = 0 is invalid; allowed: (0, 1)", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_probability(1.25, "p"),
                       "privet: p = 1.25 is invalid; allowed: [0, 1]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_finite(-inf, "x"),
                       "privet: x = -inf is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_at_least<int>(0, 1, "k"),
                       "privet: k = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_non_empty(std::vector<int>{}, "records"),
                       "privet: records is empty; allowed: at least one element",
                       privet::invalid_parameter);
  // Shortest round-trip formatting shows exactly the value passed in.
  CHECK_THROWS_WITH_AS(privet::validate_delta(1.0000000000000002),
                       "privet: delta = 1.0000000000000002 is invalid; allowed: [0, 1)",
                       privet::invalid_parameter);
}

TEST_CASE("the remaining validators name parameter, value and range too") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(privet::validate_positive(0, "x"),
                       "privet: x = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_non_negative(-1, "x"),
                       "privet: x = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_non_negative(inf, "x"),
                       "privet: x = inf is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_closed_range(3, 0, 2, "x"),
                       "privet: x = 3 is invalid; allowed: [0, 2]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_closed_range(nan, 0, 2, "x"),
                       "privet: x = nan is invalid; allowed: [0, 2]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_scale(-2),
                       "privet: scale = -2 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_bounds(nan, 1),
                       "privet: lower = nan is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_bounds(0, inf),
                       "privet: upper = inf is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::validate_bounds(2, 1),
                       "privet: upper = 1 is invalid; allowed: >= lower = 2",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::throw_empty("rows"),
                       "privet: rows is empty; allowed: at least one element",
                       privet::invalid_parameter);
}
