// Unit tests of the discrete Gaussian sampler: parameter range and messages,
// sigma from a double (exact square or rounded up), the series behind pmf()
// and variance(), the 256-bit square it accepts with, and determinism.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using privet::discrete_gaussian_distribution;
using privet::detail::uint128;

namespace {

constexpr std::uint64_t max_sigma2_den1 = 13043817824165068815u;  // sigma ~ 3.6e9

// (stored sigma^2 - exact sigma^2) / exact sigma^2, computed exactly.
double relative_rounding(double sigma, const discrete_gaussian_distribution& d) {
  using boost::multiprecision::cpp_int;
  const auto [m, e] = privet::detail::exact_binary_value(sigma);
  cpp_int stored = d.sigma2_num();
  cpp_int exact = cpp_int(m) * m * d.sigma2_den();
  if (e < 0) {
    stored <<= -2 * e;
  } else {
    exact <<= 2 * e;
  }
  return static_cast<double>(stored - exact) / static_cast<double>(exact);
}

}  // namespace

TEST_CASE("discrete Gaussian reduces sigma^2 and proposes with t = floor(sigma) + 1") {
  struct expected {
    std::uint64_t num, den, a, b, t;
  };
  for (const expected& e : {expected{18, 2, 9, 1, 4}, expected{1, 4, 1, 4, 1},
                            expected{10, 1, 10, 1, 4}, expected{8, 2, 4, 1, 3},
                            expected{std::uint64_t{1} << 48, 1, std::uint64_t{1} << 48, 1,
                                     (std::uint64_t{1} << 24) + 1}}) {
    const std::uint64_t num = e.num, den = e.den, a = e.a, b = e.b, t = e.t;
    const discrete_gaussian_distribution d(num, den);
    CAPTURE(num);
    CHECK(d.sigma2_num() == a);
    CHECK(d.sigma2_den() == b);
    CHECK(d.proposal_scale() == t);
  }
}

TEST_CASE("discrete Gaussian accepts exactly the documented range of sigma^2") {
  const std::uint64_t below_2_62 = (std::uint64_t{1} << 62) - 1;
  CHECK_NOTHROW(discrete_gaussian_distribution(below_2_62, below_2_62 - 2));
  CHECK_NOTHROW(discrete_gaussian_distribution(below_2_62, 1));
  CHECK_NOTHROW(discrete_gaussian_distribution(1, below_2_62));
  CHECK_NOTHROW(discrete_gaussian_distribution(1, UINT64_MAX));  // sigma ~ 2^-32
  CHECK_NOTHROW(discrete_gaussian_distribution(max_sigma2_den1, 1));
  CHECK_THROWS_WITH_AS(
      discrete_gaussian_distribution(max_sigma2_den1 + 1, 1),
      "privet: sigma2 = 13043817824165068816/1 is invalid; allowed: 2 num den (floor(sigma) + "
      "1)^2 < 2^128 in lowest terms (true when num and den are < 2^62; for den = 1, sigma^2 up to "
      "13043817824165068815, sigma about 3.6e9)",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(discrete_gaussian_distribution(0, 1),
                       "privet: sigma2_num = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(discrete_gaussian_distribution(1, 0),
                       "privet: sigma2_den = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  try {
    (void)discrete_gaussian_distribution(UINT64_MAX, 1);
    FAIL("no exception");
  } catch (const privet::invalid_parameter& e) {
    CHECK(e.parameter() == "sigma2");
  }
}

TEST_CASE("discrete Gaussian from a double sigma validates it") {
  for (double bad : {-1.0, 0.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    CHECK_THROWS_AS(discrete_gaussian_distribution{bad}, privet::invalid_parameter);
  }
  CHECK_THROWS_WITH_AS(discrete_gaussian_distribution(-1.0),
                       "privet: sigma = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(discrete_gaussian_distribution(1e10),
                       "privet: sigma = 1e+10 is invalid; allowed: finite, > 0 and with sigma^2 "
                       "in the (sigma2_num, sigma2_den) range (sigma up to about 3.6e9)",
                       privet::invalid_parameter);
  CHECK_NOTHROW(discrete_gaussian_distribution(3.6e9));
}

TEST_CASE("a double sigma with a short binary fraction gives its exact square") {
  struct expected {
    double sigma;
    std::uint64_t a, b;
  };
  for (const expected& e :
       {expected{3.0, 9, 1}, expected{0.75, 9, 16}, expected{2.5, 25, 4},
        expected{65535.5, 17179607041, 4}, expected{std::ldexp(1.0, 24), std::uint64_t{1} << 48, 1},
        expected{std::ldexp(1.0, -20), 1, std::uint64_t{1} << 40}}) {
    const double sigma = e.sigma;
    const std::uint64_t a = e.a, b = e.b;
    const discrete_gaussian_distribution d(sigma);
    CAPTURE(sigma);
    CHECK(d.sigma2_num() == a);
    CHECK(d.sigma2_den() == b);
    CHECK(relative_rounding(sigma, d) == 0);
  }
}

TEST_CASE("other double sigmas round sigma^2 up, by the documented relative amount") {
  for (double sigma : {0.1, 0.3, 1.0 / 3, 0.99, 1.1, 3.14159, 1000.1, 16777216.1, 3.6e9 - 0.1}) {
    const discrete_gaussian_distribution d(sigma);
    const double rel = relative_rounding(sigma, d);
    CAPTURE(sigma);
    CAPTURE(rel);
    CHECK(rel > 0);  // up, never down: the noise is never smaller than asked
    CHECK(rel < (sigma >= 1 ? std::ldexp(1.0, -60) : std::ldexp(1.0, -53)));
  }
  for (double sigma : {0.04, 0.0313}) {
    CHECK(relative_rounding(sigma, discrete_gaussian_distribution(sigma)) < std::ldexp(1.0, -53));
  }
  // Far below 2^-31 sigma^2 is raised to 2^-63; every sample is still 0.
  const discrete_gaussian_distribution tiny(1e-12);
  CHECK(tiny.sigma2_num() == 1);
  CHECK(tiny.sigma2_den() == std::uint64_t{1} << 63);
  CHECK(privet::test::draw_samples(tiny, 1, 100, 0) == std::vector<std::int64_t>(100, 0));
}

TEST_CASE("pmf is symmetric and normalised; variance matches the direct sums") {
  // The class sums the direct series for sigma < 1 and the Poisson dual for
  // sigma >= 1; here both are compared with a plain direct sum.
  for (auto [num, den] : {std::pair<std::uint64_t, std::uint64_t>{1, 100},
                          {1, 4},
                          {99, 100},
                          {1, 1},
                          {101, 100},
                          {2, 1},
                          {49, 4},
                          {10'000, 1},
                          {1'000'000, 1}}) {
    const discrete_gaussian_distribution d(num, den);
    const double s2 = static_cast<double>(num) / static_cast<double>(den);
    double z = 0, x2 = 0, total = 0;
    const auto range = static_cast<std::int64_t>(40 * std::sqrt(s2)) + 40;
    for (std::int64_t x = -range; x <= range; ++x) {
      const double w = std::exp(-static_cast<double>(x) * static_cast<double>(x) / (2 * s2));
      z += w;
      x2 += static_cast<double>(x) * static_cast<double>(x) * w;
      total += d.pmf(x);
    }
    CAPTURE(s2);
    CHECK(d.pmf(3) == d.pmf(-3));
    CHECK(total == doctest::Approx(1).epsilon(1e-11));
    CHECK(d.pmf(0) == doctest::Approx(1 / z).epsilon(1e-11));
    CHECK(d.variance() == doctest::Approx(x2 / z).epsilon(1e-11));
    CHECK(d.variance() <= s2 * (1 + 1e-15));  // below sigma^2 but for rounding
  }
}

TEST_CASE("the 256-bit square used by the acceptance test is exact") {
  using boost::multiprecision::cpp_int;
  privet::testing::seeded_release_generator gen(11);
  const uint128 one = 1;
  std::vector<uint128> ks{0, 1, UINT64_MAX, one << 64, (one << 64) + 1, ~uint128{0}, one << 127};
  for (int i = 0; i < 1000; ++i) ks.push_back((static_cast<uint128>(gen()) << 64) | gen());
  for (uint128 k : ks) {
    const auto r = privet::detail::square_u256(k);
    const cpp_int expect = cpp_int(k) * cpp_int(k);
    const cpp_int got = (cpp_int(r.hi) << 128) + cpp_int(r.lo);
    CHECK(got == expect);
  }
}

TEST_CASE("the acceptance coin handles certain and hopeless exponents") {
  privet::testing::seeded_release_generator gen(12);
  const privet::testing::seeded_release_generator before = gen;
  CHECK(privet::detail::bernoulli_exp_square(gen, 0, 1));  // exp(0): no randomness used
  CHECK(gen == before);
  int hits = 0;
  for (int i = 0; i < 1000; ++i) hits += privet::detail::bernoulli_exp_square(gen, ~uint128{0}, 1);
  CHECK(hits == 0);  // exp(-(2^128 - 1)^2), ending at the first failing exp(-1) coin
}

TEST_CASE("discrete Gaussian samples are a deterministic function of seed and stream") {
  for (auto [num, den] : {std::pair<std::uint64_t, std::uint64_t>{1, 1},
                          {49, 4},
                          {1u << 20, 1},
                          {std::uint64_t{1} << 48, 1}}) {
    const discrete_gaussian_distribution d(num, den);
    CHECK(privet::test::draw_samples(d, 1, 200, 0) == privet::test::draw_samples(d, 1, 200, 0));
    CHECK(privet::test::draw_samples(d, 1, 200, 0) != privet::test::draw_samples(d, 1, 200, 1));
    CHECK(privet::test::draw_samples(d, 1, 200, 0) != privet::test::draw_samples(d, 2, 200, 0));
  }
}

TEST_CASE("discrete Gaussian samples take both signs and huge sigmas stay in range") {
  const auto xs = privet::test::draw_samples(discrete_gaussian_distribution(4, 1), 3, 1000, 0);
  int negative = 0, positive = 0;
  for (auto x : xs) {
    negative += x < 0;
    positive += x > 0;
  }
  CHECK(negative > 300);  // each side has probability 0.45
  CHECK(positive > 300);
  const discrete_gaussian_distribution wide(max_sigma2_den1, 1);
  const double sigma = wide.sigma();
  for (auto x : privet::test::draw_samples(wide, 4, 1000, 0))
    CHECK(std::fabs(static_cast<double>(x)) < 7 * sigma);
}

TEST_CASE("discrete Gaussian works with a 32-bit generator and is copyable") {
  std::mt19937 narrow(13);
  const discrete_gaussian_distribution d(0.8);
  std::int64_t spread = 0;
  for (int i = 0; i < 1000; ++i) spread += std::abs(d(narrow));
  CHECK(spread > 0);
  static_assert(std::is_copy_constructible_v<discrete_gaussian_distribution>);
  static_assert(std::is_copy_assignable_v<discrete_gaussian_distribution>);
}
