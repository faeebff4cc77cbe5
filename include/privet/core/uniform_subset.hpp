// privet/core/uniform_subset.hpp — a uniformly random m-subset of [0, n) in
// O(m) expected time and memory, whatever n is (Floyd's algorithm, Bentley
// & Floyd 1987, "Programming pearls: a sample of brilliance").
//
// Floyd's algorithm makes exactly m draws: for j = n - m, ..., n - 1 it draws
// t uniform in [0, j] and keeps t, or j if t was already kept. Every
// m-subset comes out with probability 1 / C(n, m). The draws do not depend
// on what was kept, so consecutive ones share a 64-bit word whenever their
// ranges allow (uniform_below_batch: three per word for n near 10^6, which
// is what LDP TrieHH's subset selection needs from a CSPRNG). Membership is
// tested in an open-addressing table of 2m to 8m slots, so neither time nor
// memory depends on n, its slots carrying the call's stamp so that a call
// never clears the table; when n is at most 64 m (or 2^18), a bitmap over
// [0, n) costs no more memory and a bit test is cheaper than a probe.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace privet {

namespace detail {

/// A set of 64-bit keys for Floyd's algorithm: linear probing, emptied in
/// O(1) by a new stamp (slots of older stamps are free). Small sets get 8
/// slots per key, so that a probe rarely meets an occupied slot (a
/// mispredicted branch costs more than the probe); large ones 2.
class floyd_set {
 public:
  struct slot {
    std::uint64_t key = 0;
    std::uint64_t stamp = 0;
  };

  /// The table of one call, by value: its stores cannot alias its fields.
  struct view {
    slot* slots;
    std::uint64_t mask;
    std::uint64_t stamp;
    int shift;

    /// Inserts key; false if it was present.
    bool insert(std::uint64_t key) const {
      // Fibonacci hashing: consecutive keys, the common case here, spread out.
      for (std::uint64_t i = (key * 0x9E3779B97F4A7C15ull) >> shift;; i = (i + 1) & mask) {
        slot& s = slots[i];
        if (s.stamp != stamp) {
          s = {key, stamp};
          return true;
        }
        if (s.key == key) return false;
      }
    }
  };

  view reset(std::uint64_t expected) {
    const std::uint64_t want = expected <= 512 ? 8 * expected : 2 * expected;
    const std::uint64_t cap = std::bit_ceil(want < 16 ? std::uint64_t{16} : want);
    // Keep the storage between calls, unless a huge earlier call left far
    // more than this one needs.
    if (cap > slots_.size() ||
        (slots_.size() > (std::uint64_t{1} << 16) && slots_.size() / 64 > cap)) {
      slots_.assign(static_cast<std::size_t>(cap), slot{});
      stamp_ = 0;
    }
    ++stamp_;  // 64 bits: never wraps
    return {slots_.data(), cap - 1, stamp_, 64 - std::countr_zero(cap)};
  }

 private:
  std::vector<slot> slots_;
  std::uint64_t stamp_ = 0;
};

}  // namespace detail

namespace detail {

/// A bitmap over [0, n) for Floyd's algorithm when n is small next to m
/// (at most 64 bits per kept value, or 32 KiB): one bit test per draw
/// instead of a hash probe. Zero between calls: a call clears the bits it
/// set, exception or not.
class floyd_bits {
 public:
  static bool fits(std::uint64_t n, std::uint64_t m) {
    return n <= (std::uint64_t{1} << 18) || n / 64 <= m;
  }
  std::uint64_t* reset(std::uint64_t n) {
    const auto words = static_cast<std::size_t>(n / 64 + 1);
    if (bits_.size() < words) {
      bits_.resize(words, 0);
    } else if (bits_.size() > (std::size_t{1} << 16) && bits_.size() / 64 > words) {
      bits_.assign(words, 0);  // a huge earlier call left far more than this one needs
    }
    return bits_.data();
  }

 private:
  std::vector<std::uint64_t> bits_;
};

/// Floyd's algorithm writing m values to dst, with `insert(key)` (false
/// when key was kept before) as the membership test.
template <random_bit_source G, class Insert>
void floyd_draws(G& gen, std::uint64_t n, std::uint64_t m, std::uint64_t* dst, Insert insert) {
  // Draws per 64-bit word: the ranges [0, j] grow with j up to [0, n - 1],
  // so k consecutive ones never multiply past n^k.
  constexpr std::size_t chunk = 16;
  std::size_t k = 1;
  for (std::uint64_t power = n; k < chunk && static_cast<uint128>(power) * n <= batch_product_limit;
       ++k) {
    power *= n;
  }
  std::array<std::uint64_t, chunk> bound, t;
  for (std::uint64_t j = n - m; j < n;) {
    const auto batch = static_cast<std::size_t>(std::min<std::uint64_t>(k, n - j));
    std::uint64_t product = 1;
    for (std::size_t i = 0; i < batch; ++i) {
      bound[i] = j + 1 + i;
      product *= bound[i];
    }
    uniform_digits(gen, bound.data(), batch, product, t.data());
    for (std::size_t i = 0; i < batch; ++i, ++j) {
      if (insert(t[i])) {
        *dst++ = t[i];
      } else {
        insert(j);  // j itself cannot have been kept before
        *dst++ = j;
      }
    }
  }
}

}  // namespace detail

/// Appends to `out` m distinct integers of [0, n), the set uniform among all
/// m-subsets, in no particular order. Requires m <= n < 2^64 - 1; throws
/// invalid_parameter naming `m` otherwise. O(m) expected time and memory.
template <random_bit_source G>
void uniform_subset(G& gen, std::uint64_t n, std::uint64_t m, std::vector<std::uint64_t>& out) {
  if (n == ~std::uint64_t{0}) throw_invalid("n", n, "< 2^64 - 1");
  if (m > n) throw_invalid("m", m, "[0, n] = [0, " + detail::format_value(n) + "]");
  if (m == 0) return;
  const std::size_t first = out.size();
  out.resize(first + static_cast<std::size_t>(m), n);  // n: not drawn yet
  std::uint64_t* dst = out.data() + first;
  if (detail::floyd_bits::fits(n, m)) {
    thread_local detail::floyd_bits bitmap;
    std::uint64_t* bits = bitmap.reset(n);
    // Clears the bits of every value written, also when the generator throws.
    struct clear_on_exit {
      std::uint64_t* bits;
      const std::uint64_t* begin;
      const std::uint64_t* end;
      std::uint64_t n;
      ~clear_on_exit() {
        for (const std::uint64_t* v = begin; v != end && *v != n; ++v) bits[*v / 64] = 0;
      }
    } guard{bits, dst, dst + m, n};
    detail::floyd_draws(gen, n, m, dst, [bits](std::uint64_t key) {
      const std::uint64_t bit = std::uint64_t{1} << (key % 64);
      std::uint64_t& word = bits[key / 64];
      if ((word & bit) != 0) return false;
      word |= bit;
      return true;
    });
    return;
  }
  thread_local detail::floyd_set table;
  const detail::floyd_set::view seen = table.reset(m);
  detail::floyd_draws(gen, n, m, dst, [seen](std::uint64_t key) { return seen.insert(key); });
}

/// m distinct integers of [0, n), uniformly, in no particular order.
template <random_bit_source G>
std::vector<std::uint64_t> uniform_subset(G& gen, std::uint64_t n, std::uint64_t m) {
  std::vector<std::uint64_t> out;
  uniform_subset(gen, n, m, out);
  return out;
}

}  // namespace privet
