// privet/core/detail/zcdp_conversion.hpp — the (eps, delta) that rho-zCDP
// implies by Canonne, Kamath & Steinke (2020, Corollary 13), rounded up. It
// lives in core so that mechanisms (partition selection's Gaussian rule) and
// the accounting layer share one sound evaluation.
#pragma once

#include <algorithm>
#include <cmath>

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

}  // namespace privet::detail
