// privet/core/transformations/metric_cast.hpp — named, deliberate changes of
// the metric a pipeline tracks, for the bounds that are sound but loose and
// so are never applied implicitly:
//   l1_as_l2()          ||v||_2 <= ||v||_1
//   l2_as_l1(dimension) ||v||_1 <= sqrt(dimension) ||v||_2
// Both are the identity on the data.
#pragma once

#include <privet/core/detail/rounding.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>
#include <privet/core/validate.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace privet {

/// Transformation: the identity on the data, declaring that a distance in
/// From, times `factor`, bounds the distance in To. Sound only when that
/// inequality holds for every pair of values the pipeline can produce;
/// l1_as_l2() and l2_as_l1() build the two casts whose factor is proven.
template <metric From, metric To>
class metric_cast : public pipeline_step {
 public:
  /// The metric the previous step bounds.
  using input_metric = From;
  /// The metric the next step needs.
  using output_metric = To;

  /// Throws invalid_parameter naming `factor` unless it is finite and > 0.
  explicit metric_cast(double factor) : factor_(validate_positive(factor, "factor")) {}

  /// Returns `value` unchanged (a copy or a move).
  template <class T>
  std::decay_t<T> operator()(T&& value) const {
    return std::forward<T>(value);
  }

  /// d_in * factor, rounded up.
  [[nodiscard]] double stability(double d_in) const noexcept {
    return detail::mul_up(d_in, factor_);
  }
  /// The factor from From to To.
  [[nodiscard]] double factor() const noexcept { return factor_; }

 private:
  double factor_;
};

/// Uses an L1 bound as an L2 bound (exact factor 1; loose by up to sqrt(k)
/// when the change is spread over k coordinates).
inline metric_cast<l1_distance, l2_distance> l1_as_l2() {
  return metric_cast<l1_distance, l2_distance>(1.0);
}

/// Uses an L2 bound as an L1 bound for vectors of `dimension` coordinates.
inline metric_cast<l2_distance, l1_distance> l2_as_l1(std::size_t dimension) {
  validate_at_least<std::size_t>(dimension, 1, "dimension");
  return metric_cast<l2_distance, l1_distance>(detail::sqrt_up(static_cast<double>(dimension)));
}

}  // namespace privet
