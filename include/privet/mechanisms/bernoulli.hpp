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

#include <bit>
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
  if constexpr (boost::multiprecision::is_number<Int>::value) {
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

}  // namespace privet
