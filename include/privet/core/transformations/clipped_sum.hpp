// privet/core/transformations/clipped_sum.hpp — the sum of vectors, each first
// scaled down to norm at most `clip` in the chosen norm (L1 or L2). The
// name says it clips: that is the bounding step of DP-SGD (Abadi et al.
// 2016) and of DPSU's weighting (Gopi et al. 2020). Adding or removing one
// record moves the exact sum by at most `clip` in that norm. (The rounding of
// the floating-point vector sum is not yet added to the stability map; the
// DP-SGD work will give it the treatment bounded_sum has.)
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/validate.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <ranges>
#include <string>
#include <type_traits>
#include <vector>

namespace privet {

template <class Norm, real_number Real = double>
requires(std::same_as<Norm, l1_distance> || std::same_as<Norm, l2_distance>) class clipped_sum {
 public:
  using input_metric = symmetric_distance;
  using output_metric = Norm;

  /// Throws unless dimension >= 1 and clip is finite and > 0.
  clipped_sum(std::size_t dimension, Real clip)
      : dimension_(validate_at_least<std::size_t>(dimension, 1, "dimension")),
        clip_(static_cast<Real>(validate_positive(static_cast<double>(clip), "clip"))) {}

  template <std::ranges::input_range R>
  requires std::ranges::input_range<std::ranges::range_value_t<R>> std::vector<Real>
  operator()(const R& rows) const {
    std::vector<Real> sum(dimension_, Real(0));
    std::vector<Real> row;
    std::size_t index = 0;
    for (const auto& r : rows) {
      row.assign(std::ranges::begin(r), std::ranges::end(r));
      if (row.size() != dimension_) {
        throw_invalid("rows[" + std::to_string(index) + "].size()", row.size(),
                      "== dimension = " + std::to_string(dimension_));
      }
      Real norm = 0;
      for (Real x : row) {
        if (!std::isfinite(static_cast<double>(x))) {
          throw_invalid("rows[" + std::to_string(index) + "]", static_cast<double>(x),
                        "finite coordinates");
        }
        norm += std::same_as<Norm, l1_distance> ? std::fabs(x) : x * x;
      }
      if constexpr (std::same_as<Norm, l2_distance>) norm = std::sqrt(norm);
      // Scale with a small safety factor so that the rounded result's norm
      // stays below clip.
      const Real shrink =
          Real(1) - Real(4) * std::numeric_limits<Real>::epsilon() * static_cast<Real>(dimension_);
      const Real scale = norm > clip_ ? clip_ / norm * shrink : Real(1);
      for (std::size_t i = 0; i < dimension_; ++i) sum[i] += row[i] * scale;
      ++index;
    }
    return sum;
  }

  [[nodiscard]] double stability(symmetric_distance::distance_type d_in) const noexcept {
    return detail::mul_up(static_cast<double>(d_in), static_cast<double>(clip_));
  }

  [[nodiscard]] std::size_t dimension() const noexcept { return dimension_; }
  [[nodiscard]] Real clip() const noexcept { return clip_; }

 private:
  std::size_t dimension_;
  Real clip_;
};

}  // namespace privet
