// privet/core/transformations/clamp.hpp — clamps every record of a dataset to
// [lower, upper]. Record-wise, so neighbours stay neighbours (stability 1).
//
// Data never makes it throw (docs/data_rule.md): an infinite record clamps to
// the nearer bound like any other, and a NaN record, which has no nearer
// bound, becomes `nan_value` (by default `lower`) — a fixed, data-independent
// choice, so the map stays record-wise and 1-stable. Put an imputation
// step before it if NaN should mean something else.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <ranges>
#include <string>
#include <vector>

namespace privet {

/// Transformation: a dataset of reals to the same records clamped to
/// [lower, upper] (NaN to a fixed `nan_value`), in order. O(n).
template <real_number Real = double>
class clamp : public pipeline_step {
 public:
  /// Neighbouring datasets differ by records added or removed.
  using input_metric = symmetric_distance;
  /// Clamping is record-wise, so the outputs differ by as many records.
  using output_metric = symmetric_distance;

  /// Throws invalid_parameter unless lower and upper are finite and
  /// lower <= upper. NaN records become `lower`.
  clamp(Real lower, Real upper) : clamp(lower, upper, lower) {}

  /// As above, NaN records becoming `nan_value`; throws invalid_parameter
  /// unless nan_value lies in [lower, upper].
  clamp(Real lower, Real upper, Real nan_value)
      : lower_((validate_bounds(static_cast<double>(lower), static_cast<double>(upper)), lower)),
        upper_(upper),
        nan_value_(
            nan_value >= lower && nan_value <= upper
                ? nan_value
                : (throw_invalid("nan_value", static_cast<double>(nan_value),
                                 "[lower, upper] = [" +
                                     detail::format_value(static_cast<double>(lower)) + ", " +
                                     detail::format_value(static_cast<double>(upper)) + "]"),
                   nan_value)) {}

  /// Every record clamped to [lower, upper], NaN as nan_value. Never throws
  /// because of the records.
  template <std::ranges::input_range R>
  requires std::convertible_to<std::ranges::range_value_t<R>, Real> std::vector<Real>
  operator()(const R& records) const {
    std::vector<Real> out;
    if constexpr (std::ranges::sized_range<R>) out.reserve(std::ranges::size(records));
    for (const auto& r : records) {
      const auto x = static_cast<Real>(r);
      out.push_back(std::isnan(static_cast<double>(x)) ? nan_value_
                                                       : std::clamp(x, lower_, upper_));
    }
    return out;
  }

  /// Returns d_in: a record-wise map changes as many records as its input.
  [[nodiscard]] symmetric_distance::distance_type stability(
      symmetric_distance::distance_type d_in) const noexcept {
    return d_in;
  }

  /// The lower clamping bound.
  [[nodiscard]] Real lower() const noexcept { return lower_; }
  /// The upper clamping bound.
  [[nodiscard]] Real upper() const noexcept { return upper_; }
  /// What a NaN record becomes (lower unless given).
  [[nodiscard]] Real nan_value() const noexcept { return nan_value_; }

 private:
  Real lower_;
  Real upper_;
  Real nan_value_;
};

}  // namespace privet
