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
// squared r times, then inverted.
#pragma once

#include <privet/core/detail/int128.hpp>
#include <privet/mechanisms/detail/dyadic.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <bit>
#include <cstdint>

namespace privet::detail {

using big_uint = boost::multiprecision::cpp_int;

/// lo / 2^bits <= value <= hi / 2^bits.
struct fixed_interval {
  big_uint lo;
  big_uint hi;
  int bits = 0;
};

inline big_uint div_floor(const big_uint& a, const big_uint& b) {
  return big_uint(a / b);
}

inline big_uint div_ceil(const big_uint& a, const big_uint& b) {
  big_uint q = a / b;
  if (q * b != a) ++q;
  return q;
}

/// The low 128 bits of v.
inline uint128 low_u128(const big_uint& v) {
  const auto low = big_uint(v & UINT64_MAX).convert_to<std::uint64_t>();
  const auto high = big_uint(big_uint(v >> 64) & UINT64_MAX).convert_to<std::uint64_t>();
  return (static_cast<uint128>(high) << 64) | low;
}

/// Bounds on exp(-x) for finite x >= 0, with lo and hi at most a few units of
/// 2^-bits apart (for bits >= 64); exact when x == 0.
inline fixed_interval exp_neg_bounds(double x, int bits) {
  fixed_interval out;
  out.bits = bits;
  const big_uint one = big_uint(1) << bits;
  if (x == 0) {
    out.lo = one;
    out.hi = one;
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
  for (unsigned k = 1; term_hi > 1; ++k) {
    term_lo = div_floor(big_uint(term_lo * y_lo), big_uint(unit * k));
    term_hi = div_ceil(big_uint(term_hi * y_hi), big_uint(unit * k));
    sum_lo += term_lo;
    sum_hi += term_hi;
  }
  sum_hi += term_hi;
  for (int i = 0; i < r; ++i) {
    sum_lo = div_floor(big_uint(sum_lo * sum_lo), unit);
    sum_hi = div_ceil(big_uint(sum_hi * sum_hi), unit);
  }
  // exp(-x) = 1 / exp(x), in units of 2^-bits.
  const big_uint scaled = big_uint(1) << (bits + w);
  out.lo = div_floor(scaled, sum_hi);
  out.hi = div_ceil(scaled, sum_lo);
  return out;
}

}  // namespace privet::detail
