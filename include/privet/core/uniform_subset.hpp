// privet/core/uniform_subset.hpp — a uniformly random m-subset of [0, n) in
// O(m) expected time and memory, whatever n is (Floyd's algorithm, Bentley
// & Floyd 1987, "Programming pearls: a sample of brilliance").
//
// Floyd's algorithm makes exactly m draws: for j = n - m, ..., n - 1 it draws
// t uniform in [0, j] and keeps t, or j if t was already kept. Every
// m-subset comes out with probability 1 / C(n, m). Membership is tested in
// an open-addressing table of about 2m slots, so neither time nor memory
// depends on n (a bitmap over [0, n) would cost n / 8 bytes per call).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>

#include <bit>
#include <cstdint>
#include <vector>

namespace privet {

namespace detail {

/// A set of 64-bit keys below 2^64 - 1 for Floyd's algorithm: fixed
/// capacity, linear probing, cleared in O(capacity).
class floyd_set {
 public:
  void reset(std::uint64_t expected) {
    const std::uint64_t cap = std::bit_ceil(expected < 8 ? std::uint64_t{16} : 2 * expected);
    shift_ = 64 - std::countr_zero(cap);
    slots_.assign(cap, empty);
  }

  /// Inserts key; false if it was present.
  bool insert(std::uint64_t key) {
    const std::uint64_t mask = slots_.size() - 1;
    // Fibonacci hashing: consecutive keys, the common case here, spread out.
    for (std::uint64_t i = (key * 0x9E3779B97F4A7C15ull) >> shift_;; i = (i + 1) & mask) {
      if (slots_[i] == key) return false;
      if (slots_[i] == empty) {
        slots_[i] = key;
        return true;
      }
    }
  }

 private:
  static constexpr std::uint64_t empty = ~std::uint64_t{0};
  std::vector<std::uint64_t> slots_;
  int shift_ = 60;
};

}  // namespace detail

/// Appends to `out` m distinct integers of [0, n), the set uniform among all
/// m-subsets, in no particular order. Requires m <= n < 2^64 - 1; throws
/// invalid_parameter naming `m` otherwise. O(m) expected time and memory.
template <random_bit_source G>
void uniform_subset(G& gen, std::uint64_t n, std::uint64_t m, std::vector<std::uint64_t>& out) {
  if (n == ~std::uint64_t{0}) throw_invalid("n", n, "< 2^64 - 1");
  if (m > n) throw_invalid("m", m, "[0, n] = [0, " + detail::format_value(n) + "]");
  if (m == 0) return;
  thread_local detail::floyd_set seen;
  seen.reset(m);
  out.reserve(out.size() + m);
  for (std::uint64_t j = n - m; j < n; ++j) {
    const std::uint64_t t = uniform_below(gen, j + 1);
    if (seen.insert(t)) {
      out.push_back(t);
    } else {
      seen.insert(j);  // j itself cannot have been kept before
      out.push_back(j);
    }
  }
}

/// m distinct integers of [0, n), uniformly, in no particular order.
template <random_bit_source G>
std::vector<std::uint64_t> uniform_subset(G& gen, std::uint64_t n, std::uint64_t m) {
  std::vector<std::uint64_t> out;
  uniform_subset(gen, n, m, out);
  return out;
}

}  // namespace privet
