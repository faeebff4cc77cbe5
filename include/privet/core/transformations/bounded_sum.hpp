// privet/core/transformations/bounded_sum.hpp — the sum of a dataset's records
// clamped to [lower, upper]. Adding or removing one record changes it by at
// most max(|lower|, |upper|), plus one final rounding (`stability_margin`).
//
// Data never makes it throw (docs/data_rule.md): a record outside
// [lower, upper], infinite or not, is clamped to the nearer bound and a NaN
// record counts as `lower` (the rule of `clamp`); both are record-wise maps,
// so they keep stability 1 and the guarantee covers every dataset.
//
// The sum is exact: each clamped record is rounded to the grid
// max(|lower|, |upper|) * 2^-62 and the grid integers are added in 128 bits
// (core/detail/fixed_point_sum.hpp), so the result does not depend on the
// order of the records and rounds once. `max_records` declares how large the
// sum may grow: the exact sum saturates at +-max_records * max(|lower|,
// |upper|), which never changes a dataset of at most max_records records and
// moves neighbours no further apart beyond that, so more records than
// declared are summed, not refused, and cost no extra privacy. The declared
// size only bounds the final rounding (Casacuberta et al. 2022, "Widespread
// underestimation of sensitivity in differentially private libraries").
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/fixed_point_sum.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ranges>
#include <string>

namespace privet {

/// Transformation: a dataset of reals to the exact sum of its records clamped
/// to [lower, upper], saturated at +-max_records * max(|lower|, |upper|).
/// O(n) in the records; exact and independent of their order.
template <real_number Real = double>
class bounded_sum : public pipeline_step {
 public:
  /// Neighbouring datasets differ by records added or removed.
  using input_metric = symmetric_distance;
  /// The output is a scalar: neighbours' sums differ in absolute value.
  using output_metric = absolute_distance;

  /// Throws invalid_parameter unless the bounds are finite and lower <= upper,
  /// max_records >= 1 and max_records * max(|lower|, |upper|) is a finite
  /// double; `max_records` is where the sum saturates (see above).
  bounded_sum(Real lower, Real upper, std::uint64_t max_records = std::uint64_t{1} << 32)
      : lower_((validate_bounds(static_cast<double>(lower), static_cast<double>(upper)), lower)),
        upper_(upper),
        max_records_(validate_at_least<std::uint64_t>(max_records, 1, "max_records")),
        bound_(std::max(std::fabs(static_cast<long double>(lower)),
                        std::fabs(static_cast<long double>(upper)))),
        unit_(detail::fixed_point_unit(bound_)),
        cap_(detail::fixed_point_cap(max_records)) {
    if (bound_ != 0 && unit_ == 0) {
      const bool upper_sets = std::fabs(static_cast<long double>(upper)) == bound_;
      throw_invalid(upper_sets ? "upper" : "lower", static_cast<double>(upper_sets ? upper : lower),
                    "0 or of magnitude >= " +
                        detail::format_value(std::ldexp(std::numeric_limits<long double>::min(),
                                                        detail::fixed_point_bits)));
    }
    if (!std::isfinite(stability(1))) {
      throw_invalid("max_records", max_records,
                    "<= " + detail::format_value(std::numeric_limits<double>::max() / bound()) +
                        " (max_records * max(|lower|, |upper|) must be a finite double)");
    }
  }

  /// The exact sum of the clamped records (NaN as lower), saturated at
  /// +-max_records * max(|lower|, |upper|), rounded once to Real. Never throws
  /// because of the records.
  template <std::ranges::input_range R>
  requires std::convertible_to<std::ranges::range_value_t<R>, Real> Real
  operator()(const R& records) const {
    if (bound_ == 0) return Real(0);  // lower = upper = 0: every record clamps to 0
    detail::int128 total = 0;
    for (const auto& r : records) {
      const auto x = static_cast<Real>(r);
      const Real clamped =
          std::isnan(static_cast<double>(x)) ? lower_ : std::clamp(x, lower_, upper_);
      total += detail::fixed_point_units(static_cast<long double>(clamped) / bound_);
    }
    return detail::fixed_point_value<Real>(total, cap_, unit_);
  }

  /// d_in records changed move the exact, saturated sum by at most
  /// d_in * max(|lower|, |upper|); the outputs may differ by that plus
  /// `stability_margin()`.
  [[nodiscard]] double stability(symmetric_distance::distance_type d_in) const noexcept {
    return detail::add_up(detail::mul_up(detail::to_double_up(d_in), bound()), stability_margin());
  }

  /// The final rounding of both neighbouring sums, each of magnitude at most
  /// max_records * max(|lower|, |upper|) after saturation.
  [[nodiscard]] double stability_margin() const noexcept {
    const double radius = detail::mul_up(detail::to_double_up(max_records_), bound());
    return detail::mul_up(2, detail::fixed_point_error<Real>(radius));
  }

  /// max(|lower|, |upper|), rounded up to a double: how far one record can
  /// move the sum.
  [[nodiscard]] double bound() const noexcept { return detail::to_double_up(bound_); }

  /// The lower clamping bound.
  [[nodiscard]] Real lower() const noexcept { return lower_; }
  /// The upper clamping bound.
  [[nodiscard]] Real upper() const noexcept { return upper_; }
  /// The declared dataset size, where the sum saturates.
  [[nodiscard]] std::uint64_t max_records() const noexcept { return max_records_; }

 private:
  Real lower_;
  Real upper_;
  std::uint64_t max_records_;
  long double bound_;
  long double unit_;
  detail::int128 cap_;
};

}  // namespace privet
