// RDP curves and conversions: known answers from dp_accounting's test suite
// (google/differential-privacy, python/dp_accounting/dp_accounting/rdp/
// rdp_privacy_accountant_test.py), a second computation of every curve by
// numerical integration of the Rényi divergence, the optimal Gaussian
// (eps, delta) as a floor, and the documented errors.
#include <privet/accounting/rdp.hpp>
#include <privet/core/analytic_gaussian.hpp>

#include <doctest/doctest.h>
#include <support/renyi.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/quadrature/sinh_sinh.hpp>
#include <boost/math/special_functions/gamma.hpp>

#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

namespace {

// A_alpha = E_{z ~ N(0, s^2)} [((1 - q) + q e^{(2z - 1) / (2 s^2)})^alpha],
// integrated numerically (double-exponential quadrature over the real line).
double subsampled_gaussian_a(double q, double s, double alpha) {
  boost::math::quadrature::sinh_sinh<double> integrator;
  // In log space: the density underflows where the power overflows.
  auto f = [&](double z) {
    const double log_density = -z * z / (2 * s * s) - std::log(s * std::sqrt(2 * std::numbers::pi));
    const double log_ratio =
        privet::detail::log_add(std::log1p(-q), std::log(q) + (2 * z - 1) / (2 * s * s));
    return std::exp(log_density + alpha * log_ratio);
  };
  return integrator.integrate(f, 1e-13);
}

// The Rényi divergence of Laplace(1, b) from Laplace(0, b), integrated in
// three pieces (the integrand has kinks at 0 and 1), in log space so that
// the tails underflow to 0 rather than to 0 * inf.
double laplace_divergence(double b, double alpha) {
  auto f = [&](double x) {
    const double log_p = -std::fabs(x - 1) / b - std::log(2 * b);
    const double log_q = -std::fabs(x) / b - std::log(2 * b);
    return std::exp(alpha * log_p + (1 - alpha) * log_q);
  };
  boost::math::quadrature::exp_sinh<double> half_line;
  const double left = half_line.integrate([&](double t) { return f(-t); }, 1e-13);
  const double right = half_line.integrate([&](double t) { return f(1 + t); }, 1e-13);
  const double middle = boost::math::quadrature::gauss_kronrod<double, 31>::integrate(f, 0, 1);
  return std::log(left + middle + right) / (alpha - 1);
}

}  // namespace

TEST_CASE("Poisson-subsampled Gaussian matches dp_accounting's published curve") {
  // test_compute_rdp_poisson_sampled_gaussian: q = 0.01, sigma = 2.5, 50 steps.
  const std::vector<double> orders{1.5, 2.5, 5, 50, 100};
  const std::vector<double> expected{6.70579741e-04, 1.08548710e-03, 2.18075656e-03, 2.38460375e-02,
                                     1.67416308e02};
  const auto curve = privet::rdp_subsampled_gaussian(0.01, 2.5, orders).composed(50);
  for (std::size_t i = 0; i < orders.size(); ++i) {
    CAPTURE(orders[i]);
    CHECK(curve.epsilons()[i] == doctest::Approx(expected[i]).epsilon(1e-8));
  }
}

TEST_CASE("the improved conversion matches dp_accounting's published values") {
  // test_compute_epsilon_delta_pure_dp: a constant curve 1.1 on orders 2..32.
  std::vector<double> orders;
  for (int a = 2; a <= 32; ++a) orders.push_back(a);
  const privet::rdp flat(orders, std::vector<double>(orders.size(), 1.1));
  const auto [g, order] = privet::to_approx_dp_with_order(flat, 1e-5);
  CHECK(g.epsilon() == doctest::Approx(1.32783806176).epsilon(1e-10));
  CHECK(order == 32);
  CHECK(privet::rdp_delta(flat, 1.32783806176) == doctest::Approx(1e-5).epsilon(1e-9));
  // test_compute_epsilon_delta_gaussian: sigma = 4.530877117 gives (1, 1e-6)
  // on the orders 1.001, 1.002, ..., 99.999.
  std::vector<double> fine;
  for (int i = 1001; i < 100000; ++i) fine.push_back(0.001 * i);
  const auto gauss = privet::rdp_gaussian(4.530877117, fine);
  CHECK(privet::to_approx_dp(gauss, 1e-6).epsilon() == doctest::Approx(1.0).epsilon(1e-8));
  CHECK(privet::rdp_delta(gauss, 1.0) == doctest::Approx(1e-6).epsilon(1e-7));
}

TEST_CASE(
    "integer orders of the subsampled Gaussian equal the integral; fractional ones bound it") {
  struct point {
    double q, sigma, alpha;
  };
  for (const point& pt :
       {point{0.01, 1.1, 2}, point{0.1, 2.0, 7}, point{0.5, 3.0, 12}, point{0.001, 0.8, 3}}) {
    const double q = pt.q, sigma = pt.sigma, alpha = pt.alpha;
    const double series = privet::rdp_subsampled_gaussian(q, sigma, {alpha}).epsilons()[0];
    const double integral = std::log(subsampled_gaussian_a(q, sigma, alpha)) / (alpha - 1);
    CAPTURE(alpha);
    CHECK(series == doctest::Approx(integral).epsilon(1e-9));
  }
  // With absolute coefficients the fractional series is an upper bound: never
  // below the integral; close to it at the small q of DP-SGD, and looser as q
  // grows (13 % at q = 0.5, sigma = 3, alpha = 2.25), the price of never
  // being below it.
  for (const point& pt : {point{0.01, 1.1, 1.5}, point{0.1, 2.0, 6.5}, point{0.5, 3.0, 2.25},
                          point{0.001, 0.8, 3.75}, point{0.2, 1.0, 10.3}}) {
    const double q = pt.q, sigma = pt.sigma, alpha = pt.alpha;
    const double series = privet::rdp_subsampled_gaussian(q, sigma, {alpha}).epsilons()[0];
    const double integral = std::log(subsampled_gaussian_a(q, sigma, alpha)) / (alpha - 1);
    CAPTURE(alpha);
    CAPTURE(q);
    CHECK(series >= integral * (1 - 1e-10));
    if (q <= 0.01) CHECK(series == doctest::Approx(integral).epsilon(1e-3));
    CHECK(series == doctest::Approx(integral).epsilon(0.15));
  }
}

TEST_CASE("the Laplace curve equals the integrated divergence") {
  for (double b : {0.5, 1.0, 3.0}) {
    for (double alpha : {1.5, 2.0, 10.0, 30.0}) {
      const double formula = privet::rdp_laplace(b, {alpha}).epsilons()[0];
      CAPTURE(b);
      CAPTURE(alpha);
      CHECK(formula == doctest::Approx(laplace_divergence(b, alpha)).epsilon(1e-8));
      CHECK(formula <= 1 / b);  // (1/b)-DP bounds every order
    }
  }
}

TEST_CASE("randomised response and pure DP curves stay within eps and alpha eps^2 / 2") {
  for (double eps : {0.1, 1.0, 4.0}) {
    const auto rr = privet::rdp_pure_dp(privet::pure_dp(eps));
    for (std::size_t i = 0; i < rr.orders().size(); ++i) {
      const double a = rr.orders()[i], e = rr.epsilons()[i];
      CHECK(e <= eps * (1 + 1e-12));
      CHECK(e <= a * eps * eps / 2 * (1 + 1e-12));  // Bun & Steinke 2016, Proposition 1.4
    }
    // Binary RR at order 2 by direct summation: p^2 / r + r^2 / p with
    // p = e^eps / (1 + e^eps), r = 1 - p.
    const double p = std::exp(eps) / (1 + std::exp(eps)), r = 1 - p;
    CHECK(privet::rdp_randomized_response(eps, 2, {2.0}).epsilons()[0] ==
          doctest::Approx(std::log(p * p / r + r * r / p)).epsilon(1e-12));
    // k = 5: p^2 / r + r^2 / p + 3 r with p = e^eps / (e^eps + 4), r = 1 / (e^eps + 4).
    const double p5 = std::exp(eps) / (std::exp(eps) + 4), r5 = 1 / (std::exp(eps) + 4);
    CHECK(privet::rdp_randomized_response(eps, 5, {2.0}).epsilons()[0] ==
          doctest::Approx(std::log(p5 * p5 / r5 + r5 * r5 / p5 + 3 * r5)).epsilon(1e-12));
  }
}

TEST_CASE("conversions are sound, ordered and consistent") {
  const auto curve = privet::rdp_subsampled_gaussian(0.01, 1.1).composed(10'000);
  double previous = HUGE_VAL;
  for (double delta : {1e-3, 1e-5, 1e-7, 1e-10}) {
    const double improved = privet::to_approx_dp(curve, delta).epsilon();
    const double classic = privet::to_approx_dp_classic(curve, delta).epsilon();
    CAPTURE(delta);
    CHECK(improved < classic);
    CHECK(privet::rdp_delta(curve, improved) == doctest::Approx(delta).epsilon(1e-9));
    CHECK(improved < previous * 2);  // finite
    previous = improved;
  }
  // For the plain Gaussian (mu = 1) the optimal delta (Balle & Wang 2018,
  // Theorem 8) is below the RDP one at every eps.
  const auto gauss = privet::rdp_gaussian(1.0);
  for (double eps = 0; eps < 10; eps += 0.25) {
    const double exact = std::erfc((eps - 0.5) / std::sqrt(2.0)) / 2 -
                         std::exp(eps) * std::erfc((eps + 0.5) / std::sqrt(2.0)) / 2;
    CHECK(exact <= privet::rdp_delta(gauss, eps) + 1e-300);
  }
}

TEST_CASE("composition adds curves; large orders stay finite") {
  const auto a = privet::rdp_gaussian(2.0), b = privet::rdp_laplace(1.5);
  const auto ab = a + b;
  for (std::size_t i = 0; i < ab.orders().size(); ++i) {
    CHECK(ab.epsilons()[i] == a.epsilons()[i] + b.epsilons()[i]);
  }
  CHECK(a.composed(6).epsilons()[3] == doctest::Approx(6 * a.epsilons()[3]));
  CHECK(a.composed(0).epsilons()[3] == 0);
  const auto big = privet::rdp_subsampled_gaussian(0.01, 1.1, {1000, 5000.5});
  CHECK(std::isfinite(big.epsilons()[0]));
  CHECK(std::isfinite(big.epsilons()[1]));
  CHECK(big.epsilons()[1] > big.epsilons()[0]);
  CHECK(privet::rdp_subsampled_gaussian(0, 1.0, {2.0}).epsilons()[0] == 0);
  CHECK(privet::rdp_subsampled_gaussian(1, 2.0, {3.0}).epsilons()[0] == 3.0 / 8);
}

TEST_CASE("bad inputs throw, naming the parameter") {
  CHECK_THROWS_WITH_AS(
      privet::rdp_gaussian(1.0, {0.5, 2.0}),
      "privet: orders[0] = 0.5 is invalid; allowed: >= 1 (1: KL divergence; +inf: max divergence)",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(
      privet::rdp_gaussian(1.0, {3.0, 2.0}),
      "privet: orders[1] = 2 is invalid; allowed: > orders[0] (strictly increasing)",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_gaussian(1.0, {}),
                       "privet: orders is empty; allowed: at least one element",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_subsampled_gaussian(1.5, 1.0),
                       "privet: q = 1.5 is invalid; allowed: [0, 1]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_gaussian(-1.0),
                       "privet: noise_multiplier = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  const auto g = privet::rdp_gaussian(1.0);
  CHECK_THROWS_WITH_AS(privet::to_approx_dp(g, 1.0),
                       "privet: delta = 1 is invalid; allowed: (0, 1)", privet::invalid_parameter);
  CHECK_THROWS_AS(privet::to_approx_dp(g, 0.0), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp({2.0}, {-0.5}),
                       "privet: epsilons[0] = -0.5 is invalid; allowed: >= 0 (or +inf)",
                       privet::invalid_parameter);
  CHECK_THROWS_AS(g + privet::rdp_gaussian(1.0, {2.0, 3.0}), privet::invalid_parameter);
}

TEST_CASE("RDP's composition is below basic composition of each step's (eps, delta)") {
  // k Gaussian releases (sigma = 3): basic composition of the exact
  // per-release (eps, delta / k) from the analytic Gaussian adds k epsilons;
  // RDP at delta must not exceed that (the consistency chain PLD <= RDP <=
  // basic composition; the PLD and PRV tests check the first link).
  for (std::uint64_t k : {10u, 100u, 1000u}) {
    const double delta = 1e-6;
    const double per_step =
        privet::to_approx_dp(privet::gdp(1 / 3.0), delta / static_cast<double>(k)).epsilon();
    const double basic = per_step * static_cast<double>(k);
    const double by_rdp =
        privet::to_approx_dp(privet::rdp_gaussian(3.0).composed(k), delta).epsilon();
    CAPTURE(k);
    CHECK(by_rdp <= basic);
  }
}

TEST_CASE("RDP messages name the parameter, value and range") {
  using privet::invalid_parameter;
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(privet::rdp({2.0, 3.0}, {0.1}),
                       "privet: epsilons.size() = 1 is invalid; allowed: == orders.size() = 2",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_gaussian(1.0, {std::nan("")}),
                       "privet: orders[0] = nan is invalid; allowed: >= 1 (1: KL divergence; "
                       "+inf: max divergence)",
                       invalid_parameter);
  const auto g = privet::rdp_gaussian(1.0);
  CHECK_THROWS_WITH_AS(
      g + privet::rdp_gaussian(1.0, {2.0, 3.0}),
      "privet: orders = two different sets is invalid; allowed: the same orders for both curves",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::to_approx_dp(g, 0.0),
                       "privet: delta = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::to_approx_dp_classic(g, 1.0),
                       "privet: delta = 1 is invalid; allowed: (0, 1)", invalid_parameter);
  const privet::rdp nothing({2.0, 3.0}, {inf, inf});
  CHECK_THROWS_WITH_AS(
      privet::to_approx_dp(nothing, 1e-5),
      "privet: rdp = +inf at every order is invalid; allowed: a curve finite at some order",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(
      privet::to_approx_dp_classic(nothing, 1e-5),
      "privet: rdp = +inf at every order is invalid; allowed: a curve finite at some order",
      invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::rdp_delta(g, -1),
                       "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_laplace(0),
                       "privet: scale = 0 is invalid; allowed: finite and > 0", invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_randomized_response(0, 2),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_randomized_response(1, 1),
                       "privet: k = 1 is invalid; allowed: >= 2", invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_subsampled_gaussian(0.5, 0),
                       "privet: noise_multiplier = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
}

TEST_CASE("subsampled Gaussian RDP at q = 5e-324 and sigma = 1e300 is finite, tiny and bounded") {
  // Issue 22, finding 8: both threw "series did not converge" (z0 = sigma^2
  // log(1/q - 1) was infinite). Second method: integer orders in closed form
  // at order 2, A_2 = 1 + q^2 (e^{1 / sigma^2} - 1), and the Gaussian's
  // alpha / (2 sigma^2), which subsampling never exceeds.
  const std::vector<double> orders{1.25, 1.5, 2, 2.5, 3, 10.5, 64};
  for (const auto& qs : std::vector<std::pair<double, double>>{
           {5e-324, 1.0}, {0.5, 1e300}, {1e-300, 1.0}, {0.01, 1e3}, {0.01, 1e5}}) {
    // Named copies, not structured bindings: CAPTURE's lambda may not
    // capture a binding under clang 14.
    const double q = qs.first, sigma = qs.second;
    const auto r = privet::rdp_subsampled_gaussian(q, sigma, orders);
    CAPTURE(q);
    CAPTURE(sigma);
    for (std::size_t i = 0; i < orders.size(); ++i) {
      CAPTURE(orders[i]);
      CHECK(std::isfinite(r.epsilons()[i]));
      CHECK(r.epsilons()[i] >= 0);
      CHECK(r.epsilons()[i] <= 2 * orders[i] / (2 * sigma * sigma) + 1e-15);
    }
    CHECK(r.epsilons()[2] ==
          doctest::Approx(std::log1p(q * q * std::expm1(1 / (sigma * sigma)))).epsilon(1e-9));
    // A fractional order is never above the next integer order (Renyi
    // divergence grows with its order), up to the series' rounding of a few
    // ulps of q (1e-300 at q = 1e-300, where the true values are ~q^2).
    CHECK(r.epsilons()[0] <= r.epsilons()[2] * (1 + 1e-9) + 1e-290);
    CHECK(r.epsilons()[3] <= r.epsilons()[4] * (1 + 1e-9) + 1e-290);
  }
  // sigma = 1e3 at q = 0.01: where the series did not converge, the value
  // rounded up to order 3 must match order 3's and stay above the series
  // value at a sigma where the series converges.
  const auto big = privet::rdp_subsampled_gaussian(0.01, 1e3, {2.5, 3});
  CHECK(big.epsilons()[0] == doctest::Approx(big.epsilons()[1]).epsilon(1e-12));
  const auto mid = privet::rdp_subsampled_gaussian(0.01, 10, {2.5, 3});
  CHECK(mid.epsilons()[0] > 0);
  CHECK(mid.epsilons()[0] <= mid.epsilons()[1]);
}

TEST_CASE("subsampled Gaussian RDP at huge orders and subnormal sigma is bounded, never NaN") {
  // Order 2 10^6 is past the series' 10^6 terms: the joint-convexity bound
  // log(1 - q + q e^{alpha (alpha - 1) / (2 sigma^2)}) / (alpha - 1), which
  // for sigma = 10 is about alpha / (2 sigma^2) = 10^4.
  const auto r = privet::rdp_subsampled_gaussian(0.01, 10, {2e6, 2e6 + 0.5});
  CHECK(r.epsilons()[0] == doctest::Approx(1e4).epsilon(1e-3));
  CHECK(r.epsilons()[1] >= r.epsilons()[0]);
  // sigma = 5e-324: 2 sigma^2 underflows; every order is +inf (no finite
  // guarantee), not NaN read as 0.
  const auto tiny = privet::rdp_subsampled_gaussian(0.5, 5e-324, {1.5, 2});
  CHECK(tiny.epsilons()[0] == std::numeric_limits<double>::infinity());
  CHECK(tiny.epsilons()[1] == std::numeric_limits<double>::infinity());
}

namespace {

// log(erfc(x)) in long double, by the asymptotic series past x = 25.
long double log_erfc_ld(long double x) {
  if (x < 25) return std::log(std::erfc(x));
  const long double r = 1 / (x * x);
  return -x * x - std::log(x) - 0.5L * std::log(std::numbers::pi_v<long double>) +
         std::log(1 - r / 2 + 3 * r * r / 4 - 15 * r * r * r / 8);
}

long double log_add_ld(long double a, long double b) {
  if (a < b) std::swap(a, b);
  if (b == -std::numeric_limits<long double>::infinity()) return a;
  return a + std::log1p(std::exp(b - a));
}

// The subsampled Gaussian's series as privet summed it before (and as
// dp_accounting does), as a second method: every coefficient from three
// long-double lgammas, every term in log space, the fractional series of
// Mironov, Talwar & Zhang (2019, Section 3.3) with absolute coefficients
// summed over a fixed `terms` terms (no tail bound, no erfcx identity, no
// recurrence), the integer one over all alpha + 1 terms.
double reference_rdp(double q_in, double sigma_in, double alpha_in, int terms) {
  const long double q = q_in, s = sigma_in, a = alpha_in;
  auto log_c = [&](long double k) {
    return boost::math::lgamma(a + 1) - boost::math::lgamma(k + 1) - boost::math::lgamma(a - k + 1);
  };
  const long double lq = std::log(q), l1q = std::log1p(-q);
  long double total = -std::numeric_limits<long double>::infinity();
  if (a == std::floor(a)) {
    for (long double i = 0; i <= a; ++i) {
      total = log_add_ld(total, log_c(i) + i * lq + (a - i) * l1q + (i * i - i) / (2 * s * s));
    }
  } else {
    const long double z0 = s * s * (l1q - lq) + 0.5L, scale = std::sqrt(2.0L) * s;
    for (int k = 0; k < terms; ++k) {
      const long double i = k, j = a - i;
      const long double c = log_c(i) - std::log(2.0L);
      total = log_add_ld(
          total, c + i * lq + j * l1q + (i * i - i) / (2 * s * s) + log_erfc_ld((i - z0) / scale));
      total = log_add_ld(
          total, c + j * lq + i * l1q + (j * j - j) / (2 * s * s) + log_erfc_ld((z0 - j) / scale));
    }
  }
  return static_cast<double>(total / (a - 1));
}

}  // namespace

TEST_CASE("the subsampled Gaussian's fast series equals the lgamma series, never below it") {
  // The fractional series' tail decays like i^{-alpha - 2}: 20000 terms of
  // the reference leave at most ~1e-12 of it at alpha = 1.01 for these
  // parameters, so the reference is a lower value within 1e-11; privet's
  // series adds a proven bound for its own tail, so it must be at or above.
  struct point {
    double q, sigma, alpha;
  };
  for (const point& pt :
       {point{0.01, 1.1, 1.01}, point{0.01, 1.1, 1.1}, point{0.01, 1.1, 1.5}, point{0.01, 1.1, 4.7},
        point{0.01, 1.1, 10.9}, point{1e-3, 1.0, 1.1}, point{1e-3, 1.0, 3.5}, point{0.2, 2.0, 1.3},
        point{0.2, 2.0, 6.5}, point{1e-5, 0.8, 2.5}, point{0.01, 5.0, 1.05}, point{0.01, 1.1, 2},
        point{0.01, 1.1, 17}, point{0.01, 1.1, 63}, point{0.01, 1.1, 1024}, point{0.3, 0.7, 256}}) {
    const double fast = privet::rdp_subsampled_gaussian(pt.q, pt.sigma, {pt.alpha}).epsilons()[0];
    const double slow = reference_rdp(pt.q, pt.sigma, pt.alpha, 20'000);
    const double q = pt.q, sigma = pt.sigma, alpha = pt.alpha;
    CAPTURE(q);
    CAPTURE(sigma);
    CAPTURE(alpha);
    CHECK(fast >= slow * (1 - 1e-10));
    CHECK(fast <= slow * (1 + 1e-9));
  }
}

TEST_CASE("default orders are dp_accounting's DEFAULT_RDP_ORDERS plus 1.01, 1.02 and 1.05") {
  // dp_accounting/rdp/rdp_privacy_accountant.py (google/differential-privacy
  // at b5b0286e): [1 + x / 10.0 for x in range(1, 100)] + list(range(11, 64))
  // + [128, 256, 512, 1024].
  const auto orders = privet::default_rdp_orders();
  REQUIRE(orders.size() == 3 + 99 + 53 + 4);
  CHECK(orders[0] == 1.01);
  CHECK(orders[1] == 1.02);
  CHECK(orders[2] == 1.05);
  for (int x = 1; x < 100; ++x) CHECK(orders[2 + x] == 1 + x / 10.0);
  for (int a = 11; a < 64; ++a) CHECK(orders[102 + a - 11] == a);
  CHECK(orders[155] == 128);
  CHECK(orders[158] == 1024);
  // Orders near 1 serve large per-step privacy losses: 140 Gaussian steps
  // at sigma = 0.1 (rho = 50 each) are best near alpha - 1 = sqrt(log(1 /
  // delta) / (140 rho)) = 0.04, which only the new orders reach.
  const auto steps = privet::rdp_gaussian(0.1).composed(140);
  const auto best = privet::to_approx_dp_with_order(steps, 1e-5);
  CHECK(best.second == 1.05);
  const std::vector<double> from_1_1(orders.begin() + 3, orders.end());
  const double without =
      privet::to_approx_dp(privet::rdp_gaussian(0.1, from_1_1).composed(140), 1e-5).epsilon();
  CHECK(best.first.epsilon() < without - 200);
}

TEST_CASE("DP-SGD's RDP matches dp_accounting on its default orders") {
  // dp_accounting (google/differential-privacy at b5b0286e, python/
  // dp_accounting), run with Debian's numpy 1.24 and scipy 1.10:
  // RdpAccountant() composing PoissonSampledDpEvent(0.01, GaussianDpEvent(1.1))
  // 10^4 times gives get_epsilon(1e-5) = 5.632010670081592, and
  // _compute_rdp_poisson_subsampled_gaussian(0.01, 1.1, orders) the values
  // below. dp_accounting stops its fractional series once a term is below
  // e^-30 of the sum, which leaves out 4.6e-7 of the value at alpha = 1.1
  // and 5.7e-8 at 1.5 (the tail decays polynomially); privet bounds and adds
  // its tail, so there it is above by that much.
  const std::vector<double> orders{1.1, 1.5, 2.5, 4.7, 10.9, 32, 1024};
  const std::vector<double> theirs{
      7.363313414542546e-05, 9.858756968009191e-05, 0.00016215219755506363, 0.000317789901961926,
      0.0014048996786834025, 8.469416433675926,     418.53082404914505};
  const auto curve = privet::rdp_subsampled_gaussian(0.01, 1.1, orders);
  for (std::size_t i = 0; i < orders.size(); ++i) {
    CAPTURE(orders[i]);
    CHECK(curve.epsilons()[i] >= theirs[i] * (1 - 1e-12));
    CHECK(curve.epsilons()[i] == doctest::Approx(theirs[i]).epsilon(orders[i] < 2 ? 1e-6 : 1e-9));
  }
  const auto total = privet::rdp_subsampled_gaussian(0.01, 1.1).composed(10'000);
  const auto [g, order] = privet::to_approx_dp_with_order(total, 1e-5);
  CHECK(g.epsilon() == doctest::Approx(5.632010670081592).epsilon(1e-8));
  CHECK(order == 4.7);
}

TEST_CASE("orders 1 (KL) and +inf (max divergence) on the closed-form curves") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> orders{1.0, 1 + 1e-6, 1.5, 2.0, 10.0, 1e10, inf};
  // Gaussian: 1 / (2 sigma^2) at 1, +inf at +inf.
  const auto g = privet::rdp_gaussian(2.0, orders);
  CHECK(g.epsilons()[0] == 1.0 / 8);
  CHECK(g.epsilons()[6] == inf);
  // Laplace: KL = e + e^{-e} - 1 (Mironov 2017, Table II); second method:
  // the numerically integrated divergence at 1 + 1e-6 and the old log-add
  // form of the finite orders.
  for (double b : {0.01, 0.5, 1.0, 3.0}) {
    const auto l = privet::rdp_laplace(b, orders);
    const double e = 1 / b;
    CAPTURE(b);
    CHECK(l.epsilons()[0] == doctest::Approx(e + std::expm1(-e)).epsilon(1e-14));
    CHECK(l.epsilons()[1] == doctest::Approx(l.epsilons()[0]).epsilon(1e-5));
    if (b >= 0.5)
      CHECK(l.epsilons()[2] == doctest::Approx(laplace_divergence(b, 1.5)).epsilon(1e-9));
    for (std::size_t i = 2; i < 6; ++i) {
      const double a = orders[i];
      const double old = privet::detail::log_add(std::log(a / (2 * a - 1)) + (a - 1) * e,
                                                 std::log((a - 1) / (2 * a - 1)) - a * e) /
                         (a - 1);
      CHECK(l.epsilons()[i] == doctest::Approx(old).epsilon(1e-12));
    }
    CHECK(l.epsilons()[6] == e);
    CHECK(l.epsilons()[5] <= e);
  }
  // k-ary randomised response: brute force over the k outcomes.
  for (auto [eps, k] : {std::pair{0.5, std::uint64_t{2}}, std::pair{2.0, std::uint64_t{7}}}) {
    const double z = std::exp(eps) + static_cast<double>(k) - 1;
    std::vector<double> p(k, 1 / z), q(k, 1 / z);
    p[0] = std::exp(eps) / z;
    q[1] = std::exp(eps) / z;
    const auto rr = privet::rdp_randomized_response(eps, k, orders);
    for (std::size_t i = 0; i < orders.size(); ++i) {
      if (orders[i] == 1e10 || orders[i] == 1 + 1e-6) continue;  // pow loses it
      CAPTURE(orders[i]);
      CHECK(rr.epsilons()[i] ==
            doctest::Approx(privet::test::renyi_divergence(p, q, orders[i])).epsilon(1e-12));
    }
  }
}

TEST_CASE("replace-special randomised response: brute force and dp_accounting's values") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> orders{1.5, 2.5, 5, 50, 100, inf};
  // test_compute_rdp_randomized_response_replace_special (noise parameter p,
  // k buckets; e^eps = 1 + k (1 - p) / p).
  struct known {
    double p;
    std::uint64_t k;
    std::vector<double> rdp;
  };
  const std::vector<known> cases{{0.3,
                                  10,
                                  {1.5030552584146897, 1.7801182478869704, 1.9091969256833639,
                                   1.9814516798923105, 1.9846954517418232, 1.9878743481543455}},
                                 {0.05,
                                  20,
                                  {2.8985312222056674, 2.9615414620514047, 2.982908949957726,
                                   2.994685471627712, 2.9952141594692665, 2.995732273553991}},
                                 {0.01,
                                  3,
                                  {3.851345343526459, 4.334924907685137, 4.503803908976894,
                                   4.596895387863428, 4.601074578835478, 4.605170185988092}}};
  for (const auto& c : cases) {
    const double kd = static_cast<double>(c.k);
    const double eps = std::log1p(kd * (1 - c.p) / c.p);
    const auto curve = privet::rdp_randomized_response_special(eps, c.k, orders);
    const auto one = privet::rdp_randomized_response(eps, c.k, orders);
    for (std::size_t i = 0; i < orders.size(); ++i) {
      CAPTURE(c.p);
      CAPTURE(orders[i]);
      CHECK(curve.epsilons()[i] == doctest::Approx(c.rdp[i]).epsilon(1e-9));
      CHECK(curve.epsilons()[i] <= one.epsilons()[i]);
    }
    // Brute force, both directions, with order 1.
    const double z = std::exp(eps) + kd - 1;
    std::vector<double> p(c.k, 1 / z), u(c.k, 1 / kd);
    p[0] = std::exp(eps) / z;
    for (double a : {1.0, 1.5, 3.0, inf}) {
      const double brute = std::max(privet::test::renyi_divergence(p, u, a),
                                    privet::test::renyi_divergence(u, p, a));
      CHECK(privet::rdp_randomized_response_special(eps, c.k, {a}).epsilons()[0] ==
            doctest::Approx(brute).epsilon(1e-12));
    }
  }
}

TEST_CASE("bounded range: Cesar & Rogers' KL bound, tight on two-point pairs") {
  const double inf = std::numeric_limits<double>::infinity();
  // test_compute_rdp_exponential_mechanism: eps = 1 gives 0.123301561 at
  // order 1 and 1 at order 1000.
  const auto em = privet::rdp_bounded_range(1.0, {1.0, 1000.0, inf});
  CHECK(em.epsilons()[0] == doctest::Approx(0.123301561).epsilon(1e-8));
  CHECK(em.epsilons()[1] == 1.0);
  CHECK(em.epsilons()[2] == 1.0);
  // Second method: every eps-bounded-range pair with two outcomes, Q = (1 -
  // w, w) and P / Q = (e^t, e^{t + eps}) with t fixed by P summing to 1. Its
  // divergence is below the curve at every order, and the largest KL over
  // w meets the bound (the extremal pair of Cesar & Rogers 2021).
  for (double eps : {0.1, 1.0, 3.0}) {
    const std::vector<double> orders{1.0, 1.5, 2.0, 4.0, 16.0, inf};
    const auto curve = privet::rdp_bounded_range(eps, orders);
    double best_kl = 0;
    for (int j = 1; j < 4000; ++j) {
      const double w = j / 4000.0;
      const double et = 1 / (1 - w + w * std::exp(eps));
      const std::vector<double> q{1 - w, w}, p{(1 - w) * et, w * et * std::exp(eps)};
      for (std::size_t i = 0; i < orders.size(); ++i) {
        const double d = std::max(privet::test::renyi_divergence(p, q, orders[i]),
                                  privet::test::renyi_divergence(q, p, orders[i]));
        CHECK(d <= curve.epsilons()[i] * (1 + 1e-12));
      }
      best_kl = std::max(best_kl, privet::test::renyi_divergence(p, q, 1.0));
    }
    CAPTURE(eps);
    CHECK(best_kl == doctest::Approx(curve.epsilons()[0]).epsilon(1e-5));
  }
}

TEST_CASE("Poisson-subsampled Gaussian at orders 1 and +inf") {
  const double inf = std::numeric_limits<double>::infinity();
  const auto c = privet::rdp_subsampled_gaussian(0.01, 2.5, {1.0, 1.5, inf});
  CHECK(c.epsilons()[2] == inf);
  // Second method: KL = E_{N(0, s^2)}[L log L], L = 1 - q + q e^{(2z - 1) /
  // (2 s^2)}, integrated; the curve's order 1 is the series' bound on D_{1 +
  // 2^-10}, above it and within 7 % of it here (6.4 %), and below order 1.5.
  boost::math::quadrature::sinh_sinh<double> integrator;
  const double q = 0.01, s = 2.5;
  const double kl = integrator.integrate(
      [&](double z) {
        // In log space: the density underflows where L overflows.
        const double log_l =
            privet::detail::log_add(std::log1p(-q), std::log(q) + (2 * z - 1) / (2 * s * s));
        return std::exp(-z * z / (2 * s * s) - std::log(s * std::sqrt(2 * std::numbers::pi)) +
                        log_l) *
               log_l;
      },
      1e-13);
  CHECK(c.epsilons()[0] >= kl);
  CHECK(c.epsilons()[0] <= kl * 1.07);
  CHECK(c.epsilons()[0] <= c.epsilons()[1]);
}

TEST_CASE("conversions use order +inf as pure DP and any order as a total-variation bound") {
  const double inf = std::numeric_limits<double>::infinity();
  // Order +inf alone: eps(inf) at every delta, delta 0 at or above it.
  const privet::rdp pure({inf}, {1.5});
  CHECK(privet::to_approx_dp(pure, 1e-9).epsilon() == 1.5);
  CHECK(privet::rdp_delta(pure, 1.5) == 0);
  // Below eps(inf) only the total-variation bound sqrt(1 - e^{-1.5}) holds.
  CHECK(privet::rdp_delta(pure, 1.4) == doctest::Approx(std::sqrt(-std::expm1(-1.5))));
  // Order 1 alone: only delta >= sqrt(1 - e^{-KL}) (Bretagnolle & Huber
  // 1979) certifies, with eps = 0; below it there is no bound.
  const double kl = 0.02, tv = std::sqrt(-std::expm1(-kl));
  const privet::rdp kl_only({1.0}, {kl});
  CHECK(privet::to_approx_dp(kl_only, tv * (1 + 1e-9)).epsilon() == 0);
  CHECK_THROWS_AS((void)privet::to_approx_dp(kl_only, tv * (1 - 1e-9)), privet::invalid_parameter);
  CHECK(privet::rdp_delta(kl_only, 0.0) == doctest::Approx(tv).epsilon(1e-12));
  CHECK(privet::rdp_delta(kl_only, 0.0) >= tv);
  // Adding orders 1 and +inf never raises the answer; with them the
  // conversion of Laplace(1) at delta = 1e-10 is its pure eps 1
  // (test_laplace in dp_accounting).
  const std::vector<double> orders{1.0, 1 + 1e-6, 1.1 - 1e-6, 1.1 + 1e-6, 1e10};
  const auto lap = privet::rdp_laplace(1.0, orders);
  CHECK(privet::to_approx_dp(lap, 1e-10).epsilon() == doctest::Approx(1.0).epsilon(1e-8));
  const auto lap_full = privet::rdp_laplace(1.0, {1.0, 2.0, 8.0, 64.0, inf});
  const auto lap_finite = privet::rdp_laplace(1.0, {2.0, 8.0, 64.0});
  for (double d : {1e-3, 1e-6, 0.5, 0.9}) {
    CHECK(privet::to_approx_dp(lap_full, d).epsilon() <=
          privet::to_approx_dp(lap_finite, d).epsilon());
    CHECK(privet::to_approx_dp(lap_full, d).epsilon() <= 1.0);
  }
  // The (eps, delta) answers stay valid: never below the Laplace mechanism's
  // exact delta(eps) = 1 - e^{(eps - 1) / 2} (for eps < 1, sensitivity 1, b = 1).
  for (double eps : {0.0, 0.2, 0.6}) {
    CHECK(privet::rdp_delta(lap_full, eps) >= -std::expm1((eps - 1) / 2));
  }
}

TEST_CASE("tree aggregation: depth by brute force, Gaussian curve, Kairouz et al.'s epsilon") {
  // Second method for the depth: count, for every leaf, the completed dyadic
  // intervals [j 2^l, (j + 1) 2^l) inside [0, T) that contain it.
  for (std::uint64_t t = 0; t <= 300; ++t) {
    std::uint64_t most = 0;
    for (std::uint64_t leaf = 0; leaf < t; ++leaf) {
      std::uint64_t n = 0;
      for (std::uint64_t w = 1; w <= t; w *= 2) {
        if ((leaf / w + 1) * w <= t) ++n;
      }
      most = std::max(most, n);
    }
    CAPTURE(t);
    CHECK(privet::tree_aggregation_depth(t) == most);
  }
  const std::vector<double> orders{1.0, 2.0, 10.0};
  const auto tree = privet::rdp_tree_aggregation(2.0, {10, 40, 30, 20}, orders);
  const auto gauss = privet::rdp_gaussian(2.0 / std::sqrt(6.0), orders);  // depth(40) = 6
  for (std::size_t i = 0; i < orders.size(); ++i) {
    CHECK(tree.epsilons()[i] == doctest::Approx(gauss.epsilons()[i]).epsilon(1e-14));
  }
  CHECK(privet::rdp_tree_aggregation(1.0, {0, 0}, orders).epsilons()[2] == 0);
  // Kairouz et al. 2021 (StackOverflow, 1600 steps, delta = 1e-6): noise
  // 1.13 gives eps < 19.74 and 8.83 gives eps < 2.04 (dp_accounting's
  // test_compute_eps_tree uses these published values).
  std::vector<double> tree_orders;
  for (int x = 1; x < 100; ++x) tree_orders.push_back(1 + x / 10.0);
  for (int a = 12; a < 64; ++a) tree_orders.push_back(a);
  CHECK(privet::to_approx_dp(privet::rdp_tree_aggregation(1.13, {1600}, tree_orders), 1e-6)
            .epsilon() < 19.74);
  CHECK(privet::to_approx_dp(privet::rdp_tree_aggregation(8.83, {1600}, tree_orders), 1e-6)
            .epsilon() < 2.04);
  CHECK_THROWS_WITH_AS(privet::rdp_tree_aggregation(1.0, {}),
                       "privet: step_counts is empty; allowed: at least one element",
                       privet::invalid_parameter);
}
