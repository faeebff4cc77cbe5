// privet/sketches/key_bounding.hpp — contribution bounding per key: from a
// stream of (unit, key) records, count each key, where every privacy unit
// contributes to at most `max_keys` distinct keys (L0) and at most
// `max_per_key` to each (L-infinity). The pageview histogram (k distinct
// pages per actor-day) and DPNE (Delta_0 n-grams per user) both start here.
//
// Which keys a unit keeps is a uniformly random subset of its distinct keys,
// chosen in one pass with memory proportional to units x max_keys (not to
// the keys a unit has): each (unit, key) pair gets a pseudo-random priority
// from a seeded 64-bit mix, and a unit keeps the max_keys keys of smallest
// priority (a bottom-k sketch, so every subset of max_keys of its distinct
// keys is equally likely). A key that is not kept when it first appears can
// never be kept later (the unit's k-th priority only falls), so the counts of
// the keys kept are complete. The randomness only chooses among stable
// outcomes; privacy comes from the noise added after, not from it. Since the
// keep depends only on each unit's set of distinct keys, bound_keys::start()
// gives the same bound fed in chunks from a stream (a day read once from a
// file) in memory proportional to the kept (unit, key) pairs, not the records.
//
// Stability: removing d units changes at most d * max_keys keys, each by at
// most d * max_per_key, so unit distance d becomes partition distance
// {d max_keys, d max_per_key}.
//
// Counts are data and never make the bounding throw: a key's count (and
// l2_normalized_keys' weighted sum) saturates at int64's maximum, 2^63 - 1,
// instead of overflowing. x -> min(x + w, 2^63 - 1) is 1-Lipschitz, so a
// unit still moves each count by at most its own contribution and the
// stability above holds unchanged. Sums that cannot reach the limit (fewer
// than 2^63 / max_per_key units) take the unchecked path.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/hash.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/lazy_range.hpp>
#include <privet/core/error.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/contribution_bounding.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <tsl/robin_map.h>
#include <tsl/robin_set.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace privet {

namespace detail {

/// h[key] += w for a weight w >= 0, saturating at 2^63 - 1 (header comment).
template <class Key>
void add_saturating(sparse_histogram<Key, std::int64_t>& h, const Key& key, std::int64_t w) {
  const std::int64_t room = std::numeric_limits<std::int64_t>::max() - h[key];
  h.add(key, std::min(w, room));
}

/// Adds every count of `from` to `into`, each sum saturating at 2^63 - 1:
/// the merge of shards whose counts are data.
template <class Key>
void merge_saturating(sparse_histogram<Key, std::int64_t>& into,
                      const sparse_histogram<Key, std::int64_t>& from) {
  for (const auto& [key, c] : from) add_saturating(into, key, c);
}

/// Whether `units` units adding at most `per_unit` each to a count could
/// take it past 2^63 - 1 (then the sums take the saturating path).
inline bool may_saturate(std::uint64_t units, std::uint64_t per_unit) noexcept {
  return per_unit != 0 &&
         units > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / per_unit;
}

}  // namespace detail

/// Per-unit contribution bounding of a key count, as in Wilson et al. (2020,
/// "Differentially private SQL with bounded user contribution"): from
/// (unit, key) records, each privacy unit keeps at most `max_keys` of its
/// distinct keys (L0; a uniformly random subset, chosen by a seeded
/// bottom-k rule: see the file comment) and counts at most `max_per_key`
/// records for each kept key (L-infinity). The result is the key histogram
/// of the bounded records, a stable transformation from unit distance d to
/// partition distance {d max_keys, d max_per_key}, ready for noise and
/// partition selection. One pass, expected O(1) per record beyond a scan of
/// the unit's kept keys (O(max_keys)), memory O(units x max_keys);
/// start() streams the same bound in chunks. Counts saturate at 2^63 - 1
/// and no record makes it throw.
///
/// @tparam Unit the privacy unit (hashed by std::hash, integers mixed).
/// @tparam Key the key counted (likewise hashable).
template <class Unit, class Key>
requires std::equality_comparable<Unit> && std::equality_comparable<Key>
class bound_keys : public pipeline_step {
 public:
  using input_metric = unit_distance;          ///< Neighbouring inputs differ in whole units.
  using output_metric = partition_distance;    ///< {keys changed, change per key}.
  using record_type = unit_record<Unit, Key>;  ///< A (unit, key) record.

  /// @param max_keys the most distinct keys a unit keeps, >= 1.
  /// @param max_per_key the most a unit adds to one key, in [1, 2^63 - 1].
  /// @throws invalid_parameter naming `max_keys` or `max_per_key` when it
  ///   is out of range.
  bound_keys(std::uint64_t max_keys, std::uint64_t max_per_key)
      : max_keys_(validate_at_least<std::uint64_t>(max_keys, 1, "max_keys")),
        max_per_key_(validate_at_least<std::uint64_t>(max_per_key, 1, "max_per_key")) {
    if (max_per_key_ > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw_invalid("max_per_key", max_per_key_, "[1, 2^63 - 1]");
    }
  }

  /// The bounded counts: sum over units of min(occurrences, max_per_key) for
  /// each key the unit kept. Deterministic for a seeded generator (one draw).
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to<std::ranges::range_value_t<R>, record_type>
      sparse_histogram<Key, std::int64_t>
  operator()(const R& records, G& gen) const { return counts(records, random_u64(gen)); }

  /// The same counts computed by `threads` threads, each bounding the units
  /// whose hash falls in its shard (one pass to split, then one per shard),
  /// merged at the end. Every unit is bounded with the same salt, so the
  /// result equals the single-threaded one for the same generator state.
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to<std::ranges::range_value_t<R>, record_type>
      sparse_histogram<Key, std::int64_t>
  operator()(const R& records, G& gen, unsigned threads) const {
    validate_at_least<unsigned>(threads, 1, "threads");
    const std::uint64_t salt = random_u64(gen);
    if (threads == 1) return counts(records, salt);
    const detail::histogram_hash<Unit> unit_hash;
    std::vector<std::vector<record_type>> shards(threads);
    for (const auto& rec : records) {
      const record_type r = rec;
      shards[mix(unit_hash(r.unit)) % threads].push_back(r);
    }
    std::vector<sparse_histogram<Key, std::int64_t>> parts(threads);
    std::vector<std::exception_ptr> errors(threads);
    {
      std::vector<std::thread> workers;
      workers.reserve(threads);
      for (unsigned t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
          try {
            parts[t] = counts(shards[t], salt);
          } catch (...) {
            errors[t] = std::current_exception();
          }
        });
      }
      for (auto& w : workers) w.join();
    }
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    for (unsigned t = 1; t < threads; ++t) detail::merge_saturating(parts[0], parts[t]);
    return std::move(parts[0]);
  }

  /// Calls visit(unit, kept) once per unit with the keys it kept, where
  /// kept is a range of {key, occurrences} (occurrences not yet capped at
  /// max_per_key), for a given salt. The building block of the counts, the
  /// L2-normalised weights and the per-window bound.
  template <std::ranges::input_range R, class Visit>
  requires std::convertible_to<std::ranges::range_value_t<R>, record_type>
  void select(const R& records, std::uint64_t salt, Visit&& visit) const {
    if constexpr (std::default_initializable<Key>) {
      if (max_keys_ <= flat_max_keys) return select_flat(records, salt, visit);
    }
    const detail::histogram_hash<Unit> unit_hash;
    tsl::robin_map<Unit, unit_state, detail::histogram_hash<Unit>, std::equal_to<>> units;
    for (const auto& rec : records) {
      const record_type r = rec;
      unit_state& mine = units[r.unit];
      auto& kept = mine.kept;
      if (kept.capacity() == 0) kept.reserve(std::min<std::uint64_t>(max_keys_, 16));
      auto it = std::find_if(kept.begin(), kept.end(),
                             [&](const kept_key& k) { return k.key == r.value; });
      if (it != kept.end()) {
        ++it->count;
        continue;
      }
      const std::uint64_t p = priority(salt, mix(unit_hash(r.unit)), r.value);
      if (kept.size() < max_keys_) {
        kept.push_back(kept_key{p, r.value, 1});
        if (kept.size() == max_keys_) mine.worst = worst_of(kept);
        continue;
      }
      // Full: the new key replaces the largest priority if it beats it; the
      // largest is tracked, so a row that does not displace costs O(1)
      // beyond the scan.
      if (p < kept[mine.worst].priority) {
        kept[mine.worst] = kept_key{p, r.value, 1};
        mine.worst = worst_of(kept);
      }
    }
    for (const auto& [unit, mine] : units) visit(unit, std::span<const kept_key>(mine.kept));
  }

  /// One key a unit kept, as select() and accumulator::visit() report it.
  struct kept_key {
    std::uint64_t priority;  ///< Its pseudo-random (salt, unit, key) priority; smallest kept.
    Key key;                 ///< The key.
    std::uint64_t count;     ///< The unit's occurrences of it (see where it is reported).
  };

  /// {d_in max_keys, d_in max_per_key}: removing d_in units changes at most
  /// d_in max_keys counts, each by at most d_in max_per_key (the latter
  /// rounded up to a double). Throws overflow_error if d_in times a bound
  /// does not fit in 64 bits.
  [[nodiscard]] partition_distance::distance_type stability(
      unit_distance::distance_type d_in) const {
    const auto times = [&](std::uint64_t bound, const char* name) {
      if (d_in != 0 && bound > std::numeric_limits<std::uint64_t>::max() / d_in) {
        throw overflow_error("privet: bound_keys stability d_in * " + std::string(name) + " = " +
                             std::to_string(d_in) + " * " + std::to_string(bound) +
                             " overflows 64 bits; allowed: a product < 2^64");
      }
      return d_in * bound;
    };
    const std::uint64_t per_key = times(max_per_key_, "max_per_key");
    // Rounded up: a per-partition bound must never shrink on its way to a double.
    double per = static_cast<double>(per_key);
    if (static_cast<long double>(per) < static_cast<long double>(per_key)) {
      per = std::nextafter(per, std::numeric_limits<double>::infinity());
    }
    return {times(max_keys_, "max_keys"), per};
  }

  /// The L0 bound: distinct keys kept per unit.
  [[nodiscard]] std::uint64_t max_keys() const noexcept { return max_keys_; }
  /// The L-infinity bound: the most a unit adds to one key.
  [[nodiscard]] std::uint64_t max_per_key() const noexcept { return max_per_key_; }

  /// The same bound, fed one record or one chunk at a time (a day read once
  /// from a file): memory grows with the distinct (unit, kept key) pairs and
  /// the units, not with the records. A unit's kept keys are the bottom-k of
  /// the same priorities as select()'s, and which keys those are does not
  /// depend on the order the records come in (only their set of distinct
  /// keys per unit matters), so counts() equals operator()'s for the same
  /// salt on any order of the same records. (The one exception would be two
  /// distinct keys of one unit with equal 64-bit priorities, where which
  /// of the tied keys is kept follows the order in either class.)
  ///
  /// Layout, for memory: units sit in 64 open-addressing tables (linear
  /// probing, load between 1/2 and 4/5, growing by half) picked by their
  /// hash, so a table's growth copies 1/64 of the units, never all at once.
  /// An entry is the unit and one word: its number of kept keys (24 bits)
  /// and where its keys are (40 bits), 16 bytes for a 64-bit unit. The keys
  /// are in blocks of a few sizes (1, 2, 3, 4, 6, 9, ... up to max_keys)
  /// carved from pages of 2^16 slots (a block over 1024 slots gets its own
  /// allocation); a unit whose block is full moves to the next size and its
  /// old block goes on a free list for the next unit that grows. Priorities
  /// are not stored but recomputed from (salt, unit, key), and a full unit
  /// keeps its largest-priority key in its first slot: a row with a new key
  /// then costs two priorities (its own and the first slot's), and a
  /// replacement max_keys. Occurrence counts are stored only when
  /// max_per_key > 1, capped there.
  class accumulator {
   public:
    /// Adds one record (unit, key). Never throws for any record (only
    /// std::bad_alloc).
    void add(const record_type& r) { add(r.unit, r.value); }
    /// Adds every record of a range (a chunk), in order.
    template <std::ranges::input_range R>
    requires std::convertible_to < std::ranges::range_reference_t<R>,
    const record_type& > void add(const R& records) {
      for (const record_type& r : records) add(r.unit, r.value);
    }

    /// Adds the record (unit, key): expected O(1) for the unit's lookup
    /// plus O(size) for a scan of its kept keys (O(max_keys) priorities
    /// when a full unit's largest-priority key is replaced).
    void add(const Unit& unit, const Key& key) {
      const std::uint64_t mu = mix(detail::histogram_hash<Unit>{}(unit));
      table& t = tables_[mu >> (64 - table_bits)];
      if ((t.used + 1) * 5 > t.entries.size() * 4) grow(t);
      const std::size_t n = t.entries.size();
      for (std::size_t i = home(mu, n);; i = i + 1 == n ? 0 : i + 1) {
        entry& e = t.entries[i];
        if (e.word == 0) {
          const std::uint64_t block = allocate(0);
          e.unit = unit;
          e.word = pack(block, 1);
          key_at(block, 0) = key;
          if (counted_) count_at(block, 0) = 1;
          ++t.used;
          ++units_;
          ++kept_;
          return;
        }
        if (e.unit == unit) return add_to(e, mu, key);
      }
    }

    /// The bounded counts: sum over units of min(occurrences, max_per_key)
    /// for each key kept, saturating at 2^63 - 1 (header comment).
    [[nodiscard]] sparse_histogram<Key, std::int64_t> counts() const {
      sparse_histogram<Key, std::int64_t> out;
      std::uint64_t units = 0;
      for (const table& t : tables_) {
        for (const entry& e : t.entries) {
          if (e.word == 0) continue;
          const bool saturate = detail::may_saturate(++units, bound_.max_per_key_);
          const std::uint64_t block = block_of(e), size = size_of(e);
          for (std::uint64_t j = 0; j < size; ++j) {
            const auto w = static_cast<std::int64_t>(counted_ ? count_at(block, j) : 1);
            if (saturate) {
              detail::add_saturating(out, key_at(block, j), w);
            } else {
              out.add(key_at(block, j), w);
            }
          }
        }
      }
      return out;
    }

    /// Calls visit(unit, kept) once per unit, kept a span of kept_key with
    /// the priority recomputed and the occurrences capped at max_per_key:
    /// select()'s visit, in another unit order.
    template <class Visit>
    void visit(Visit&& f) const {
      std::vector<kept_key> kept;
      for (const table& t : tables_) {
        for (const entry& e : t.entries) {
          if (e.word == 0) continue;
          const std::uint64_t mu = mix(detail::histogram_hash<Unit>{}(e.unit));
          const std::uint64_t block = block_of(e), size = size_of(e);
          kept.clear();
          for (std::uint64_t j = 0; j < size; ++j) {
            const Key& k = key_at(block, j);
            kept.push_back(kept_key{priority(salt_, mu, k), k, counted_ ? count_at(block, j) : 1});
          }
          f(std::as_const(e.unit), std::span<const kept_key>(kept));
        }
      }
    }

    /// The number of distinct units seen.
    [[nodiscard]] std::uint64_t units() const noexcept { return units_; }
    /// The number of (unit, key) pairs kept now.
    [[nodiscard]] std::uint64_t kept() const noexcept { return kept_; }
    /// Bytes held by the tables, pages and free lists (not the allocator's
    /// own overhead): divided by kept(), the cost of a kept pair.
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
      std::size_t b = pages_.size() * page_slots * (sizeof(Key) + (counted_ ? 8 : 0));
      for (const table& t : tables_) b += t.entries.capacity() * sizeof(entry);
      for (const auto& f : free_) b += f.capacity() * sizeof(std::uint64_t);
      for (const auto& l : large_) b += l.keys.capacity() * sizeof(Key) + l.counts.capacity() * 8;
      return b;
    }
    /// The salt of the priorities (start_salted(salt()) keeps the same keys).
    [[nodiscard]] std::uint64_t salt() const noexcept { return salt_; }
    /// The bound's max_keys.
    [[nodiscard]] std::uint64_t max_keys() const noexcept { return bound_.max_keys_; }

   private:
    friend class bound_keys;
    accumulator(const bound_keys& b, std::uint64_t salt)
        : bound_(b), salt_(salt), counted_(b.max_per_key_ > 1) {
      if (b.max_keys_ > size_mask) {
        throw_invalid("max_keys", b.max_keys_, "[1, 2^24 - 1] for a streaming bound");
      }
      // Block sizes grow by half (at least one) up to max_keys.
      for (std::uint64_t c = 1;; c = std::max(c + 1, c + c / 2)) {
        sizes_.push_back(std::min(c, b.max_keys_));
        if (c >= b.max_keys_) break;
      }
      free_.resize(sizes_.size());
    }

    // word = block << 24 | size; 0 marks an empty entry (a unit keeps >= 1 key).
    struct entry {
      Unit unit{};
      std::uint64_t word = 0;
    };
    struct table {
      std::vector<entry> entries;
      std::size_t used = 0;
    };
    struct large_block {
      std::vector<Key> keys;
      std::vector<std::uint64_t> counts;
    };
    static constexpr unsigned table_bits = 6;
    static constexpr std::uint64_t size_mask = (std::uint64_t{1} << 24) - 1;
    static constexpr std::uint64_t page_slots = std::uint64_t{1} << 16;
    static constexpr std::uint64_t large_slots = 1024;
    // A block is a slot number below 2^39, or large_bit | an index into large_.
    static constexpr std::uint64_t large_bit = std::uint64_t{1} << 39;

    static std::uint64_t pack(std::uint64_t block, std::uint64_t size) {
      return (block << 24) | size;
    }
    static std::uint64_t block_of(const entry& e) { return e.word >> 24; }
    static std::uint64_t size_of(const entry& e) { return e.word & size_mask; }
    // The home slot of a unit in a table of n entries: the hash bits below
    // the table's, scaled to [0, n).
    static std::size_t home(std::uint64_t mu, std::size_t n) {
      return static_cast<std::size_t>((static_cast<detail::uint128>(mu << table_bits) * n) >> 64);
    }

    void add_to(entry& e, std::uint64_t mu, const Key& key) {
      std::uint64_t block = block_of(e);
      const std::uint64_t size = size_of(e);
      for (std::uint64_t j = 0; j < size; ++j) {
        if (key_at(block, j) == key) {
          if (counted_) {
            std::uint64_t& c = count_at(block, j);
            c = std::min(c + 1, bound_.max_per_key_);  // never past max_per_key: no overflow
          }
          return;
        }
      }
      if (size < bound_.max_keys_) {
        const std::size_t cls = size_class(size);
        if (sizes_[cls] == size) block = move_block(block, size, cls + 1);
        key_at(block, size) = key;
        if (counted_) count_at(block, size) = 1;
        e.word = pack(block, size + 1);
        ++kept_;
        if (size + 1 == bound_.max_keys_) largest_first(block, size + 1, mu);
        return;
      }
      // Full: a key that does not beat the largest kept priority (slot 0)
      // is never kept (select()'s rule; the largest only falls).
      if (priority(salt_, mu, key) < priority(salt_, mu, key_at(block, 0))) {
        key_at(block, 0) = key;
        if (counted_) count_at(block, 0) = 1;
        largest_first(block, size, mu);
      }
    }

    // Moves the key of largest priority to slot 0.
    void largest_first(std::uint64_t block, std::uint64_t size, std::uint64_t mu) {
      std::uint64_t w = 0;
      std::uint64_t pw = priority(salt_, mu, key_at(block, 0));
      for (std::uint64_t j = 1; j < size; ++j) {
        const std::uint64_t p = priority(salt_, mu, key_at(block, j));
        if (p > pw) {
          pw = p;
          w = j;
        }
      }
      if (w == 0) return;
      using std::swap;
      swap(key_at(block, 0), key_at(block, w));
      if (counted_) swap(count_at(block, 0), count_at(block, w));
    }

    // The class of a block holding `size` keys: the smallest size >= it.
    std::size_t size_class(std::uint64_t size) const {
      return static_cast<std::size_t>(std::lower_bound(sizes_.begin(), sizes_.end(), size) -
                                      sizes_.begin());
    }

    std::uint64_t move_block(std::uint64_t from, std::uint64_t size, std::size_t cls) {
      const std::uint64_t to = allocate(cls);
      for (std::uint64_t j = 0; j < size; ++j) {
        key_at(to, j) = std::move(key_at(from, j));
        if (counted_) count_at(to, j) = count_at(from, j);
      }
      free_[cls - 1].push_back(from);
      return to;
    }

    std::uint64_t allocate(std::size_t cls) {
      if (!free_[cls].empty()) {
        const std::uint64_t b = free_[cls].back();
        free_[cls].pop_back();
        return b;
      }
      const std::uint64_t n = sizes_[cls];
      if (n > large_slots) {  // its own allocation: a page would waste too much
        large_.push_back(
            large_block{std::vector<Key>(n), std::vector<std::uint64_t>(counted_ ? n : 0)});
        return large_bit | (large_.size() - 1);
      }
      if (pages_.empty() || page_used_ + n > page_slots) {
        pages_.push_back(std::make_unique<Key[]>(page_slots));
        if (counted_) count_pages_.push_back(std::make_unique<std::uint64_t[]>(page_slots));
        page_used_ = 0;
      }
      const std::uint64_t b = (pages_.size() - 1) * page_slots + page_used_;
      page_used_ += n;
      return b;
    }

    Key& key_at(std::uint64_t block, std::uint64_t j) {
      if (block & large_bit) return large_[block & ~large_bit].keys[j];
      const std::uint64_t slot = block + j;
      return pages_[slot / page_slots][slot % page_slots];
    }
    const Key& key_at(std::uint64_t block, std::uint64_t j) const {
      return const_cast<accumulator*>(this)->key_at(block, j);
    }
    std::uint64_t& count_at(std::uint64_t block, std::uint64_t j) {
      if (block & large_bit) return large_[block & ~large_bit].counts[j];
      const std::uint64_t slot = block + j;
      return count_pages_[slot / page_slots][slot % page_slots];
    }
    const std::uint64_t& count_at(std::uint64_t block, std::uint64_t j) const {
      return const_cast<accumulator*>(this)->count_at(block, j);
    }

    void grow(table& t) {
      const std::size_t n = std::max<std::size_t>(16, t.entries.size() + t.entries.size() / 2);
      std::vector<entry> old = std::exchange(t.entries, std::vector<entry>(n));
      for (entry& e : old) {
        if (e.word == 0) continue;
        std::size_t i = home(mix(detail::histogram_hash<Unit>{}(e.unit)), n);
        while (t.entries[i].word != 0) i = i + 1 == n ? 0 : i + 1;
        t.entries[i] = std::move(e);
      }
    }

    bound_keys bound_;
    std::uint64_t salt_;
    bool counted_;
    std::vector<std::uint64_t> sizes_;
    std::array<table, std::size_t{1} << table_bits> tables_{};
    std::vector<std::unique_ptr<Key[]>> pages_;
    std::vector<std::unique_ptr<std::uint64_t[]>> count_pages_;
    std::uint64_t page_used_ = 0;
    std::vector<std::vector<std::uint64_t>> free_;
    std::vector<large_block> large_;
    std::uint64_t units_ = 0, kept_ = 0;
  };

  /// A streaming bound whose salt is one draw from gen: fed the records of
  /// operator()'s range in any order, its counts() equal operator()'s for
  /// the same generator state. Throws invalid_parameter naming max_keys if
  /// it exceeds 2^24 - 1 (a unit's kept keys are counted in 24 bits).
  template <random_bit_source G>
  requires std::default_initializable<Unit> && std::default_initializable<Key> && std::movable<Key>
  [[nodiscard]] accumulator start(G& gen) const { return accumulator(*this, random_u64(gen)); }
  /// The same for a given salt (select()'s).
  [[nodiscard]] accumulator start_salted(std::uint64_t salt) const requires
      std::default_initializable<Unit> && std::default_initializable<Key> && std::movable<Key> {
    return accumulator(*this, salt);
  }

 private:
  // Up to this many keys per unit, every unit gets a fixed block of
  // max_keys slots in one flat array: one hash lookup and one contiguous
  // block per row instead of a heap vector per unit (memory units x
  // max_keys x 24 bytes, bounded because max_keys is small).
  static constexpr std::uint64_t flat_max_keys = 16;

  template <class R, class Visit>
  void select_flat(const R& records, std::uint64_t salt, Visit& visit) const {
    const detail::histogram_hash<Unit> unit_hash;
    const auto k = static_cast<std::size_t>(max_keys_);
    struct header {
      std::uint32_t size = 0;
      std::uint32_t worst = 0;
    };
    tsl::robin_map<Unit, std::size_t, detail::histogram_hash<Unit>, std::equal_to<>> index;
    std::vector<Unit> unit_of;
    std::vector<header> headers;
    std::vector<kept_key> slots;
    for (const auto& rec : records) {
      const record_type r = rec;
      auto [it, fresh] = index.try_emplace(r.unit, headers.size());
      if (fresh) {
        unit_of.push_back(r.unit);
        headers.emplace_back();
        slots.resize(slots.size() + k);
      }
      const std::size_t u = it->second;
      kept_key* block = slots.data() + u * k;
      header& h = headers[u];
      kept_key* const end = block + h.size;
      kept_key* found =
          std::find_if(block, end, [&](const kept_key& x) { return x.key == r.value; });
      if (found != end) {
        ++found->count;
        continue;
      }
      const std::uint64_t p = priority(salt, mix(unit_hash(r.unit)), r.value);
      if (h.size < k) {
        block[h.size++] = kept_key{p, r.value, 1};
        if (h.size == k) h.worst = static_cast<std::uint32_t>(worst_in(block, k));
        continue;
      }
      if (p < block[h.worst].priority) {
        block[h.worst] = kept_key{p, r.value, 1};
        h.worst = static_cast<std::uint32_t>(worst_in(block, k));
      }
    }
    for (std::size_t u = 0; u < headers.size(); ++u) {
      visit(unit_of[u], std::span<const kept_key>(slots.data() + u * k, headers[u].size));
    }
  }

  static std::size_t worst_in(const kept_key* block, std::size_t n) {
    std::size_t w = 0;
    for (std::size_t i = 1; i < n; ++i)
      if (block[i].priority > block[w].priority) w = i;
    return w;
  }

  struct unit_state {
    std::vector<kept_key> kept;
    std::size_t worst = 0;  // index of the largest priority once full
  };

  static std::size_t worst_of(const std::vector<kept_key>& kept) {
    return static_cast<std::size_t>(std::max_element(kept.begin(), kept.end(),
                                                     [](const kept_key& a, const kept_key& b) {
                                                       return a.priority < b.priority;
                                                     }) -
                                    kept.begin());
  }

  template <class R>
  sparse_histogram<Key, std::int64_t> counts(const R& records, std::uint64_t salt) const {
    sparse_histogram<Key, std::int64_t> out;
    std::uint64_t units = 0;
    select(records, salt, [&](const Unit&, std::span<const kept_key> kept) {
      // After u units every count is at most u max_per_key: unchecked adds
      // until that could pass 2^63 - 1, saturating ones after.
      const bool saturate = detail::may_saturate(++units, max_per_key_);
      for (const kept_key& k : kept) {
        const auto w = static_cast<std::int64_t>(std::min(k.count, max_per_key_));
        if (saturate) {
          detail::add_saturating(out, k.key, w);
        } else {
          out.add(k.key, w);
        }
      }
    });
    return out;
  }

  static std::uint64_t mix(std::uint64_t k) noexcept {
    return detail::mix64(k + 0x9e3779b97f4a7c15ull);
  }
  // A (unit, key) pair's priority, from the unit's mixed hash: the one rule
  // of select() and accumulator, so both keep the same keys.
  static std::uint64_t priority(std::uint64_t salt, std::uint64_t mixed_unit, const Key& key) {
    return mix(salt ^ mixed_unit ^ mix(detail::histogram_hash<Key>{}(key) + salt));
  }

  std::uint64_t max_keys_;
  std::uint64_t max_per_key_;
};

/// DPSU's per-unit weighting (Gopi, Gulhane, Kulkarni, Shen, Shokouhi &
/// Yekhanin 2020, "weighted Gaussian"): each unit keeps at most max_keys
/// distinct keys (uniformly, as bound_keys) and gives each of its m kept
/// keys the weight 1 / sqrt(m), so its contribution vector has L2 norm at
/// most 1 whatever m is. Weights are fixed point, in units of 2^-scale_bits
/// (floor(2^scale_bits / sqrt(m)), so the norm never exceeds 1 by a
/// rounding), and sums are exact int64, saturating at 2^63 - 1 (header
/// comment): the L2 stability d -> d 2^scale_bits holds exactly, with no
/// floating-point slack.
template <class Unit, class Key>
requires std::equality_comparable<Unit> && std::equality_comparable<Key>
class l2_normalized_keys : public pipeline_step {
 public:
  using input_metric = unit_distance;          ///< Neighbouring inputs differ in whole units.
  using output_metric = l2_distance;           ///< The weighted counts' change in L2.
  using record_type = unit_record<Unit, Key>;  ///< A (unit, key) record.

  /// Throws invalid_parameter naming `max_keys` unless max_keys >= 1, or
  /// `scale_bits` unless scale_bits is in [1, 40].
  explicit l2_normalized_keys(std::uint64_t max_keys, unsigned scale_bits = 30)
      : select_(max_keys, 1), scale_bits_(scale_bits) {
    if (scale_bits < 1 || scale_bits > 40) throw_invalid("scale_bits", scale_bits, "[1, 40]");
  }

  /// Weighted counts in units of 2^-scale_bits (divide by unit() for reals).
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to<std::ranges::range_value_t<R>, record_type>
      sparse_histogram<Key, std::int64_t>
  operator()(const R& records, G& gen) const {
    sparse_histogram<Key, std::int64_t> out;
    const std::uint64_t salt = random_u64(gen);
    std::uint64_t units = 0;
    select_.select(records, salt, [&](const Unit&, const auto& kept) {
      const std::int64_t w = weight(kept.size());
      const bool saturate = detail::may_saturate(++units, std::uint64_t{1} << scale_bits_);
      for (const auto& k : kept) {
        if (saturate) {
          detail::add_saturating(out, k.key, w);
        } else {
          out.add(k.key, w);
        }
      }
    });
    return out;
  }

  /// floor(2^scale_bits / sqrt(m)), exactly (integer square root, no libm).
  [[nodiscard]] std::int64_t weight(std::uint64_t m) const {
    validate_at_least<std::uint64_t>(m, 1, "m");
    // The largest w with w^2 m <= 2^(2 scale_bits): binary search in 128 bits.
    const detail::uint128 limit = detail::uint128{1} << (2 * scale_bits_);
    std::uint64_t lo = 0, hi = std::uint64_t{1} << scale_bits_;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (static_cast<detail::uint128>(mid) * mid * m <= limit) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return static_cast<std::int64_t>(lo);
  }

  /// Removing d units changes the weighted counts by at most d 2^scale_bits
  /// in L2 (each unit's vector has norm <= 2^scale_bits).
  [[nodiscard]] double stability(std::uint64_t d_in) const {
    return std::ldexp(static_cast<double>(d_in), static_cast<int>(scale_bits_));
  }
  /// The value of 1 in the output's fixed point.
  [[nodiscard]] double unit() const noexcept {
    return std::ldexp(1.0, static_cast<int>(scale_bits_));
  }
  /// The most distinct keys a unit keeps.
  [[nodiscard]] std::uint64_t max_keys() const noexcept { return select_.max_keys(); }

 private:
  bound_keys<Unit, Key> select_;
  unsigned scale_bits_;
};

/// A (unit, window) pair, for bounding per time window.
template <class Unit, class Window>
struct unit_window {
  Unit unit;      ///< The privacy unit.
  Window window;  ///< The time window (a day, say).
  /// Equal unit and equal window.
  friend bool operator==(const unit_window&, const unit_window&) = default;
};

namespace detail {
template <class Unit, class Window>
struct histogram_hash<unit_window<Unit, Window>> {
  std::size_t operator()(const unit_window<Unit, Window>& u) const noexcept {
    return static_cast<std::size_t>(
        mix64(static_cast<std::uint64_t>(histogram_hash<Unit>{}(u.unit)) ^
              mix64(static_cast<std::uint64_t>(histogram_hash<Window>{}(u.window)) + 0x77696eull)));
  }
};
}  // namespace detail

/// A record for per-window bounding: which unit, in which window (a day,
/// say), contributed to which key.
template <class Unit, class Window, class Key>
struct windowed_record {
  Unit unit;      ///< The privacy unit.
  Window window;  ///< The window the record falls in.
  Key key;        ///< The key it contributes to.
};

/// Contribution bounding per time window: each unit keeps at most
/// max_windows of the windows it appears in (a uniformly random subset, by
/// the same bottom-k rule as keys), and in each kept window at most
/// max_keys distinct keys with at most max_per_key each. Two passes over a
/// forward range (windows first, then keys). stability() returns
/// {d max_windows max_keys, d max_windows max_per_key} for unit distance d:
/// each kept window is bounded separately and the windows' counts are summed
/// per key, so a unit that keeps the same key in all its max_windows windows
/// adds max_windows max_per_key to that key's count. (When keys cannot repeat
/// across windows, key by (window, key) and use bound_keys, whose per-key
/// bound is max_per_key.)
template <class Unit, class Window, class Key>
requires std::equality_comparable<Unit> && std::equality_comparable<Window> &&
    std::equality_comparable<Key>
class bound_keys_per_window : public pipeline_step {
 public:
  using input_metric = unit_distance;                      ///< Neighbours differ in whole units.
  using output_metric = partition_distance;                ///< {keys changed, change per key}.
  using record_type = windowed_record<Unit, Window, Key>;  ///< A (unit, window, key) record.

  /// Throws invalid_parameter naming `max_windows`, `max_keys` or
  /// `max_per_key` unless each is >= 1 (max_per_key <= 2^63 - 1) and
  /// max_windows * max_keys < 2^64.
  bound_keys_per_window(std::uint64_t max_windows, std::uint64_t max_keys,
                        std::uint64_t max_per_key)
      : windows_(validate_at_least<std::uint64_t>(max_windows, 1, "max_windows"), 1),
        keys_(max_keys, max_per_key) {
    if (max_windows > std::numeric_limits<std::uint64_t>::max() / max_keys) {
      throw_invalid("max_windows", max_windows,
                    "<= 2^64 / max_keys (the stability must fit 64 bits)");
    }
  }

  /// The key counts of the bounded records: each unit's kept windows
  /// (bottom-k of its distinct windows, one salt drawn from gen), then in
  /// each kept (unit, window) the bound_keys rule with a second salt.
  /// Deterministic for a seeded generator; counts saturate at 2^63 - 1 and
  /// no record makes it throw. Memory grows with the records of kept
  /// windows (they are copied for the second pass).
  template <std::ranges::forward_range R, random_bit_source G>
  requires std::convertible_to<std::ranges::range_value_t<R>, record_type>
      sparse_histogram<Key, std::int64_t>
  operator()(const R& records, G& gen) const {
    // Pass 1: which windows each unit keeps.
    auto as_unit_window = detail::transformed(records, [](const record_type& r) {
      return unit_record<Unit, Window>{r.unit, r.window};
    });
    tsl::robin_set<unit_window<Unit, Window>, detail::histogram_hash<unit_window<Unit, Window>>>
        kept;
    windows_.select(as_unit_window, random_u64(gen), [&](const Unit& u, const auto& ws) {
      for (const auto& w : ws) kept.insert(unit_window<Unit, Window>{u, w.key});
    });
    // Pass 2: keys per kept (unit, window).
    std::vector<unit_record<unit_window<Unit, Window>, Key>> in_kept;
    for (const auto& rec : records) {
      const record_type r = rec;
      if (kept.contains(unit_window<Unit, Window>{r.unit, r.window})) {
        in_kept.push_back({{r.unit, r.window}, r.key});
      }
    }
    return keys_(in_kept, gen);
  }

  /// {d_in max_windows max_keys, d_in max_windows max_per_key}: a unit's
  /// kept windows may all hold the same key, and their counts add up.
  /// Throws overflow_error if a product does not fit in 64 bits.
  [[nodiscard]] partition_distance::distance_type stability(std::uint64_t d_in) const {
    const auto per_window = keys_.stability(d_in);
    const std::uint64_t w = windows_.max_keys();
    const std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
    if ((per_window.partitions != 0 && w > most / per_window.partitions) ||
        (per_window.per_partition != 0 &&
         static_cast<double>(w) > static_cast<double>(most) / per_window.per_partition)) {
      throw overflow_error("privet: bound_keys_per_window stability overflows 64 bits");
    }
    return {per_window.partitions * w, per_window.per_partition * w};
  }

 private:
  bound_keys<Unit, Window> windows_;
  bound_keys<unit_window<Unit, Window>, Key> keys_;
};

}  // namespace privet
