// privet/accounting/detail/log_math.hpp — sums and special functions in log
// space, so accountants can add terms of size e^-700 or e^+700 without
// underflow or overflow.
#pragma once

#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

namespace privet::detail {

inline constexpr double neg_inf = -std::numeric_limits<double>::infinity();

/// log(e^a + e^b).
inline double log_add(double a, double b) noexcept {
  if (a < b) std::swap(a, b);
  if (b == neg_inf) return a;
  return a + std::log1p(std::exp(b - a));
}

/// log(e^a - e^b) for a >= b (-inf when equal).
inline double log_sub(double a, double b) noexcept {
  if (b == neg_inf) return a;
  if (a <= b) return neg_inf;
  return a + std::log1p(-std::exp(b - a));
}

/// log(erfc(x)), accurate where erfc(x) underflows (x above about 26).
inline double log_erfc(double x) noexcept {
  if (x < 25) return std::log(std::erfc(x));
  // erfc(x) = e^{-x^2} / (x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - 15/(8x^6) + ...);
  // at x >= 25 the omitted terms are below 1e-11 relative.
  const double r = 1 / (x * x);
  const double series = 1 - r / 2 + 3 * r * r / 4 - 15 * r * r * r / 8 + 105 * r * r * r * r / 16;
  return -x * x - std::log(x) - 0.5 * std::log(std::numbers::pi) + std::log(series);
}

}  // namespace privet::detail
