// privet/sketches/sparse_histogram.hpp — counts or weights per key over an
// unbounded key space (n-grams, pages, (page, country) pairs), kept only
// for the keys seen: add, batched add, merge of shards, top-k and threshold
// selection, and noise from any privet sampler or mechanism on every stored
// key. For keys that are dense ids in [0, n) (ngram_table's), a
// dense_histogram (dense_histogram.hpp) does the same without hashing.
//
// Storage is tsl::robin_map (open addressing, robin-hood probing), about 2x
// faster than std::unordered_map once the keys outgrow the caches
// (bench/README.md). Integer keys are hashed with a full-avalanche mix
// (std::hash is the identity on integers), string keys with XXH3
// (detail/string_hash.hpp, chosen by benchmark over std::hash and SipHash).
// The table takes a key's bucket from the high bits of its hash
// (detail::high_bits_growth_policy), so buckets are in hash order: a rehash
// streams through memory, and add_all, which sorts a large batch of integer
// keys by hash prefix first, visits the table front to back, each region's
// buckets in cache, instead of missing the cache on nearly every update of a
// large key set (about 1.5x add()'s rate at 10^6 distinct keys,
// bench/README.md; keys that are dense ids do far better in a
// dense_histogram).
//
// Counts and weights are data, so no update throws on them (issue 22: an
// exception caused by the data is an un-noised output that tells neighbours
// apart). An integer count saturates at Count's limits: an add, add_all or
// merge whose exact sum leaves Count stores Count's maximum (or minimum,
// for a negative weight) instead of wrapping, and is exact below that.
// x -> clamp(x + w) is 1-Lipschitz, so one record still moves each count by
// at most |w| and the histogram's sensitivity is unchanged
// (detail/histogram_ops.hpp). noisy() and noisy_over() with an integer
// sampler release the exact count + noise saturated at Count's limits, a
// post-processing of the exact noisy value, so a count at its limit never
// makes a release throw either. (dense_histogram saturates the same way.)
// Which keys are noised is the caller's business: noising only the
// stored keys releases which keys occurred, so a private release of the key
// set needs partition selection (mechanisms/partition_selection.hpp) or a key
// set fixed in advance (noisy_over).
//
// Keys are never narrowed. A key is counted, looked up and released under
// its own value or not at all, never converted to Key first (which would
// count int64 2^32 + 3 as the int32 key 3 and release key 3's count under
// 2^32 + 3's name):
//  - add() and noisy_over() refuse at compile time a key type that could
//    change value on the way: an integer with more value bits than an
//    integer Key, or a floating-point number, bool or enumeration for one
//    (static_assert: convert explicitly or use a wider Key);
//  - a narrower or equally wide integer is taken at its own type, and its
//    only values outside Key, negative ones for an unsigned Key, are data
//    outside the key domain: add() does not count such a record (it is
//    counted in out_of_domain() instead, so nothing is lost unseen). Dropping
//    records by a rule that reads each record alone is a 1-stable
//    transformation under the symmetric distance (adding or removing one
//    record adds or removes at most one counted record), so the histogram's
//    sensitivity is unchanged. noisy_over()'s keys are public parameters, and
//    one outside Key is refused there (invalid_parameter naming `keys`);
//  - operator[] and contains() take any integer: one outside Key finds 0
//    and false.
//
// Floating-point weights (Count a floating-point type) are data: a NaN
// weight adds 0, an infinite one the largest finite value of its sign, and a
// sum saturates there (detail/histogram_ops.hpp, which also shows the
// sensitivity of a bounded weight is kept), so no weight throws and every
// stored count is finite: top_k, at_least and noise see numbers only.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/hash.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/detail/histogram_ops.hpp>
#include <privet/sketches/detail/string_hash.hpp>
#include <privet/sketches/histogram_count.hpp>

#include <tsl/robin_map.h>

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet {

namespace detail {

/// std::hash, except a full-avalanche mix (murmur3's finaliser) for
/// integers, and transparent for strings so a string_view finds a string key.
/// (Also the key priority of key_bounding.hpp; sparse_histogram's table
/// hashes with histogram_table_hash below.)
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

/// The hash of sparse_histogram's table. Its high bits pick the bucket
/// (high_bits_growth_policy), so they must be mixed: integers get mix64,
/// strings XXH3, and any other key its histogram_hash passed through mix64,
/// because a std::hash may be the identity (enumerations) or leave the high
/// bits constant.
template <class Key>
struct histogram_table_hash {
  std::size_t operator()(const Key& k) const {
    return static_cast<std::size_t>(mix64(static_cast<std::uint64_t>(histogram_hash<Key>{}(k))));
  }
};
template <std::integral Key>
struct histogram_table_hash<Key> : histogram_hash<Key> {};
template <>
struct histogram_table_hash<std::string> : xxh3_string_hash {};
template <>
struct histogram_table_hash<std::string_view> : xxh3_string_hash {};

static_assert(sizeof(std::size_t) == sizeof(std::uint64_t),
              "privet: sparse_histogram's table takes buckets from the high bits of a 64-bit "
              "hash, so std::size_t must have 64 bits.");

/// A tsl::robin_map growth policy (the interface of tsl's own policies):
/// 2^m buckets, and a hash h goes to bucket floor(h 2^m / 2^64), its top m
/// bits. Buckets are then in hash order, which tsl's power-of-two policy
/// (the low m bits) does not give: a rehash reads the old table and writes
/// the new one front to back, and updates sorted by hash prefix touch one
/// region of the table at a time.
class high_bits_growth_policy {
 public:
  explicit high_bits_growth_policy(std::size_t& min_bucket_count_in_out) {
    if (min_bucket_count_in_out > max_bucket_count()) throw_too_large();
    if (min_bucket_count_in_out > 0)
      min_bucket_count_in_out = std::bit_ceil(min_bucket_count_in_out);
    buckets_ = min_bucket_count_in_out;
  }

  /// In [0, bucket count), and 0 when there are no buckets.
  [[nodiscard]] std::size_t bucket_for_hash(std::size_t hash) const noexcept {
    return static_cast<std::size_t>((static_cast<uint128>(hash) * buckets_) >> 64);
  }

  [[nodiscard]] std::size_t next_bucket_count() const {
    if (buckets_ > max_bucket_count() / 2) throw_too_large();
    return std::max<std::size_t>(buckets_, 1) * 2;
  }

  [[nodiscard]] std::size_t max_bucket_count() const noexcept { return std::size_t{1} << 62; }

  void clear() noexcept { buckets_ = 0; }

 private:
  [[noreturn]] static void throw_too_large() {
    throw overflow_error(
        "privet: a sparse_histogram's table would exceed its maximum size; allowed: at most "
        "2^62 buckets");
  }

  std::size_t buckets_ = 0;
};

/// A set of 64-bit hashes that empties in O(1) (each slot carries the
/// generation that filled it) and doubles when half full: the scratch with
/// which sparse_histogram::add_all counts the distinct new keys of each
/// partition of a sorted batch. Slots come from the hash's low bits, since
/// within a partition the high bits are all equal.
class hash_set_scratch {
 public:
  void clear() noexcept {
    size_ = 0;
    if (++generation_ == 0) {  // after 2^32 - 1 clears: make every slot empty again
      for (auto& s : slots_) s.generation = 0;
      generation_ = 1;
    }
  }

  /// Adds h: 1 if it was absent, 0 if present.
  std::size_t insert(std::uint64_t h) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
      if (slots_[i].generation != generation_) {
        slots_[i] = slot{h, generation_};
        ++size_;
        return 1;
      }
      if (slots_[i].hash == h) return 0;
    }
  }

 private:
  struct slot {
    std::uint64_t hash = 0;
    std::uint32_t generation = 0;
  };

  void grow() {
    std::vector<slot> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(64, 2 * old.size()), slot{});
    const std::size_t mask = slots_.size() - 1;
    for (const auto& s : old) {
      if (s.generation != generation_) continue;
      std::size_t i = static_cast<std::size_t>(s.hash) & mask;
      while (slots_[i].generation == generation_) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<slot> slots_;
  std::uint32_t generation_ = 1;
  std::size_t size_ = 0;
};

/// How a key of type K reaches a sparse_histogram<Key> (header comment,
/// "Keys are never narrowed"): unchanged (Key itself, or a conversion that
/// is no narrowing: a string literal to std::string); checked at run time
/// (an integer no wider than an integer Key); refused at compile time
/// (narrowing); or no key at all (no conversion).
enum class key_conversion { unchanged, checked, narrowing, none };

template <class K, class Key>
consteval key_conversion key_conversion_of() {
  using k = std::remove_cvref_t<K>;
  if constexpr (std::same_as<k, Key>) {
    return key_conversion::unchanged;
  } else if constexpr (integer_number<Key> && integer_number<k>) {
    return std::numeric_limits<k>::digits <= std::numeric_limits<Key>::digits
               ? key_conversion::checked
               : key_conversion::narrowing;
  } else if constexpr (!std::is_convertible_v<const k&, Key> &&
                       !std::is_constructible_v<Key, const k&>) {
    return key_conversion::none;
  } else if constexpr (integer_number<Key>) {
    return key_conversion::narrowing;  // floating-point, bool, enumeration, class
  } else if constexpr (requires(const k& x) { Key{x}; }) {
    return key_conversion::unchanged;  // a list initialisation: no narrowing
  } else {
    return key_conversion::narrowing;
  }
}

template <class K, class Key>
inline constexpr bool narrowing_key = key_conversion_of<K, Key>() == key_conversion::narrowing;

/// Whether integer `key` has a value of integer type Key (compared at 128
/// bits, so nothing is converted to Key before it is known to fit).
template <integer_number Key, integer_number K>
constexpr bool key_in_range(K key) noexcept {
  const int128 v = key;
  return v >= int128{std::numeric_limits<Key>::min()} &&
         v <= int128{std::numeric_limits<Key>::max()};
}

}  // namespace detail

/// Counts or weights per key over an unbounded key space, stored only for
/// the keys seen (a robin-hood hash table): add() and the lookups are
/// expected O(1), add_all() batches updates for cache locality, merge()
/// adds shards, top_k() and at_least() select, and noisy() / noisy_over()
/// release the counts with noise from any privet sampler or mechanism.
/// Counts and weights are data: integer counts saturate at Count's limits,
/// floating-point weights stay finite, and no update throws on them. A key
/// is never narrowed to Key (see the file comment). Releasing the stored
/// key set (noisy()) reveals which keys occurred: for a private key set use
/// partition selection or noisy_over() with keys fixed in advance.
///
/// @tparam Key an equality-comparable key (integers and std::string hash
///   specially; sorting and selection need it totally ordered).
/// @tparam Count a histogram_count: a built-in integer other than bool or a
///   floating-point type.
template <class Key, histogram_count Count = std::int64_t>
requires std::equality_comparable<Key>
class sparse_histogram {
  using map_type =
      tsl::robin_map<Key, Count, detail::histogram_table_hash<Key>, std::equal_to<>,
                     std::allocator<std::pair<Key, Count>>, false, detail::high_bits_growth_policy>;

 public:
  using key_type = Key;                      ///< The type of keys.
  using count_type = Count;                  ///< The type of counts and weights.
  using value_type = std::pair<Key, Count>;  ///< A (key, count) entry.

  /// Adds `weight` (default 1) to `key`'s count, saturating at Count's
  /// limits; a floating-point weight as the header says (NaN adds 0,
  /// infinities saturate). Throws for no key or weight (only std::bad_alloc,
  /// with nothing changed, when a new key needs memory).
  void add(const Key& key, Count weight = Count(1)) {
    const Count w = detail::finite_weight(weight);
    const auto [it, inserted] = counts_.try_emplace(key, w);
    if (!inserted) it.value() = detail::saturating_add(it->second, w);
  }

  /// add() for a key of another type, never narrowed (header comment): a
  /// type that could change the key's value does not compile; an integer
  /// outside Key (a negative one for an unsigned Key) is not counted, and
  /// out_of_domain() counts it instead.
  template <class K>
  requires(!std::same_as<std::remove_cvref_t<K>, Key> &&
           detail::key_conversion_of<K, Key>() !=
               detail::key_conversion::none) void add(const K& key, Count weight = Count(1)) {
    refuse_narrowing<K>();
    if constexpr (detail::key_conversion_of<K, Key>() == detail::key_conversion::checked) {
      if (!detail::key_in_range<Key>(key)) {
        ++out_of_domain_;
        return;
      }
      add(static_cast<Key>(key), weight);
    } else {
      add(Key(key), weight);
    }
  }

  /// Adds 1 to the count of every key in `keys` (a key listed twice gets 2):
  /// the same result as add() on each in turn, faster for large batches of
  /// small keys (integers; header comment): once the table outgrows the
  /// caches, slices of up to 2^21 updates are sorted by hash prefix and
  /// applied one table region at a time. String keys are applied in order.
  /// Counts saturate as add()'s do; no key or weight makes it throw. If
  /// memory runs out (std::bad_alloc) an integer histogram is left exactly
  /// as it was, saturated counts included.
  void add_all(std::span<const Key> keys) {
    add_batch(keys, [](std::size_t) { return Count(1); });
  }

  /// Adds weights[i] to the count of keys[i] for every i; as add_all(keys).
  /// Throws invalid_parameter naming `weights` unless there is one weight
  /// per key.
  void add_all(std::span<const Key> keys, std::span<const Count> weights) {
    detail::check_weights_size(keys.size(), weights.size());
    add_batch(keys, [weights](std::size_t i) { return detail::finite_weight(weights[i]); });
  }

  /// The count of `key` (0 if never added). An integer key is compared at
  /// its own value: one outside Key finds 0, never another key's count.
  template <class K>
  [[nodiscard]] Count operator[](const K& key) const {
    const auto it = find(key);
    return it == counts_.end() ? Count(0) : it->second;
  }

  /// Whether `key` was added (an integer outside Key: false).
  template <class K>
  [[nodiscard]] bool contains(const K& key) const {
    return find(key) != counts_.end();
  }
  /// The number of distinct keys stored.
  [[nodiscard]] std::size_t size() const noexcept { return counts_.size(); }
  /// Whether no key is stored.
  [[nodiscard]] bool empty() const noexcept { return counts_.empty(); }
  /// Makes room for `keys` distinct keys without rehashing (only
  /// std::bad_alloc).
  void reserve(std::size_t keys) { counts_.reserve(keys); }

  /// The number of records add() did not count because their integer key
  /// lies outside Key (header comment); merge() adds the shards' numbers.
  /// A function of the raw data: for diagnostics only, never to be released.
  [[nodiscard]] std::uint64_t out_of_domain() const noexcept { return out_of_domain_; }

  /// Adds another shard's counts, each sum saturating at Count's limits (the
  /// result equals one pass over both shards' records while no count
  /// saturates). Throws for no counts (only std::bad_alloc, when new keys
  /// need memory, which leaves the merge partly applied).
  void merge(const sparse_histogram& other) {
    for (const auto& [k, c] : other.counts_) add(k, c);
    // Saturating: 2^64 records are out of reach, and a wrap would undercount.
    out_of_domain_ = other.out_of_domain_ > ~out_of_domain_ ? ~std::uint64_t{0}
                                                            : out_of_domain_ + other.out_of_domain_;
  }

  /// The entries, sorted by key (a deterministic order for output and tests).
  [[nodiscard]] std::vector<value_type> sorted_by_key() const requires std::totally_ordered<Key> {
    std::vector<value_type> out(counts_.begin(), counts_.end());
    std::sort(out.begin(), out.end(), detail::smaller_key_first{});
    return out;
  }

  /// The k entries with the largest counts, largest first; ties broken by
  /// the smaller key, so the selection does not depend on hash order.
  [[nodiscard]] std::vector<value_type> top_k(
      std::size_t k) const requires std::totally_ordered<Key> {
    return detail::top_k_entries<Key, Count>(counts_, k);
  }

  /// The entries whose count is >= threshold, sorted by key. Throws
  /// invalid_parameter naming `threshold` if it is NaN.
  [[nodiscard]] std::vector<value_type> at_least(
      Count threshold) const requires std::totally_ordered<Key> {
    return detail::entries_at_least<Key, Count>(counts_, threshold, false);
  }

  /// A copy with noise on every stored key: `noise` is either an integer
  /// sampler (called as noise(gen), e.g. discrete_laplace_distribution,
  /// released as the exact count + sample saturated at Count's limits:
  /// header comment) or a mechanism (called as
  /// noise(count, gen), e.g. laplace_mechanism), whose output replaces the
  /// count. Keys are visited in key order, so a seeded generator gives the
  /// same release every run.
  template <class Noise, random_bit_source G>
  [[nodiscard]] auto noisy(const Noise& noise, G& gen) const requires std::totally_ordered<Key> {
    return noisy_over(sorted_keys(), noise, gen);
  }

  /// Noise on every key of `keys` (counts of absent keys are 0), so that
  /// the released key set is `keys`, fixed in advance from public data.
  /// Keys are never narrowed (header comment): a key type that could change
  /// a key's value does not compile. Throws invalid_parameter naming `keys`,
  /// releasing nothing, for a key listed twice (it would be released twice:
  /// two noisy copies of one count, each spending the budget) or an integer
  /// key outside Key (it would be released under another key's name).
  template <std::ranges::input_range R, class Noise, random_bit_source G>
  [[nodiscard]] auto noisy_over(const R& keys, const Noise& noise, G& gen) const {
    using in_key = std::ranges::range_value_t<R>;
    constexpr auto conversion = detail::key_conversion_of<in_key, Key>();
    refuse_narrowing<in_key>();
    static_assert(conversion != detail::key_conversion::none,
                  "privet: noisy_over's keys must be of a type the histogram's key type can be "
                  "made from.");
    using out_count = decltype(detail::apply_noise(noise, Count(0), gen));
    sparse_histogram<Key, out_count> out;
    for (const auto& k : keys) {
      if constexpr (conversion == detail::key_conversion::checked) {
        if (!detail::key_in_range<Key>(k)) {
          throw_invalid("keys", k,
                        "keys of the histogram's key type, [" +
                            detail::format_value(std::numeric_limits<Key>::min()) + ", " +
                            detail::format_value(std::numeric_limits<Key>::max()) + "]");
        }
      }
      const Key key(k);
      if (out.contains(key)) {
        throw_invalid("keys", key, "distinct keys (this one is listed twice)");
      }
      out.add(key, detail::apply_noise(noise, (*this)[key], gen));
    }
    return out;
  }

  /// Iteration over the stored (key, count) entries in the hash table's
  /// order, which is unspecified (sorted_by_key() gives a fixed order).
  ///@{
  auto begin() const { return counts_.begin(); }
  auto end() const { return counts_.end(); }
  ///@}

 private:
  // The one place that refuses a narrowing key type (header comment).
  template <class K>
  static constexpr void refuse_narrowing() noexcept {
    static_assert(!detail::narrowing_key<K, Key>,
                  "privet: this key type does not convert to the histogram's key type without "
                  "narrowing (a wider integer, or a floating-point, bool or enumeration value for "
                  "an integer key), so a key could be counted or released under another key's "
                  "name; convert it explicitly or use a wider key type.");
  }

  // The entry of `key`, compared at its own value (header comment).
  template <class K>
  [[nodiscard]] auto find(const K& key) const {
    if constexpr (integer_number<Key> && integer_number<K>) {
      if (!detail::key_in_range<Key>(key)) return counts_.end();
      return counts_.find(static_cast<Key>(key));
    } else {
      refuse_narrowing<K>();
      return counts_.find(key);
    }
  }

  // A batch is cut into slices: a first one of first_slice updates, applied
  // in order, which measures how often an update brings a new key; then
  // slices of at most slice_updates. A slice is applied in order while the
  // table it may grow to fits the caches; otherwise it is sorted by the top
  // `bits` bits of the hash (a radix sort, one pass per radix_bits), so
  // that the table is visited front to back, about region_bytes at a time:
  // its buckets stream through the cache instead of each update missing it.
  static constexpr std::size_t first_slice = std::size_t{1} << 16;
  static constexpr std::size_t slice_updates = std::size_t{1} << 21;
  static constexpr std::size_t min_sorted_slice = std::size_t{1} << 14;
  static constexpr std::size_t cached_table_bytes = std::size_t{1} << 20;
  static constexpr std::size_t region_bytes = std::size_t{1} << 15;
  static constexpr unsigned radix_bits = 11;
  static constexpr unsigned max_partition_bits = 2 * radix_bits;
  // A robin-hood bucket: the entry and its distance from its home bucket.
  static constexpr std::size_t bucket_bytes = sizeof(value_type) + sizeof(std::uint64_t);

  // Small keys travel with their item: looking keys[index] up in the
  // original order would miss the cache once per update, the very cost the
  // sort is there to avoid. Larger keys (strings) are looked up in place.
  static constexpr bool key_in_item =
      std::is_trivially_copyable_v<Key> && sizeof(Key) <= sizeof(std::uint64_t);
  struct no_key {};
  struct item {
    std::uint64_t hash;
    std::uint32_t index;  // within the slice
    std::uint32_t hit;    // 1 once applied in the lookup pass (its key was in the table)
    [[no_unique_address]] std::conditional_t<key_in_item, Key, no_key> key;
  };

  static const Key& key_of(const item& it, std::span<const Key> slice) noexcept {
    if constexpr (key_in_item) {
      return it.key;
    } else {
      return slice[it.index];
    }
  }

  // An update of the batch that saturated: its position in `keys` and the
  // count before it, which the saturated sum no longer determines.
  struct saturation {
    std::size_t index;
    Count before;
  };

  // The state of a batch, kept so that a failure can undo it.
  struct batch_state {
    std::vector<std::size_t> inserted;  // positions in `keys` of the keys it inserted
    std::vector<saturation> saturated;  // in the order applied; integer counts only
    std::size_t slice_begin = 0;
    std::size_t length = 0;     // of the current slice
    unsigned bits = 0;          // the current slice's sort, 0 for none
    std::size_t applied = 0;    // unsorted: updates of the slice applied, in order
    std::size_t looked_up = 0;  // sorted: items of `order` through the lookup pass
    std::size_t inserting = 0;  // sorted: entries of `missed` through the insert pass
    std::vector<item> order;
    std::vector<item> scratch;
    std::vector<std::uint32_t> missed;  // positions in `order` of the lookup pass's misses
    std::vector<std::uint32_t> counts;
  };

  // 0 to apply a slice of n updates in order; otherwise the number of
  // hash-prefix bits to sort it by. `new_rate` is the share of updates that
  // brought a new key in the previous slice (1 before any).
  [[nodiscard]] unsigned partition_bits(std::size_t n, double new_rate) const noexcept {
    // Keys that do not travel with their item (strings) cost a cache miss
    // each however the batch is ordered: measured slower sorted, so never.
    if (!key_in_item || n < min_sorted_slice) return 0;
    const auto entries =
        counts_.size() + static_cast<std::size_t>(static_cast<double>(n) * new_rate) + 1;
    // At the maximum load factor, 1/2.
    const std::size_t bytes = std::bit_ceil(2 * entries) * bucket_bytes;
    if (bytes <= cached_table_bytes) return 0;
    // No finer than the slice itself: more partitions than updates buy nothing.
    const auto bits = std::min(static_cast<unsigned>(std::bit_width(bytes / region_bytes)),
                               static_cast<unsigned>(std::bit_width(n)));
    return std::min(bits, max_partition_bits);
  }

  // One stable counting-sort pass of `from` into `to` by the `width` bits of
  // the hash that start `shift` bits from the bottom.
  static void radix_pass(const std::vector<item>& from, std::vector<item>& to, unsigned shift,
                         unsigned width, std::vector<std::uint32_t>& counts) {
    const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
    counts.assign((std::size_t{1} << width) + 1, 0);
    for (const auto& it : from) ++counts[((it.hash >> shift) & mask) + 1];
    for (std::size_t p = 1; p < counts.size(); ++p) counts[p] += counts[p - 1];
    to.resize(from.size());
    for (const auto& it : from) to[counts[(it.hash >> shift) & mask]++] = it;
  }

  // The slice's items, stably sorted by the top `bits` bits of their hash:
  // one radix pass, or two (least significant half first).
  void order_slice(std::span<const Key> slice, unsigned bits, batch_state& b) const {
    const detail::histogram_table_hash<Key> hash;
    const auto make_item = [&](std::size_t i, std::uint64_t h) {
      item it;
      it.hash = h;
      it.index = static_cast<std::uint32_t>(i);
      it.hit = 0;
      if constexpr (key_in_item) it.key = slice[i];
      return it;
    };
    if (bits <= radix_bits && std::is_integral_v<Key>) {
      // One pass, hashing twice (a few cycles for an integer) rather than
      // writing and reading back an array of hashes.
      const unsigned shift = 64 - bits;
      b.counts.assign((std::size_t{1} << bits) + 1, 0);
      for (const auto& k : slice) ++b.counts[(static_cast<std::uint64_t>(hash(k)) >> shift) + 1];
      for (std::size_t p = 1; p < b.counts.size(); ++p) b.counts[p] += b.counts[p - 1];
      b.order.resize(slice.size());
      for (std::size_t i = 0; i < slice.size(); ++i) {
        const auto h = static_cast<std::uint64_t>(hash(slice[i]));
        b.order[b.counts[h >> shift]++] = make_item(i, h);
      }
      return;
    }
    b.scratch.resize(slice.size());
    for (std::size_t i = 0; i < slice.size(); ++i) {
      b.scratch[i] = make_item(i, static_cast<std::uint64_t>(hash(slice[i])));
    }
    if (bits <= radix_bits) {
      radix_pass(b.scratch, b.order, 64 - bits, bits, b.counts);
    } else {
      const unsigned high = bits / 2, low = bits - high;
      radix_pass(b.scratch, b.order, 64 - bits, low, b.counts);
      radix_pass(b.order, b.scratch, 64 - high, high, b.counts);
      std::swap(b.order, b.scratch);
    }
  }

  template <class WeightOf>
  void add_batch(std::span<const Key> keys, WeightOf weight_of) {
    batch_state b;
    detail::hash_set_scratch seen;
    double new_rate = 1.0;
    try {
      for (; b.slice_begin < keys.size(); b.slice_begin += b.length) {
        b.length =
            std::min(b.slice_begin == 0 ? first_slice : slice_updates, keys.size() - b.slice_begin);
        const std::size_t size_before = counts_.size();
        b.applied = b.looked_up = b.inserting = 0;
        // The first slice goes in order: it is what measures new_rate.
        b.bits = b.slice_begin == 0 ? 0 : partition_bits(b.length, new_rate);
        if (b.bits == 0) {
          apply_in_order(keys, weight_of, b);
        } else {
          apply_sorted(keys, weight_of, b, seen);
        }
        new_rate =
            static_cast<double>(counts_.size() - size_before) / static_cast<double>(b.length);
      }
    } catch (...) {
      // Only an allocation can fail. Integer counts are restored exactly;
      // floating-point sums round, so a weighted batch of them stays partly
      // applied.
      if constexpr (std::integral<Count>) undo(keys, weight_of, b);
      throw;
    }
  }

  // count += weight_of(i), saturating (detail::saturating_add). An integer
  // update that saturates is logged with the count before it, the log
  // growing before the count changes: if the log cannot grow, the update
  // has not happened, as undo() assumes.
  void add_logged(Count& count, std::size_t i, Count w, batch_state& b) {
    if constexpr (std::integral<Count>) {
      Count sum;
      if (__builtin_add_overflow(count, w, &sum)) [[unlikely]] {
        b.saturated.push_back(saturation{i, count});
        sum = detail::saturating_add(count, w);
      }
      count = sum;
    } else {
      count = detail::saturating_add(count, w);
    }
  }

  template <class WeightOf>
  void apply_in_order(std::span<const Key> keys, WeightOf weight_of, batch_state& b) {
    for (; b.applied < b.length; ++b.applied) {
      const std::size_t i = b.slice_begin + b.applied;
      const auto [it, fresh] = counts_.try_emplace(keys[i], weight_of(i));
      if (fresh) {
        if constexpr (std::integral<Count>) {
          try {
            b.inserted.push_back(i);
          } catch (...) {
            counts_.erase(it);
            throw;
          }
        }
      } else {
        add_logged(it.value(), i, weight_of(i), b);
      }
    }
  }

  // Two passes over the sorted slice. The lookup pass applies the updates
  // of keys already in the table and sets the others aside, counting their
  // distinct keys; the table is then grown once to hold them, and the insert
  // pass adds them. Growing first matters: inserting sorted keys into a
  // table still far below its final size would pile each region's keys
  // into a few buckets. Every key gets its updates in their order in `keys`
  // (a key is either found in the lookup pass for all its updates or for
  // none of them).
  template <class WeightOf>
  void apply_sorted(std::span<const Key> keys, WeightOf weight_of, batch_state& b,
                    detail::hash_set_scratch& seen) {
    const auto slice = keys.subspan(b.slice_begin, b.length);
    order_slice(slice, b.bits, b);
    b.missed.clear();
    std::size_t new_keys = 0;
    const unsigned shift = 64 - b.bits;
    std::uint64_t partition = 0;
    seen.clear();
    for (; b.looked_up < b.order.size(); ++b.looked_up) {
      item& it = b.order[b.looked_up];
      if ((it.hash >> shift) != partition) {
        partition = it.hash >> shift;
        seen.clear();  // equal keys share a hash, hence a partition
      }
      const std::size_t i = b.slice_begin + it.index;
      const auto found = counts_.find(key_of(it, slice), static_cast<std::size_t>(it.hash));
      if (found != counts_.end()) {
        add_logged(found.value(), i, weight_of(i), b);
        it.hit = 1;
      } else {
        b.missed.push_back(static_cast<std::uint32_t>(b.looked_up));
        // A 64-bit hash shared by two new keys only makes the reserve one short.
        new_keys += seen.insert(it.hash);
      }
    }
    counts_.reserve(counts_.size() + new_keys);
    for (; b.inserting < b.missed.size(); ++b.inserting) {
      const item& it = b.order[b.missed[b.inserting]];
      const std::size_t i = b.slice_begin + it.index;
      const Key& key = key_of(it, slice);
      const auto found = counts_.find(key, static_cast<std::size_t>(it.hash));
      if (found != counts_.end()) {
        add_logged(found.value(), i, weight_of(i), b);
      } else {
        // Recorded first: if the insertion fails, erasing an absent key is harmless.
        if constexpr (std::integral<Count>) b.inserted.push_back(i);
        counts_.emplace(key, weight_of(i));
      }
    }
  }

  // Reverts a failed batch: takes back every update applied so far (all
  // updates before the current slice, and those of the current slice that
  // its passes got through), then erases the keys the batch inserted. Each
  // key's updates were applied in their order in `keys` (in a sorted slice
  // a key's updates all fall in one pass, in a stable order), so visiting
  // the applied updates by decreasing position takes back each key's
  // updates in reverse: an exact one by subtracting its weight, a saturated
  // one by restoring the count logged before it. Allocates nothing.
  template <class WeightOf>
  void undo(std::span<const Key> keys, WeightOf weight_of, batch_state& b) noexcept {
    // By position, for a binary search (the log is empty unless a count
    // saturated; std::sort does not allocate).
    std::sort(b.saturated.begin(), b.saturated.end(),
              [](const saturation& x, const saturation& y) { return x.index < y.index; });
    const auto undo_one = [&](std::size_t i) {
      const auto it =
          std::lower_bound(b.saturated.begin(), b.saturated.end(), i,
                           [](const saturation& x, std::size_t pos) { return x.index < pos; });
      auto& c = counts_.find(keys[i]).value();
      if (it != b.saturated.end() && it->index == i) {
        c = it->before;
      } else {
        c = static_cast<Count>(c - weight_of(i));  // exact: this update's sum fitted
      }
    };
    if (b.bits == 0) {
      for (std::size_t a = b.applied; a-- > 0;) undo_one(b.slice_begin + a);
    } else {
      for (std::size_t a = b.inserting; a-- > 0;) {
        undo_one(b.slice_begin + b.order[b.missed[a]].index);
      }
      for (std::size_t a = b.looked_up; a-- > 0;) {
        if (b.order[a].hit == 1) undo_one(b.slice_begin + b.order[a].index);
      }
    }
    for (std::size_t i = b.slice_begin; i-- > 0;) undo_one(i);
    for (const auto i : b.inserted) counts_.erase(keys[i]);
  }

  std::vector<Key> sorted_keys() const {
    std::vector<Key> keys;
    keys.reserve(counts_.size());
    for (const auto& [k, c] : counts_) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  map_type counts_;
  std::uint64_t out_of_domain_ = 0;
};

}  // namespace privet
