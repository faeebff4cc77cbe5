// Composition theorems: the exact homogeneous composition checked against a
// brute-force hockey-stick divergence over all 2^k outcomes of k randomised
// responses, the ordering optimal <= RDP <= advanced/basic, and errors.
#include <privet/accounting/composition.hpp>
#include <privet/accounting/rdp.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

// sum over all 2^k outcomes x of max(0, P(x) - e^eps' Q(x)), where P flips
// each of k bits to 1 with probability p = e^eps / (1 + e^eps) and Q with 1 - p.
double brute_force_rr_delta(double eps, int k, double eps_prime) {
  const double p = std::exp(eps) / (1 + std::exp(eps));
  double delta = 0;
  for (std::uint32_t x = 0; x < (1u << k); ++x) {
    const int ones = std::popcount(x);
    const double px = std::pow(p, ones) * std::pow(1 - p, k - ones);
    const double qx = std::pow(1 - p, ones) * std::pow(p, k - ones);
    delta += std::max(0.0, px - std::exp(eps_prime) * qx);
  }
  return delta;
}

}  // namespace

TEST_CASE("optimal composition equals the brute-force divergence of k randomised responses") {
  for (double eps : {0.1, 0.5, 1.0}) {
    for (int k : {1, 2, 5, 10, 14}) {
      for (double eps_prime : {0.0, 0.05, 0.3, 1.0, 2.5}) {
        const double exact = privet::compose_optimal_delta(
            privet::approx_dp(eps, 0), static_cast<std::uint64_t>(k), eps_prime);
        CAPTURE(eps);
        CAPTURE(k);
        CAPTURE(eps_prime);
        CHECK(exact == doctest::Approx(brute_force_rr_delta(eps, k, eps_prime)).epsilon(1e-10));
      }
    }
  }
  // With delta > 0 per run: 1 - (1 - delta)^k (1 - delta_RR).
  const double rr = brute_force_rr_delta(0.5, 10, 1.0);
  CHECK(privet::compose_optimal_delta(privet::approx_dp(0.5, 1e-6), 10, 1.0) ==
        doctest::Approx(1 - std::pow(1 - 1e-6, 10) * (1 - rr)).epsilon(1e-10));
}

TEST_CASE("optimal <= RDP <= advanced and basic for k runs of pure DP") {
  const privet::approx_dp each(0.1, 0);
  for (std::uint64_t k : {10u, 100u, 1000u, 10'000u}) {
    const double delta = 1e-6;
    const double optimal = privet::compose_optimal(each, k, delta).epsilon();
    const double via_rdp =
        privet::to_approx_dp(privet::rdp_pure_dp(privet::pure_dp(0.1)).composed(k), delta)
            .epsilon();
    const double advanced = privet::compose_advanced(each, k, delta).epsilon();
    const double basic = 0.1 * static_cast<double>(k);
    CAPTURE(k);
    CHECK(optimal <= via_rdp);
    CHECK(optimal <= advanced);
    CHECK(optimal <= basic);
    CHECK(privet::compose_optimal_delta(each, k, optimal) <= delta);
    CHECK(privet::compose_optimal_delta(each, k, optimal * (1 - 1e-9)) > delta);
  }
  // Kairouz et al.'s grid point eps' = (k - 2i) eps gives their Theorem 3.3
  // sum, here for k = 3, i = 1: delta = (e^{3 eps} - e^{eps}) / (1 + e^eps)^3.
  const double e = 0.7;
  CHECK(privet::compose_optimal_delta(privet::approx_dp(e, 0), 3, e) ==
        doctest::Approx((std::exp(3 * e) - std::exp(e)) / std::pow(1 + std::exp(e), 3)));
}

TEST_CASE("basic and advanced composition follow their formulas") {
  const auto b =
      privet::compose_basic({privet::approx_dp(0.5, 1e-6), privet::approx_dp(0.25, 2e-6)});
  CHECK(b.epsilon() == 0.75);
  CHECK(b.delta() == doctest::Approx(3e-6));
  // Dwork & Roth, Theorem 3.20, k = 100, eps = 0.1, delta' = 1e-5:
  // sqrt(200 ln 1e5) 0.1 + 100 0.1 (e^0.1 - 1).
  const auto a = privet::compose_advanced(privet::approx_dp(0.1, 1e-7), 100, 1e-5);
  CHECK(
      a.epsilon() ==
      doctest::Approx(std::sqrt(200 * std::log(1e5)) * 0.1 + 10 * std::expm1(0.1)).epsilon(1e-14));
  CHECK(a.delta() == doctest::Approx(100 * 1e-7 + 1e-5));
}

TEST_CASE("bad composition inputs throw, naming the parameter") {
  CHECK_THROWS_WITH_AS(privet::compose_basic({}),
                       "privet: parts is empty; allowed: at least one element",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::compose_advanced(privet::approx_dp(0.1, 0), 0, 1e-5),
                       "privet: k = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::compose_advanced(privet::approx_dp(0.1, 0), 10, 0),
                       "privet: delta_prime = 0 is invalid; allowed: (0, 1)",
                       privet::invalid_parameter);
  CHECK_THROWS_AS(privet::compose_optimal(privet::approx_dp(0.1, 1e-3), 10, 1e-3),
                  privet::invalid_parameter);  // below the runs' own 1 - (1 - 1e-3)^10
  CHECK_THROWS_AS(privet::compose_basic({privet::approx_dp(1, 0.6), privet::approx_dp(1, 0.6)}),
                  privet::invalid_parameter);
}

TEST_CASE("composition messages name the parameter, value and range") {
  using privet::approx_dp;
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(privet::compose_basic({approx_dp(1, 0.6), approx_dp(1, 0.6)}),
                       doctest::Contains("privet: total delta = 1.2"), invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::compose_basic({approx_dp(1, 0.6), approx_dp(1, 0.6)}),
                       doctest::Contains("is invalid; allowed: < 1 (too many parts for basic "
                                         "composition)"),
                       invalid_parameter);
  // 5 * 0.2 + 0.5 = 1.5 exactly in doubles.
  CHECK_THROWS_WITH_AS(privet::compose_advanced(approx_dp(0.1, 0.2), 5, 0.5),
                       "privet: total delta = 1.5 is invalid; allowed: < 1", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::compose_optimal_delta(approx_dp(1, 0), 0, 1),
                       "privet: k = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::compose_optimal_delta(approx_dp(1, 0), 2, -1),
                       "privet: eps_prime = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::compose_optimal(approx_dp(1, 0), 2, 0),
                       "privet: delta = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  // Below the runs' own failure probability 1 - (1 - 1e-3)^10 = 0.00995...
  CHECK_THROWS_WITH_AS(privet::compose_optimal(approx_dp(0.1, 1e-3), 10, 1e-3),
                       doctest::Contains("privet: delta = 0.001 is invalid; allowed: > 1 - (1 - "
                                         "each.delta)^k = 0.00995"),
                       invalid_parameter);
}
