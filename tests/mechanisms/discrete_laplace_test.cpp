// Unit tests of the discrete Laplace sampler: exact scales, validation
// messages, the closed forms behind pmf() and variance(), determinism,
// extreme scales and the int64 overflow check.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using privet::discrete_laplace_distribution;

namespace {}  // namespace

TEST_CASE("discrete Laplace keeps a rational scale in lowest terms") {
  const discrete_laplace_distribution d(6, 4);
  CHECK(d.scale_num() == 3);
  CHECK(d.scale_den() == 2);
  CHECK(d.scale() == 1.5);
  const discrete_laplace_distribution extreme(UINT64_MAX, UINT64_MAX - 1);
  CHECK(extreme.scale_num() == UINT64_MAX);
  CHECK(extreme.scale_den() == UINT64_MAX - 1);
}

TEST_CASE("discrete Laplace takes the exact binary value of a double scale") {
  struct expected {
    double scale;
    std::uint64_t num, den;
  };
  for (const expected& e : {
           expected{0.75, 3, 4},
           expected{std::ldexp(1.0, 40), std::uint64_t{1} << 40, 1},
           expected{0.1, 3602879701896397, std::uint64_t{1} << 55},  // 0.1 is not 1/10
           expected{std::ldexp(1.0, -63), 1, std::uint64_t{1} << 63},
           expected{std::ldexp(1.0 + std::ldexp(1.0, -52), -11), (std::uint64_t{1} << 52) + 1,
                    std::uint64_t{1} << 63},
           expected{std::nextafter(std::ldexp(1.0, 64), 0.0), 18446744073709549568u, 1},
       }) {
    const double scale = e.scale;
    const std::uint64_t num = e.num, den = e.den;
    const discrete_laplace_distribution d(scale);
    CAPTURE(scale);
    CHECK(d.scale_num() == num);
    CHECK(d.scale_den() == den);
  }
}

TEST_CASE("discrete Laplace rejects invalid scales with messages naming them") {
  CHECK_THROWS_WITH_AS(discrete_laplace_distribution(0, 1),
                       "privet: scale_num = 0 is invalid; allowed: [1, 2^64 - 1]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(discrete_laplace_distribution(1, 0),
                       "privet: scale_den = 0 is invalid; allowed: [1, 2^64 - 1]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(discrete_laplace_distribution(-1.0),
                       "privet: scale = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(discrete_laplace_distribution(0.0),
                       "privet: scale = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(discrete_laplace_distribution(std::nan("")),
                       "privet: scale = nan is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  // static_cast: without it the statement would declare a variable.
  CHECK_THROWS_WITH_AS(
      static_cast<void>(discrete_laplace_distribution(std::numeric_limits<double>::infinity())),
      "privet: scale = inf is invalid; allowed: finite and > 0", privet::invalid_parameter);
  const char* range =
      " is invalid; allowed: finite, > 0 and exactly num / 2^k with num < 2^64 and k <= 63 "
      "(every double in [2^-11, 2^64) is)";
  CHECK_THROWS_WITH_AS(discrete_laplace_distribution(std::ldexp(1.0, 64)),
                       (std::string("privet: scale = 18446744073709551616") + range).c_str(),
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(discrete_laplace_distribution(1e300),
                       (std::string("privet: scale = 1e+300") + range).c_str(),
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(discrete_laplace_distribution(std::ldexp(1.0 + std::ldexp(1.0, -52), -12)),
                       (std::string("privet: scale = 0.00024414062500000005") + range).c_str(),
                       privet::invalid_parameter);
  try {
    (void)discrete_laplace_distribution(std::ldexp(1.0, -64));
    FAIL("no exception");
  } catch (const privet::invalid_parameter& e) {
    CHECK(e.parameter() == "scale");
  }
}

TEST_CASE("discrete Laplace pmf is symmetric, sums to 1 and has the closed-form variance") {
  for (double scale : {0.3, 1.0, 3.5, 100.0}) {
    const discrete_laplace_distribution d(scale);
    double total = d.pmf(0), second = 0;
    for (std::int64_t x = 1; x < 100'000; ++x) {
      CHECK(d.pmf(x) == d.pmf(-x));
      total += 2 * d.pmf(x);
      second += 2 * static_cast<double>(x) * static_cast<double>(x) * d.pmf(x);
    }
    const double q = std::exp(-1 / scale);
    CAPTURE(scale);
    CHECK(total == doctest::Approx(1).epsilon(1e-12));
    CHECK(d.variance() == doctest::Approx(second).epsilon(1e-10));
    CHECK(d.variance() == doctest::Approx(2 * q / ((1 - q) * (1 - q))).epsilon(1e-12));
    CHECK(d.pmf(0) == doctest::Approx((1 - q) / (1 + q)).epsilon(1e-14));
  }
  // Near-continuous scale: variance ~ 2 t^2 - 1/6.
  const discrete_laplace_distribution wide(std::ldexp(1.0, 40));
  CHECK(wide.variance() == doctest::Approx(2 * std::ldexp(1.0, 80)).epsilon(1e-12));
}

TEST_CASE("discrete Laplace samples are a deterministic function of seed and stream") {
  for (double scale : {0.6, 2.5, 1e6, std::ldexp(1.0, 40)}) {
    const discrete_laplace_distribution d(scale);
    CHECK(privet::test::draw_samples(d, 1, 200, 0) == privet::test::draw_samples(d, 1, 200, 0));
    CHECK(privet::test::draw_samples(d, 1, 200, 0) != privet::test::draw_samples(d, 1, 200, 1));
    CHECK(privet::test::draw_samples(d, 1, 200, 0) != privet::test::draw_samples(d, 2, 200, 0));
  }
}

TEST_CASE("discrete Laplace samples take both signs") {
  const auto xs = privet::test::draw_samples(discrete_laplace_distribution(2.5), 3, 1000, 0);
  int negative = 0, positive = 0;
  for (auto x : xs) {
    negative += x < 0;
    positive += x > 0;
  }
  // Each side has probability 0.34; fewer than 200 of 1000 is a 10-sigma event.
  CHECK(negative > 200);
  CHECK(positive > 200);
}

TEST_CASE("a tiny scale gives 0 and a huge one reaches 2^63 in O(1) time") {
  const auto zeros =
      privet::test::draw_samples(discrete_laplace_distribution(1, UINT64_MAX), 4, 1000, 0);
  CHECK(zeros == std::vector<std::int64_t>(1000, 0));  // P[x != 0] ~ 2 exp(-2^64)
  const auto wide =
      privet::test::draw_samples(discrete_laplace_distribution(std::ldexp(1.0, 56)), 4, 1000, 0);
  int beyond_2_55 = 0;
  for (auto x : wide) beyond_2_55 += std::fabs(static_cast<double>(x)) >= std::ldexp(1.0, 55);
  CHECK(beyond_2_55 > 400);  // probability exp(-1/2) ~ 0.61 each
}

TEST_CASE("a sample that does not fit int64 throws overflow_error instead of wrapping") {
  // Scale ~ 2^64: |x| >= 2^63 with probability exp(-1/2) ~ 0.61 per sample.
  const discrete_laplace_distribution d(UINT64_MAX, 1);
  privet::testing::seeded_release_generator gen(5);
  int thrown = 0, returned = 0;
  for (int i = 0; i < 200; ++i) {
    try {
      const std::int64_t x = d(gen);
      CHECK(x != INT64_MIN);
      ++returned;
    } catch (const privet::overflow_error& e) {
      CHECK(std::string(e.what()) ==
            "privet: a discrete Laplace sample with scale 18446744073709551615/1 does not fit in "
            "int64; allowed: |x| <= 2^63 - 1");
      ++thrown;
    }
  }
  CHECK(thrown > 50);
  CHECK(returned > 20);
}

TEST_CASE("discrete Laplace works with a 32-bit generator and is copyable") {
  std::mt19937 narrow(7);
  const discrete_laplace_distribution d(3, 2);
  std::int64_t spread = 0;
  for (int i = 0; i < 1000; ++i) spread += std::abs(d(narrow));
  CHECK(spread > 0);
  static_assert(std::is_nothrow_copy_constructible_v<discrete_laplace_distribution>);
  static_assert(std::is_copy_assignable_v<discrete_laplace_distribution>);
  discrete_laplace_distribution copy = d;
  copy = discrete_laplace_distribution(5, 1);
  CHECK(copy.scale_num() == 5);
}
