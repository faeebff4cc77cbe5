// privet/core/detail/zcdp_conversion.hpp — the (eps, delta) that rho-zCDP
// implies by Canonne, Kamath & Steinke (2020, Corollary 13), rounded up. It
// lives in core so that mechanisms (partition selection's Gaussian rule) and
// the accounting layer share one sound evaluation.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace privet::detail {

/// An upper bound on delta for which rho-zCDP implies (eps, delta)-DP:
/// Canonne, Kamath & Steinke 2020, Corollary 13,
///   delta = inf_{alpha > 1} exp((alpha - 1)(alpha rho - eps)) / (alpha - 1) (1 - 1/alpha)^alpha.
/// Every alpha gives a valid delta, so the numerical minimisation only costs
/// tightness; the value at the chosen alpha is rounded up by a margin far
/// above long double's error.
inline double zcdp_delta_upper(double epsilon, long double rho) {
  const long double eps = epsilon;
  auto log_delta = [&](long double u, long double* magnitude) {
    const long double am1 = std::exp(u);  // alpha - 1
    const long double alpha = 1 + am1;
    const long double t1 = am1 * (alpha * rho - eps);
    const long double t3 = alpha * std::log1p(-1 / alpha);
    if (magnitude != nullptr) *magnitude = std::fabs(t1) + std::fabs(u) + std::fabs(t3);
    return t1 - u + t3;
  };
  // Golden-section search over u = ln(alpha - 1).
  long double lo = -30, hi = 45;
  const long double g = (std::sqrt(5.0L) - 1) / 2;
  long double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
  long double fa = log_delta(a, nullptr), fb = log_delta(b, nullptr);
  for (int i = 0; i < 200; ++i) {
    if (fa < fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - g * (hi - lo);
      fa = log_delta(a, nullptr);
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + g * (hi - lo);
      fb = log_delta(b, nullptr);
    }
  }
  long double magnitude = 0;
  const long double best = log_delta(fa < fb ? a : b, &magnitude);
  const long double bound = best + std::ldexp(1.0L, -45) * (1 + magnitude);
  if (bound >= 0) return 1;
  return std::min(1.0, std::nextafter(static_cast<double>(std::exp(bound)), 2.0));
}

// eps(alpha) for rho-zCDP at delta: Corollary 13 solved for eps.
inline double zcdp_epsilon_at(double rho, double log_delta, double alpha) {
  return alpha * rho + std::log1p(-1 / alpha) - (log_delta + std::log(alpha)) / (alpha - 1);
}

/// An upper bound on the smallest eps at which rho-zCDP gives (eps, delta)-DP
/// by Corollary 13: eps(alpha) minimised over alpha - 1 in [1e-12, 1e7] (a
/// log-spaced grid, then golden-section refinement), then raised until the
/// rounded-up delta at it is at most `delta`, so it is never optimistic.
inline double zcdp_epsilon_upper(double rho, double delta) {
  if (rho == 0) return 0;
  const double log_delta = std::log(delta);
  auto at = [&](double x) { return zcdp_epsilon_at(rho, log_delta, 1 + std::pow(10.0, x)); };
  constexpr int grid = 400;
  double best_x = 0, best = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= grid; ++i) {
    const double x = -12 + 19.0 * i / grid;
    if (const double v = at(x); v < best) {
      best = v;
      best_x = x;
    }
  }
  double lo = best_x - 19.0 / grid, hi = best_x + 19.0 / grid;
  const double phi = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 100; ++it) {
    const double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
    if (at(a) < at(b)) {
      hi = b;
    } else {
      lo = a;
    }
  }
  double eps = std::max(0.0, std::min(best, at((lo + hi) / 2)));
  // The double minimum and the long-double bound differ by rounding only:
  // a few small steps close the gap.
  while (zcdp_delta_upper(eps, rho) > delta) eps = eps * (1 + 1e-12) + 1e-15;
  return eps;
}

}  // namespace privet::detail
