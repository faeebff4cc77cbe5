// privet/core/uniform.hpp — exact uniform draws from any random bit source:
// 64-bit words, integers in [0, n) without modulo bias (Lemire 2019,
// "Fast random integer generation in an interval"), several such integers
// from one word (Brackett-Rozinsky & Lemire 2024), reals in [0, 1), and
// big integers below a bound by rejection sampling.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/validate.hpp>

#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

namespace privet {

/// 64 independent uniform bits, combining several calls of a narrower generator.
template <random_bit_source G>
std::uint64_t random_u64(G& gen) {
  constexpr int w = detail::generator_bits<G>();
  if constexpr (w >= 64) {
    return static_cast<std::uint64_t>(gen());
  } else {
    std::uint64_t r = 0;
    for (int have = 0; have < 64; have += w) r = (r << w) | static_cast<std::uint64_t>(gen());
    return r;
  }
}

/// Uniform integer in [0, n); throws invalid_parameter when n == 0.
template <random_bit_source G>
std::uint64_t uniform_below(G& gen, std::uint64_t n) {
  if (n == 0) throw_invalid("n", n, ">= 1 (the range [0, n) must not be empty)");
  // Lemire's multiply-and-reject: unbiased, usually without a division.
  detail::uint128 m = static_cast<detail::uint128>(random_u64(gen)) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<detail::uint128>(random_u64(gen)) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

namespace detail {

/// out[i] uniform in [0, bounds[i]) for i < k, independent, from one draw
/// below their product (Brackett-Rozinsky & Lemire 2024, "Batched ranged
/// random integer generation"): r * product / 2^64 is Lemire's unbiased
/// draw, and multiplying r by bounds[0], the low word by bounds[1], ...
/// yields that draw's mixed-radix digits, with the same low word left for
/// the rejection test. Every bound >= 1 and product == their product.
template <random_bit_source G>
void uniform_digits(G& gen, const std::uint64_t* bounds, std::size_t k, std::uint64_t product,
                    std::uint64_t* out) {
  for (;;) {
    std::uint64_t low = random_u64(gen);
    for (std::size_t i = 0; i < k; ++i) {
      const uint128 m = static_cast<uint128>(low) * bounds[i];
      out[i] = static_cast<std::uint64_t>(m >> 64);
      low = static_cast<std::uint64_t>(m);
    }
    // As in uniform_below: low >= product is always accepted, else compare
    // with 2^64 mod product (one division, rarely).
    if (low >= product || low >= (0 - product) % product) return;
  }
}

/// Products of batched bounds stay below 2^60, so a batch is redrawn with
/// probability below 1/16.
inline constexpr std::uint64_t batch_product_limit = std::uint64_t{1} << 60;

}  // namespace detail

/// out[i] uniform in [0, bounds[i]) for every i, all independent: the same
/// distribution as uniform_below on each, but bounds whose product stays
/// below 2^60 share one 64-bit draw (three bounds near 10^6 per word
/// instead of one), which matters when the generator is a CSPRNG. Throws
/// invalid_parameter for a zero bound or sizes that differ.
template <random_bit_source G>
void uniform_below_batch(G& gen, std::span<const std::uint64_t> bounds,
                         std::span<std::uint64_t> out) {
  if (out.size() != bounds.size()) {
    throw_invalid("out.size()", out.size(),
                  "== bounds.size() = " + detail::format_value(bounds.size()));
  }
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    if (bounds[i] == 0)
      throw_invalid("bounds[i]", bounds[i], ">= 1 (the range [0, n) must not be empty)");
  }
  for (std::size_t i = 0; i < bounds.size();) {
    std::uint64_t product = bounds[i];
    std::size_t k = 1;
    while (i + k < bounds.size() &&
           static_cast<detail::uint128>(product) * bounds[i + k] <= detail::batch_product_limit) {
      product *= bounds[i + k];
      ++k;
    }
    detail::uniform_digits(gen, bounds.data() + i, k, product, out.data() + i);
    i += k;
  }
}

/// Uniform integer in the closed range [lo, hi]; throws when lo > hi.
template <integer_number I, random_bit_source G>
I uniform_int(G& gen, I lo, I hi) {
  if (lo > hi) throw_invalid("lo", lo, "<= hi = " + detail::format_value(hi));
  using U = std::make_unsigned_t<I>;
  const auto span = static_cast<std::uint64_t>(static_cast<U>(hi) - static_cast<U>(lo));
  const std::uint64_t off = span == UINT64_MAX ? random_u64(gen) : uniform_below(gen, span + 1);
  return static_cast<I>(static_cast<U>(lo) + static_cast<U>(off));
}

/// Uniform real in [0, 1) on the grid of multiples of 2^-53 (2^-24 for float).
template <real_number Real = double, random_bit_source G>
Real uniform_real(G& gen) {
  constexpr int digits =
      std::numeric_limits<Real>::digits < 64 ? std::numeric_limits<Real>::digits : 64;
  const std::uint64_t bits = random_u64(gen) >> (64 - digits);
  return std::ldexp(static_cast<Real>(bits), -digits);
}

/// Fair coin.
template <random_bit_source G>
bool random_bit(G& gen) {
  return (static_cast<std::uint64_t>(gen()) & 1u) != 0;
}

/// Fills `out` with uniform random bytes.
template <random_bit_source G>
void random_bytes(G& gen, std::span<std::byte> out) {
  std::size_t i = 0;
  while (i < out.size()) {
    std::uint64_t w = random_u64(gen);
    for (int b = 0; b < 8 && i < out.size(); ++b, ++i) {
      out[i] = static_cast<std::byte>(w & 0xff);
      w >>= 8;
    }
  }
}

namespace detail {
// Number of significant bits of a non-negative big integer (0 for 0).
template <big_integer Int>
std::size_t bit_length(const Int& x) {
  if constexpr (detail::multiprecision_number<Int>) {
    // msb is found by argument-dependent lookup in boost::multiprecision.
    return x == 0 ? 0 : static_cast<std::size_t>(msb(x)) + 1;
  } else {
    std::size_t n = 0;
    for (Int y = x; y != Int(0u); y = Int(y >> 1u)) ++n;
    return n;
  }
}
}  // namespace detail

/// Uniform big integer in [0, 2^bits).
template <big_integer Int, random_bit_source G>
Int random_bits(G& gen, std::size_t bits) {
  Int r(0ul);
  std::size_t have = 0;
  while (have + 64 <= bits) {
    r = Int(r << 64u);
    r = Int(r + Int(static_cast<unsigned long>(random_u64(gen))));
    have += 64;
  }
  if (const std::size_t rest = bits - have; rest != 0) {
    const std::uint64_t w = random_u64(gen) >> (64 - rest);
    r = Int(r << static_cast<unsigned>(rest));
    r = Int(r + Int(static_cast<unsigned long>(w)));
  }
  return r;
}

/// Uniform big integer in [0, bound), by rejection on the bit length of
/// bound - 1 (fewer than two draws expected; no modulo bias).
template <big_integer Int, random_bit_source G>
Int uniform_below(G& gen, const Int& bound) {
  if (!(bound > Int(0ul))) {
    if constexpr (detail::multiprecision_number<Int>) {
      throw_invalid("bound", bound.str(), "> 0");
    } else {
      throw_invalid("bound", "a value <= 0", "> 0");
    }
  }
  const Int top = Int(bound - Int(1ul));
  const std::size_t bits = detail::bit_length(top);
  for (;;) {
    Int r = random_bits<Int>(gen, bits);
    if (r < bound) return r;
  }
}

}  // namespace privet
