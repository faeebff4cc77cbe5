// privet/core/detail/fixed_point_sum.hpp — exact sums for the bounded sums of
// core/transformations (bounded_sum, clipped_sum).
//
// Floating-point sums depend on the order of their terms and round at every
// step, so two neighbouring datasets can differ by more than one record's
// bound (Casacuberta, Shoemate, Vadhan & Wagaman 2022, "Widespread
// underestimation of sensitivity in differentially private libraries and how
// to fix it"). Here each record is first rounded to a fixed grid
// of `bound * 2^-62` (a record-wise map, so it keeps stability 1, and moves a
// record by at most 2^-63 of the bound); the grid integers, at most 2^62 in
// magnitude, are summed exactly in 128 bits (fewer than 2^64 records cannot
// reach 2^126). The exact total is then saturated at +-max_records * bound
// (1-Lipschitz: it never moves neighbours apart, and it never changes a sum of
// at most max_records records) and rounded once to the output type. The only
// rounding the stability map must cover is that last one, bounded by
// `fixed_point_error`.
#pragma once

#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace privet::detail {

/// A record of magnitude at most `bound` is at most 2^62 grid units.
inline constexpr int fixed_point_bits = 62;
inline constexpr std::int64_t fixed_point_one = std::int64_t{1} << fixed_point_bits;

/// The smallest double >= x, for x >= 0 (a long double, or a count that a
/// double cannot hold exactly beyond 2^53).
inline double to_double_up(long double x) noexcept {
  const auto d = static_cast<double>(x);
  return static_cast<long double>(d) < x ? next_up(d) : d;
}
inline double to_double_up(std::uint64_t n) noexcept {
  const auto d = static_cast<double>(n);
  if (d >= 0x1p64) return d;  // rounded up to 2^64, above every uint64
  return static_cast<std::uint64_t>(d) < n ? next_up(d) : d;
}

/// The grid unit bound * 2^-62 as a long double, or 0 when that is not a
/// normal long double (then the product in `fixed_point_value` would not be
/// exact; constructors refuse such bounds).
inline long double fixed_point_unit(long double bound) noexcept {
  const long double unit = std::ldexp(bound, -fixed_point_bits);
  return unit >= std::numeric_limits<long double>::min() ? unit : 0.0L;
}

/// The grid integer nearest x * 2^62 for |x| <= 1 (so at most 2^62).
inline std::int64_t fixed_point_units(long double x) noexcept {
  x = std::clamp(x, -1.0L, 1.0L);
  return static_cast<std::int64_t>(std::llround(std::ldexp(x, fixed_point_bits)));
}

/// The saturation level max_records * 2^62 grid units (< 2^126).
inline int128 fixed_point_cap(std::uint64_t max_records) noexcept {
  return static_cast<int128>(max_records) << fixed_point_bits;
}

/// `total` grid units as a Real: saturated at +-cap, multiplied by the unit
/// in long double, saturated at Real's largest finite value (a Real sum
/// never becomes infinite) and rounded once to Real.
template <class Real>
Real fixed_point_value(int128 total, int128 cap, long double unit) {
  total = std::clamp(total, -cap, cap);
  const auto top = static_cast<long double>(std::numeric_limits<Real>::max());
  return static_cast<Real>(std::clamp(static_cast<long double>(total) * unit, -top, top));
}

/// A bound on |fixed_point_value(s) - e| for the exact value
/// e = clamp(s, -cap, cap) * unit whenever |e| <= radius. Converting s to long
/// double and multiplying by the (exact) unit err by at most (1 + u_L)^2 - 1
/// of |e| (no underflow: |e| >= unit, a normal number); the saturation at
/// Real's maximum is 1-Lipschitz; the rounding to Real errs by at most u_R of
/// its argument, or by a subnormal step. So the error is at most
/// (u_R (1 + u_L)^2 + 2 u_L + u_L^2) |e| + denorm_min <= (u_R + 4 u_L) radius
/// + denorm_min, with the unit roundoffs u = 2^-digits (Higham, Accuracy and
/// Stability of Numerical Algorithms, 2nd ed., theorem 2.2).
template <class Real>
double fixed_point_error(double radius) noexcept {
  const double u_long = std::ldexp(1.0, -std::numeric_limits<long double>::digits);
  const double u_real = std::ldexp(1.0, -std::numeric_limits<Real>::digits);
  const double rho = add_up(u_real, 4 * u_long);
  const double step =
      to_double_up(static_cast<long double>(std::numeric_limits<Real>::denorm_min()));
  return add_up(mul_up(rho, radius), step);
}

}  // namespace privet::detail
