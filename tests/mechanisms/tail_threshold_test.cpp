// Tails and thresholds: the normal tail and its safe inverse, the discrete
// Gaussian tail against direct summation, the certified tail bounds against
// 113-bit references (Boost.Multiprecision), DPSU's thresholds against an
// independent evaluation of Gopi et al.'s formulas, and the errors.
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/tail_threshold.hpp>

#include <doctest/doctest.h>
#include <boost/math/special_functions/erf.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <support/errors.hpp>

#include <algorithm>
#include <map>
#include <vector>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

using privet::test::rejected_parameter;

namespace {

// P[N > x] by the complementary error function in long double.
long double tail(long double x) {
  return std::erfc(x / std::sqrt(2.0L)) / 2;
}

// The upper quantile by plain bisection on [-40, 40] in long double: an
// independent inverse of tail().
long double quantile(long double q) {
  long double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const long double mid = (lo + hi) / 2;
    (tail(mid) > q ? lo : hi) = mid;
  }
  return hi;
}

using quad = boost::multiprecision::cpp_bin_float_quad;

// P[Z >= k] for each k of `ks` (the discrete Gaussian with sigma^2 = s2), in
// 113-bit arithmetic: every term e^{-x^2 / 2 s2} for |x| <= 16 sigma + 40
// from one exponential by the recurrence f(x + 1) = f(x) r_x, r_{x+1} = r_x
// e^{-1/s2}, summed from the smallest up; the terms left out are below
// e^{-78} of every tail asked for (|k| <= 10 sigma). A method independent of
// the library's (no Euler-Maclaurin, no Poisson summation), relative error
// about n 2^-113.
std::map<std::int64_t, quad> reference_tails(quad s2, const std::vector<std::int64_t>& ks) {
  using boost::multiprecision::exp;
  using boost::multiprecision::sqrt;
  const auto reach = static_cast<std::int64_t>(16 * sqrt(s2)) + 40;
  std::vector<quad> f(static_cast<std::size_t>(reach) + 1);
  quad w = 1, r = exp(-1 / (2 * s2));
  const quad step = exp(-1 / s2);
  for (std::int64_t x = 0; x <= reach; ++x) {
    f[static_cast<std::size_t>(x)] = w;
    w *= r;
    r *= step;
  }
  // upper[x] = sum over y >= x of f(y), for x >= 0.
  std::vector<quad> upper(f.size() + 1, quad(0));
  for (std::int64_t x = reach; x >= 0; --x) {
    upper[static_cast<std::size_t>(x)] =
        upper[static_cast<std::size_t>(x) + 1] + f[static_cast<std::size_t>(x)];
  }
  const quad total = 2 * upper[0] - f[0];
  std::map<std::int64_t, quad> out;
  for (const std::int64_t k : ks) {
    // k <= 0: everything but the sum over x <= k - 1, i.e. over y >= 1 - k.
    const std::int64_t from = k >= 1 ? k : 1 - k;
    const quad t = from <= reach ? upper[static_cast<std::size_t>(from)] : quad(0);
    out[k] = (k >= 1 ? t : total - t) / total;
  }
  return out;
}

}  // namespace

TEST_CASE("normal_upper_quantile inverts the tail and never falls below the exact quantile") {
  for (double q : {0.9, 0.5, 0.3, 0.01, 1e-5, 1e-9, 1e-15, 1e-40, 1e-300}) {
    const double x = privet::normal_upper_quantile(q);
    const long double exact = quantile(q);
    INFO("q = " << q << ", x = " << x << ", exact = " << static_cast<double>(exact));
    CHECK(static_cast<long double>(x) >= exact);
    CHECK(static_cast<long double>(x) - exact <= 1e-9L * (1 + std::fabs(exact)));
  }
  CHECK(privet::normal_upper_tail(0) == 0.5);
  CHECK(privet::normal_upper_tail(1.6448536269514722) == doctest::Approx(0.05).epsilon(1e-12));
  for (double q : {0.0, 1.0, -0.5, 2.0, std::numeric_limits<double>::quiet_NaN()}) {
    CHECK(rejected_parameter([&] { (void)privet::normal_upper_quantile(q); }) == "q");
  }
  CHECK(rejected_parameter([] { (void)privet::normal_upper_tail(std::nan("")); }) == "x");
}

TEST_CASE("discrete Gaussian tail: series and Euler-Maclaurin agree with direct summation") {
  // Direct sums of exp(-x^2 / 2 s^2) over x >= k and over all x, in long double.
  auto direct = [](const privet::discrete_gaussian_distribution& d, std::int64_t k) {
    const long double s2 = static_cast<long double>(d.sigma2_num()) / d.sigma2_den();
    long double num = 0, den = 0;
    const auto reach = static_cast<std::int64_t>(40 * std::sqrt(s2)) + 40;
    for (std::int64_t x = -reach; x <= reach; ++x) {
      const long double w = std::exp(-static_cast<long double>(x) * x / (2 * s2));
      den += w;
      if (x >= k) num += w;
    }
    return num / den;
  };
  for (double sigma : {0.5, 3.0, 40.0, 100.0, 1000.0, 3000.0, 25000.0}) {
    const privet::discrete_gaussian_distribution d(sigma);
    for (double z : {-2.0, -0.3, 0.0, 0.5, 1.0, 2.5, 4.0, 6.0}) {
      const auto k = static_cast<std::int64_t>(std::llround(z * sigma));
      const double got = privet::discrete_gaussian_upper_tail(d, k);
      const long double want = direct(d, k);
      INFO("sigma = " << sigma << ", k = " << k);
      CHECK(std::fabs(got - want) <= 1e-13L * want + 1e-300L);
    }
  }
}

TEST_CASE("discrete Gaussian tail bounds hold the 113-bit direct sum and are within 2^-48") {
  // Both sides of the switch from term-by-term sums to Euler-Maclaurin at
  // sigma = 2048, tails from 1 - 10^-3 down to 10^-23, and k <= 0 (the
  // complement).
  for (double sigma : {0.5, 3.0, 40.0, 1000.0, 2047.9, 2048.5, 25000.0, 65536.0}) {
    const privet::discrete_gaussian_distribution d(sigma);
    const quad s2 = quad(d.sigma2_num()) / quad(d.sigma2_den());
    std::vector<std::int64_t> ks;
    for (double z : {-3.0, -1.0, -0.3, 0.0, 0.5, 1.0, 2.5, 4.0, 6.0, 10.0}) {
      ks.push_back(static_cast<std::int64_t>(std::llround(z * sigma)));
    }
    const auto want = reference_tails(s2, ks);
    for (const std::int64_t k : ks) {
      const privet::probability_bounds b = privet::discrete_gaussian_upper_tail_bounds(d, k);
      const quad p = want.at(k);
      INFO("sigma = " << sigma << ", k = " << k << ", p = " << p.str(20));
      CHECK(quad(b.lower) <= p);
      CHECK(p <= quad(b.upper));
      CHECK(b.lower <= b.estimate);
      CHECK(b.estimate <= b.upper);
      // Tight enough for DPNE's tolerance (2^-48 eta): the allowance times
      // (1 + k^2 / sigma^2) and the rest, relative.
      CHECK(quad(b.upper - b.lower) <= ldexp(p, -44) * (1 + quad(k) * k / s2) + 1e-4900L);
      CHECK(abs(quad(privet::discrete_gaussian_upper_tail(d, k)) - p) <= 1e-15 * p + 1e-300);
    }
  }
}

TEST_CASE("discrete Gaussian tail bounds hold far past where erfc leaves the long double range") {
  // y = k / (sigma sqrt 2) from 99 to 113: long double erfc(y) leaves the
  // normal range at y = 106.53, f(k) = e^{-y^2} at 106.56 (z = 150.68
  // between), and both are 0 by 113. The reference
  // sums f from k in 50-digit arithmetic (no exponent limit) by the
  // recurrence, over a normaliser sqrt(2 pi) sigma (theta - 1 < 1e-3000).
  using big = boost::multiprecision::cpp_bin_float_50;
  for (double sigma : {2048.5, 25000.0}) {
    const privet::discrete_gaussian_distribution d(sigma);
    const big s2 = big(d.sigma2_num()) / big(d.sigma2_den());
    for (double z : {140.0, 150.0, 150.68, 151.0, 160.0}) {
      const auto k = static_cast<std::int64_t>(std::llround(z * sigma));
      big w = exp(-big(k) * k / (2 * s2)), r = exp(-big(2 * k + 1) / (2 * s2));
      const big step = exp(-1 / s2);
      big sum = 0;
      for (int i = 0; i < 200000 && w > sum * 1e-45; ++i) {
        sum += w;
        w *= r;
        r *= step;
      }
      const big p = sum / (sqrt(2 * boost::math::constants::pi<big>() * s2));
      const privet::probability_bounds b = privet::discrete_gaussian_upper_tail_bounds(d, k);
      INFO("sigma = " << sigma << ", k = " << k << ", p = " << p.str(10));
      CHECK(big(b.lower) <= p);
      CHECK(p <= big(b.upper));
    }
  }
}

TEST_CASE("normal tail bounds hold erfc at 50 digits and are within 2^-50 relative") {
  using big = boost::multiprecision::cpp_bin_float_50;
  for (long double x : {-30.0L, -5.0L, -1.0L, -0.25L, 0.0L, 0.7L, 2.326L, 5.0L, 12.0L, 37.5L}) {
    const privet::probability_bounds b = privet::normal_upper_tail_bounds(x);
    const big p = boost::math::erfc(big(x) / sqrt(big(2))) / 2;
    INFO("x = " << static_cast<double>(x));
    CHECK(big(b.lower) <= p);
    CHECK(p <= big(b.upper));
    CHECK(big(b.upper - b.lower) <= ldexp(p, -50) * (1 + big(x) * x));
  }
  for (long double x : {148.0L, 150.5L, 152.0L}) {  // erfc's result subnormal, then 0
    const privet::probability_bounds b = privet::normal_upper_tail_bounds(x);
    const big p = boost::math::erfc(big(x) / sqrt(big(2))) / 2;
    INFO("x = " << static_cast<double>(x));
    CHECK(big(b.lower) <= p);
    CHECK(p <= big(b.upper));
  }
  const auto far = privet::normal_upper_tail_bounds(200.0L);  // erfc underflows
  CHECK(far.lower == 0);
  CHECK(far.upper > 0);
  CHECK(rejected_parameter([] { (void)privet::normal_upper_tail_bounds(std::nanl("")); }) == "x");
}

TEST_CASE("success_probability_bounds hold 1 - exp(-rate) at 50 digits, 2^-120 apart") {
  using big = boost::multiprecision::cpp_bin_float_50;
  for (double rate : {1e-300, 1e-30, 3.4e-9, 1e-3, 0.0100503358535014, 0.693, 1.0, 7.5, 40.0}) {
    const privet::probability_bounds b = privet::success_probability_bounds(rate);
    const big p = 1 - exp(-big(rate));
    INFO("rate = " << rate);
    CHECK(big(b.lower) <= p);
    CHECK(p <= big(b.upper));
    CHECK(big(b.upper) - big(b.lower) <= ldexp(big(1), -120) + ldexp(p, -62));
  }
  CHECK(rejected_parameter([] { (void)privet::success_probability_bounds(0); }) == "rate");
  CHECK(rejected_parameter([] { (void)privet::success_probability_bounds(-1); }) == "rate");
}

TEST_CASE("max_distance is the farthest two points of two intervals are apart") {
  const privet::probability_bounds a{0.25L, 0.3L, 0.375L}, b{0.5L, 0.5L, 0.625L};
  CHECK(privet::max_distance(a, b) >= 0.375L);
  CHECK(privet::max_distance(a, b) <= 0.375L * (1 + 1e-18L));
  CHECK(privet::max_distance(b, a) == privet::max_distance(a, b));
  const privet::probability_bounds same{0.5L, 0.5L, 0.5L};
  CHECK(privet::max_distance(same, same) >= 0);
  CHECK(privet::max_distance(same, same) <= 1e-18L);
}

TEST_CASE("set_union_gaussian_threshold matches Gopi et al.'s formula, evaluated independently") {
  for (const auto& point :
       {std::tuple{std::uint64_t{1}, 1.0, 1e-5}, std::tuple{std::uint64_t{100}, 4.2, 5e-8},
        std::tuple{std::uint64_t{900}, 1.4, 5e-8}, std::tuple{std::uint64_t{20}, 0.3, 0.1}}) {
    const std::uint64_t items = std::get<0>(point);
    const double sigma = std::get<1>(point), delta = std::get<2>(point);
    long double want = -1;
    for (std::uint64_t t = 1; t <= items; ++t) {
      // rho_t = 1 / sqrt(t) + sigma Phi^-1((1 - delta)^(1/t)).
      const long double q = -std::expm1(std::log1p(-static_cast<long double>(delta)) / t);
      want = std::max(want, 1 / std::sqrt(static_cast<long double>(t)) + sigma * quantile(q));
    }
    const double got = privet::set_union_gaussian_threshold(items, sigma, delta);
    INFO("items = " << items << ", sigma = " << sigma << ", delta = " << delta);
    CHECK(static_cast<long double>(got) >= want);
    CHECK(static_cast<long double>(got) - want <= 1e-8L * want);
  }
}

TEST_CASE("set_union_laplace_threshold matches 1/t + b ln(1 / (2 (1 - (1 - delta)^(1/t))))") {
  for (const auto& [items, b, delta] :
       {std::tuple{std::uint64_t{1}, 1.0, 1e-5}, std::tuple{std::uint64_t{100}, 0.25, 1e-7},
        std::tuple{std::uint64_t{50}, 3.0, 0.01}}) {
    long double want = -1;
    for (std::uint64_t t = 1; t <= items; ++t) {
      const long double q = 1 - std::pow(1 - static_cast<long double>(delta), 1.0L / t);
      want = std::max(want, 1.0L / t + b * std::log(1 / (2 * q)));
    }
    const double got = privet::set_union_laplace_threshold(items, b, delta);
    CHECK(static_cast<long double>(got) >= want);
    CHECK(static_cast<long double>(got) - want <= 1e-9L * want);
  }
}

TEST_CASE("the thresholds keep a one-user item's release probability within delta") {
  // The claim behind rho: with t items each of weight 1 / sqrt(t), P[any
  // passes] = 1 - (1 - Phi-bar((rho - 1/sqrt(t)) / sigma))^t <= delta for all t.
  const double sigma = 2.5, delta = 1e-6;
  const std::uint64_t items = 64;
  const double rho = privet::set_union_gaussian_threshold(items, sigma, delta);
  for (std::uint64_t t = 1; t <= items; ++t) {
    const long double p = tail((rho - 1 / std::sqrt(static_cast<long double>(t))) / sigma);
    const long double any = -std::expm1(t * std::log1p(-p));
    CHECK(any <= delta);
  }
}

TEST_CASE("threshold parameters are validated by name") {
  CHECK(rejected_parameter([] { (void)privet::set_union_gaussian_threshold(0, 1, 1e-6); }) ==
        "max_items");
  CHECK(rejected_parameter([] { (void)privet::set_union_gaussian_threshold(5, 0, 1e-6); }) ==
        "sigma");
  CHECK(rejected_parameter([] { (void)privet::set_union_gaussian_threshold(5, 1, 0); }) == "delta");
  CHECK(rejected_parameter([] { (void)privet::set_union_gaussian_threshold(5, 1, 1); }) == "delta");
  CHECK(rejected_parameter([] { (void)privet::set_union_laplace_threshold(0, 1, 1e-6); }) ==
        "max_items");
  CHECK(rejected_parameter([] { (void)privet::set_union_laplace_threshold(5, -1, 1e-6); }) ==
        "scale");
  CHECK(rejected_parameter([] { (void)privet::set_union_laplace_threshold(5, 1, 0.5); }) ==
        "delta");
}
