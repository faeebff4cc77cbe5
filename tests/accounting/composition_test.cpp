// Composition theorems: the exact homogeneous composition checked against a
// brute-force hockey-stick divergence over all 2^k outcomes of k randomised
// responses, the ordering optimal <= RDP <= advanced/basic, and errors.
#include <privet/accounting/composition.hpp>
#include <privet/accounting/rdp.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
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

// The exact sum of Kairouz, Oh & Viswanath's Theorem 3.3 over every l, in
// long double log space (O(k) lgamma calls): the reference for the windowed,
// rounded-up evaluation.
double full_sum_rr_delta(double eps, std::uint64_t k, double eps_prime) {
  const long double e = eps, kd = static_cast<long double>(k);
  const long double log_p = -std::log1p(std::exp(-e)), log_q = -e + log_p;
  long double sum = 0;
  for (std::uint64_t l = 0; l <= k; ++l) {
    const long double ld = static_cast<long double>(l);
    const long double x = eps_prime - (kd - 2 * ld) * e;
    if (!(x < 0)) break;
    const long double log_b = std::lgamma(kd + 1) - std::lgamma(ld + 1) - std::lgamma(kd - ld + 1) +
                              (kd - ld) * log_p + ld * log_q;
    sum += std::exp(log_b) * -std::expm1(x);
  }
  return static_cast<double>(sum);
}

// The closed-form relaxation of Theorem 3.3 given by Kairouz, Oh & Viswanath
// (2015) right after it: k runs of (eps, 0)-DP are (eps~, delta~)-DP for
// eps~ = min(k eps, k eps (e^eps - 1) / (e^eps + 1) + eps sqrt(2 k log(e +
// sqrt(k eps^2) / delta~)), k eps (e^eps - 1) / (e^eps + 1) + eps sqrt(2 k
// log(1 / delta~))). The optimal composition can never exceed it.
double kov_closed_form(double eps, double k, double delta) {
  const double drift = k * eps * std::tanh(eps / 2);  // (e^eps - 1) / (e^eps + 1)
  const double a =
      drift + eps * std::sqrt(2 * k * std::log(std::exp(1.0) + std::sqrt(k * eps * eps) / delta));
  const double b = drift + eps * std::sqrt(2 * k * std::log(1 / delta));
  return std::min({k * eps, a, b});
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
                       "privet: k = 0 is invalid; allowed: [1, 2^24 = 16777216] (optimal "
                       "composition's cost and rounding grow with k; for more runs use "
                       "compose_advanced)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::compose_optimal_delta(approx_dp(1, 0), 2, -1),
                       "privet: eps_prime = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::compose_optimal(approx_dp(1, 0), 2, 1),
                       "privet: delta = 1 is invalid; allowed: [0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::compose_optimal(approx_dp(1, 0), 2, -0.5),
                       "privet: delta = -0.5 is invalid; allowed: [0, 1)", invalid_parameter);
  // delta = 0 needs pure-DP runs.
  CHECK_THROWS_WITH_AS(privet::compose_optimal(approx_dp(0.1, 1e-9), 10, 0),
                       doctest::Contains("privet: delta = 0 is invalid; allowed: > 1 - (1 - "
                                         "each.delta)^k = 9.99999995"),
                       invalid_parameter);
  // Below the runs' own failure probability 1 - (1 - 1e-3)^10 = 0.00995...
  CHECK_THROWS_WITH_AS(privet::compose_optimal(approx_dp(0.1, 1e-3), 10, 1e-3),
                       doctest::Contains("privet: delta = 0.001 is invalid; allowed: > 1 - (1 - "
                                         "each.delta)^k = 0.00995"),
                       invalid_parameter);
}

TEST_CASE("optimal composition refuses k beyond its cap instead of wrapping or running for ever") {
  using privet::approx_dp;
  // Issue 22, finding 3: k = 2^64 - 1 returned eps = 0 and delta = 0 (a loop
  // bound wrapped); k = 2^40 at eps = 0.01 never returned.
  const std::string message =
      "is invalid; allowed: [1, 2^24 = 16777216] (optimal composition's cost and rounding grow "
      "with k; for more runs use compose_advanced)";
  const std::uint64_t huge = std::numeric_limits<std::uint64_t>::max();
  CHECK_THROWS_WITH_AS(privet::compose_optimal(approx_dp(1, 0), huge, 1e-5),
                       ("privet: k = 18446744073709551615 " + message).c_str(),
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::compose_optimal_delta(approx_dp(1, 0), huge, 1),
                       ("privet: k = 18446744073709551615 " + message).c_str(),
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::compose_optimal(approx_dp(0.01, 0), std::uint64_t{1} << 40, 1e-5),
                       ("privet: k = 1099511627776 " + message).c_str(), privet::invalid_parameter);
  CHECK_THROWS_AS(
      privet::compose_optimal(approx_dp(0.01, 0), privet::compose_optimal_max_k + 1, 1e-5),
      privet::invalid_parameter);
}

TEST_CASE(
    "optimal composition at the largest k stays below advanced composition and KOV's "
    "closed form") {
  using privet::approx_dp;
  const std::uint64_t k = privet::compose_optimal_max_k;
  const double kd = static_cast<double>(k);
  for (double eps : {1e-4, 0.01, 1.0}) {
    for (double delta : {1e-5, 1e-10}) {
      CAPTURE(eps);
      CAPTURE(delta);
      const double optimal = privet::compose_optimal(approx_dp(eps, 0), k, delta).epsilon();
      CHECK(optimal > 0);
      CHECK(std::isfinite(optimal));
      // Both theorems hold for every (eps, 0)-DP mechanism, so the optimal
      // epsilon is at most theirs, and the optimal delta at their epsilon is
      // at most their delta.
      const auto advanced = privet::compose_advanced(approx_dp(eps, 0), k, delta);
      CHECK(optimal <= advanced.epsilon());
      CHECK(privet::compose_optimal_delta(approx_dp(eps, 0), k, advanced.epsilon()) <= delta);
      const double closed = kov_closed_form(eps, kd, delta);
      CHECK(optimal <= closed);
      CHECK(privet::compose_optimal_delta(approx_dp(eps, 0), k, closed) <= delta);
    }
  }
}

TEST_CASE("the windowed optimal composition is never below the full sum and within 1e-7 of it") {
  using privet::approx_dp;
  // k = 2 10^5 runs well past the window (15 standard deviations plus 16
  // terms on each side), so the tail bounds and the rounding allowance are
  // both exercised; the full O(k) sum in long double is the second method.
  // eps' runs from the mean loss k eps tanh(eps / 2) to 5 standard
  // deviations (eps sqrt(k)) above it: delta from about 1/2 to about 1e-8.
  for (double eps : {0.002, 0.05, 1.0}) {
    for (double c : {0.0, 1.0, 3.0, 5.0}) {
      const std::uint64_t k = 200'000;
      const double kd = static_cast<double>(k);
      const double eps_prime = kd * eps * std::tanh(eps / 2) + c * eps * std::sqrt(kd);
      const double got = privet::compose_optimal_delta(approx_dp(eps, 0), k, eps_prime);
      const double exact = full_sum_rr_delta(eps, k, eps_prime);
      CAPTURE(eps);
      CAPTURE(eps_prime);
      CAPTURE(exact);
      CHECK(exact > 1e-10);
      CHECK(exact < 0.9);
      CHECK(got >= exact);
      CHECK(got <= exact * (1 + 1e-7));
    }
  }
}

TEST_CASE(
    "optimal composition at extreme epsilons returns finite, sound answers or names "
    "each.epsilon") {
  using privet::approx_dp;
  const std::uint64_t k = privet::compose_optimal_max_k;
  // The smallest subnormal epsilon: the divergence is below 1e-300, never
  // negative, never NaN.
  const double tiny = privet::compose_optimal_delta(approx_dp(5e-324, 0), k, 0);
  CHECK(tiny >= 0);
  CHECK(tiny < 1e-300);
  CHECK(privet::compose_optimal(approx_dp(5e-324, 0), k, 1e-5).epsilon() == 0);
  // eps = 800 (e^eps overflows): three runs reveal the input unless eps' is
  // within log 2 of 3 eps, since delta(eps') = 1 - e^{eps' - 3 eps} up to
  // e^-800.
  CHECK(privet::compose_optimal(approx_dp(800, 0), 3, 0.5).epsilon() ==
        doctest::Approx(2400 - std::log(2.0)).epsilon(1e-12));
  CHECK(privet::compose_optimal_delta(approx_dp(1e300, 0), k, 1e300) == 1);
  // k eps overflows: no finite eps' is certified, and the message says why.
  CHECK_THROWS_WITH_AS(
      privet::compose_optimal(approx_dp(1e305, 0), k, 0.5),
      "privet: each.epsilon = 1e+305 is invalid; allowed: <= DBL_MAX / k with k = 16777216 (the "
      "composed epsilon must be finite)",
      privet::invalid_parameter);
}

TEST_CASE("optimal composition at delta = 0 is k eps, as brute force and small deltas say") {
  using privet::approx_dp;
  // Kairouz, Oh & Viswanath (2015, Theorem 3.3) at delta = 0: the
  // hockey-stick divergence of k randomised responses vanishes exactly from
  // eps' = k eps on. Brute force over all 2^k outcomes confirms that it is
  // positive just below, and the delta > 0 path approaches k eps from below.
  for (const double eps : {0.1, 0.5, 2.0}) {
    for (const int k : {1, 3, 8}) {
      CAPTURE(eps);
      CAPTURE(k);
      const auto pure =
          privet::compose_optimal(approx_dp(eps, 0), static_cast<std::uint64_t>(k), 0);
      CHECK(pure.delta() == 0);
      CHECK(pure.epsilon() >= k * eps);
      CHECK(pure.epsilon() <= k * eps * (1 + 1e-15));
      // (Brute force rounds: its exact zero comes out as a few 1e-17.)
      CHECK(brute_force_rr_delta(eps, k, pure.epsilon()) < 1e-15);
      CHECK(brute_force_rr_delta(eps, k, k * eps * (1 - 1e-6)) > 1e-12);
      const double near =
          privet::compose_optimal(approx_dp(eps, 0), static_cast<std::uint64_t>(k), 1e-12)
              .epsilon();
      CHECK(near <= pure.epsilon());
      CHECK(near >= k * eps - 1e-6);
    }
  }
  CHECK(privet::compose_optimal(approx_dp(0, 0), 5, 0).epsilon() == 0);
  CHECK_THROWS_WITH_AS(
      privet::compose_optimal(approx_dp(1e305, 0), privet::compose_optimal_max_k, 0),
      "privet: each.epsilon = 1e+305 is invalid; allowed: <= DBL_MAX / k with k = 16777216 (the "
      "composed epsilon must be finite)",
      privet::invalid_parameter);
}

TEST_CASE("basic composition of pure DP within total variation adds epsilons and distances") {
  using g = privet::within_tv<privet::pure_dp>;
  const auto c = privet::compose_basic(
      std::vector{g(privet::pure_dp(0.5), 1e-30), g(privet::pure_dp(0.25), 3e-30)});
  CHECK(c.base() == privet::pure_dp(0.75));
  CHECK(c.total_variation() >= 4e-30);
  CHECK(c.total_variation() <= 4e-30 * (1 + 1e-15));
  CHECK_THROWS_AS(privet::compose_basic(std::vector<g>{}), privet::invalid_parameter);
}
