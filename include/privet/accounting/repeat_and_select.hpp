// privet/accounting/repeat_and_select.hpp — the RDP of running a mechanism a
// random number K of times and releasing only the best run (hyperparameter
// tuning), after Papernot & Steinke 2022, "Hyperparameter Tuning with Renyi
// Differential Privacy" (ICLR; arXiv 2110.03620).
//
// K is drawn from one of two families, named as in dp_accounting's
// RepeatAndSelectDpEvent by its mean mu >= 1 and a shape eta:
//
// - eta = +inf: Poisson with mean mu (K = 0 releases nothing). Theorem 6:
//   at order lambda in (1, inf), with the single run (lambda, eps)-RDP and
//   (eps_hat, delta_hat)-DP for eps_hat = log(lambda / (lambda - 1)),
//     eps'(lambda) = eps(lambda) + mu delta_hat + log(mu) / (lambda - 1);
//   delta_hat is the single run's curve converted at eps_hat (rdp_delta).
// - eta in [0, inf): the truncated negative binomial with parameters (eta,
//   gamma), P[K = k] proportional to C(k + eta - 1, k) (1 - gamma)^k for k >=
//   1 (eta = 0: the logarithmic distribution; eta = 1: the geometric, gamma
//   = 1 / mu), mean mu = eta (1 - gamma) / (gamma (1 - gamma^eta)) (eta = 0:
//   (1 - gamma) / (gamma log(1 / gamma))); Definition 1. Theorem 2: at any
//   lambda in (1, inf) and lambda_hat in [1, inf),
//     eps'(lambda) = eps(lambda) + (1 + eta) ((1 - 1 / lambda_hat) eps(lambda_hat)
//                    + log(1 / gamma) / lambda_hat) + log(mu) / (lambda - 1),
//   minimised over the curve's orders lambda_hat (at lambda_hat = +inf the
//   term is eps(inf), the limit of valid bounds, as in Corollary 3's pure
//   DP eps (2 + eta)); at lambda = +inf the limit eps(inf) + that term.
//
// gamma is found from mu by bisection and rounded down (a smaller gamma only
// raises log(1 / gamma), so the bound stays valid). Every order's value is
// then lowered to the smallest value at an order above it (a Renyi
// divergence does not decrease with its order; van Erven & Harremoes 2014,
// Theorem 3), which also gives order 1 a value where the theorems have none
// (for Poisson only order 1 is lowered so, as in dp_accounting). For the
// truncated negative binomial mu = 1 means K = 1 always: the single run's
// curve itself.
#pragma once

#include <privet/accounting/rdp.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace privet {

namespace detail {

// log(x) / (x - 1) for x in (0, 1], 1 at x = 1 (log1p keeps it accurate
// near 1, where x - 1 is exact).
inline double log_x_over_x_minus_1(double x) {
  if (x == 1) return 1;
  return x > 0.5 ? std::log1p(x - 1) / (x - 1) : std::log(x) / (x - 1);
}

// expm1(x) / x, 1 at x = 0.
inline double expm1_over_x(double x) {
  return x == 0 ? 1.0 : std::expm1(x) / x;
}

}  // namespace detail

/// The mean of the truncated negative binomial distribution with shape eta
/// >= 0 and parameter gamma in (0, 1] (Papernot & Steinke 2022,
/// Definition 1): eta (1 - gamma) / (gamma (1 - gamma^eta)), 1 / gamma at eta
/// = 1, (1 - gamma) / (gamma log(1 / gamma)) at eta = 0 (the logarithmic
/// distribution), evaluated as 1 / (gamma (log gamma / (gamma - 1))
/// (expm1(x) / x)) with x = eta log gamma, which covers all three without
/// cancellation. Throws invalid_parameter naming gamma or eta.
inline double truncated_negative_binomial_mean(double gamma, double eta) {
  if (!(gamma > 0 && gamma <= 1)) throw_invalid("gamma", gamma, "(0, 1]");
  if (!(eta >= 0) || std::isinf(eta)) throw_invalid("eta", eta, "finite and >= 0");
  if (eta == 1) return 1 / gamma;
  return 1 / (gamma * detail::log_x_over_x_minus_1(gamma) *
              detail::expm1_over_x(eta * std::log(gamma)));
}

/// The gamma of the truncated negative binomial with shape eta >= 0 and mean
/// mu >= 1, rounded down: the mean decreases in gamma, so gamma is bisected
/// on (0, 1] to a relative width of 1e-12 and the lower end returned (whose
/// mean is >= mu). Throws invalid_parameter naming eta or mean.
inline double truncated_negative_binomial_gamma(double eta, double mean) {
  if (!(eta >= 0) || std::isinf(eta)) throw_invalid("eta", eta, "finite and >= 0");
  if (!(mean >= 1) || std::isinf(mean)) throw_invalid("mean", mean, "finite and >= 1");
  if (mean == 1) return 1;
  if (eta == 1) return std::nextafter(1 / mean, 0.0);  // 1 / mean, rounded down
  double lo = 0, hi = 1;
  // Each step halves [lo, hi] or stops where the midpoint rounds to an end;
  // a double bracket halves at most ~1100 times.
  for (int i = 0; i < 1200 && hi - lo > 1e-12 * lo; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (!(mid > lo && mid < hi)) break;
    (truncated_negative_binomial_mean(mid, eta) >= mean ? lo : hi) = mid;
  }
  return lo;
}

/// The RDP curve of running a mechanism with curve `single` a random number
/// of times, mean `mean` >= 1 and shape `shape` >= 0 (+inf: Poisson; see the
/// file comment), and releasing only the best run, on single's orders.
/// Throws invalid_parameter naming mean (not finite and >= 1) or shape
/// (NaN or negative).
inline rdp rdp_repeat_and_select(const rdp& single, double mean, double shape) {
  if (!(mean >= 1) || std::isinf(mean)) throw_invalid("mean", mean, "finite and >= 1");
  if (!(shape >= 0)) throw_invalid("shape", shape, ">= 0 (+inf: Poisson)");
  if (mean == 1 && !std::isinf(shape)) return single;  // K = 1 always
  const auto& orders = single.orders();
  const auto& eps = single.epsilons();
  const std::size_t n = orders.size();
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<double> out(n, inf);
  const double log_mean = std::log(mean);
  if (std::isinf(shape)) {
    for (std::size_t i = 0; i < n; ++i) {
      const double a = orders[i];
      if (a == 1 || std::isinf(a)) continue;  // Theorem 6 needs lambda in (1, inf)
      const double eps_hat = -std::log1p(-1 / a);
      const double delta_hat = rdp_delta(single, eps_hat);
      out[i] = eps[i] + mean * delta_hat + log_mean / (a - 1);
    }
  } else {
    const double gamma = truncated_negative_binomial_gamma(shape, mean);
    const double log_inv_gamma = -std::log(gamma);
    double c = inf;
    for (std::size_t j = 0; j < n; ++j) {
      const double b = orders[j];
      // lambda_hat = 1 contributes log(1 / gamma) (a finite KL times 0).
      const double term = std::isinf(b) ? eps[j]
                          : b == 1      ? (std::isfinite(eps[j]) ? log_inv_gamma : inf)
                                        : (1 - 1 / b) * eps[j] + log_inv_gamma / b;
      c = std::min(c, term);
    }
    c *= 1 + shape;
    for (std::size_t i = 0; i < n; ++i) {
      const double a = orders[i];
      if (a == 1) continue;
      out[i] = eps[i] + c + (std::isinf(a) ? 0.0 : log_mean / (a - 1));
    }
  }
  // Monotonicity in the order: each value by the smallest at or above it.
  // For Poisson only order 1 takes it (which Theorem 6 leaves without a
  // value): the other orders keep Theorem 6's value, as dp_accounting does,
  // although a higher order's can be smaller.
  if (std::isinf(shape)) {
    if (orders[0] == 1) out[0] = *std::min_element(out.begin(), out.end());
  } else {
    for (std::size_t i = n; i-- > 1;) out[i - 1] = std::min(out[i - 1], out[i]);
  }
  return rdp(orders, std::move(out));
}

}  // namespace privet
