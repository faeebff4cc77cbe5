// privet/sketches/sparse_histogram.hpp — counts or weights per key over an
// unbounded key space (n-grams, pages, (page, country) pairs), kept only
// for the keys seen: add, merge of shards, top-k and threshold selection, and
// noise from any privet sampler or mechanism on every stored key.
//
// Storage is tsl::robin_map (open addressing, robin-hood probing), about 2x
// faster than std::unordered_map for integer keys (bench/README.md); integer
// keys are hashed with a full-avalanche mix because std::hash is the
// identity on integers, which a power-of-two table cannot use.
//
// Integer counts are checked: an add or merge that would overflow Count
// throws overflow_error and leaves the count as it was (never wraps).
// Which keys are noised is the caller's business: noising only the stored
// keys releases which keys occurred, so a private release of the key set
// needs partition selection (mechanisms/partition_selection.hpp) or a key
// set fixed in advance (noisy_over).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/hash.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>

#include <tsl/robin_map.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet {

namespace detail {

/// std::hash, except a full-avalanche mix (murmur3's finaliser) for
/// integers, and transparent for strings so a string_view finds a string key.
template <class Key>
struct histogram_hash {
  std::size_t operator()(const Key& k) const { return std::hash<Key>{}(k); }
};
template <std::integral Key>
struct histogram_hash<Key> {
  std::size_t operator()(Key key) const noexcept {
    return static_cast<std::size_t>(mix64(static_cast<std::uint64_t>(key)));
  }
};
template <>
struct histogram_hash<std::string> {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

template <class Count>
Count checked_add(Count a, Count b) {
  if constexpr (std::integral<Count>) {
    Count r;
    if (__builtin_add_overflow(a, b, &r)) {
      throw overflow_error("privet: a histogram count would overflow: " + std::to_string(a) +
                           " + " + std::to_string(b) + "; allowed: the range of the count type");
    }
    return r;
  } else {
    return a + b;
  }
}

}  // namespace detail

template <class Key, class Count = std::int64_t>
requires std::equality_comparable<Key> &&
    (std::integral<Count> || std::floating_point<Count>)class sparse_histogram {
  using map_type = tsl::robin_map<Key, Count, detail::histogram_hash<Key>, std::equal_to<>>;

 public:
  using key_type = Key;
  using count_type = Count;
  using value_type = std::pair<Key, Count>;

  /// Adds `weight` (default 1) to `key`'s count.
  void add(const Key& key, Count weight = Count(1)) {
    auto it = counts_.find(key);
    if (it == counts_.end()) {
      counts_.emplace(key, weight);
    } else {
      it.value() = detail::checked_add(it->second, weight);
    }
  }

  /// The count of `key` (0 if never added).
  template <class K>
  [[nodiscard]] Count operator[](const K& key) const {
    const auto it = counts_.find(key);
    return it == counts_.end() ? Count(0) : it->second;
  }

  [[nodiscard]] bool contains(const Key& key) const { return counts_.find(key) != counts_.end(); }
  [[nodiscard]] std::size_t size() const noexcept { return counts_.size(); }
  [[nodiscard]] bool empty() const noexcept { return counts_.empty(); }
  void reserve(std::size_t keys) { counts_.reserve(keys); }

  /// Adds another shard's counts (the result equals one pass over both
  /// shards' records). All-or-nothing: on overflow nothing is changed.
  void merge(const sparse_histogram& other) {
    for (const auto& [k, c] : other.counts_) (void)detail::checked_add((*this)[k], c);
    for (const auto& [k, c] : other.counts_) add(k, c);
  }

  /// The entries, sorted by key (a deterministic order for output and tests).
  [[nodiscard]] std::vector<value_type> sorted_by_key() const requires std::totally_ordered<Key> {
    std::vector<value_type> out(counts_.begin(), counts_.end());
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
  }

  /// The k entries with the largest counts, largest first; ties broken by
  /// the smaller key, so the selection does not depend on hash order.
  [[nodiscard]] std::vector<value_type> top_k(
      std::size_t k) const requires std::totally_ordered<Key> {
    std::vector<value_type> out(counts_.begin(), counts_.end());
    auto better = [](const value_type& a, const value_type& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    };
    k = std::min(k, out.size());
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(), better);
    out.resize(k);
    return out;
  }

  /// The entries whose count is >= threshold, sorted by key.
  [[nodiscard]] std::vector<value_type> at_least(
      Count threshold) const requires std::totally_ordered<Key> {
    std::vector<value_type> out;
    for (const auto& [k, c] : counts_) {
      if (c >= threshold) out.emplace_back(k, c);
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
  }

  /// A copy with noise on every stored key: `noise` is either an integer
  /// sampler (called as noise(gen), its sample added with an overflow check,
  /// e.g. discrete_laplace_distribution) or a mechanism (called as
  /// noise(count, gen), e.g. laplace_mechanism), whose output replaces the
  /// count. Keys are visited in key order, so a seeded generator gives the
  /// same release every run.
  template <class Noise, random_bit_source G>
  [[nodiscard]] auto noisy(const Noise& noise, G& gen) const requires std::totally_ordered<Key> {
    return noisy_over(sorted_keys(), noise, gen);
  }

  /// Noise on every key of `keys` (counts of absent keys are 0), so that
  /// the released key set is `keys`, fixed in advance from public data.
  template <std::ranges::input_range R, class Noise, random_bit_source G>
  [[nodiscard]] auto noisy_over(const R& keys, const Noise& noise, G& gen) const {
    using out_count = decltype(apply(noise, Count(0), gen));
    sparse_histogram<Key, out_count> out;
    for (const auto& k : keys) out.add(Key(k), apply(noise, (*this)[k], gen));
    return out;
  }

  auto begin() const { return counts_.begin(); }
  auto end() const { return counts_.end(); }

 private:
  template <class Noise, class G>
  static auto apply(const Noise& noise, Count c, G& gen) {
    if constexpr (requires { noise(c, gen); }) {
      return noise(c, gen);
    } else {
      static_assert(
          std::integral<Count> &&
              requires {
                { noise(gen) } -> std::integral;
              },
          "privet: sparse_histogram::noisy needs an integer sampler (noise(gen)) for "
          "integer counts, or a mechanism callable as noise(count, gen).");
      return detail::checked_add(c, static_cast<Count>(noise(gen)));
    }
  }

  std::vector<Key> sorted_keys() const {
    std::vector<Key> keys;
    keys.reserve(counts_.size());
    for (const auto& [k, c] : counts_) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  map_type counts_;
};

}  // namespace privet
