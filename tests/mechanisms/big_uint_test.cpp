// Tests of the exact coins' unsigned big integers (mechanisms/detail/big_uint.hpp)
// and of the certified exp(-x) bounds computed with them, against Boost's
// cpp_int: every operation on random operands, the rare branches of Knuth's
// Algorithm D, the rounding of the conversion to double, and exp_neg_bounds
// against the cpp_int implementation it replaced (bit-for-bit equal bounds).
#include <privet/mechanisms/detail/big_uint.hpp>
#include <privet/mechanisms/detail/binary_value.hpp>
#include <privet/mechanisms/detail/exp_bounds.hpp>

#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using boost::multiprecision::cpp_int;
using privet::detail::big_uint;
constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();

cpp_int to_cpp(const big_uint& x) {
  cpp_int out = 0;
  for (std::size_t i = x.limbs().size(); i-- > 0;) out = (out << 64) | cpp_int(x.limbs()[i]);
  return out;
}

big_uint from_cpp(cpp_int x) {
  std::vector<std::uint64_t> words;
  for (; x != 0; x >>= 64) words.push_back(cpp_int(x & max64).convert_to<std::uint64_t>());
  big_uint out;
  for (std::size_t i = words.size(); i-- > 0;) out = (out << 64) | big_uint(words[i]);
  return out;
}

// Operands whose limbs are often 0, 1, all ones or a lone top bit: the
// values where carries, borrows and Algorithm D's estimates go wrong first.
big_uint random_operand(std::mt19937_64& rng) {
  const auto size = static_cast<int>(rng() % 9);
  big_uint out;
  for (int i = 0; i < size; ++i) {
    std::uint64_t limb = 0;
    switch (rng() % 6) {
      case 0:
        limb = 0;
        break;
      case 1:
        limb = 1;
        break;
      case 2:
        limb = max64;
        break;
      case 3:
        limb = std::uint64_t{1} << 63;
        break;
      case 4:
        limb = max64 >> (rng() % 64);
        break;
      default:
        limb = rng();
        break;
    }
    out = (out << 64) | big_uint(limb);
  }
  return out;
}

// The double nearest to x, ties to even, by integer arithmetic alone.
double nearest_double(const cpp_int& x) {
  if (x == 0) return 0;
  const auto width = static_cast<int>(msb(x)) + 1;
  if (width <= 53) return static_cast<double>(x.convert_to<std::uint64_t>());
  const int shift = width - 53;
  cpp_int q = x >> shift;
  const cpp_int r = x - (q << shift);
  const cpp_int half = cpp_int(1) << (shift - 1);
  if (r > half || (r == half && (q & 1) != 0)) ++q;
  return std::ldexp(static_cast<double>(q.convert_to<std::uint64_t>()), shift);
}

void check_pair(const big_uint& a, const big_uint& b) {
  const cpp_int ca = to_cpp(a), cb = to_cpp(b);
  CAPTURE(ca.str(0, std::ios_base::hex));
  CAPTURE(cb.str(0, std::ios_base::hex));
  CHECK(to_cpp(a + b) == ca + cb);
  CHECK(to_cpp(a * b) == ca * cb);
  CHECK(to_cpp(a & b) == (ca & cb));
  CHECK(to_cpp(a | b) == (ca | cb));
  CHECK((a == b) == (ca == cb));
  CHECK((a < b) == (ca < cb));
  CHECK((a > b) == (ca > cb));
  if (ca >= cb) CHECK(to_cpp(a - b) == ca - cb);
  if (cb != 0) {
    const auto [q, r] = big_uint::divide(a, b);
    CHECK(to_cpp(q) == ca / cb);
    CHECK(to_cpp(r) == ca % cb);
    CHECK(to_cpp(privet::detail::div_ceil(a, b)) == (ca + cb - 1) / cb);
  }
}

// exp_neg_bounds as it was computed on cpp_int before big_uint replaced it.
struct reference_interval {
  cpp_int lo, hi;
};

cpp_int ref_div_ceil(const cpp_int& a, const cpp_int& b) {
  cpp_int q = a / b;
  if (q * b != a) ++q;
  return q;
}

reference_interval reference_exp_neg_bounds(double x, int bits) {
  const cpp_int one = cpp_int(1) << bits;
  if (x == 0) return {one, one};
  const auto [m, e] = privet::detail::exact_binary_value(x);
  const int top = static_cast<int>(std::bit_width(m)) + e;
  const int r = top + 1 > 0 ? top + 1 : 0;
  const int w = bits + 2 * r + 64;
  const cpp_int unit = cpp_int(1) << w;
  cpp_int y_lo, y_hi;
  const int shift = e - r + w;
  if (shift >= 0) {
    y_lo = cpp_int(m) << shift;
    y_hi = y_lo;
  } else {
    y_lo = cpp_int(m) >> -shift;
    y_hi = y_lo;
    if ((y_lo << -shift) != cpp_int(m)) ++y_hi;
  }
  cpp_int term_lo = unit, term_hi = unit, sum_lo = unit, sum_hi = unit;
  for (unsigned k = 1; term_hi > 1; ++k) {
    term_lo = cpp_int(term_lo * y_lo) / cpp_int(unit * k);
    term_hi = ref_div_ceil(cpp_int(term_hi * y_hi), cpp_int(unit * k));
    sum_lo += term_lo;
    sum_hi += term_hi;
  }
  sum_hi += term_hi;
  for (int i = 0; i < r; ++i) {
    sum_lo = cpp_int(sum_lo * sum_lo) / unit;
    sum_hi = ref_div_ceil(cpp_int(sum_hi * sum_hi), unit);
  }
  const cpp_int scaled = cpp_int(1) << (bits + w);
  return {cpp_int(scaled / sum_hi), ref_div_ceil(scaled, sum_lo)};
}

}  // namespace

TEST_CASE("big_uint: +, -, *, /, %, &, | and comparisons agree with cpp_int") {
  std::mt19937_64 rng(20261126);
  for (int i = 0; i < 3000; ++i) {
    const big_uint a = random_operand(rng), b = random_operand(rng);
    check_pair(a, b);
    check_pair(b, a);
    check_pair(a * b + a, b);  // quotient a (or more), remainder a mod b
  }
}

TEST_CASE("big_uint: Algorithm D's q-hat corrections and add-back step") {
  // u = k v - d for divisors v with a large low limb: found, with a copy of
  // the algorithm instrumented to count its branches, to give q-hat >= 2^64,
  // one and two corrections by the two-limb test, and 336 add-backs (the
  // step that random operands reach with probability about 2^-63).
  const std::uint64_t lows[] = {max64, max64 - 1, max64 / 2};
  const std::uint64_t mids[] = {0, 1, max64};
  const std::uint64_t tops[] = {std::uint64_t{1} << 63, 1, 3, (std::uint64_t{1} << 63) + 1};
  const cpp_int base = cpp_int(1) << 64;
  const cpp_int ks[] = {base - 1, base, base + 1, base * base - 1, (base - 1) * base};
  for (auto v0 : lows) {
    for (auto v1 : mids) {
      for (auto v2 : tops) {
        const cpp_int v = cpp_int(v0) + (cpp_int(v1) << 64) + (cpp_int(v2) << 128);
        for (const auto& k : ks) {
          for (int d = 0; d <= 2; ++d) {
            const cpp_int u = k * v - d;
            if (u < v) continue;
            check_pair(from_cpp(u), from_cpp(v));
          }
        }
      }
    }
  }
  // Two of them written out: the first needs one add-back, the second a
  // q-hat of 2^64, a correction and an add-back.
  const cpp_int v("0x80000000000000000000000000000000ffffffffffffffff");
  check_pair(
      from_cpp(cpp_int("0x7fffffffffffffff8000000000000000fffffffffffffffe0000000000000000")),
      from_cpp(v));
  check_pair(
      from_cpp(cpp_int("0x80000000000000000000000000000000fffffffffffffffeffffffffffffffff")),
      from_cpp(v));
}

TEST_CASE("big_uint: shifts agree with cpp_int") {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 500; ++i) {
    const big_uint a = random_operand(rng);
    for (int s : {0, 1, 13, 63, 64, 65, 127, 128, 200, 700}) {
      CAPTURE(s);
      CHECK(to_cpp(a << s) == to_cpp(a) << s);
      CHECK(to_cpp(a >> s) == to_cpp(a) >> s);
    }
  }
}

TEST_CASE("big_uint: conversion to double rounds to nearest, ties to even") {
  // Halfway and just-off-halfway cases above 2^64, where the top 64 bits
  // alone would round a tie the wrong way without the sticky bit.
  const cpp_int p = cpp_int(1) << 100;
  const cpp_int ulp = cpp_int(1) << (100 - 52);
  const std::vector<cpp_int> cases = {p + ulp / 2,
                                      p + ulp / 2 + 1,
                                      p + ulp + ulp / 2,
                                      p + ulp / 2 - 1,
                                      (p << 40) + (ulp << 40) / 2 + 1,
                                      p - 1,
                                      cpp_int(max64),
                                      cpp_int(1) << 1023,
                                      (cpp_int(1) << 1024) - 1};
  for (const cpp_int& x : cases) {
    CAPTURE(x.str());
    CHECK(static_cast<double>(from_cpp(x)) == nearest_double(x));
  }
  CHECK(static_cast<double>(from_cpp(cpp_int(1) << 1024)) == HUGE_VAL);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    const big_uint a = random_operand(rng);
    if (a.bit_width() > 1024) continue;
    CHECK(static_cast<double>(a) == nearest_double(to_cpp(a)));
  }
}

TEST_CASE("exp_neg_bounds on big_uint equals the cpp_int computation it replaced") {
  for (double x :
       {0.0, 5e-324, 1e-300, 1e-9, 0.1, 0.5, 1.0, std::log(2.0), 10.0, 40.0, 700.0, 1e5}) {
    for (int bits : {64, 128, 192, 384, 768}) {
      CAPTURE(x);
      CAPTURE(bits);
      const auto got = privet::detail::exp_neg_bounds(x, bits);
      const auto want = reference_exp_neg_bounds(x, bits);
      CHECK(got.bits == bits);
      CHECK(to_cpp(got.lo) == want.lo);
      CHECK(to_cpp(got.hi) == want.hi);
    }
  }
}

TEST_CASE("exp_neg_bounds is 0 and 1 at once when exp(-x) is below 2^-(bits + 2)") {
  // The series would square numbers of about 1.44 x bits (1.4e300 for
  // x = 1e300). At and above 0.7 (bits + 2) the shortcut answers; just below
  // (0.699 (bits + 2), still above ln 2 (bits + 2)) the series runs and gives the same bounds.
  for (int bits : {64, 192, 1024}) {
    for (double x : {1e300, 1e10, 0.7 * (bits + 2), 0.699 * (bits + 2)}) {
      CAPTURE(bits);
      CAPTURE(x);
      const auto got = privet::detail::exp_neg_bounds(x, bits);
      CHECK(got.lo == big_uint(0));
      CHECK(got.hi == big_uint(1));
      if (x < 1e6) {
        const auto want = reference_exp_neg_bounds(x, bits);
        CHECK(want.lo == 0);
        CHECK(want.hi == 1);
      }
    }
  }
}
