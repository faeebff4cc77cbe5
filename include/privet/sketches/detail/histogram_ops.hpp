// privet/sketches/detail/histogram_ops.hpp — what sparse_histogram and
// dense_histogram share, written once: the saturating addition, the
// deterministic top-k and threshold selections over a range of (key, count)
// entries, and the application of a noise sampler or mechanism to a count.
//
// Counts and weights are data, so no sum of them makes a histogram throw
// (issue 22: an exception caused by the data is an un-noised output that
// tells neighbours apart). An integer sum beyond Count's range saturates at
// Count's maximum or minimum (never wraps); below that it is exact. A
// floating-point NaN weight adds 0, an infinite one adds the largest finite
// value of its sign, and a sum beyond the largest finite value saturates
// there (finite_weight, saturating_add), so a count built from these is
// always finite. The saturated sum x -> clamp(x + w) is 1-Lipschitz in x, so
// a record of weight |w| <= b still moves every count by at most b however
// the other records saturate (insert or delete one step in a chain of
// 1-Lipschitz maps): the sensitivity a caller derives from its weight bound
// holds.
//
// Noise (apply_noise) with an integer sampler releases count + noise as the
// exact sum at infinite precision, saturated at Count's range: a function of
// the exact noisy value alone (post-processing), so the release keeps the
// sampler's guarantee, and neither a count at Count's limit nor a large
// sample makes noisy() throw.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/histogram_count.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <ranges>
#include <utility>
#include <vector>

namespace privet::detail {

/// The weight a histogram adds for `w`: an integer as it is; for a
/// floating-point count, 0 for NaN and the largest finite value of w's sign
/// for an infinity (header comment), so that a stored count is always finite.
template <histogram_count Count>
Count finite_weight(Count w) noexcept {
  if constexpr (std::floating_point<Count>) {
    if (std::isnan(w)) return Count(0);
    return std::clamp(w, std::numeric_limits<Count>::lowest(), std::numeric_limits<Count>::max());
  } else {
    return w;
  }
}

/// a + b as a histogram adds it (header comment): for integers exact when
/// it fits Count, else Count's maximum (b > 0) or minimum (b < 0); for
/// floating-point weights the operands as finite_weight reads them, the sum
/// saturating at the largest finite value. Never throws.
template <histogram_count Count>
Count saturating_add(Count a, Count b) noexcept {
  if constexpr (std::integral<Count>) {
    Count r;
    if (!__builtin_add_overflow(a, b, &r)) [[likely]]
      return r;
    // a is in range, so only a positive b can overflow upwards.
    return b > Count(0) ? std::numeric_limits<Count>::max() : std::numeric_limits<Count>::min();
  } else {
    // Two finite operands: the sum is finite or, past the largest finite
    // value, an infinity of their sign (never NaN), which saturates.
    return finite_weight(finite_weight(a) + finite_weight(b));
  }
}

/// The former name of saturating_add (which it now is: integer counts no
/// longer throw on overflow), kept for dense_histogram until it is renamed
/// there.
template <histogram_count Count>
Count checked_add(Count a, Count b) noexcept {
  return saturating_add(a, b);
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

/// Whether count a ranks above count b in top_k: the larger first, and NaN
/// (which a sparse_histogram never stores, but a dense one's batch sum can
/// hold) below every number, so the order stays a strict weak order and a
/// NaN is never selected ahead of a number.
template <class Count>
bool ranks_above(Count a, Count b) noexcept {
  if constexpr (std::floating_point<Count>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a > b;
}

/// The order of top_k: the larger count first (ranks_above), ties broken by
/// the smaller key. Keys are distinct, so this is a strict total order on
/// entries and the selection never depends on hash or insertion order.
struct larger_count_first {
  template <class Entry>
  bool operator()(const Entry& a, const Entry& b) const {
    if (ranks_above(a.second, b.second)) return true;
    if (ranks_above(b.second, a.second)) return false;
    return a.first < b.first;
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
/// input already comes in key order). A NaN count is at least no threshold.
/// Throws invalid_parameter naming `threshold` if it is NaN (it would select
/// nothing, whatever the counts).
template <class Key, class Count, std::ranges::input_range R>
std::vector<std::pair<Key, Count>> entries_at_least(R&& entries, Count threshold, bool sorted) {
  if constexpr (std::floating_point<Count>) {
    if (std::isnan(threshold)) throw_invalid("threshold", threshold, "a number (not NaN)");
  }
  std::vector<std::pair<Key, Count>> out;
  for (auto&& e : entries) {
    if (e.second >= threshold) out.emplace_back(e.first, e.second);
  }
  if (!sorted) std::sort(out.begin(), out.end(), smaller_key_first{});
  return out;
}

/// The noisy value of count c: noise(c, gen) for a mechanism (its output
/// replaces the count), or for an integer sampler c + noise(gen) taken at
/// infinite precision and saturated at Count's range (header comment).
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
    // A bare sampler is a release path of its own here (a mechanism checks
    // its generator itself).
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    const auto z = noise(gen);
    // The builtin adds at infinite precision (any widths, a sample outside
    // Count whose sum fits, 10 plus -5 in an unsigned count, is exact) and
    // says whether the sum fits. c is in range, so a sum above Count's
    // range needs z > 0 and one below it z < 0.
    Count sum;
    if (!__builtin_add_overflow(c, z, &sum)) [[likely]]
      return sum;
    return z > 0 ? std::numeric_limits<Count>::max() : std::numeric_limits<Count>::min();
  }
}

}  // namespace privet::detail
