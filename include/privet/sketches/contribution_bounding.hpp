// privet/sketches/contribution_bounding.hpp — bounds how many records each
// privacy unit (user, device, actor-day) contributes, so that a pipeline
// over records can be private per unit. Records beyond the bound are
// dropped uniformly at random (one reservoir per unit, Vitter's Algorithm R),
// which is what the name `bound_contributions` says it does.
//
// Stability: removing d units removes at most d * max_per_unit records, so
// unit distance d becomes symmetric distance d * max_per_unit.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ranges>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace privet {

/// Records are (unit, value) pairs.
template <class Unit, class Value>
struct unit_record {
  Unit unit;    ///< The privacy unit the record belongs to.
  Value value;  ///< The record's value.
  /// Equal unit and equal value.
  friend bool operator==(const unit_record&, const unit_record&) = default;
};

/// Bounds the number of records per privacy unit to `max_per_unit`, keeping
/// a uniformly random subset of each unit's records (one reservoir per unit,
/// Vitter's Algorithm R): the per-user contribution bounding of Wilson et
/// al. (2020, "Differentially private SQL with bounded user contribution").
/// A stable transformation from unit distance d to symmetric distance
/// d max_per_unit. One pass, expected O(1) per record; memory O(units x
/// max_per_unit).
///
/// @tparam Unit the privacy unit (equality-comparable, std::hash-able).
/// @tparam Value the record's value.
template <class Unit, class Value>
requires std::equality_comparable<Unit> && requires(const Unit& u) {
  { std::hash<Unit>{}(u) } -> std::convertible_to<std::size_t>;
}
class bound_contributions : public pipeline_step {
 public:
  using input_metric = unit_distance;            ///< Neighbours differ in whole units.
  using output_metric = symmetric_distance;      ///< Neighbours differ in records.
  using record_type = unit_record<Unit, Value>;  ///< A (unit, value) record.

  /// Throws invalid_parameter naming `max_per_unit` unless max_per_unit >= 1.
  explicit bound_contributions(std::uint64_t max_per_unit)
      : max_per_unit_(validate_at_least<std::uint64_t>(max_per_unit, 1, "max_per_unit")) {}

  /// Keeps, for every unit, a uniformly random subset of min(n_u, bound) of
  /// its n_u records. Output is grouped by unit in order of first appearance
  /// (within a unit, in reservoir order). Never throws for any record.
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to<std::ranges::range_value_t<R>, record_type> std::vector<record_type>
  operator()(const R& records, G& gen) const {
    struct reservoir {
      std::vector<Value> kept;
      std::uint64_t seen = 0;
    };
    std::unordered_map<Unit, std::size_t> index;
    std::vector<std::pair<Unit, reservoir>> units;
    for (const auto& rec : records) {
      const record_type r = rec;
      auto [it, fresh] = index.try_emplace(r.unit, units.size());
      if (fresh) units.emplace_back(r.unit, reservoir{});
      reservoir& res = units[it->second].second;
      ++res.seen;
      if (res.kept.size() < max_per_unit_) {
        res.kept.push_back(r.value);
      } else if (const std::uint64_t j = uniform_below(gen, res.seen); j < max_per_unit_) {
        res.kept[static_cast<std::size_t>(j)] = r.value;
      }
    }
    std::vector<record_type> out;
    for (auto& [unit, res] : units) {
      for (auto& v : res.kept) out.push_back(record_type{unit, std::move(v)});
    }
    return out;
  }

  /// d_in * max_per_unit: removing d_in units removes at most that many
  /// records. Throws overflow_error if the product does not fit in 64 bits.
  [[nodiscard]] symmetric_distance::distance_type stability(
      unit_distance::distance_type d_in) const {
    if (d_in != 0 && max_per_unit_ > std::numeric_limits<std::uint64_t>::max() / d_in) {
      throw overflow_error(
          "privet: bound_contributions stability d_in * max_per_unit = " + std::to_string(d_in) +
          " * " + std::to_string(max_per_unit_) + " overflows 64 bits; allowed: a product < 2^64");
    }
    return d_in * max_per_unit_;
  }

  /// The most records kept per unit.
  [[nodiscard]] std::uint64_t max_per_unit() const noexcept { return max_per_unit_; }

 private:
  std::uint64_t max_per_unit_;
};

}  // namespace privet
