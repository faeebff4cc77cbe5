// privet/core/transformations/count.hpp — the number of records of a
// dataset. One record added or removed changes it by one. It never throws;
// a size beyond INT64_MAX (a lazy range can claim one) saturates there rather
// than wrapping negative, and saturation is 1-Lipschitz.
#pragma once

#include <privet/core/detail/fixed_point_sum.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>

#include <cstdint>
#include <iterator>
#include <limits>
#include <ranges>

namespace privet {

/// Transformation: a dataset to its number of records.
class count : public pipeline_step {
 public:
  /// Neighbouring datasets differ by records added or removed.
  using input_metric = symmetric_distance;
  /// The output is a scalar count.
  using output_metric = absolute_distance;

  /// The number of records, saturated at INT64_MAX. O(1) for a sized range,
  /// otherwise one pass. Never throws because of the records.
  template <std::ranges::input_range R>
  std::int64_t operator()(const R& records) const {
    if constexpr (std::ranges::sized_range<R>) {
      return saturate(std::ranges::size(records));
    } else {
      return saturate(std::ranges::distance(records));
    }
  }

  /// Returns d_in: each record added or removed moves the count by one.
  [[nodiscard]] double stability(symmetric_distance::distance_type d_in) const noexcept {
    // Exact up to 2^53 records changed; beyond, rounding up keeps it sound.
    return detail::to_double_up(d_in);
  }

 private:
  // Any integer-like size (unsigned, signed, or wider than 64 bits), never
  // negative for a range, capped at INT64_MAX.
  template <class N>
  static std::int64_t saturate(N n) {
    constexpr auto top = std::numeric_limits<std::int64_t>::max();
    if constexpr (std::numeric_limits<N>::digits > 63) {
      if (n > static_cast<N>(top)) return top;
    }
    return static_cast<std::int64_t>(n);
  }
};

}  // namespace privet
