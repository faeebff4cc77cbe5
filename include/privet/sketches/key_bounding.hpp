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
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/hash.hpp>
#include <privet/core/error.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/contribution_bounding.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <tsl/robin_map.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ranges>
#include <string>
#include <vector>

namespace privet {

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
  operator()(const R& records, G& gen) const {
    struct kept {
      std::uint64_t priority;
      Key key;
      std::uint64_t count;
    };
    const std::uint64_t salt = random_u64(gen);
    const detail::histogram_hash<Unit> unit_hash;
    const detail::histogram_hash<Key> key_hash;
    tsl::robin_map<Unit, std::vector<kept>, detail::histogram_hash<Unit>, std::equal_to<>> units;
    for (const auto& rec : records) {
      const record_type r = rec;
      std::vector<kept>& mine = units[r.unit];
      if (mine.capacity() == 0) mine.reserve(std::min<std::uint64_t>(max_keys_, 16));
      auto it =
          std::find_if(mine.begin(), mine.end(), [&](const kept& k) { return k.key == r.value; });
      if (it != mine.end()) {
        ++it->count;
        continue;
      }
      const std::uint64_t p = mix(salt ^ mix(unit_hash(r.unit)) ^ mix(key_hash(r.value) + salt));
      if (mine.size() < max_keys_) {
        mine.push_back(kept{p, r.value, 1});
        continue;
      }
      // Full: the new key replaces the largest priority if it beats it.
      auto worst = std::max_element(mine.begin(), mine.end(), [](const kept& a, const kept& b) {
        return a.priority < b.priority;
      });
      if (p < worst->priority) *worst = kept{p, r.value, 1};
    }
    sparse_histogram<Key, std::int64_t> out;
    out.reserve(units.size());
    for (const auto& [unit, mine] : units) {
      for (const kept& k : mine) {
        out.add(k.key, static_cast<std::int64_t>(std::min(k.count, max_per_key_)));
      }
    }
    return out;
  }

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
  static std::uint64_t mix(std::uint64_t k) noexcept {
    return detail::mix64(k + 0x9e3779b97f4a7c15ull);
  }

  std::uint64_t max_keys_;
  std::uint64_t max_per_key_;
};

}  // namespace privet
