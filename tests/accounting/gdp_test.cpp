// GDP: the Gaussian's mu, lossless composition (Dong, Roth & Su 2022,
// Corollary 3.3), and DPNE's sigma rule in both directions.
#include <privet/accounting/gdp.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

TEST_CASE("mu of the Gaussian and composition by the root of the sum of squares") {
  CHECK(privet::gdp_gaussian(2.0).mu() == 0.5);
  CHECK(privet::gdp_gaussian(2.0, 3.0).mu() == 1.5);
  const auto total = privet::compose({privet::gdp(0.3), privet::gdp(0.4)});
  CHECK(total.mu() == doctest::Approx(0.5).epsilon(1e-15));
  CHECK(total.mu() >= 0.5);
  // k identical Gaussians: mu sqrt(k), the same as one Gaussian with sigma / sqrt(k).
  const auto k100 = privet::compose(std::vector<privet::gdp>(100, privet::gdp_gaussian(10.0)));
  CHECK(k100.mu() == doctest::Approx(1.0).epsilon(1e-14));
}

TEST_CASE("composed GDP converts exactly: 100 Gaussians of sigma 10 are one of sigma 1") {
  const auto mu = privet::compose(std::vector<privet::gdp>(100, privet::gdp_gaussian(10.0)));
  const double eps = privet::to_approx_dp(mu, 1e-5).epsilon();
  // The analytic sigma for that (eps, 1e-5) is 1, up to the composed mu's rounding.
  CHECK(privet::analytic_gaussian_sigma(privet::approx_dp(eps, 1e-5), 1.0) ==
        doctest::Approx(1.0).epsilon(1e-9));
}

TEST_CASE("combined sigma follows 1 / sigma*^2 = sum 1 / sigma_k^2") {
  CHECK(privet::combined_sigma({3.0, 4.0}) ==
        doctest::Approx(1 / std::sqrt(1 / 9.0 + 1 / 16.0)).epsilon(1e-14));
  CHECK(privet::combined_sigma({3.0, 4.0}) <= 1 / std::sqrt(1 / 9.0 + 1 / 16.0));
  CHECK(privet::combined_sigma(std::vector<double>(9, 3.0)) == doctest::Approx(1.0).epsilon(1e-14));
}

TEST_CASE("spread_sigma splits sigma* over T steps without exceeding the budget") {
  for (double c : {1.0, 0.9, 0.5}) {
    for (std::size_t t : {1u, 2u, 9u, 50u}) {
      const auto sigmas = privet::spread_sigma(2.5, t, c);
      REQUIRE(sigmas.size() == t);
      CAPTURE(c);
      CAPTURE(t);
      CHECK(privet::combined_sigma(sigmas) >= 2.5);
      CHECK(privet::combined_sigma(sigmas) == doctest::Approx(2.5).epsilon(1e-13));
      for (std::size_t k = 1; k < t; ++k) CHECK(sigmas[k] == doctest::Approx(c * sigmas[k - 1]));
    }
  }
  // Equal split: sigma_k = sigma* sqrt(T).
  CHECK(privet::spread_sigma(1.0, 9)[4] == doctest::Approx(3.0).epsilon(1e-14));
}

TEST_CASE("bad GDP inputs throw, naming the parameter") {
  CHECK_THROWS_WITH_AS(privet::gdp_gaussian(0.0),
                       "privet: sigma = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::compose(std::vector<privet::gdp>{}),
                       "privet: parts is empty; allowed: at least one element",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::combined_sigma({1.0, -2.0}),
                       "privet: sigmas[1] = -2 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::spread_sigma(1.0, 3, 1.5),
                       "privet: c = 1.5 is invalid; allowed: (0, 1]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::spread_sigma(1.0, 0), "privet: steps = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
}

TEST_CASE("GDP helpers name the rest of their parameters") {
  CHECK_THROWS_WITH_AS(privet::gdp_gaussian(1.0, -1.0),
                       "privet: l2_sensitivity = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::combined_sigma({}),
                       "privet: sigmas is empty; allowed: at least one element",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::spread_sigma(0.0, 3),
                       "privet: sigma_total = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
}
