// privet/core/detail/rounding.hpp — arithmetic rounded towards +infinity.
// Sensitivities and privacy parameters must never be under-estimated by a
// floating-point rounding, so every inexact step on them rounds up. The
// rounding error of a product or square root is recovered exactly with fma.
#pragma once

#include <cmath>
#include <limits>

namespace privet::detail {

inline double next_up(double x) noexcept {
  return std::nextafter(x, std::numeric_limits<double>::infinity());
}

/// The smallest double >= a * b (for finite non-negative a, b).
inline double mul_up(double a, double b) noexcept {
  const double p = a * b;
  return std::fma(a, b, -p) > 0 ? next_up(p) : p;
}

/// The smallest double >= a / b (for finite a >= 0, b > 0).
inline double div_up(double a, double b) noexcept {
  const double q = a / b;
  return std::fma(q, b, -a) < 0 ? next_up(q) : q;
}

/// A double >= a + b (for finite non-negative a, b).
inline double add_up(double a, double b) noexcept {
  const double s = a + b;
  // Knuth's two-sum recovers the rounding error exactly.
  const double bb = s - a;
  const double err = (a - (s - bb)) + (b - bb);
  return err > 0 ? next_up(s) : s;
}

/// The smallest double >= sqrt(x) (for finite x >= 0).
inline double sqrt_up(double x) noexcept {
  const double s = std::sqrt(x);
  return std::fma(s, s, -x) < 0 ? next_up(s) : s;
}

}  // namespace privet::detail
