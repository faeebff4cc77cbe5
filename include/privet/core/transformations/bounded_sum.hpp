// privet/core/transformations/bounded_sum.hpp — the sum of a dataset whose
// records are known to lie in [lower, upper]. Adding or removing one record
// changes the sum by at most max(|lower|, |upper|).
//
// It does not clamp: a record outside the bounds throws, so a pipeline must
// say `clamp(lo, hi) | bounded_sum(lo, hi)` and nothing is bounded silently.
// Floating-point rounding can make two neighbouring sums differ by more than
// the ideal sensitivity (Casacuberta et al. 2022, "Widespread
// underestimation of sensitivity in differentially private libraries"), so
// the sum is computed pairwise in long double and the stability map adds a
// proven bound on the rounding of both sums for up to `max_records` records
// (see `stability_margin`).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/pairwise_sum.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ranges>
#include <string>

namespace privet {

template <real_number Real = double>
class bounded_sum {
 public:
  using input_metric = symmetric_distance;
  using output_metric = absolute_distance;

  /// Throws invalid_parameter unless the bounds are finite and lower <= upper;
  /// `max_records` bounds the dataset size the stability map accounts for.
  bounded_sum(Real lower, Real upper, std::uint64_t max_records = std::uint64_t{1} << 32)
      : lower_((validate_bounds(static_cast<double>(lower), static_cast<double>(upper)), lower)),
        upper_(upper),
        max_records_(validate_at_least<std::uint64_t>(max_records, 1, "max_records")) {}

  template <std::ranges::input_range R>
  requires std::convertible_to<std::ranges::range_value_t<R>, Real> Real
  operator()(const R& records) const {
    detail::pairwise_sum<long double> sum;
    std::uint64_t n = 0;
    for (const auto& r : records) {
      const auto x = static_cast<Real>(r);
      if (!(x >= lower_ && x <= upper_)) {
        throw_invalid("records[" + std::to_string(n) + "]", static_cast<double>(x),
                      "[" + detail::format_value(static_cast<double>(lower_)) + ", " +
                          detail::format_value(static_cast<double>(upper_)) +
                          "] (bounded_sum does not clamp; put clamp before it)");
      }
      if (++n > max_records_) {
        throw_invalid("records.size()", n,
                      "<= max_records = " + detail::format_value(max_records_));
      }
      sum.add(static_cast<long double>(x));
    }
    return static_cast<Real>(sum.total());
  }

  /// d_in records changed move the exact sum by at most
  /// d_in * max(|lower|, |upper|); the computed sums may differ by that plus
  /// `stability_margin()`.
  [[nodiscard]] double stability(symmetric_distance::distance_type d_in) const noexcept {
    return detail::add_up(detail::mul_up(static_cast<double>(d_in), bound()), stability_margin());
  }

  /// Rounding of the two neighbouring sums, each of at most n = max_records
  /// terms bounded by m: pairwise accumulation errs by at most
  /// gamma_L * n * m with L = ceil(log2 n) + 1 and gamma_L = L u / (1 - L u)
  /// for the long double unit roundoff u; the final rounding to Real by at
  /// most n * m * u_Real. Both sums count, hence the factor 2.
  [[nodiscard]] double stability_margin() const noexcept {
    const double n = static_cast<double>(max_records_);
    const double total = detail::mul_up(n, bound());
    int levels = 1;
    while (levels < 66 && std::ldexp(1.0, levels - 1) < n) ++levels;  // ceil(log2 n) + 1
    const double u = std::ldexp(1.0, -std::numeric_limits<long double>::digits);
    const double lu = detail::mul_up(levels, u);
    const double gamma = detail::div_up(lu, 1 - lu);
    const double u_real = std::ldexp(1.0, -std::numeric_limits<Real>::digits);
    const double one_sum =
        detail::add_up(detail::mul_up(gamma, total), detail::mul_up(total, u_real));
    return detail::mul_up(2, one_sum);
  }

  /// max(|lower|, |upper|): how far one record can move the sum.
  [[nodiscard]] double bound() const noexcept {
    return std::max(std::fabs(static_cast<double>(lower_)), std::fabs(static_cast<double>(upper_)));
  }

  [[nodiscard]] Real lower() const noexcept { return lower_; }
  [[nodiscard]] Real upper() const noexcept { return upper_; }
  [[nodiscard]] std::uint64_t max_records() const noexcept { return max_records_; }

 private:
  Real lower_;
  Real upper_;
  std::uint64_t max_records_;
};

}  // namespace privet
