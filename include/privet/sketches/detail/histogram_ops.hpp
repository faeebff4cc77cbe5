// privet/sketches/detail/histogram_ops.hpp — what sparse_histogram and
// dense_histogram share, written once: the overflow-checked addition, the
// deterministic top-k and threshold selections over a range of (key, count)
// entries, and the application of a noise sampler or mechanism to a count.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/sketches/histogram_count.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <limits>
#include <ranges>
#include <utility>
#include <vector>

namespace privet::detail {

/// a + b, or overflow_error naming both operands and the count type's range
/// (integer counts never wrap).
template <histogram_count Count>
Count checked_add(Count a, Count b) {
  if constexpr (std::integral<Count>) {
    Count r;
    if (__builtin_add_overflow(a, b, &r)) {
      throw overflow_error("privet: a histogram count would overflow: " + format_value(a) + " + " +
                           format_value(b) + "; allowed: the range of the count type [" +
                           format_value(std::numeric_limits<Count>::min()) + ", " +
                           format_value(std::numeric_limits<Count>::max()) + "]");
    }
    return r;
  } else {
    return a + b;
  }
}

/// Throws invalid_parameter naming `weights` unless there is one weight
/// per key.
inline void check_weights_size(std::size_t keys, std::size_t weights) {
  if (weights != keys) {
    throw invalid_parameter("weights", "privet: weights.size() = " + format_value(weights) +
                                           " is invalid; allowed: keys.size() = " +
                                           format_value(keys) + " (one weight per key)");
  }
}

/// The order of top_k: the larger count first, ties broken by the smaller
/// key. Keys are distinct, so this is a strict total order on entries and
/// the selection never depends on hash or insertion order.
struct larger_count_first {
  template <class Entry>
  bool operator()(const Entry& a, const Entry& b) const {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  }
};

struct smaller_key_first {
  template <class Entry>
  bool operator()(const Entry& a, const Entry& b) const {
    return a.first < b.first;
  }
};

/// The k best entries of `entries` (larger_count_first), best first, in
/// O(n log k) with k entries held: a heap whose top is the worst kept entry.
template <class Key, class Count, std::ranges::input_range R>
std::vector<std::pair<Key, Count>> top_k_entries(R&& entries, std::size_t k) {
  std::vector<std::pair<Key, Count>> heap;
  if (k == 0) return heap;
  const larger_count_first better;
  for (auto&& e : entries) {
    std::pair<Key, Count> entry(e.first, e.second);
    if (heap.size() < k) {
      heap.push_back(std::move(entry));
      std::push_heap(heap.begin(), heap.end(), better);
    } else if (better(entry, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), better);
      heap.back() = std::move(entry);
      std::push_heap(heap.begin(), heap.end(), better);
    }
  }
  std::sort_heap(heap.begin(), heap.end(), better);
  return heap;
}

/// The entries whose count is >= threshold, sorted by key (`sorted` says the
/// input already comes in key order).
template <class Key, class Count, std::ranges::input_range R>
std::vector<std::pair<Key, Count>> entries_at_least(R&& entries, Count threshold, bool sorted) {
  std::vector<std::pair<Key, Count>> out;
  for (auto&& e : entries) {
    if (e.second >= threshold) out.emplace_back(e.first, e.second);
  }
  if (!sorted) std::sort(out.begin(), out.end(), smaller_key_first{});
  return out;
}

/// The noisy value of count c: noise(c, gen) for a mechanism (its output
/// replaces the count), or c plus noise(gen), overflow-checked, for an
/// integer sampler.
template <histogram_count Count, class Noise, class G>
auto apply_noise(const Noise& noise, Count c, G& gen) {
  if constexpr (requires { noise(c, gen); }) {
    return noise(c, gen);
  } else {
    static_assert(
        std::integral<Count> &&
            requires {
              { noise(gen) } -> std::integral;
            },
        "privet: a histogram's noisy() needs an integer sampler (noise(gen)) for integer "
        "counts, or a mechanism callable as noise(count, gen).");
    const auto z = noise(gen);
    // The exact sum decides, so a sample outside Count whose sum fits (10
    // plus -5 in an unsigned count) is no error.
    Count sum;
    if (!__builtin_add_overflow(c, z, &sum)) return sum;
    if (!std::in_range<Count>(z)) {
      throw overflow_error("privet: a histogram count plus noise " + format_value(z) +
                           " does not fit the count type; allowed: [" +
                           format_value(std::numeric_limits<Count>::min()) + ", " +
                           format_value(std::numeric_limits<Count>::max()) + "]");
    }
    return checked_add(c, static_cast<Count>(z));  // throws, naming both operands
  }
}

}  // namespace privet::detail
