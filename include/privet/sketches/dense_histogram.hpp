// privet/sketches/dense_histogram.hpp — counts or weights per key for keys
// that are dense ids in [0, n): the interned n-gram ids of ngram_table, page
// or word ids assigned in order. The counts are one vector indexed by id, so
// an update is a bounds check, an overflow check and one add, with no hashing
// and no insertion (bench/README.md: several times the update rate of
// sparse_histogram once the key set outgrows the caches).
//
// The API is sparse_histogram's (add, add_all, merge, top_k, at_least,
// noisy, noisy_over), with one difference in what is stored: a dense
// histogram stores every key of its domain [0, n), zero counts included.
// noisy() therefore noises all n counts, which releases nothing about which
// ids occurred provided the domain itself is public. Ids interned from
// private text are not public: select them first (partition selection,
// mechanisms/partition_selection.hpp) or release over a public key set with
// noisy_over. to_sparse() keeps the nonzero counts only.
//
// Keys and weights are data, so no update throws (issue 22: an exception
// caused by the data is an un-noised output that tells neighbours apart):
//  - an id outside the domain [0, n) is not counted: the update is dropped,
//    a row-wise filter, which is 1-stable under the symmetric distance and
//    so costs no privacy; out_of_domain() says how many were (a diagnostic
//    of the raw data, not private: never release it);
//  - an integer count saturates at Count's limits: the count of an update
//    that would overflow becomes Count's maximum (or minimum, for a negative
//    weight) instead of wrapping. x -> clamp(x + w) is 1-Lipschitz, so one
//    record still moves each count by at most |w| and the sensitivity of
//    the histogram is unchanged; merge() saturates the same way.
// Ids are taken at their own integer type and never narrowed to 32 bits on
// the way in: add(2^32 + 3) is the id 2^32 + 3 (outside every domain, so
// dropped), never counted as 3, and a lookup or noisy_over of such an id
// finds no count (0) under its own name.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/lazy_range.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/detail/histogram_ops.hpp>
#include <privet/sketches/histogram_count.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet {

/// A histogram over the dense ids [0, n), n <= 2^32: one count per id held
/// in a vector indexed by id, so an update is O(1) with no hashing, and
/// memory is n counts whatever the number of updates. The API is
/// sparse_histogram's; the difference is that every id of the domain is
/// stored, zero counts included, so noisy() noises all n counts and releases
/// nothing about which ids occurred when the domain is public (see the file
/// comment for ids interned from private text). Keys and weights are data:
/// an id outside the domain is dropped (and counted in out_of_domain()),
/// counts saturate at Count's limits, and no update throws.
///
/// @tparam Count a histogram_count: a built-in integer other than bool
///   (saturating counts) or a floating-point type (finite weights).
template <histogram_count Count = std::int64_t>
class dense_histogram {
 public:
  using key_type = std::uint32_t;                 ///< Ids are 32-bit, in [0, size()).
  using count_type = Count;                       ///< The type of counts and weights.
  using value_type = std::pair<key_type, Count>;  ///< An (id, count) entry.

  /// The largest domain: every 32-bit id.
  static constexpr std::uint64_t max_domain = std::uint64_t{1} << 32;

  /// An empty domain; extend_domain() makes room for ids.
  dense_histogram() = default;

  /// Ids [0, domain), all counts 0. Throws invalid_parameter naming
  /// `domain` unless domain <= 2^32.
  explicit dense_histogram(std::uint64_t domain) { counts_.assign(check_domain(domain), Count(0)); }

  /// Grows the domain to [0, domain) (new ids count 0), as an ngram_table
  /// interns more grams. Throws invalid_parameter naming `domain` unless
  /// size() <= domain <= 2^32: shrinking would drop counts.
  void extend_domain(std::uint64_t domain) {
    if (domain < counts_.size()) {
      throw_invalid("domain", domain,
                    "[size(), 2^32] = [" + detail::format_value(counts_.size()) +
                        ", 2^32] (a domain never shrinks: that would drop counts)");
    }
    counts_.resize(check_domain(domain), Count(0));
  }

  /// Adds `weight` (default 1) to `key`'s count, saturating at Count's
  /// limits. A key outside [0, size()) (a negative or 64-bit key is judged
  /// at its own value, never converted to a 32-bit id first) is dropped and
  /// counted in out_of_domain(). Never throws.
  template <integer_number K>
  void add(K key, Count weight = Count(1)) noexcept {
    if (!in_domain(key)) {
      note_out_of_domain(1);
      return;
    }
    Count& c = counts_[static_cast<std::size_t>(key)];
    c = saturating_add(c, weight);
  }

  /// Adds 1 to the count of every id in `keys` (an id listed twice gets 2):
  /// the same result as add() on each, in one pass. Ids outside the domain
  /// are dropped and counts saturate, as add() does.
  void add_all(std::span<const key_type> keys) {
    add_batch(keys, [](std::size_t) { return Count(1); });
  }

  /// Adds weights[i] to the count of keys[i] for every i, as add() on each.
  /// Throws invalid_parameter naming `weights` unless there is one weight
  /// per key (a caller's mistake, not data: each record is a key and its
  /// weight).
  void add_all(std::span<const key_type> keys, std::span<const Count> weights) {
    detail::check_weights_size(keys.size(), weights.size());
    add_batch(keys, [weights](std::size_t i) { return weights[i]; });
  }

  /// The count of `key`: 0 for an id outside the domain (negative or 2^32
  /// and above included), as for a key never added to a sparse_histogram.
  template <integer_number K>
  [[nodiscard]] Count operator[](K key) const {
    return in_domain(key) ? counts_[static_cast<std::size_t>(key)] : Count(0);
  }

  /// Whether `key` is in the domain (every id of the domain is stored).
  template <integer_number K>
  [[nodiscard]] bool contains(K key) const noexcept {
    return in_domain(key);
  }
  /// The domain size n: ids are [0, n).
  [[nodiscard]] std::size_t size() const noexcept { return counts_.size(); }
  /// Whether the domain is empty (size() == 0), not whether all counts are 0.
  [[nodiscard]] bool empty() const noexcept { return counts_.empty(); }
  /// The counts, indexed by id.
  [[nodiscard]] std::span<const Count> counts() const noexcept { return counts_; }

  /// Adds another shard's counts, each sum saturating at Count's limits;
  /// the domain grows to the larger of the two. Never throws for any
  /// counts (only std::bad_alloc when the domain grows).
  void merge(const dense_histogram& other) {
    if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), Count(0));
    for (std::size_t i = 0; i < other.counts_.size(); ++i) {
      counts_[i] = saturating_add(counts_[i], other.counts_[i]);
    }
    note_out_of_domain(other.out_of_domain_);
  }

  /// How many updates named an id outside the domain and were dropped
  /// (saturating at 2^64 - 1). A function of the raw data: for diagnostics
  /// only, never to be released.
  [[nodiscard]] std::uint64_t out_of_domain() const noexcept { return out_of_domain_; }

  /// Every (id, count) of the domain, ascending by id.
  [[nodiscard]] std::vector<value_type> sorted_by_key() const {
    std::vector<value_type> out;
    out.reserve(counts_.size());
    for (const auto& e : entries()) out.push_back(e);
    return out;
  }

  /// The k entries with the largest counts, largest first; ties broken by
  /// the smaller id (zero counts take part: every id is stored).
  [[nodiscard]] std::vector<value_type> top_k(std::size_t k) const {
    return detail::top_k_entries<key_type, Count>(entries(), k);
  }

  /// The entries whose count is >= threshold, ascending by id.
  [[nodiscard]] std::vector<value_type> at_least(Count threshold) const {
    return detail::entries_at_least<key_type, Count>(entries(), threshold, true);
  }

  /// The nonzero counts as a sparse histogram (the keys that occurred, for
  /// positive weights).
  [[nodiscard]] sparse_histogram<key_type, Count> to_sparse() const {
    sparse_histogram<key_type, Count> out;
    for (const auto& [k, c] : entries()) {
      if (c != Count(0)) out.add(k, c);
    }
    return out;
  }

  /// A copy with noise on every id of the domain, in id order (a seeded
  /// generator gives the same release every run). `noise` is an integer
  /// sampler (noise(gen), its sample added at infinite precision and the
  /// sum saturated at Count's limits, e.g. discrete_laplace_distribution;
  /// integer Count only) or a mechanism (noise(count, gen), e.g.
  /// laplace_mechanism) whose output replaces the count. The result's count
  /// type is what the noise returns. O(n) samples.
  template <class Noise, random_bit_source G>
  [[nodiscard]] auto noisy(const Noise& noise, G& gen) const {
    using out_count = decltype(detail::apply_noise(noise, Count(0), gen));
    dense_histogram<out_count> out(counts_.size());
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      out.counts_[i] = detail::apply_noise(noise, counts_[i], gen);
    }
    return out;
  }

  /// Noise on every id of `keys` (ids outside the domain count 0), a key set
  /// fixed in advance from public data; the result is sparse, holding
  /// exactly those ids, keyed by the range's own integer type: a requested
  /// id of 2^32 + 3 is released as 2^32 + 3 (from a count of 0), never
  /// confused with id 3. Throws invalid_parameter naming `keys` for an id
  /// listed twice (it would be released twice), releasing nothing.
  template <std::ranges::input_range R, class Noise, random_bit_source G>
  requires integer_number<std::ranges::range_value_t<R>>
  [[nodiscard]] auto noisy_over(const R& keys, const Noise& noise, G& gen) const {
    using id_type = std::ranges::range_value_t<R>;
    using out_count = decltype(detail::apply_noise(noise, Count(0), gen));
    sparse_histogram<id_type, out_count> out;
    for (const auto& k : keys) {
      const id_type id = k;
      if (out.contains(id)) throw_invalid("keys", id, "distinct keys (this one is listed twice)");
      out.add(id, detail::apply_noise(noise, (*this)[id], gen));
    }
    return out;
  }

 private:
  template <histogram_count>
  friend class dense_histogram;

  static std::size_t check_domain(std::uint64_t domain) {
    if (domain > max_domain) throw_invalid("domain", domain, "[0, 2^32]");
    return static_cast<std::size_t>(domain);
  }

  // Compares at the key's own width (or 64 bits), so no key is converted
  // to a 32-bit id before it is known to be one.
  template <integer_number K>
  [[nodiscard]] bool in_domain(K key) const noexcept {
    if constexpr (std::is_signed_v<K>) {
      if (key < 0) return false;
    }
    using wide = std::common_type_t<std::make_unsigned_t<K>, std::uint64_t>;
    return static_cast<wide>(key) < static_cast<wide>(counts_.size());
  }

  // a + b, clamped to Count's range for integers (the nearer limit on
  // overflow); floating-point weights as sparse_histogram adds them
  // (detail::checked_add, which never throws for them).
  static Count saturating_add(Count a, Count b) noexcept {
    if constexpr (std::integral<Count>) {
      Count sum;
      if (!__builtin_add_overflow(a, b, &sum)) [[likely]]
        return sum;
      return b > Count(0) ? std::numeric_limits<Count>::max() : std::numeric_limits<Count>::min();
    } else {
      return detail::checked_add(a, b);
    }
  }

  void note_out_of_domain(std::uint64_t n) noexcept {
    out_of_domain_ =
        n > ~std::uint64_t{0} - out_of_domain_ ? ~std::uint64_t{0} : out_of_domain_ + n;
  }

  template <class WeightOf>
  void add_batch(std::span<const key_type> keys, WeightOf weight_of) {
    // A max over the batch vectorises: when every id is in the domain (the
    // usual case) the loop below needs no bounds check.
    key_type largest = 0;
    for (const auto k : keys) largest = std::max(largest, k);
    const bool all_in = keys.empty() || largest < counts_.size();
    Count* const counts = counts_.data();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (!all_in && keys[i] >= counts_.size()) {
        note_out_of_domain(1);
        continue;
      }
      Count& c = counts[keys[i]];
      c = saturating_add(c, weight_of(i));
    }
  }

  // Every (key, count) in key order, lazily (detail::generated, which
  // clang 14 builds, unlike std::views::iota | transform).
  [[nodiscard]] auto entries() const {
    return detail::generated(counts_.size(), [this](std::size_t i) {
      return value_type(static_cast<key_type>(i), counts_[i]);
    });
  }

  std::vector<Count> counts_;
  std::uint64_t out_of_domain_ = 0;
};

}  // namespace privet
