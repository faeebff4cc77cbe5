// privet/sketches/detail/pairwise_hash.hpp — Dietzfelbinger's multiply-add-
// shift hash from 64-bit keys to 64-bit values, u = ((a x + b) mod 2^128) >> 64
// with a, b uniform 128-bit numbers, which is strongly universal (pairwise
// independent) (Dietzfelbinger 1996, "Universal hashing and k-wise
// independent random variables via integer arithmetic without primes";
// Thorup 2015, "High speed hashing for integers and strings", Section 3.3),
// followed by Lemire's multiply-shift range reduction ("fastrange") to
// [0, n). Shared by the count-min sketch (one hash per row) and the
// hash-space feature reduction, whose error bounds use only pairwise
// independence.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/int128.hpp>

#include <cstdint>

namespace privet::detail {

/// A strongly universal (pairwise independent) hash from 64-bit keys to
/// [0, n): two distinct keys share a bucket with probability at most
/// 1/n + 2^-64 over the draw of (a, b).
struct pairwise_hash {
  uint128 a = 0, b = 0;

  /// A hash drawn from gen: four 64-bit words, a's high and low halves then
  /// b's, in that order (sequenced explicitly: the operands of | are not).
  template <random_bit_source G>
  static pairwise_hash draw(G& gen) {
    pairwise_hash h;
    h.a = word_pair(gen);
    h.b = word_pair(gen);
    return h;
  }

  /// The top 64 bits of (a x + b) mod 2^128: uniform and pairwise
  /// independent over the choice of (a, b). (The low 64 bits are not: the
  /// carry into the top half is what mixes x.)
  [[nodiscard]] std::uint64_t value(std::uint64_t x) const noexcept {
    return static_cast<std::uint64_t>((a * x + b) >> 64);
  }

  /// floor(value(x) n / 2^64), in [0, n) for n >= 1; the extra collision
  /// probability from the reduction is at most 2^-64 per pair.
  [[nodiscard]] std::uint64_t bucket(std::uint64_t x, std::uint64_t n) const noexcept {
    return static_cast<std::uint64_t>((static_cast<uint128>(value(x)) * n) >> 64);
  }

  friend bool operator==(const pairwise_hash&, const pairwise_hash&) = default;

 private:
  template <random_bit_source G>
  static uint128 word_pair(G& gen) {
    const auto high = static_cast<std::uint64_t>(gen());
    const auto low = static_cast<std::uint64_t>(gen());
    return static_cast<uint128>(high) << 64 | low;
  }
};

}  // namespace privet::detail
