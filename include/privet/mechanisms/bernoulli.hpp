// privet/mechanisms/bernoulli.hpp — exact Bernoulli samplers from random bits
// and integer arithmetic only: Bernoulli(num / den) and Bernoulli(exp(-num /
// den)) (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for
// Differential Privacy", Algorithm 1). Templated on the unsigned integer
// type, so the discrete Gaussian can run them on 256-bit fractions.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <type_traits>

namespace privet {

namespace detail {

inline std::size_t bit_length(uint128 x) {
  std::size_t n = 0;
  for (; x != 0; x >>= 1) ++n;
  return n;
}

// Uniform in [0, n) for n >= 1, for the unsigned types the samplers use.
template <random_bit_source G>
std::uint64_t uniform_below_wide(G& gen, std::uint64_t n) {
  return uniform_below(gen, n);
}
template <random_bit_source G>
uint128 uniform_below_wide(G& gen, uint128 n) {
  if (n <= UINT64_MAX) return uniform_below(gen, static_cast<std::uint64_t>(n));
  const std::size_t bits = bit_length(n - 1);
  for (;;) {
    const uint128 r =
        ((static_cast<uint128>(random_u64(gen)) << 64) | random_u64(gen)) >> (128 - bits);
    if (r < n) return r;
  }
}
template <big_integer Int, random_bit_source G>
Int uniform_below_wide(G& gen, const Int& n) {
  return uniform_below(gen, n);
}

template <class UInt>
concept sampler_uint =
    std::same_as<UInt, std::uint64_t> || std::same_as<UInt, uint128> || big_integer<UInt>;

// The type that holds den * k for k up to 2^32 without overflow.
template <class UInt>
using widened_t = std::conditional_t<std::same_as<UInt, std::uint64_t>, uint128, UInt>;

}  // namespace detail

/// True with probability num / den exactly. Throws unless den >= 1 and num <= den.
template <random_bit_source G, detail::sampler_uint UInt>
bool bernoulli_rational(G& gen, const UInt& num, const UInt& den) {
  if (den == UInt(0u)) throw_invalid("den", 0, ">= 1");
  if (num > den) throw_invalid("num", "a value > den", "<= den (a probability num / den)");
  return detail::uniform_below_wide(gen, den) < num;
}

/// True with probability exp(-num / den) exactly, for num >= 0 and den >= 1.
/// For std::uint64_t the products den * k are formed in 128 bits, so every
/// 64-bit fraction works.
template <random_bit_source G, detail::sampler_uint UInt>
bool bernoulli_exp(G& gen, UInt num, const UInt& den) {
  if (den == UInt(0u)) throw_invalid("den", 0, ">= 1");
  // exp(-gamma) = exp(-1)^floor(gamma) * exp(-frac(gamma)).
  while (num > den) {
    if (!bernoulli_exp(gen, UInt(1u), UInt(1u))) return false;
    num = UInt(num - den);
  }
  // Algorithm 1: count how long Bernoulli(gamma / k) keeps succeeding; the
  // chance that the count K is odd is exactly exp(-gamma).
  using wide = detail::widened_t<UInt>;
  const wide n = wide(num);
  const wide d = wide(den);
  std::uint64_t k = 1;
  for (;; ++k) {
    if (!(detail::uniform_below_wide(gen, wide(d * wide(k))) < n)) break;
  }
  return (k & 1u) == 1u;
}

}  // namespace privet
