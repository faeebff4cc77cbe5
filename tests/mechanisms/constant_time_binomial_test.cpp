// Unit tests of mechanisms/constant_time_binomial.hpp and its pieces in
// detail/ct_local.hpp. Known answers come from Boost.Math's binomial
// distribution (cdf through the regularized incomplete beta, a second method
// beside the header's big-integer recurrence), the window's tails from the
// same exact tails; the constant-time division and searches are checked
// against the built-in operators and std::upper_bound.
#include <privet/core/testing.hpp>
#include <privet/mechanisms/constant_time_binomial.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>
#include <support/errors.hpp>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using privet::constant_time_binomial;
using privet::constant_time_poisson_sample;

// P[Bin(n, q) <= k], and its complement P[Bin(n, q) > k], from Boost.
double cdf(double n, double q, double k) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  return boost::math::ibetac(k + 1, n - k, q);
}
double upper(double n, double q, double k) {
  if (k >= n) return 0;
  if (k < 0) return 1;
  return boost::math::ibeta(k + 1, n - k, q);
}

struct job {
  std::uint64_t n;
  double rate;
};

const std::vector<job> jobs = {
    {100, 0.1}, {1000, 0.05}, {1000000, 1e-3}, {std::uint64_t{1} << 40, 1e-9},    {12, 16.0},
    {50, 2.0},  {1000, 1e-5}, {3, 0.5},        {std::uint64_t{1} << 62, 0x1p-52}, {200000, 0.02},
};

}  // namespace

TEST_CASE(
    "constant-time binomial: the window holds all but 2^-99 and its thresholds are Bin(n, p)'s") {
  for (const job& j : jobs) {
    const constant_time_binomial b(j.n, j.rate);
    const double q = -std::expm1(-j.rate);
    const auto n = static_cast<double>(j.n);
    const auto lo = static_cast<double>(b.min()), hi = static_cast<double>(b.max());
    CAPTURE(j.n);
    CAPTURE(j.rate);
    CAPTURE(b.min());
    CAPTURE(b.max());
    // The tails the window leaves out, exactly: each at most 2^-100.
    CHECK(cdf(n, q, lo - 1) <= 0x1p-100);
    CHECK(upper(n, q, hi) <= 0x1p-100);
    // Not loose: a window a quarter narrower on either side leaves out more.
    const double mu = n * q;
    if (b.min() > 0) CHECK(cdf(n, q, lo + (mu - lo) / 4) > 0x1p-100);
    if (b.max() < j.n) CHECK(upper(n, q, std::floor(hi - (hi - mu) / 4)) > 0x1p-100);
    CHECK(b.total_variation() <= constant_time_binomial::max_total_variation);
    CHECK(b.entries() == b.max() - b.min());
    // Each threshold is P[X <= lo + k | window] to within 2^-128 plus
    // Boost's own error (a few ulps of the cdf).
    const double below = cdf(n, q, lo - 1);
    const double mass = cdf(n, q, hi) - below;
    double worst = 0;
    for (std::size_t k = 0; k < b.entries(); ++k) {
      const double want = (cdf(n, q, lo + static_cast<double>(k)) - below) / mass;
      worst = std::max(worst, std::abs(b.thresholds()[k].probability() - want));
    }
    CAPTURE(worst);
    CHECK(worst <= 1e-13);
  }
}

TEST_CASE("constant-time binomial: two words a sample, every sample in the window") {
  const constant_time_binomial b(1000000, 1e-3);  // mean 1000
  privet::test::counting_release_generator gen(7);
  std::uint64_t low = b.max(), high = b.min();
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t before = gen.calls();
    const std::uint64_t x = b(gen);
    CHECK(gen.calls() - before == 2);
    low = std::min(low, x);
    high = std::max(high, x);
    CHECK(x >= b.min());
    CHECK(x <= b.max());
  }
  // 20,000 samples of mean 1000 and sd 31.6 spread over +-3 sd at least.
  CHECK(low < 910);
  CHECK(high > 1090);
}

TEST_CASE("constant-time binomial: parameters outside the domain are refused by name") {
  using privet::test::message_of;
  using privet::test::rejected_parameter;
  CHECK(rejected_parameter([] { constant_time_binomial(10, 0.0); }) == "rate");
  CHECK(rejected_parameter([] { constant_time_binomial(10, 17.0); }) == "rate");
  CHECK(rejected_parameter([] { constant_time_binomial(10, std::nan("")); }) == "rate");
  CHECK(message_of<privet::invalid_parameter>([] {
          constant_time_binomial(10, 17.0);
        }).find("(0, 16]") != std::string::npos);
  // A mean of 2^40 needs far more than 2^20 thresholds.
  CHECK(rejected_parameter([] { constant_time_binomial(std::uint64_t{1} << 50, 0x1p-10); }) == "n");
  CHECK(message_of<privet::invalid_parameter>([] {
          constant_time_binomial(std::uint64_t{1} << 50, 0x1p-10);
        }).find("1048576 entries") != std::string::npos);
  // A Poisson sample beyond 2^20 members is refused by n as well, and one
  // beyond 2^14 where n is too small for sorted draws.
  CHECK(rejected_parameter([] { constant_time_poisson_sample(std::uint64_t{1} << 40, 0x1p-18); }) ==
        "n");
  CHECK(rejected_parameter([] { constant_time_poisson_sample(40000, 0.7); }) == "n");
  CHECK(constant_time_poisson_sample(1000000, 0.1).sorted_draws());
  CHECK_FALSE(constant_time_poisson_sample::supports(std::uint64_t{1} << 40, 0x1p-18));
  CHECK_FALSE(constant_time_poisson_sample::supports(40000, 0.7));
  CHECK(constant_time_poisson_sample::supports(std::uint64_t{1} << 30, 5e-4));
  CHECK(constant_time_poisson_sample::supports(1000000, 1e-3));
  // No trials: the window is {0}.
  const constant_time_binomial none(0, 1.0);
  CHECK(none.max() == 0);
  CHECK(none.entries() == 0);
}

TEST_CASE(
    "constant-time Poisson sample: distinct increasing members below n, count in the window") {
  const constant_time_poisson_sample s(5000, 0.02);  // mean about 99
  std::vector<std::uint64_t> out(s.capacity());
  privet::test::counting_release_generator gen(11);
  double total = 0;
  for (int i = 0; i < 300; ++i) {
    const std::size_t count = s(gen, out.data());
    REQUIRE(count <= s.capacity());
    for (std::size_t k = 0; k < count; ++k) {
      CHECK(out[k] < 5000);
      if (k > 0) CHECK(out[k - 1] < out[k]);
    }
    total += static_cast<double>(count);
  }
  // Mean 5000 (1 - e^-0.02) = 99.0, sd of the average over 300 runs 0.57:
  // 5.5 sd is a false alarm below 1e-7.
  CHECK(std::abs(total / 300 - 5000 * -std::expm1(-0.02)) < 5.5 * 0.57);
}

TEST_CASE("ct_divider: quotient and remainder of every operand class") {
  std::mt19937_64 rng(3);
  std::vector<std::uint64_t> divisors = {1,
                                         2,
                                         3,
                                         7,
                                         10,
                                         255,
                                         256,
                                         1000003,
                                         ~std::uint64_t{0},
                                         std::uint64_t{1} << 63,
                                         (std::uint64_t{1} << 63) + 1};
  for (int i = 0; i < 200; ++i) divisors.push_back(rng() >> (rng() % 64));
  for (std::uint64_t d : divisors) {
    if (d == 0) continue;
    const privet::detail::ct_divider div(d);
    std::vector<std::uint64_t> xs = {0, 1, d - 1, d, d + 1, ~std::uint64_t{0}, 2 * d - 1};
    for (int i = 0; i < 200; ++i) xs.push_back(rng() >> (rng() % 64));
    for (std::uint64_t x : xs) {
      const auto [q, r] = div.divide(x);
      CHECK(q == x / d);
      CHECK(r == x % d);
    }
  }
}

TEST_CASE("ct_upper_bound and ct_contains agree with std::upper_bound on every probe") {
  std::mt19937_64 rng(5);
  for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 1023}) {
    std::set<std::uint64_t> values;
    while (values.size() < n) values.insert(rng() % (4 * n + 4));
    const std::vector<std::uint64_t> a(values.begin(), values.end());
    for (std::uint64_t x = 0; x < 4 * n + 6; ++x) {
      const auto want =
          static_cast<std::size_t>(std::upper_bound(a.begin(), a.end(), x) - a.begin());
      CHECK(privet::detail::ct_upper_bound(a.data(), a.size(), x) == want);
      CHECK(privet::detail::ct_contains(a.data(), a.size(), x) == (values.count(x) ? 1u : 0u));
    }
  }
}
