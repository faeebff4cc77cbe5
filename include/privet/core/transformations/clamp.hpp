// privet/core/transformations/clamp.hpp — clamps every record of a dataset to
// [lower, upper]. Record-wise, so neighbours stay neighbours (stability 1).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <ranges>
#include <string>
#include <vector>

namespace privet {

template <real_number Real = double>
class clamp {
 public:
  using input_metric = symmetric_distance;
  using output_metric = symmetric_distance;

  /// Throws invalid_parameter unless lower and upper are finite and lower <= upper.
  clamp(Real lower, Real upper)
      : lower_((validate_bounds(static_cast<double>(lower), static_cast<double>(upper)), lower)),
        upper_(upper) {}

  /// A NaN record has no place in [lower, upper]: it throws rather than being
  /// silently mapped to a bound.
  template <std::ranges::input_range R>
  requires std::convertible_to<std::ranges::range_value_t<R>, Real> std::vector<Real>
  operator()(const R& records) const {
    std::vector<Real> out;
    if constexpr (std::ranges::sized_range<R>) out.reserve(std::ranges::size(records));
    for (const auto& r : records) {
      const auto x = static_cast<Real>(r);
      if (std::isnan(static_cast<double>(x))) {
        throw_invalid("records[" + std::to_string(out.size()) + "]", static_cast<double>(x),
                      "a number (NaN cannot be clamped)");
      }
      out.push_back(std::clamp(x, lower_, upper_));
    }
    return out;
  }

  [[nodiscard]] symmetric_distance::distance_type stability(
      symmetric_distance::distance_type d_in) const noexcept {
    return d_in;
  }

  [[nodiscard]] Real lower() const noexcept { return lower_; }
  [[nodiscard]] Real upper() const noexcept { return upper_; }

 private:
  Real lower_;
  Real upper_;
};

}  // namespace privet
