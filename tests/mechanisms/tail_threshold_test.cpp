// Tails and thresholds: the normal tail and its safe inverse, the discrete
// Gaussian tail against direct summation, DPSU's thresholds against an
// independent evaluation of Gopi et al.'s formulas, and the errors.
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/tail_threshold.hpp>

#include <doctest/doctest.h>
#include <support/errors.hpp>

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
