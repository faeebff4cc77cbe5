// RDP of subsampling without replacement (Wang, Balle & Kasiviswanathan
// 2019, Theorem 9): the log-space evaluation against the theorem's sum
// computed directly in long double (binomial coefficients as products),
// the chord for fractional orders, monotonicity, large orders and errors.
#include <privet/accounting/rdp_wor.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

// Theorem 9's bound at integer alpha, directly (no logs until the end).
long double direct(long double gamma, long double sigma, int alpha, long double eps_inf) {
  auto eps = [&](long double a) { return a / (2 * sigma * sigma); };
  auto factor = [&](int j) {
    return std::isinf(eps_inf) ? 2.0L : std::min(2.0L, std::pow(std::expm1(eps_inf), j));
  };
  long double binom = 1;  // C(alpha, j), built up
  long double sum = 1;
  for (int j = 1; j <= alpha; ++j) {
    binom = binom * (alpha - j + 1) / j;
    if (j == 1) continue;
    const long double g = std::pow(gamma, j);
    if (j == 2) {
      const long double e2 = eps(2);
      sum += g * binom * std::min(4 * std::expm1(e2), std::exp(e2) * factor(2));
    } else {
      sum += g * binom * std::exp((j - 1) * eps(j)) * factor(j);
    }
  }
  return std::log(sum) / (alpha - 1);
}

}  // namespace

TEST_CASE("the WOR bound matches Theorem 9 summed directly") {
  const std::vector<double> orders{2, 3, 4, 5, 8, 16, 32};
  for (double gamma : {0.001, 0.01, 0.1, 0.5}) {
    for (double sigma : {0.8, 1.1, 4.0}) {
      const auto c = privet::rdp_subsampled_wor_gaussian(gamma, sigma, orders);
      for (std::size_t i = 0; i < orders.size(); ++i) {
        CAPTURE(gamma);
        CAPTURE(sigma);
        CAPTURE(orders[i]);
        const long double want = direct(gamma, sigma, static_cast<int>(orders[i]),
                                        std::numeric_limits<long double>::infinity());
        CHECK(c.epsilons()[i] == doctest::Approx(static_cast<double>(want)).epsilon(1e-10));
      }
    }
  }
  // A mechanism with a finite pure-DP epsilon (Laplace with scale 2: 0.5-DP).
  const double b = 2;
  auto laplace = [&](double a) { return privet::rdp_laplace(b, {a}).epsilons()[0]; };
  const auto c = privet::rdp_subsampled_wor(0.1, laplace, 0.5, {2, 3, 6});
  for (double a : {2.0, 3.0, 6.0}) {
    long double binom = 1, sum = 1;
    const int alpha = static_cast<int>(a);
    for (int j = 1; j <= alpha; ++j) {
      binom = binom * (alpha - j + 1) / j;
      if (j == 1) continue;
      const long double f = std::min(2.0L, std::pow(std::expm1(0.5L), j));
      const long double g = std::pow(0.1L, j);
      sum += j == 2 ? g * binom *
                          std::min(4 * std::expm1((long double)laplace(2)),
                                   std::exp((long double)laplace(2)) * f)
                    : g * binom * std::exp((j - 1) * (long double)laplace(j)) * f;
    }
    const auto i = static_cast<std::size_t>(a == 2 ? 0 : a == 3 ? 1 : 2);
    CHECK(c.epsilons()[i] ==
          doctest::Approx(static_cast<double>(std::log(sum) / (alpha - 1))).epsilon(1e-10));
  }
}

TEST_CASE("fractional orders lie on the chord; the curve is sane") {
  const auto c = privet::rdp_subsampled_wor_gaussian(0.05, 1.0, {1.5, 2, 3, 3.25, 4});
  const auto& e = c.epsilons();
  CHECK(e[0] == doctest::Approx(e[1]));  // (1, 2): eps'(2)
  // (alpha - 1) eps'(alpha) at 3.25 is the chord between 3 and 4.
  const double chord = 2 * e[2] + 0.25 * (3 * e[4] - 2 * e[2]);
  CHECK(2.25 * e[3] == doctest::Approx(chord).epsilon(1e-12));
  // Monotone in gamma and (for these) in alpha; finite at large orders.
  const auto big = privet::rdp_subsampled_wor_gaussian(0.05, 1.0, {1024, 4096});
  CHECK(std::isfinite(big.epsilons()[1]));
  CHECK(big.epsilons()[1] >= big.epsilons()[0]);
  double prev = 0;
  for (double gamma : {0.001, 0.01, 0.1, 1.0}) {
    const double eps =
        privet::to_approx_dp(privet::rdp_subsampled_wor_gaussian(gamma, 1.1).composed(1000), 1e-5)
            .epsilon();
    CAPTURE(gamma);
    CHECK(eps > prev);
    prev = eps;
  }
  // Far below the unsubsampled Gaussian at small gamma and small orders
  // (orders[6] = 3); at large orders the general bound's e^{(j-1) eps(j)}
  // terms take over, as in the paper.
  CHECK(privet::rdp_subsampled_wor_gaussian(0.01, 1.1).epsilons()[6] <
        privet::rdp_gaussian(1.1).epsilons()[6] / 100);
}

TEST_CASE("bad WOR inputs throw, naming the parameter") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(privet::rdp_subsampled_wor_gaussian(0, 1.0),
                       "privet: gamma = 0 is invalid; allowed: (0, 1]", invalid_parameter);
  CHECK_THROWS_AS(privet::rdp_subsampled_wor_gaussian(1.5, 1.0), invalid_parameter);
  CHECK_THROWS_AS(privet::rdp_subsampled_wor_gaussian(0.1, -1.0), invalid_parameter);
  CHECK_THROWS_AS(privet::rdp_subsampled_wor_gaussian(0.1, 1.0, {0.5}), invalid_parameter);
  CHECK_THROWS_AS(privet::rdp_subsampled_wor(0.1, [](double) { return -1.0; }), invalid_parameter);
  CHECK_THROWS_AS(privet::rdp_subsampled_wor(0.1, [](double) { return std::nan(""); }),
                  invalid_parameter);
}

TEST_CASE("WOR messages name the parameter, value and range") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(privet::rdp_subsampled_wor_gaussian(1.5, 1.0),
                       "privet: gamma = 1.5 is invalid; allowed: (0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_subsampled_wor_gaussian(0.1, -1.0),
                       "privet: noise_multiplier = -1 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      privet::rdp_subsampled_wor_gaussian(0.1, 1.0, {0.5}),
      "privet: orders[0] = 0.5 is invalid; allowed: >= 1 (1: KL divergence; +inf: max "
      "divergence)",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_subsampled_wor(
                           0.1, [](double) { return 1.0; }, -1.0),
                       "privet: eps_inf = -1 is invalid; allowed: >= 0 (or +inf)",
                       invalid_parameter);
  // The base curve is first asked for eps(2).
  CHECK_THROWS_WITH_AS(privet::rdp_subsampled_wor(0.1, [](double) { return -1.0; }),
                       "privet: eps(2) = -1 is invalid; allowed: >= 0 (or +inf)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_subsampled_wor(0.1, [](double) { return std::nan(""); }),
                       "privet: eps(2) = nan is invalid; allowed: >= 0 (or +inf)",
                       invalid_parameter);
}

TEST_CASE("a mechanism with no RDP bound gets none at any order, fractional ones included") {
  // Found by the error-path audit: the chord at a fractional order was
  // inf - inf = NaN, which the curve read as 0, and to_approx_dp then
  // claimed a finite epsilon for a mechanism without any guarantee.
  const double inf = std::numeric_limits<double>::infinity();
  const auto g = privet::rdp_subsampled_wor(0.1, [inf](double) { return inf; });
  for (std::size_t i = 0; i < g.orders().size(); ++i) {
    CAPTURE(g.orders()[i]);
    CHECK(std::isinf(g.epsilons()[i]));
  }
  CHECK_THROWS_WITH_AS((void)privet::to_approx_dp(g, 1e-5),
                       "privet: rdp = +inf at every order is invalid; allowed: a curve finite at "
                       "some order",
                       privet::invalid_parameter);
}
