// privet/core/detail/ct_word.hpp — branch-free word arithmetic: comparisons,
// masks and selects whose time does not depend on the values they combine.
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

}  // namespace privet::detail
