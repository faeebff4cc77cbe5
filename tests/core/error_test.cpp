#include <privet/accounting/privacy_filter.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/contribution_bounding.hpp>

#include <doctest/doctest.h>

#include <limits>
#include <stdexcept>

// Every error type is thrown by the library and caught as privet::error and
// as its standard base; the messages are checked where each is triggered.
TEST_CASE("invalid_parameter names the parameter") {
  try {
    privet::validate_delta(1.5);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(e.parameter() == "delta");
    CHECK(std::string(e.what()) == "privet: delta = 1.5 is invalid; allowed: [0, 1)");
  }
}

TEST_CASE("overflow_error from a stability map that would wrap") {
  privet::bound_contributions<int, int> bound(std::numeric_limits<std::uint64_t>::max() / 2);
  CHECK_THROWS_WITH_AS((void)bound.stability(3),
                       doctest::Contains("overflows 64 bits; allowed: a product < 2^64"),
                       privet::overflow_error);
}

TEST_CASE("budget_exhausted from a privacy filter, caught as privet::error") {
  privet::privacy_filter<privet::pure_dp> filter(privet::pure_dp(1));
  CHECK_THROWS_WITH_AS(filter.spend(privet::pure_dp(2)),
                       "privet: spending epsilon = 2 would exceed the budget: 0 of 1 already spent",
                       privet::error);
}

TEST_CASE("hierarchy: every privet exception is a privet::error and a std::runtime_error") {
  CHECK_THROWS_AS(throw privet::budget_exhausted("privet: budget"), privet::error);
  CHECK_THROWS_WITH_AS(throw privet::serialization_error("privet: bad key"), "privet: bad key",
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(throw privet::protocol_error("privet: replayed message"),
                       "privet: replayed message", privet::error);
  CHECK_THROWS_AS(throw privet::overflow_error("x"), privet::error);
  CHECK_THROWS_AS(privet::validate_epsilon(0), privet::error);
}
