#include <privet/core/analytic_gaussian.hpp>

#include <doctest/doctest.h>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/erf.hpp>

#include <cmath>
#include <numbers>
#include <vector>

namespace {

// The second method: delta = E[(1 - e^{eps - L})_+] with the privacy loss
// L ~ N(mu^2/2, mu^2), integrated numerically in long double. With
// z = (L - mu^2/2) / mu and t = (eps - mu^2/2) / mu, the integrand is positive
// on z > t: delta = phi(t) int_0^inf e^{-t y - y^2/2} (1 - e^{-mu y}) dy. It
// shares nothing with the header's Mills-ratio route but the definition.
long double delta_by_integral(double mu, double eps) {
  const long double m = mu;
  const long double t = (static_cast<long double>(eps) - m * m / 2) / m;
  // Beyond y_max the weight e^{-t y - y^2/2} is below e^-92.
  const long double y_max = -t + std::sqrt(t * t + 184);
  auto f = [&](long double y) { return std::exp(-t * y - y * y / 2) * -std::expm1(-m * y); };
  const long double integral = boost::math::quadrature::gauss_kronrod<long double, 61>::integrate(
      f, 0.0L, y_max, 12, 1e-14L);
  const long double phi_t = std::exp(-t * t / 2) / std::sqrt(2 * std::numbers::pi_v<long double>);
  return phi_t * integral;
}

double delta_of(double mu, double eps) {
  return privet::gdp_delta(privet::gdp(mu), eps);
}

}  // namespace

TEST_CASE("gdp_delta agrees with numeric integration of the privacy-loss tail") {
  double worst = 0;
  int compared = 0;
  for (double mu : {1e-6, 1e-4, 0.003, 0.1, 0.268, 0.5, 0.999, 1.0, 1.001, 1.7, 3.0, 7.0, 20.0})
    for (double eps : {0.0, 1e-7, 1e-4, 0.01, 0.3, 1.0, 2.5, 7.0, 20.0, 50.0, 150.0}) {
      const long double ref = delta_by_integral(mu, eps);
      if (!(ref > 1e-300L)) continue;
      const double got = delta_of(mu, eps);
      const double rel = static_cast<double>(std::fabs(got / ref - 1));
      worst = std::max(worst, rel);
      ++compared;
      INFO("mu = " << mu << ", eps = " << eps);
      CHECK(rel <= 1e-9);
    }
  // Measured: 7.3e-14 over 101 points, the rounding of t = eps/mu - mu/2
  // amplified by t^2; the calibrations' margin (1e-10) stays far above it.
  CHECK(worst <= 1e-12);
  CHECK(compared > 80);
}

TEST_CASE("gdp_delta near-cancelling and tiny terms stay accurate") {
  // mu = 1e-6 and eps = 3e-5: both terms are about 6e-198 and agree to 7
  // digits; mu = 0.133 at eps = 4.45 puts t near 33, delta near 1e-240.
  for (auto [mu, eps] : std::vector<std::pair<double, double>>{
           {1e-6, 3e-5}, {1e-5, 1e-4}, {0.133, 4.45}, {1e-3, 0.03}, {0.5, 15.0}}) {
    const long double ref = delta_by_integral(mu, eps);
    REQUIRE(ref > 1e-300L);
    CHECK(static_cast<double>(std::fabs(delta_of(mu, eps) / ref - 1)) <= 1e-9);
  }
}

TEST_CASE("gdp_delta known answers") {
  // eps = 0: delta = Phi(mu/2) - Phi(-mu/2) = erf(mu / (2 sqrt 2)).
  for (double mu : {1e-6, 0.01, 0.5, 2.0, 6.0}) {
    CHECK(delta_of(mu, 0) ==
          doctest::Approx(std::erf(mu / (2 * std::numbers::sqrt2))).epsilon(1e-12));
  }
  CHECK(delta_of(20, 0) == doctest::Approx(1.0).epsilon(1e-15));
  CHECK(delta_of(0, 1) == 0);
  CHECK(delta_of(0, 0) == 0);
  // mu = 1 at eps = 50: t = 49.5, delta about 1e-535, underflows to 0.
  CHECK(delta_of(1, 50) == 0);
  CHECK(delta_of(20, 50) == doctest::Approx(static_cast<double>(delta_by_integral(20, 50))));
}

TEST_CASE("analytic Gaussian sigma: published value of Balle & Wang's reference code") {
  // Balle & Wang's calibrateAnalyticGaussianMechanism(epsilon = 1,
  // delta = 1e-5, GS = 1) returns 3.730631634944469 (bisection to 1e-12 in
  // delta), as recorded in the doctest of diPLSlib/utils/misc.py in
  // github.com/taozhangr/diPLSlib. The classic bound
  // sqrt(2 ln(1.25 / delta)) / eps (Dwork & Roth 2014, Theorem A.1) is 4.8448.
  const privet::approx_dp target(1, 1e-5);
  const double sigma = privet::analytic_gaussian_sigma(target, 1);
  CHECK(sigma == doctest::Approx(3.730631634944469).epsilon(1e-9));
  CHECK(sigma < std::sqrt(2 * std::log(1.25 / 1e-5)));
  // Verified independently: the integral puts delta at 1e-5 to 1e-9 at mu = 1 / sigma.
  const long double d = delta_by_integral(1 / sigma, 1);
  CHECK(d <= 1e-5L * (1 + 1e-9L));
  CHECK(d >= 1e-5L * (1 - 1e-9L));
  // Sensitivity scales sigma linearly.
  CHECK(privet::analytic_gaussian_sigma(target, 3) == doctest::Approx(3 * sigma).epsilon(1e-15));
}

TEST_CASE("calibration round trips are sound and tight") {
  for (double eps : {0.0, 1e-3, 0.5, 1.0, 3.0, 10.0, 50.0})
    for (double delta : {1e-300, 1e-12, 1e-5, 0.1, 0.9}) {
      INFO("eps = " << eps << ", delta = " << delta);
      const privet::approx_dp target(eps, delta);
      const double mu = privet::largest_gdp_within(target).mu();
      REQUIRE(mu > 0);
      CHECK(delta_of(mu, eps) <= delta);
      CHECK(delta_by_integral(mu, eps) <= delta * (1 + 1e-9L));
      CHECK(delta_of(mu * (1 + 1e-9), eps) > delta);  // tight
      const privet::approx_dp back = privet::to_approx_dp(privet::gdp(mu), delta);
      CHECK(back.epsilon() <= eps);
      CHECK(back.delta() == delta);
      CHECK(back.epsilon() >= eps * (1 - 1e-9) - 1e-12);
      const double sigma = privet::analytic_gaussian_sigma(target, 2.0);
      CHECK(2.0 / sigma <= mu);
      CHECK(2.0 / sigma >= mu * (1 - 1e-15));
    }
}

TEST_CASE("to_approx_dp: the smallest epsilon, rounded up") {
  for (double mu : {1e-6, 0.05, 0.268, 1.0, 4.0, 20.0})
    for (double delta : {1e-300, 1e-10, 1e-5, 0.01}) {
      INFO("mu = " << mu << ", delta = " << delta);
      const double eps = privet::to_approx_dp(privet::gdp(mu), delta).epsilon();
      CHECK(delta_of(mu, eps) <= delta);
      if (eps > 0) CHECK(delta_of(mu, eps * (1 - 1e-9)) > delta);
    }
  // delta(0) = erf(mu / (2 sqrt 2)) <= delta: epsilon is 0.
  CHECK(privet::to_approx_dp(privet::gdp(0.1), 0.5).epsilon() == 0);
  CHECK(privet::to_approx_dp(privet::gdp(0), 1e-10).epsilon() == 0);
  // At eps = 0 the calibration inverts the erf exactly.
  const double mu0 = privet::largest_gdp_within(privet::approx_dp(0, 1e-3)).mu();
  CHECK(mu0 == doctest::Approx(2 * std::numbers::sqrt2 * boost::math::erf_inv(1e-3)).epsilon(1e-9));
}

TEST_CASE("gdp_delta is monotone in epsilon and in mu") {
  for (double mu : {1e-6, 0.01, 0.3, 1.0, 5.0, 20.0}) {
    double prev = 2;
    for (double eps = 0; eps <= 60; eps += 0.05) {
      const double d = delta_of(mu, eps);
      CHECK(d <= prev);
      CHECK(d >= 0);
      prev = d;
    }
  }
  for (double eps : {0.0, 0.1, 1.0, 10.0}) {
    double prev = 0;
    for (double mu = 1e-6; mu <= 20; mu *= 1.05) {
      const double d = delta_of(mu, eps);
      CHECK(d >= prev);
      CHECK(d <= 1);
      prev = d;
    }
  }
}

TEST_CASE("analytic Gaussian rejects bad parameters with clear messages") {
  CHECK_THROWS_WITH_AS(privet::gdp_delta(privet::gdp(1), -1),
                       "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::gdp_delta(privet::gdp(1), INFINITY),
                       "privet: epsilon = inf is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::to_approx_dp(privet::gdp(1), 0),
                       "privet: delta = 0 is invalid; allowed: (0, 1)", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::to_approx_dp(privet::gdp(1), 1),
                       "privet: delta = 1 is invalid; allowed: (0, 1)", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::largest_gdp_within(privet::approx_dp(1, 0)),
                       "privet: target.delta = 0 is invalid; allowed: (0, 1)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::analytic_gaussian_sigma(privet::approx_dp(1, 1e-5), 0),
                       "privet: l2_sensitivity = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::analytic_gaussian_sigma(privet::approx_dp(1, 1e-5), NAN),
                       "privet: l2_sensitivity = nan is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  // mu about 2.5e-300 for (0, 1e-300): sigma = 1e300 / mu does not fit a double.
  CHECK_THROWS_WITH_AS(privet::analytic_gaussian_sigma(privet::approx_dp(0, 1e-300), 1e300),
                       "privet: the analytic Gaussian sigma for epsilon = 0, delta = 1e-300 "
                       "(approximate DP) and l2_sensitivity = 1e+300 exceeds the double range",
                       privet::overflow_error);
}
