// privet/core/transformations/count.hpp — the number of records of a
// dataset. One record added or removed changes it by one.
#pragma once

#include <privet/core/metric.hpp>

#include <cstdint>
#include <iterator>
#include <ranges>

namespace privet {

class count {
 public:
  using input_metric = symmetric_distance;
  using output_metric = absolute_distance;

  template <std::ranges::input_range R>
  std::int64_t operator()(const R& records) const {
    if constexpr (std::ranges::sized_range<R>) {
      return static_cast<std::int64_t>(std::ranges::size(records));
    } else {
      return static_cast<std::int64_t>(std::ranges::distance(records));
    }
  }

  [[nodiscard]] double stability(symmetric_distance::distance_type d_in) const noexcept {
    // Exact up to 2^53 records changed; beyond, rounding up keeps it sound.
    const auto d = static_cast<double>(d_in);
    return static_cast<symmetric_distance::distance_type>(d) < d_in ? detail::next_up(d) : d;
  }
};

}  // namespace privet
