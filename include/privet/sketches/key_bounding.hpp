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
// outcomes; privacy comes from the noise added after, not from it.
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
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/contribution_bounding.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <tsl/robin_map.h>
#include <tsl/robin_set.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <ranges>
#include <span>
#include <string>
#include <thread>
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

template <class Unit, class Key>
requires std::equality_comparable<Unit> && std::equality_comparable<Key>
class bound_keys {
 public:
  using input_metric = unit_distance;
  using output_metric = partition_distance;
  using record_type = unit_record<Unit, Key>;

  /// Throws unless max_keys >= 1 and max_per_key >= 1.
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
    const detail::histogram_hash<Key> key_hash;
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
      const std::uint64_t p = mix(salt ^ mix(unit_hash(r.unit)) ^ mix(key_hash(r.value) + salt));
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

  struct kept_key {
    std::uint64_t priority;
    Key key;
    std::uint64_t count;
  };

  /// Throws overflow_error if d_in times a bound does not fit in 64 bits.
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

  [[nodiscard]] std::uint64_t max_keys() const noexcept { return max_keys_; }
  [[nodiscard]] std::uint64_t max_per_key() const noexcept { return max_per_key_; }

 private:
  // Up to this many keys per unit, every unit gets a fixed block of
  // max_keys slots in one flat array: one hash lookup and one contiguous
  // block per row instead of a heap vector per unit (memory units x
  // max_keys x 24 bytes, bounded because max_keys is small).
  static constexpr std::uint64_t flat_max_keys = 16;

  template <class R, class Visit>
  void select_flat(const R& records, std::uint64_t salt, Visit& visit) const {
    const detail::histogram_hash<Unit> unit_hash;
    const detail::histogram_hash<Key> key_hash;
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
      const std::uint64_t p = mix(salt ^ mix(unit_hash(r.unit)) ^ mix(key_hash(r.value) + salt));
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
class l2_normalized_keys {
 public:
  using input_metric = unit_distance;
  using output_metric = l2_distance;
  using record_type = unit_record<Unit, Key>;

  /// Throws unless max_keys >= 1 and scale_bits in [1, 40].
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
  [[nodiscard]] std::uint64_t max_keys() const noexcept { return select_.max_keys(); }

 private:
  bound_keys<Unit, Key> select_;
  unsigned scale_bits_;
};

/// A (unit, window) pair, for bounding per time window.
template <class Unit, class Window>
struct unit_window {
  Unit unit;
  Window window;
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
  Unit unit;
  Window window;
  Key key;
};

/// Contribution bounding per time window: each unit keeps at most
/// max_windows of the windows it appears in (a uniformly random subset, by
/// the same bottom-k rule as keys), and in each kept window at most
/// max_keys distinct keys with at most max_per_key each. Two passes over a
/// forward range (windows first, then keys). Stability: unit distance d ->
/// partition distance {d max_windows max_keys, d max_per_key}.
template <class Unit, class Window, class Key>
requires std::equality_comparable<Unit> && std::equality_comparable<Window> &&
    std::equality_comparable<Key>
class bound_keys_per_window {
 public:
  using input_metric = unit_distance;
  using output_metric = partition_distance;
  using record_type = windowed_record<Unit, Window, Key>;

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

  [[nodiscard]] partition_distance::distance_type stability(std::uint64_t d_in) const {
    const auto per_window = keys_.stability(d_in);
    const std::uint64_t w = windows_.max_keys();
    if (per_window.partitions != 0 &&
        w > std::numeric_limits<std::uint64_t>::max() / per_window.partitions) {
      throw overflow_error("privet: bound_keys_per_window stability overflows 64 bits");
    }
    return {per_window.partitions * w, per_window.per_partition};
  }

 private:
  bound_keys<Unit, Window> windows_;
  bound_keys<unit_window<Unit, Window>, Key> keys_;
};

}  // namespace privet
