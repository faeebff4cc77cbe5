// privet/core/detail/ct_word.hpp — branch-free word arithmetic: comparisons,
// masks and selects whose time does not depend on the values they combine,
// and the 128-bit shifts and int128-to-double rounding built on them.
//
// Why here: the constant-time samplers (mechanisms/detail/constant_time.hpp),
// the local randomisers and the layers above them (DP-SGD's padded steps,
// the sequence models' padded passes) all turn secret bits into masks, and
// a model must not depend on the mechanisms layer to do so.
//
// What this does not cover: the compiler's output. GCC 12 at -O1/-O2/-O3 on
// x86-64 emits no conditional jump for these; the value barrier keeps a mask
// built from a secret bit from being recognised as a boolean and turned into
// a branch, but another compiler is not bound by it.
#pragma once

#include <privet/core/detail/int128.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace privet::detail {

/// x, with the compiler forbidden to know anything about its value: a mask
/// built from a secret bit stays a mask and does not become a branch.
inline std::uint64_t ct_barrier(std::uint64_t x) noexcept {
  __asm__("" : "+r"(x));
  return x;
}

/// 1 when a < b, else 0 (Warren, "Hacker's Delight", 2nd ed., section 2-12).
inline std::uint64_t ct_lt(std::uint64_t a, std::uint64_t b) noexcept {
  return ((~a & b) | (~(a ^ b) & (a - b))) >> 63;
}

/// 1 when x == 0, else 0.
inline std::uint64_t ct_is_zero(std::uint64_t x) noexcept {
  return ((x | (0 - x)) >> 63) ^ 1;
}

/// All ones for bit = 1, zero for bit = 0.
inline std::uint64_t ct_mask(std::uint64_t bit) noexcept {
  return ct_barrier(0 - bit);
}

/// mask ? a : b for an all-ones or all-zero mask.
inline std::uint64_t ct_select(std::uint64_t mask, std::uint64_t a, std::uint64_t b) noexcept {
  return (a & mask) | (b & ~mask);
}

/// min(a, b) without a branch.
inline std::uint64_t ct_min(std::uint64_t a, std::uint64_t b) noexcept {
  return ct_select(ct_mask(ct_lt(a, b)), a, b);
}

/// v when mask is all ones, else +0, for a float or double v, by an AND of
/// its bits with a mask built once (ct_mask) outside a loop: no barrier per
/// element, so the loop vectorises. Other types take a plain select, which
/// is not claimed to be constant time.
template <class Real>
Real ct_and(Real v, std::uint64_t mask) noexcept {
  if constexpr (std::is_same_v<Real, double> && sizeof(double) == 8) {
    return std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) & mask);
  } else if constexpr (std::is_same_v<Real, float> && sizeof(float) == 4) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(std::bit_cast<std::uint32_t>(v) & mask));
  } else {
    return mask != 0 ? v : Real(0);
  }
}

/// v when keep = 1, else +0, for a float or double v, by a mask on its
/// bits (a product by 0 would turn an infinity into a NaN). Other types take
/// a plain select, which is not claimed to be constant time.
template <class Real>
Real ct_keep(Real v, std::uint64_t keep) noexcept {
  return ct_and(v, ct_mask(keep));
}

/// a when bit = 1, else b, for float or double by a mask on their bits;
/// other types take a plain select (not claimed constant time).
template <class Real>
Real ct_pick(std::uint64_t bit, Real a, Real b) noexcept {
  if constexpr (std::is_same_v<Real, double> && sizeof(double) == 8) {
    return std::bit_cast<double>(
        ct_select(ct_mask(bit), std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b)));
  } else if constexpr (std::is_same_v<Real, float> && sizeof(float) == 4) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(
        ct_select(ct_mask(bit), std::bit_cast<std::uint32_t>(a), std::bit_cast<std::uint32_t>(b))));
  } else {
    return bit != 0 ? a : b;
  }
}

/// 1 when the double v is finite, else 0, from its exponent bits.
inline std::uint64_t ct_is_finite(double v) noexcept {
  return ct_lt((std::bit_cast<std::uint64_t>(v) >> 52) & 0x7ffU, 0x7ffU);
}

/// v when keep = 1 and v is finite, else +0, for a float or double v, by
/// masks on its bits: a product by 0 would turn an infinity into a NaN, and
/// std::isfinite may branch. Other types (long double, user-defined reals)
/// take a plain select, which is not claimed to be constant time.
template <class Real>
Real ct_keep_finite(Real v, std::uint64_t keep) noexcept {
  if constexpr (std::is_same_v<Real, double> && sizeof(double) == 8) {
    const auto bits = std::bit_cast<std::uint64_t>(v);
    const std::uint64_t finite = ct_lt((bits >> 52) & 0x7ffU, 0x7ffU);
    return std::bit_cast<double>(bits & ct_mask(finite & keep));
  } else if constexpr (std::is_same_v<Real, float> && sizeof(float) == 4) {
    const auto bits = std::bit_cast<std::uint32_t>(v);
    const std::uint64_t finite = ct_lt((bits >> 23) & 0xffU, 0xffU);
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits & ct_mask(finite & keep)));
  } else {
    using std::isfinite;
    return keep != 0 && isfinite(v) ? v : Real(0);
  }
}

/// 1 when (a_hi 2^64 + a_lo) < (b_hi 2^64 + b_lo), else 0.
inline std::uint64_t ct_lt_128(std::uint64_t a_hi, std::uint64_t a_lo, std::uint64_t b_hi,
                               std::uint64_t b_lo) noexcept {
  return ct_lt(a_hi, b_hi) | (ct_is_zero(a_hi ^ b_hi) & ct_lt(a_lo, b_lo));
}

/// Bit width of x (0 for 0) by a branch-free binary search.
inline int ct_bit_width(std::uint64_t x) noexcept {
  int r = 0;
  for (int step = 32; step > 0; step /= 2) {
    const std::uint64_t above = ct_is_zero(x >> step) ^ 1;
    const int shift = step * static_cast<int>(above);
    x >>= shift;
    r += shift;
  }
  return r + static_cast<int>(x);
}

/// 2^e for e in [0, 1023], built from its bits.
inline double ct_pow2(int e) noexcept {
  return std::bit_cast<double>(static_cast<std::uint64_t>(1023 + e) << 52);
}

/// A 128-bit value as two words, for shifts by a secret count: the
/// compiler's uint128 shift tests the count against 64 with a branch.
struct ct_words {
  std::uint64_t hi;
  std::uint64_t lo;
};

/// v >> n for n in [0, 127], branch-free.
inline ct_words ct_shr(ct_words v, int n) noexcept {
  const int s = n & 63;
  // (hi << 1) << (63 - s) is hi << (64 - s) without the undefined shift by 64.
  const std::uint64_t lo = (v.lo >> s) | ((v.hi << 1) << (63 - s));
  const std::uint64_t hi = v.hi >> s;
  const std::uint64_t whole = ct_mask(static_cast<std::uint64_t>(n >> 6) & 1);
  return {ct_select(whole, 0, hi), ct_select(whole, hi, lo)};
}

/// v << n for n in [0, 127], branch-free.
inline ct_words ct_shl(ct_words v, int n) noexcept {
  const int s = n & 63;
  const std::uint64_t hi = (v.hi << s) | ((v.lo >> 1) >> (63 - s));
  const std::uint64_t lo = v.lo << s;
  const std::uint64_t whole = ct_mask(static_cast<std::uint64_t>(n >> 6) & 1);
  return {ct_select(whole, lo, hi), ct_select(whole, 0, lo)};
}

/// s rounded to the nearest double, ties to even, for |s| < 2^127, with the
/// same instructions for every s (the runtime library's int128 conversion,
/// and grid.hpp's round_to_double, branch on its size).
inline double ct_round_to_double(int128 s) noexcept {
  const auto us = static_cast<uint128>(s);
  const std::uint64_t negative = static_cast<std::uint64_t>(us >> 127);
  const uint128 flip = uint128{0} - negative;
  const uint128 abs = (us ^ flip) - flip;  // |s|
  const ct_words m{static_cast<std::uint64_t>(abs >> 64), static_cast<std::uint64_t>(abs)};
  const std::uint64_t hi_set = ct_is_zero(m.hi) ^ 1;
  const int width = static_cast<int>(hi_set) * (64 + ct_bit_width(m.hi)) +
                    static_cast<int>(hi_set ^ 1) * ct_bit_width(m.lo);
  const int excess = width - 53;
  const int shift = excess & ~(excess >> 31);  // max(excess, 0), at most 74
  const ct_words kept = ct_shr(m, shift);      // < 2^53
  const ct_words unit = ct_shl({0, 1}, shift);
  // rest = m mod 2^shift, half = 2^shift / 2 (0 when shift = 0).
  const std::uint64_t borrow = ct_is_zero(unit.lo);
  const ct_words mask{unit.hi - borrow, unit.lo - 1};
  const ct_words rest{m.hi & mask.hi, m.lo & mask.lo};
  const ct_words half = ct_shr(unit, 1);
  const std::uint64_t above = ct_lt_128(half.hi, half.lo, rest.hi, rest.lo);
  const std::uint64_t tie = ct_is_zero((rest.hi ^ half.hi) | (rest.lo ^ half.lo)) &
                            (ct_is_zero(static_cast<std::uint64_t>(shift)) ^ 1);
  const std::uint64_t up = above | (tie & kept.lo & 1);
  // kept + up <= 2^53: exact as a signed conversion, then an exact
  // power-of-two product.
  const double magnitude =
      static_cast<double>(static_cast<std::int64_t>(kept.lo + up)) * ct_pow2(shift);
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(magnitude) | (negative << 63));
}

}  // namespace privet::detail
