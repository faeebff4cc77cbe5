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
#include <privet/mechanisms/detail/constant_time.hpp>

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

// ---- the same release without a branch on the data (constant_time_noise) ----
//
// release_on_grid_ct computes exactly what release_on_grid does for double
// (and, through double, float), for every input including NaN, infinities
// and values beyond 2^(53 + 64) g, but with masks where release_on_grid
// branches: on NaN and infinity, on |x| beyond the exact range, on the
// width of round(x / g) + noise (round_to_double's two regimes and its
// tie), on saturation, and in the conversions (the library's nearbyint and
// double-to-int128 conversion branch on the exponent). Every operation is
// an integer or bitwise one, a shift by a computed count (constant time on
// x86-64), or a floating-point division or product of normal numbers.
// Not covered: subnormal operands (an input or a grid below 2^-1022, that
// is a noise scale below about 2^-980) may take the floating-point unit's
// slow path, and wide long double releases use release_on_grid.

/// mask ? a : b on the bits of two doubles.
inline double ct_select_double(std::uint64_t mask, double a, double b) noexcept {
  return std::bit_cast<double>(
      ct_select(mask, std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b)));
}

/// floor(p 2^128) for a double p in [0, 1), without a branch on p: the
/// threshold of a ct_coin whose probability is within 2^-128 below p
/// (p = m 2^(e - 1075) exactly, so p 2^128 = m 2^(e - 947), m < 2^53: a
/// left shift by at most 75 or a right shift, never both).
inline ct_threshold ct_threshold_below(double p) noexcept {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(p);
  const std::uint64_t exp_bits = bits >> 52;  // the sign bit is 0
  const std::uint64_t normal = ct_mask(1 ^ ct_is_zero(exp_bits));
  const std::uint64_t m =
      (bits & ((std::uint64_t{1} << 52) - 1)) | (normal & (std::uint64_t{1} << 52));
  const int s = static_cast<int>(ct_select(normal, exp_bits, 1)) - 947;  // in [-946, 75]
  const int left = s & ~(s >> 31);                                       // max(s, 0)
  const int r0 = -s & ~(-s >> 31);                                       // max(-s, 0)
  const int right = r0 - ((r0 - 127) & ~((r0 - 127) >> 31));             // min(r0, 127)
  const ct_words t = ct_shr(ct_shl(ct_words{0, m}, left), right);
  return {t.hi, t.lo};
}

/// nearbyint (ties to even) of a finite double, without the library's
/// branch on the exponent: the 2^52 trick below 2^52 in magnitude, y itself
/// (already an integer) above.
inline double ct_nearbyint(double y) noexcept {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(y);
  const std::uint64_t sign = bits & (std::uint64_t{1} << 63);
  const double c = std::bit_cast<double>(std::bit_cast<std::uint64_t>(0x1p52) | sign);
  const double rounded = (y + c) - c;
  const std::uint64_t small = ct_lt(bits & ~sign, std::bit_cast<std::uint64_t>(0x1p52));
  return ct_select_double(ct_mask(small), rounded, y);
}

/// An integer-valued double |k| < 2^117 as an int128, from its bits.
inline int128 ct_integer_to_int128(double k) noexcept {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(k);
  const std::uint64_t negative = bits >> 63;
  const auto e = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t normal = ct_is_zero(static_cast<std::uint64_t>(e)) ^ 1;
  const std::uint64_t m = (bits & ((std::uint64_t{1} << 52) - 1)) | (normal << 52);
  const int d = e - 1075;                                    // k = m 2^d
  const int left = d & ~(d >> 31);                           // max(d, 0) <= 64
  int right = (-d) & ~((-d) >> 31);                          // max(-d, 0)
  right = right - ((right - 127) & ~((right - 127) >> 31));  // min(right, 127)
  const ct_words w = ct_shr(ct_shl({0, m}, left), right);
  uint128 v = (static_cast<uint128>(w.hi) << 64) | w.lo;
  const uint128 flip = uint128{0} - negative;
  v = (v ^ flip) - flip;
  return static_cast<int128>(v);
}

/// release_on_grid<double> computed without a branch on x or the noise
/// (see above). input_max is the input type's largest finite value (as a
/// double), which +-inf inputs become, as finite_input does in that type.
inline double release_on_grid_ct(double x, double g, std::int64_t noise,
                                 double input_max = std::numeric_limits<double>::max()) noexcept {
  constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;
  constexpr std::uint64_t inf_bits = 0x7ff0000000000000ULL;
  const double max = std::numeric_limits<double>::max();
  // finite_input: NaN -> 0, +-inf -> +-input_max.
  std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t nan = ct_lt(inf_bits, bits & ~sign_bit);
  const std::uint64_t inf = ct_is_zero((bits & ~sign_bit) ^ inf_bits);
  const double signed_max =
      std::bit_cast<double>(std::bit_cast<std::uint64_t>(input_max) | (bits & sign_bit));
  double xf = ct_select_double(ct_mask(inf), signed_max, x);
  xf = ct_select_double(ct_mask(nan), 0.0, xf);
  bits = std::bit_cast<std::uint64_t>(xf);
  // |x| >= 2^(53 + 64) g comes back unchanged (release_finite's first
  // regime); the arithmetic still runs, on 0.
  const double limit = std::ldexp(g, 53 + 64);  // public; inf when out of range
  const std::uint64_t big = ct_lt(bits & ~sign_bit, std::bit_cast<std::uint64_t>(limit)) ^ 1;
  const double xs = ct_select_double(ct_mask(big), 0.0, xf);
  // Exact: g is a power of two. A product by 1 / g where that is finite
  // (g >= 2^-1023): some CPUs' division latency depends on its operands.
  const double inverse = 1 / g;
  const double k = ct_nearbyint(std::isfinite(inverse) ? xs * inverse : xs / g);
  const double rounded = ct_round_to_double(ct_integer_to_int128(k) + noise);
  const double y = rounded * g;  // a power-of-two factor: exact or beyond the range
  const std::uint64_t ybits = std::bit_cast<std::uint64_t>(y);
  const std::uint64_t over = ct_lt(std::bit_cast<std::uint64_t>(max), ybits & ~sign_bit);
  const double saturated =
      std::bit_cast<double>(std::bit_cast<std::uint64_t>(max) | (ybits & sign_bit));
  const double out = ct_select_double(ct_mask(over), saturated, y);
  return ct_select_double(ct_mask(big), xf, out);
}

/// The constant_time_noise release of one coordinate: release_on_grid_ct
/// for double and for types of double's range or less (float), through
/// double as release_on_grid does; release_on_grid for the others (wide
/// long double and user-defined types, whose arithmetic is not made branch
/// free).
template <class Real>
Real release_on_grid_constant_time(Real x, double g, std::int64_t noise) {
  if constexpr (std::same_as<Real, double>) {
    return release_on_grid_ct(x, g, noise);
  } else if constexpr (std::floating_point<Real> && !wide_release_type<Real>) {
    static_assert(std::numeric_limits<Real>::max() <= std::numeric_limits<double>::max() &&
                  std::numeric_limits<Real>::digits <= 53);
    // Real's saturation without a branch: the double result beyond Real's
    // range becomes Real's max of its sign before the (rounding) conversion.
    const double max = static_cast<double>(std::numeric_limits<Real>::max());
    const double y = release_on_grid_ct(static_cast<double>(x), g, noise, max);
    const std::uint64_t ybits = std::bit_cast<std::uint64_t>(y);
    constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;
    const std::uint64_t over = ct_lt(std::bit_cast<std::uint64_t>(max), ybits & ~sign_bit);
    const double capped =
        std::bit_cast<double>(std::bit_cast<std::uint64_t>(max) | (ybits & sign_bit));
    return static_cast<Real>(ct_select_double(ct_mask(over), capped, y));
  } else {
    return release_on_grid<Real>(x, g, noise);
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
