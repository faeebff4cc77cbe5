// tests/support/gaussian_reference.hpp — independent reference computations
// for the Gaussian mechanism's calibration, written as plainly as possible
// (long double, bisection, grid search) so that the library's closed forms
// and fast inverses are checked against a second method.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace privet::test::reference {

/// P[N(0, 1) > x] by the complementary error function.
inline long double phi_bar(long double x) {
  return std::erfc(x / std::sqrt(2.0L)) / 2;
}

/// The upper quantile: x with phi_bar(x) = q, by bisection on [-40, 40].
inline long double quantile(long double q) {
  long double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const long double mid = (lo + hi) / 2;
    (phi_bar(mid) > q ? lo : hi) = mid;
  }
  return hi;
}

/// sigma of the analytic Gaussian (Balle & Wang 2018) for L2 sensitivity 1:
/// delta = Phi(-eps sigma + 1/(2 sigma)) - e^eps Phi(-eps sigma - 1/(2 sigma)),
/// solved by bisection (delta falls as sigma grows).
inline long double analytic_sigma(long double eps, long double delta) {
  auto d = [&](long double s) {
    return phi_bar(eps * s - 1 / (2 * s)) - std::exp(eps) * phi_bar(eps * s + 1 / (2 * s));
  };
  long double lo = 1e-3, hi = 1e3;
  for (int i = 0; i < 300; ++i) {
    const long double mid = std::sqrt(lo * hi);
    (d(mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

/// sigma whose rho = 1 / (2 sigma^2) converts to (eps, delta) by Canonne,
/// Kamath & Steinke 2020, Corollary 13: delta = min over alpha > 1 of
/// exp((alpha - 1)(alpha rho - eps)) / (alpha - 1) (1 - 1/alpha)^alpha, the
/// minimum taken on a geometric grid of orders with ratio `step`.
inline long double zcdp_sigma(long double eps, long double delta, long double step = 1.0002L) {
  auto d = [&](long double s) {
    const long double rho = 1 / (2 * s * s);
    long double best = 1;
    for (long double a = 1.001L; a < 400; a *= step) {
      best = std::min(best, std::exp((a - 1) * (a * rho - eps)) / (a - 1) * std::pow(1 - 1 / a, a));
    }
    return best;
  };
  long double lo = 1e-2, hi = 1e2;
  for (int i = 0; i < 100; ++i) {
    const long double mid = std::sqrt(lo * hi);
    (d(mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

/// DPSU's Gaussian threshold rho_1 = max over t <= items of 1/sqrt(t) +
/// sigma Phi^-1((1 - delta)^(1/t)), by direct search over t.
inline long double rho_gauss(std::uint64_t items, long double sigma, long double delta) {
  long double best = -1e9;
  for (std::uint64_t t = 1; t <= items; ++t) {
    const long double q = -std::expm1(std::log1p(-delta) / t);
    best = std::max(best, 1 / std::sqrt(static_cast<long double>(t)) + sigma * quantile(q));
  }
  return best;
}

}  // namespace privet::test::reference
