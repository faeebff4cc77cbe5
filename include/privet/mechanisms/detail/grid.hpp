// privet/mechanisms/detail/grid.hpp — the exact grid arithmetic of the
// secure mechanisms: a real input x becomes the integer k = round(x / g) on a
// power-of-two grid g, integer noise n is added, and the release is a fixed
// function of the exact integer k + n alone, so it is post-processing of the
// integer mechanism and its privacy map (Mironov 2012; Canonne, Kamath &
// Steinke 2020) carries over unchanged, for every finite input.
//
// The release function is f(S) = clamp(round_p(S) g), where round_p rounds
// to the p-bit significand of the working type (53 for double, 64 for x87
// long double) with ties to even and clamp saturates at the type's largest
// finite value. Two regimes compute the same f:
//  - |x| < 2^(p + 64) g: k and S = k + n are formed exactly (in __int128 for
//    double, where |S| < 2^118; in the working type itself when it holds
//    every int64 exactly, so that one IEEE addition is round_p(S)).
//  - |x| >= 2^(p + 64) g: k = x / g is an integer whose neighbours in p bits
//    are at least 2^64 away (2^63 on the low side of a power of two), and
//    |n| < 2^63 is less than half that, so round_p(S) = k and f(S) = x,
//    which is returned without forming x / g (it may overflow for a tiny g).
#pragma once

#include <privet/core/detail/int128.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>

namespace privet::detail {

/// The finest grid the mechanisms use: the least positive double, 2^-1074.
inline constexpr double finest_grid = std::numeric_limits<double>::denorm_min();

/// The power of two g with scale / g in [2^bits, 2^(bits+1)), but never below
/// 2^-1074 (then scale / g is smaller). For finite scale >= 0.
inline double grid_for(double scale, int bits) {
  if (!(scale >= std::ldexp(1.0, -1074 + bits))) return finest_grid;
  return std::ldexp(1.0, std::ilogb(scale) - bits);
}

/// s rounded to the nearest double, ties to even, for |s| < 2^127 (done by
/// hand so that it does not depend on the runtime library's conversion).
inline double round_to_double(int128 s) noexcept {
  const bool negative = s < 0;
  uint128 m = negative ? uint128{0} - static_cast<uint128>(s) : static_cast<uint128>(s);
  const auto high = static_cast<std::uint64_t>(m >> 64);
  const int width =
      high != 0 ? 64 + std::bit_width(high) : std::bit_width(static_cast<std::uint64_t>(m));
  double r = 0;
  if (width <= 53) {
    r = static_cast<double>(static_cast<std::uint64_t>(m));
  } else {
    const int shift = width - 53;
    uint128 kept = m >> shift;
    const uint128 rest = m & ((uint128{1} << shift) - 1);
    const uint128 half = uint128{1} << (shift - 1);
    if (rest > half || (rest == half && (kept & 1) != 0)) ++kept;  // 2^53 at most: still exact
    r = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(kept)), shift);
  }
  return negative ? -r : r;
}

/// Data never throws: NaN, which is no point of the input space, is read as
/// 0, and +-inf as the largest finite value of its sign (noise is still added
/// to both).
template <std::floating_point T>
T finite_input(T x) noexcept {
  if (std::isnan(x)) return T{0};
  if (std::isinf(x))
    return x > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
  return x;
}

/// y clamped to T's finite range (inf included), then converted: the
/// conversion of an out-of-range value would be undefined.
template <std::floating_point T, std::floating_point W>
T saturate_to(W y) noexcept {
  if constexpr (std::numeric_limits<W>::max() > std::numeric_limits<T>::max()) {
    y = std::clamp(y, static_cast<W>(std::numeric_limits<T>::lowest()),
                   static_cast<W>(std::numeric_limits<T>::max()));
  } else {
    y = std::clamp(y, std::numeric_limits<W>::lowest(), std::numeric_limits<W>::max());
  }
  return static_cast<T>(y);
}

/// Whether W is a working type of its own for the release: IEEE with a
/// significand that holds every int64 (x87 or quadruple long double).
template <class W>
inline constexpr bool wide_release_type =
    std::floating_point<W>&& std::numeric_limits<W>::is_iec559&& std::numeric_limits<W>::digits >=
    64;

/// f(round(x / g) + noise) of the file comment, for finite x, in W = double
/// or a wide_release_type.
template <std::floating_point W>
W release_finite(W x, double g, std::int64_t noise) {
  constexpr int p = std::numeric_limits<W>::digits;
  const W gw = static_cast<W>(g);
  const W limit = std::ldexp(gw, p + 64);  // inf when out of range: every x is below it
  if (!(std::fabs(x) < limit)) return x;
  const W k = std::nearbyint(x / gw);  // exact: |x / g| < 2^(p + 64), g a power of two
  W rounded{};
  if constexpr (wide_release_type<W>) {
    rounded = k + static_cast<W>(noise);  // both exact, so one correctly rounded addition
  } else {
    static_assert(std::same_as<W, double>);
    rounded = round_to_double(static_cast<int128>(k) + noise);  // |k + noise| < 2^118
  }
  // A power-of-two factor: exact, or beyond the finite range (then clamped).
  return saturate_to<W>(rounded * gw);
}

/// The secure release of one coordinate: non-finite inputs mapped by
/// finite_input, then release_finite in the widest exact working type.
template <class Real>
Real release_on_grid(Real x, double g, std::int64_t noise) {
  if constexpr (wide_release_type<Real>) {
    return release_finite<Real>(finite_input(x), g, noise);
  } else if constexpr (std::floating_point<Real>) {
    static_assert(std::numeric_limits<Real>::max() <= std::numeric_limits<double>::max() &&
                      std::numeric_limits<Real>::digits <= 53,
                  "privet: this floating-point type is neither double-sized nor an IEEE type "
                  "with a 64-bit significand");
    return saturate_to<Real>(
        release_finite<double>(static_cast<double>(finite_input(x)), g, noise));
  } else {
    // A user-defined real type (number_traits): through double, as before.
    return static_cast<Real>(
        release_finite<double>(finite_input(static_cast<double>(x)), g, noise));
  }
}

/// x + noise for the simulation-only mechanisms, with the same input mapping
/// and saturation (its low bits still leak the input).
template <class Real>
Real add_saturated(Real x, double noise) {
  if constexpr (wide_release_type<Real>) {
    return saturate_to<Real>(finite_input(x) + static_cast<Real>(noise));
  } else if constexpr (std::floating_point<Real>) {
    return saturate_to<Real>(static_cast<double>(finite_input(x)) + noise);
  } else {
    return static_cast<Real>(finite_input(static_cast<double>(x)) + noise);
  }
}

}  // namespace privet::detail
