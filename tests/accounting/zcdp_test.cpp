// zCDP: the Canonne-Kamath-Steinke conversion checked three ways — against
// the same bound evaluated on a fine RDP curve alpha rho (a second
// computation through rdp.hpp), against the exact delta of a Gaussian with
// that rho (no conversion can beat it), and against Bun & Steinke's looser
// bound — plus composition, the Gaussian's rho and the documented errors.
#include <privet/accounting/rdp.hpp>
#include <privet/accounting/zcdp.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

namespace {

// delta(eps) of the Gaussian mechanism with mu = D / sigma (Balle & Wang
// 2018, Theorem 8), the exact curve of a mechanism that is (mu^2 / 2)-zCDP.
double gaussian_delta(double mu, double eps) {
  return std::erfc((eps / mu - mu / 2) / std::sqrt(2.0)) / 2 -
         std::exp(eps) * std::erfc((eps / mu + mu / 2) / std::sqrt(2.0)) / 2;
}

}  // namespace

TEST_CASE("CKS conversion equals the improved RDP conversion of the curve alpha rho") {
  std::vector<double> orders;
  // alpha - 1 from 1e-4 to 1e5, 10^4 points per decade.
  for (int i = 0; i <= 90'000; ++i) orders.push_back(1 + std::pow(10.0, -4 + 1e-4 * i));
  for (double rho : {0.001, 0.015, 0.5, 5.0}) {
    const privet::rdp curve = privet::detail::rdp_curve(orders, [&](double a) { return a * rho; });
    for (double delta : {1e-3, 1e-7, 1e-12}) {
      const double eps = privet::to_approx_dp(privet::zcdp(rho), delta).epsilon();
      const double on_grid = privet::to_approx_dp(curve, delta).epsilon();
      CAPTURE(rho);
      CAPTURE(delta);
      CHECK(eps <= on_grid * (1 + 1e-12));  // the search finds at least the grid's best
      CHECK(eps == doctest::Approx(on_grid).epsilon(1e-6));
    }
  }
}

TEST_CASE("CKS is tighter than Bun-Steinke and no tighter than the exact Gaussian") {
  for (double rho : {0.001, 0.015, 0.125, 2.0}) {
    const double mu = std::sqrt(2 * rho);
    for (double delta : {1e-2, 1e-5, 1e-7, 1e-10}) {
      const double cks = privet::to_approx_dp(privet::zcdp(rho), delta).epsilon();
      const double bs = privet::to_approx_dp_bun_steinke(privet::zcdp(rho), delta).epsilon();
      CAPTURE(rho);
      CAPTURE(delta);
      CHECK(cks < bs);
      CHECK(gaussian_delta(mu, cks) <= delta * (1 + 1e-9));
      CHECK(privet::zcdp_delta(privet::zcdp(rho), cks) == doctest::Approx(delta).epsilon(1e-6));
    }
  }
  // Wikimedia's daily budget rho = 0.015 is "roughly equivalent to
  // epsilon = 1, delta = 1e-07" (Wikimedia's documentation of the release,
  // https://analytics.wikimedia.org/published/datasets/country_project_page/00_README.html);
  // Bun-Steinke gives 0.998.
  const double wikimedia = privet::to_approx_dp(privet::zcdp(0.015), 1e-7).epsilon();
  CHECK(wikimedia < 0.998);
  CHECK(wikimedia > 0.8);
}

TEST_CASE("zCDP composes by adding rhos; the Gaussian's rho is D^2 / (2 sigma^2)") {
  CHECK(privet::zcdp_gaussian(2.0, 1.0).rho() == 0.125);
  CHECK(privet::zcdp_gaussian(1.0, 3.0).rho() == 4.5);
  const auto total = privet::compose({privet::zcdp(0.1), privet::zcdp(0.25), privet::zcdp(0.05)});
  CHECK(total.rho() == doctest::Approx(0.4));
  // 1 + 2^-54 (+ 2^-54) rounds down to 1 with plain +; the composed rho must
  // not be below the exact sum (long double holds it exactly), and stays
  // within a rounding step per addition of it.
  const double tiny = 0x1p-54;
  REQUIRE(1.0 + tiny == 1.0);
  const auto up = privet::compose({privet::zcdp(1.0), privet::zcdp(tiny)});
  CHECK(static_cast<long double>(up.rho()) >= 1.0L + 0x1p-54L);
  CHECK(up.rho() == 1 + 0x1p-52);
  const auto up3 = privet::compose({privet::zcdp(1.0), privet::zcdp(tiny), privet::zcdp(tiny)});
  CHECK(static_cast<long double>(up3.rho()) >= 1.0L + 0x1p-53L);
  CHECK(up3.rho() <= 1 + 0x1p-51);
  CHECK(privet::to_approx_dp(privet::zcdp(0), 1e-6).epsilon() == 0);
  CHECK(privet::zcdp_delta(privet::zcdp(0), 0.5) == 0);
  CHECK(privet::zcdp_delta(privet::zcdp(50), 0.0) > 0.99);
  CHECK(privet::zcdp_delta(privet::zcdp(50), 0.0) <= 1);
}

TEST_CASE("bad zCDP inputs throw, naming the parameter") {
  CHECK_THROWS_WITH_AS(privet::zcdp(-0.1),
                       "privet: rho = -0.1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::to_approx_dp(privet::zcdp(1), 1.0),
                       "privet: delta = 1 is invalid; allowed: (0, 1)", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::compose(std::vector<privet::zcdp>{}),
                       "privet: parts is empty; allowed: at least one element",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::zcdp_gaussian(0.0),
                       "privet: sigma = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_AS(privet::zcdp_delta(privet::zcdp(1), -1.0), privet::invalid_parameter);
}

TEST_CASE("zCDP helpers name the rest of their parameters") {
  CHECK_THROWS_WITH_AS((void)privet::zcdp_delta(privet::zcdp(1), -1.0),
                       "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::zcdp_gaussian(1.0, std::nan("")),
                       "privet: l2_sensitivity = nan is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
}

TEST_CASE("zcdp_rho_for inverts zcdp_delta and is at least Bun-Steinke's rho") {
  // Expected rhos: Corollary 13 of Canonne, Kamath & Steinke (2020) solved
  // for rho independently in mpmath at 40 digits (golden-section search over
  // log(alpha - 1), then 70 geometric bisection steps on rho); the Bun &
  // Steinke (2016, Proposition 1.3) rho, (sqrt(L + eps) - sqrt(L))^2 with L =
  // log(1/delta), is below each (0.02082, 0.9097, 1.203e-4).
  struct target {
    double eps, delta, rho;
  };
  for (const target& t : {target{1, 1e-5, 0.0305565951976396}, target{8, 1e-6, 1.05235800455699},
                          target{0.1, 1e-9, 0.000177138447185021}}) {
    const double rho = privet::zcdp_rho_for(privet::approx_dp(t.eps, t.delta)).rho();
    const double eps = t.eps, delta = t.delta;
    CAPTURE(eps);
    CAPTURE(delta);
    CHECK(rho == doctest::Approx(t.rho).epsilon(1e-9));
    // Sound and largest: the target holds at rho, not a little above it.
    CHECK(privet::zcdp_delta(privet::zcdp(rho), eps) <= delta);
    CHECK(privet::zcdp_delta(privet::zcdp(rho * (1 + 1e-9)), eps) > delta);
    CHECK(privet::to_approx_dp(privet::zcdp(rho), delta).epsilon() <= eps * (1 + 1e-9));
    const double log_inv = std::log(1 / delta);
    const double bun_steinke = std::pow(std::sqrt(log_inv + eps) - std::sqrt(log_inv), 2);
    CHECK(rho > bun_steinke);
    // No conversion beats the exact curve of a Gaussian with that rho.
    CHECK(gaussian_delta(std::sqrt(2 * rho), eps) <= delta);
  }
  // eps = 0 still allows a small rho; delta = 0 allows none but 0.
  const double at_zero = privet::zcdp_rho_for(privet::approx_dp(0, 1e-3)).rho();
  CHECK(at_zero > 0);
  CHECK(privet::zcdp_delta(privet::zcdp(at_zero), 0) <= 1e-3);
  CHECK(privet::zcdp_rho_for(privet::approx_dp(1, 0)).rho() == 0);
  CHECK_THROWS_WITH_AS(privet::zcdp_rho_for(privet::approx_dp(1, 1)),
                       "privet: target.delta = 1 is invalid; allowed: [0, 1)",
                       privet::invalid_parameter);
}

TEST_CASE("zCDP within total variation: rhos and distances add; delta keeps the sampler's share") {
  const privet::within_tv<privet::zcdp> g(privet::zcdp(0.5), 1e-30);
  const auto both = privet::compose(std::vector{g, g});
  CHECK(both.base() == privet::zcdp(1));
  CHECK(both.total_variation() == 2e-30);
  // eps is the exact conversion's at delta minus the share, so between its
  // values at delta and at delta (1 - 2^-46); delta is as asked, and the
  // base at that eps plus (1 + e^eps) tau fits within it.
  const auto a = privet::to_approx_dp(g, 1e-6);
  CHECK(a.delta() == 1e-6);
  CHECK(a.epsilon() >= privet::to_approx_dp(privet::zcdp(0.5), 1e-6).epsilon());
  CHECK(a.epsilon() <=
        privet::to_approx_dp(privet::zcdp(0.5), 1e-6 * (1 - std::ldexp(1.0, -46))).epsilon());
  CHECK(privet::zcdp_delta(privet::zcdp(0.5), a.epsilon()) + (1 + std::exp(a.epsilon())) * 1e-30 <=
        1e-6);
  // No room: delta at or below the share.
  CHECK_THROWS_AS(
      privet::to_approx_dp(privet::within_tv<privet::zcdp>(privet::zcdp(0.5), 1e-7), 1e-7),
      privet::invalid_parameter);
  // tau = 0 is the exact conversion.
  CHECK(privet::to_approx_dp(privet::within_tv<privet::zcdp>(privet::zcdp(0.5), 0), 1e-6) ==
        privet::to_approx_dp(privet::zcdp(0.5), 1e-6));
}
