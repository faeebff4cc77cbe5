#include <privet/core/guarantee.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

TEST_CASE("guarantee values validate their parameters") {
  CHECK(privet::pure_dp(1.5).epsilon() == 1.5);
  CHECK(privet::pure_dp(0).epsilon() == 0);  // the trivial (constant) mechanism
  CHECK_THROWS_WITH_AS(privet::pure_dp(-0.1),
                       "privet: epsilon = -0.1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::approx_dp(1, 2), "privet: delta = 2 is invalid; allowed: [0, 1]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::zcdp(NAN), "privet: rho = nan is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::gdp(-1), "privet: mu = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::approx_dp(-1, 0),
                       "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::approx_dp(1, NAN), "privet: delta = nan is invalid; allowed: [0, 1]",
                       privet::invalid_parameter);
}

TEST_CASE("named conversions") {
  CHECK(privet::to_approx_dp(privet::pure_dp(2)) == privet::approx_dp(2, 0));
  // Bun & Steinke 2016, Proposition 1.4: eps-DP => eps^2/2-zCDP.
  CHECK(privet::to_zcdp(privet::pure_dp(2)).rho() == 2.0);
  // mu-GDP => mu^2/2-zCDP: a Gaussian with sensitivity 1 and sigma 2 is
  // 0.5-GDP and 1/(2 sigma^2) = 0.125-zCDP.
  CHECK(privet::to_zcdp(privet::gdp(0.5)).rho() == doctest::Approx(0.125));
  // Bun & Steinke Proposition 1.3: rho + 2 sqrt(rho ln(1/delta)).
  const auto a = privet::to_approx_dp_bun_steinke(privet::zcdp(0.5), 1e-6);
  CHECK(a.epsilon() == doctest::Approx(0.5 + 2 * std::sqrt(0.5 * std::log(1e6))));
  CHECK(a.delta() == 1e-6);
  CHECK_THROWS_WITH_AS(privet::to_approx_dp_bun_steinke(privet::zcdp(0.5), 0),
                       "privet: delta = 0 is invalid; allowed: (0, 1)", privet::invalid_parameter);
}

TEST_CASE("guarantees print with their units") {
  std::ostringstream os;
  os << privet::approx_dp(1, 1e-7);
  CHECK(os.str() == "epsilon = 1, delta = 1e-07 (approximate DP)");
  CHECK(privet::to_string(privet::zcdp(0.015)) == "rho = 0.015 (zCDP)");
  CHECK(privet::to_string(privet::gdp(1)) == "mu = 1 (Gaussian DP)");
  CHECK(privet::to_string(privet::pure_dp(0.1)) == "epsilon = 0.1 (pure DP)");
}

TEST_CASE("within_tv qualifies a guarantee by a sampler's total variation") {
  const privet::within_tv<privet::pure_dp> g(privet::pure_dp(1), 1e-30);
  CHECK(g.base() == privet::pure_dp(1));
  CHECK(g.total_variation() == 1e-30);
  static_assert(privet::guarantee<privet::within_tv<privet::zcdp>>);
  CHECK_THROWS_AS(privet::within_tv<privet::zcdp>(privet::zcdp(1), 2), privet::invalid_parameter);
  CHECK(privet::to_string(g) == "epsilon = 1 (pure DP) within total variation 1e-30");
  // (eps, (1 + e^eps) tau): for every event, P'[S] <= P[S] + tau <=
  // e^eps P[S'] + tau <= e^eps (P'[S'] + tau) + tau. Second computation in
  // long double; the result is rounded up by a few ulps at most.
  const privet::approx_dp a = privet::to_approx_dp(g);
  const long double want = (1 + std::exp(1.0L)) * 1e-30L;
  CHECK(a.epsilon() == 1);
  CHECK(static_cast<long double>(a.delta()) >= want);
  CHECK(static_cast<long double>(a.delta()) <= want * (1 + 1e-14L));
  const privet::approx_dp b = privet::add_total_variation(privet::approx_dp(2, 1e-6), 1e-20);
  CHECK(static_cast<long double>(b.delta()) >= 1e-6L + (1 + std::exp(2.0L)) * 1e-20L);
  CHECK(privet::add_total_variation(privet::approx_dp(2, 1e-6), 0) == privet::approx_dp(2, 1e-6));
  // A huge epsilon makes delta 1, never more.
  CHECK(privet::add_total_variation(privet::approx_dp(800, 0), 1e-30).delta() == 1);
}
