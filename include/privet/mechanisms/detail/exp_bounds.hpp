// privet/mechanisms/detail/exp_bounds.hpp — certified bounds on exp(-x) for
// a double x >= 0, in fixed point with as many bits as asked for.
//
// A coin whose probability involves exp(-eps) can be tossed exactly by
// comparing lazily drawn uniform bits with the probability: only bounds on
// it are needed, as long as they are true bounds and get as tight as the
// comparison asks. Floating-point exp() gives neither guarantee, so the
// bounds are computed here in big integers with every rounding directed:
// the Taylor series of exp(y) for y = x / 2^r <= 1/2 (all terms positive, so
// truncation only lowers the sum and the tail is bounded by its last term),
// squared r times, then inverted. The integers are big_uint
// (big_uint.hpp); tests/mechanisms/big_uint_test.cpp checks these bounds
// against the same computation on Boost's cpp_int.
#pragma once

#include <privet/core/detail/int128.hpp>
#include <privet/mechanisms/detail/big_uint.hpp>
#include <privet/mechanisms/detail/binary_value.hpp>

#include <bit>
#include <cstdint>

namespace privet::detail {

/// lo / 2^bits <= value <= hi / 2^bits.
struct fixed_interval {
  big_uint lo;
  big_uint hi;
  int bits = 0;
};

inline big_uint div_floor(const big_uint& a, const big_uint& b) {
  return a / b;
}

inline big_uint div_ceil(const big_uint& a, const big_uint& b) {
  auto [q, r] = big_uint::divide(a, b);
  if (!r.is_zero()) ++q;
  return q;
}

// floor and ceil of a / 2^w: a shift, where the division by a big divisor
// 2^w k below becomes a shift and a division by one word (floor(floor(a /
// 2^w) / k) = floor(a / (2^w k)), and the same for ceil).
inline big_uint shift_floor(const big_uint& a, int w) {
  return a >> w;
}

inline big_uint shift_ceil(const big_uint& a, int w) {
  big_uint q = a >> w;
  if (!((q << w) == a)) ++q;
  return q;
}

/// The low 128 bits of v.
inline uint128 low_u128(const big_uint& v) {
  const auto& limbs = v.limbs();
  const std::uint64_t low = limbs.empty() ? 0 : limbs[0];
  const std::uint64_t high = limbs.size() < 2 ? 0 : limbs[1];
  return (static_cast<uint128>(high) << 64) | low;
}

/// Bounds on exp(-x) for finite x >= 0, with lo and hi at most a few units of
/// 2^-bits apart (for bits >= 64); exact when x == 0; 0 and 1 when exp(-x) <=
/// 2^-(bits + 2).
inline fixed_interval exp_neg_bounds(double x, int bits) {
  fixed_interval out;
  out.bits = bits;
  const big_uint one = big_uint(1) << bits;
  if (x == 0) {
    out.lo = one;
    out.hi = one;
    return out;
  }
  // exp(-x) <= 2^-(bits + 2) makes the bounds 0 and 1, which the series
  // below would also give, after squaring numbers of about 1.44 x bits
  // (hours and gigabytes for x = 1e10). 0.7 > ln 2 by 1 %, far more than the
  // rounding of the product.
  if (x >= 0.7 * (static_cast<double>(bits) + 2)) {
    out.lo = big_uint(0);
    out.hi = big_uint(1);
    return out;
  }
  const auto [m, e] = exact_binary_value(x);  // x = m 2^e, m odd
  // y = x / 2^r < 1/2 keeps every Taylor term at most half the one before.
  const int top = static_cast<int>(std::bit_width(m)) + e;  // x < 2^top
  const int r = top + 1 > 0 ? top + 1 : 0;
  // Each squaring doubles the relative error; guard bits absorb that and the
  // final division.
  const int w = bits + 2 * r + 64;
  const big_uint unit = big_uint(1) << w;
  big_uint y_lo, y_hi;
  const int shift = e - r + w;  // y = m 2^(e - r) in units of 2^-w
  if (shift >= 0) {
    y_lo = big_uint(m) << shift;
    y_hi = y_lo;
  } else {
    y_lo = big_uint(m) >> -shift;
    y_hi = y_lo;
    if ((y_lo << -shift) != big_uint(m)) ++y_hi;
  }
  // exp(y) in units of 2^-w: the sum of lower term bounds is a lower bound;
  // the sum of upper term bounds plus the tail (which, with every ratio below
  // 1/2, is at most the last upper term) is an upper bound.
  big_uint term_lo = unit, term_hi = unit;
  big_uint sum_lo = unit, sum_hi = unit;
  for (std::uint64_t k = 1; term_hi > 1; ++k) {
    term_lo = div_floor(shift_floor(term_lo * y_lo, w), k);
    term_hi = div_ceil(shift_ceil(term_hi * y_hi, w), k);
    sum_lo += term_lo;
    sum_hi += term_hi;
  }
  sum_hi += term_hi;
  for (int i = 0; i < r; ++i) {
    sum_lo = shift_floor(sum_lo * sum_lo, w);
    sum_hi = shift_ceil(sum_hi * sum_hi, w);
  }
  // exp(-x) = 1 / exp(x), in units of 2^-bits.
  const big_uint scaled = big_uint(1) << (bits + w);
  out.lo = div_floor(scaled, sum_hi);
  out.hi = div_ceil(scaled, sum_lo);
  return out;
}

}  // namespace privet::detail
