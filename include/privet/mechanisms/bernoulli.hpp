// privet/mechanisms/bernoulli.hpp — exact coins from random bits and integer
// arithmetic only: Bernoulli(num / den) and Bernoulli(exp(-num / den))
// (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for Differential
// Privacy", Algorithm 1 for exponents in [0, 1] and, for larger ones, the
// product of exp(-1) coins and one exp(-fraction) coin described with it).
//
// No floating-point number is formed, so a coin's probability is exactly the
// stated rational or exponential: the discrete Laplace and Gaussian samplers
// and the exponential mechanism inherit that exactness, and with it their
// privacy proofs.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/binary_value.hpp>
#include <privet/mechanisms/detail/exp_bounds.hpp>

#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <string>

namespace privet {

namespace detail {

/// The unsigned types the exact coins run on: 64-bit for the public API,
/// 128-bit inside the discrete Gaussian, big integers for the exponential
/// mechanism's exponents.
template <class U>
concept exact_unsigned =
    std::same_as<U, std::uint64_t> || std::same_as<U, uint128> || big_integer<U>;

/// Uniform integer in [0, n) for 1 <= n < 2^128.
template <random_bit_source G>
uint128 uniform_below_u128(G& gen, uint128 n) {
  if ((n >> 64) == 0) return uniform_below(gen, static_cast<std::uint64_t>(n));
  // n - 1 has 65 to 128 bits: draw that many and reject values >= n, which
  // happens less than half the time and leaves no modulo bias.
  const int bits = 64 + std::bit_width(static_cast<std::uint64_t>((n - 1) >> 64));
  for (;;) {
    const uint128 high = random_u64(gen);
    const uint128 r = ((high << 64) | random_u64(gen)) >> (128 - bits);
    if (r < n) return r;
  }
}

template <random_bit_source G>
std::uint64_t draw_below(G& gen, std::uint64_t n) {
  return uniform_below(gen, n);
}
template <random_bit_source G>
uint128 draw_below(G& gen, uint128 n) {
  return uniform_below_u128(gen, n);
}
template <random_bit_source G, big_integer Int>
Int draw_below(G& gen, const Int& n) {
  return uniform_below(gen, n);
}

/// Bernoulli(num / den) for 0 <= num <= den, den >= 1. Certain outcomes
/// consume no randomness.
template <exact_unsigned U, random_bit_source G>
bool bernoulli_fraction(G& gen, const U& num, const U& den) {
  if (num == U(0ul)) return false;
  if (!(num < den)) return true;
  return draw_below(gen, den) < num;
}

/// Bernoulli(exp(-num / den)) for 0 <= num <= den (Algorithm 1).
template <exact_unsigned U, random_bit_source G>
bool bernoulli_exp_unit(G& gen, const U& num, const U& den) {
  // J counts the successes of Bernoulli(gamma), Bernoulli(gamma / 2),
  // Bernoulli(gamma / 3), ... before the first failure. P[J >= j] =
  // gamma^j / j!, so P[J even] = sum_j (-gamma)^j / j! = exp(-gamma).
  if (!bernoulli_fraction(gen, num, den)) return true;
  std::uint64_t j = 1;
  // Bernoulli(gamma / (j + 1)) as Bernoulli(1 / (j + 1)) and Bernoulli(gamma):
  // no product den * (j + 1) that could overflow, and the coin that usually
  // fails is tossed first. Each later round is at least twice as unlikely, so
  // j stays tiny.
  while (uniform_below(gen, j + 1) == 0 && bernoulli_fraction(gen, num, den)) ++j;
  return j % 2 == 0;
}

/// Bernoulli(exp(-1)): Algorithm 1 with gamma = 1, whose Bernoulli(gamma)
/// coins always succeed and need no draw.
template <random_bit_source G>
bool bernoulli_exp_minus_one(G& gen) {
  std::uint64_t j = 1;
  while (uniform_below(gen, j + 1) == 0) ++j;
  return j % 2 == 0;
}

/// Bernoulli(exp(-num / den)) for any num >= 0 and den >= 1.
template <exact_unsigned U, random_bit_source G>
bool bernoulli_exp_any(G& gen, const U& num, const U& den) {
  // exp(-gamma) = exp(-1)^floor(gamma) * exp(-frac(gamma)): independent coins
  // whose first failure decides, so a huge gamma costs about 1.6 coins, not
  // floor(gamma).
  U whole = U(num / den);
  const U rest = U(num % den);
  for (; whole != U(0ul); whole = U(whole - U(1ul))) {
    if (!bernoulli_exp_minus_one(gen)) return false;
  }
  return bernoulli_exp_unit(gen, rest, den);
}

template <big_integer Int>
std::string describe_big(const Int& x) {
  if constexpr (detail::multiprecision_number<Int>) {
    return x.str();
  } else {
    return x < Int(0ul) ? "a negative value" : "a value out of range";
  }
}

template <big_integer Int>
void validate_big_fraction(const Int& num, const Int& den) {
  if (den < Int(1ul)) throw_invalid("den", describe_big(den), ">= 1");
  if (num < Int(0ul)) throw_invalid("num", describe_big(num), ">= 0");
}

}  // namespace detail

/// True with probability exactly num / den. Supported: den in [1, 2^64 - 1]
/// and num in [0, den]; otherwise throws invalid_parameter naming `den` or
/// `num`.
template <random_bit_source G>
bool bernoulli_rational(G& gen, std::uint64_t num, std::uint64_t den) {
  if (den == 0) throw_invalid("den", den, ">= 1");
  if (num > den) {
    throw_invalid("num", num, "[0, den] = [0, " + detail::format_value(den) + "]");
  }
  return detail::bernoulli_fraction(gen, num, den);
}

/// True with probability exactly exp(-num / den). Supported: every num in
/// [0, 2^64 - 1] and den in [1, 2^64 - 1]; den = 0 throws invalid_parameter.
/// Uses about three 64-bit draws on average, whatever the exponent.
template <random_bit_source G>
bool bernoulli_exp(G& gen, std::uint64_t num, std::uint64_t den) {
  if (den == 0) throw_invalid("den", den, ">= 1");
  return detail::bernoulli_exp_any(gen, num, den);
}

/// Bernoulli(num / den) for big integers (0 <= num <= den, den >= 1).
template <random_bit_source G, big_integer Int>
bool bernoulli_rational(G& gen, const Int& num, const Int& den) {
  detail::validate_big_fraction(num, den);
  if (den < num) throw_invalid("num", detail::describe_big(num), "[0, den]");
  return detail::bernoulli_fraction(gen, num, den);
}

/// Bernoulli(exp(-num / den)) for big integers (num >= 0, den >= 1), for
/// exponents formed exactly from doubles (the exponential mechanism).
template <random_bit_source G, big_integer Int>
bool bernoulli_exp(G& gen, const Int& num, const Int& den) {
  detail::validate_big_fraction(num, den);
  return detail::bernoulli_exp_any(gen, num, den);
}

/// True with probability p exactly, for a double p in [0, 1] taken at its
/// binary value m 2^-k, as partition selection's rule tables need. Throws
/// invalid_parameter naming `p` for NaN or a p outside [0, 1]: a probability
/// computed out of range is a bug upstream, and clamping it would toss a
/// coin the caller did not ask for.
template <random_bit_source G>
bool bernoulli_double(G& gen, double p) {
  validate_probability(p, "p");
  if (p == 0) return false;
  if (p == 1) return true;
  const auto [m, e] = detail::exact_binary_value(p);
  int k = -e;  // m < 2^53 and p < 1, so k >= 1
  if (k <= 63) return bernoulli_rational(gen, m, std::uint64_t{1} << k);
  // m 2^-k = 2^-(k - 63) * m 2^-63: k - 63 fair bits that must all be 0,
  // times an independent Bernoulli(m / 2^63).
  for (k -= 63; k >= 64; k -= 64) {
    if (random_u64(gen) != 0) return false;
  }
  if (k > 0 && (random_u64(gen) >> (64 - k)) != 0) return false;
  return bernoulli_rational(gen, m, std::uint64_t{1} << 63);
}

/// True with probability a / (a + b exp(-x)) exactly, for a, b in
/// [0, 2^64 - 1] not both 0 and x a finite double >= 0 taken at its binary
/// value. This is the coin of randomised response and subset selection
/// (a = d, b = s - d, x = eps), where tossing exp(-eps) coins against
/// d / s odds would take about s / d rounds: here a uniform 64-bit word is
/// compared with certified bounds on the probability, which decides at
/// once unless the word falls within a few units of 2^-64 of it; then more
/// words are drawn and the bounds refined (probability about 2^-62, and the
/// result is exact either way).
class logistic_bernoulli {
 public:
  /// Throws invalid_parameter naming `x` unless it is finite and >= 0, or
  /// naming `b` when a = b = 0.
  logistic_bernoulli(std::uint64_t a, std::uint64_t b, double x) : a_(a), b_(b), x_(x) {
    validate_non_negative(x, "x");
    if (a == 0 && b == 0) throw_invalid("b", b, ">= 1 when a = 0 (a + b must be positive)");
    // p in [lo, hi] / 2^initial_bits; lo <= hi <= 2^initial_bits, so their
    // top parts below fit 65 bits.
    const detail::fixed_interval p = bounds(initial_bits);
    constexpr int drop = initial_bits - 64;
    sure_true_below_ = detail::low_u128(detail::big_uint(p.lo >> drop));
    const detail::big_uint hi_top = p.hi >> drop;
    sure_false_from_ = detail::low_u128(hi_top) + ((hi_top << drop) == p.hi ? 0 : 1);
  }

  /// One exact toss: true with probability a / (a + b exp(-x)).
  template <random_bit_source G>
  bool operator()(G& gen) const {
    const std::uint64_t u = random_u64(gen);
    // The uniform U lies in [u, u + 1) / 2^64.
    if (static_cast<detail::uint128>(u) + 1 <= sure_true_below_) return true;
    if (u >= sure_false_from_) return false;
    return refine(gen, u);
  }

  /// The probability, rounded to a double (for estimators and tests).
  [[nodiscard]] double probability() const {
    const detail::fixed_interval p = bounds(initial_bits);
    return std::ldexp(static_cast<double>(p.lo), -initial_bits);
  }

  /// Certified bounds on the probability with `bits` fractional bits.
  [[nodiscard]] detail::fixed_interval bounds(int bits) const {
    detail::fixed_interval p;
    p.bits = bits;
    if (a_ == 0) return p;  // exactly 0
    // b magnifies q's rounding: 64 extra bits beyond b's width keep p's
    // bounds within a few units of 2^-bits.
    const int q_bits = bits + 64 + static_cast<int>(std::bit_width(b_));
    const detail::fixed_interval q = detail::exp_neg_bounds(x_, q_bits);
    const detail::big_uint a_scaled = detail::big_uint(a_) << q_bits;
    const detail::big_uint numerator = a_scaled << bits;
    // a / (a + b q) falls as q grows.
    p.lo = detail::div_floor(numerator, detail::big_uint(a_scaled + detail::big_uint(b_) * q.hi));
    p.hi = detail::div_ceil(numerator, detail::big_uint(a_scaled + detail::big_uint(b_) * q.lo));
    return p;
  }

 private:
  static constexpr int initial_bits = 192;

  // U's first word did not decide: draw more words and, when U is known to
  // more bits than the bounds, double their precision.
  template <random_bit_source G>
  bool refine(G& gen, std::uint64_t first) const {
    detail::big_uint u = first;
    int known = 64;
    int bits = initial_bits;
    detail::fixed_interval p = bounds(bits);
    for (;;) {
      while (known > bits) p = bounds(bits *= 2);
      const int gap = bits - known;
      if (detail::big_uint(detail::big_uint(u + 1) << gap) <= p.lo) return true;
      if (detail::big_uint(u << gap) >= p.hi) return false;
      u = (u << 64) | detail::big_uint(random_u64(gen));
      known += 64;
    }
  }

  std::uint64_t a_;
  std::uint64_t b_;
  double x_;
  detail::uint128 sure_true_below_;  // floor(lo 2^64): u + 1 <= it means U < p
  detail::uint128 sure_false_from_;  // ceil(hi 2^64): u >= it means U >= p
};

}  // namespace privet
