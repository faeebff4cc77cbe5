// privet/core/pipeline.hpp — compile-time pipelines of transformations and a
// final measurement, composed with `|` (the combinators of OpenDP's
// framework, Gaboardi et al., checked by the C++ compiler instead of at run
// time).
//
// A transformation declares `input_metric`, `output_metric` and a stability
// map `stability(d_in) -> d_out`. A measurement declares `input_metric`,
// `guarantee_type` and a privacy map `guarantee(d_in) -> guarantee_type`.
// `t1 | t2` and `t | m` check at compile time that each step accepts the
// metric of the step before; the privacy map of `t | m` is m's map after
// t's stability map, so the guarantee a pipeline reports is computed, never
// asserted.
//
// That guarantee holds for every pair of neighbouring datasets only because
// no step throws on data (docs/data_rule.md): an exception raised by one
// dataset and not its neighbour would be an output without noise. Every
// step maps out-of-domain data (NaN, out-of-range or infinite records,
// wrong-size rows, more records than declared) by a fixed rule that its
// stability map accounts for: record-wise rules keep stability d_in,
// saturation is 1-Lipschitz, and floating-point rounding is added to the
// stability (bounded_sum, clipped_sum). Only parameters, validated when a
// step is built, throw.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>

#include <concepts>
#include <type_traits>
#include <utility>

namespace privet {

/// A stable map between datasets or aggregates. It derives from
/// pipeline_step, so that `|` is found for it from any namespace.
template <class T>
concept transformation = std::is_base_of_v<pipeline_step, T> && requires {
  typename T::input_metric;
  typename T::output_metric;
} && metric<typename T::input_metric> && metric<typename T::output_metric> &&
    requires(const T& t, typename T::input_metric::distance_type d) {
  { t.stability(d) } -> std::convertible_to<typename T::output_metric::distance_type>;
};

/// A randomised map with a privacy guarantee. It derives from
/// pipeline_step, so that `|` is found for it from any namespace.
template <class M>
concept measurement = std::is_base_of_v<pipeline_step, M> && requires {
  typename M::input_metric;
  typename M::guarantee_type;
} && metric<typename M::input_metric> && guarantee<typename M::guarantee_type> &&
    requires(const M& m, typename M::input_metric::distance_type d) {
  { m.guarantee(d) } -> std::same_as<typename M::guarantee_type>;
};

namespace detail {

template <class>
inline constexpr bool dependent_false = false;

// One full sentence per kind of mismatch, so that the compiler's first line
// tells the user what is wrong and what to do.
template <class From, class To>
constexpr void check_metric_fits() {
  if constexpr (!metric_converts_v<From, To>) {
    if constexpr (std::same_as<To, l2_distance>) {
      static_assert(dependent_false<From>,
                    "privet: this mechanism needs an L2 sensitivity bound (as the Gaussian "
                    "mechanism does), but the step before it does not bound the L2 distance of "
                    "its output; bound the L2 norm (e.g. clipped_sum<l2_distance>) or convert "
                    "explicitly with l1_as_l2().");
    } else if constexpr (std::same_as<To, l1_distance>) {
      static_assert(dependent_false<From>,
                    "privet: this mechanism needs an L1 sensitivity bound (as the Laplace "
                    "mechanism does), but the step before it does not bound the L1 distance of "
                    "its output; bound the L1 norm (e.g. clipped_sum<l1_distance>) or convert "
                    "explicitly with l2_as_l1(dimension).");
    } else if constexpr (std::same_as<To, symmetric_distance> || std::same_as<To, unit_distance>) {
      static_assert(dependent_false<From>,
                    "privet: this step expects a dataset (neighbours differ by records or by "
                    "privacy units), but the step before it does not output one with that "
                    "metric; put dataset transformations (bound_contributions, clamp) before "
                    "aggregates (count, bounded_sum).");
    } else {
      static_assert(dependent_false<From>,
                    "privet: the output metric of the step before does not convert to the input "
                    "metric of this step; specialise privet::metric_conversion or insert a "
                    "named conversion.");
    }
  }
}

// Transformations may be randomised (reservoir sampling in contribution
// bounding): they receive the pipeline's generator when they accept one.
template <class T, class In, class G>
decltype(auto) apply_transformation(const T& t, In&& in, G& gen) {
  if constexpr (std::invocable<const T&, In&&, G&>) {
    return t(std::forward<In>(in), gen);
  } else {
    return t(std::forward<In>(in));
  }
}

}  // namespace detail

/// `first` then `second`; its stability map is the composition of theirs.
template <transformation First, transformation Second>
class chained_transformation : public pipeline_step {
 public:
  /// The metric `first` reads its input in.
  using input_metric = typename First::input_metric;
  /// The metric `second` bounds its output in.
  using output_metric = typename Second::output_metric;

  /// Usually built by `first | second`, which also checks at compile time
  /// that second accepts first's output metric.
  chained_transformation(First first, Second second)
      : first_(std::move(first)), second_(std::move(second)) {}

  /// second(first(in)), for deterministic steps.
  template <class In>
  decltype(auto) operator()(In&& in) const {
    return second_(first_(std::forward<In>(in)));
  }
  /// second(first(in)), passing `gen` to each step that takes a generator
  /// (randomised contribution bounding, say).
  template <class In, uniform_random_bit_generator G>
  decltype(auto) operator()(In&& in, G& gen) const {
    return detail::apply_transformation(
        second_, detail::apply_transformation(first_, std::forward<In>(in), gen), gen);
  }

  /// second's stability of first's stability of `d_in`, the intermediate
  /// distance converted between the two metrics (convert_distance).
  typename output_metric::distance_type stability(typename input_metric::distance_type d_in) const {
    return second_.stability(
        convert_distance<typename First::output_metric, typename Second::input_metric>(
            first_.stability(d_in)));
  }

  /// The first step.
  [[nodiscard]] const First& first() const noexcept { return first_; }
  /// The second step.
  [[nodiscard]] const Second& second() const noexcept { return second_; }

 private:
  First first_;
  Second second_;
};

/// `transform` then `mechanism`; its guarantee is the mechanism's privacy map
/// applied to the transformation's stability.
template <transformation Transform, measurement Mechanism>
class chained_measurement : public pipeline_step {
 public:
  /// The metric the transformation reads its input in.
  using input_metric = typename Transform::input_metric;
  /// The mechanism's kind of guarantee (pure_dp, zcdp...).
  using guarantee_type = typename Mechanism::guarantee_type;

  /// Usually built by `transform | mechanism`, which also checks at compile
  /// time that the mechanism accepts the transformation's output metric.
  chained_measurement(Transform transform, Mechanism mechanism)
      : transform_(std::move(transform)), mechanism_(std::move(mechanism)) {}

  /// mechanism(transform(in), gen): the noisy release. `gen` also reaches
  /// a randomised transformation; the mechanism decides which generators
  /// it accepts (release mechanisms require a secure_bit_source).
  template <class In, uniform_random_bit_generator G>
  decltype(auto) operator()(In&& in, G& gen) const {
    return mechanism_(detail::apply_transformation(transform_, std::forward<In>(in), gen), gen);
  }

  /// The guarantee for inputs at distance `d_in` (e.g. 1 record, 1 user).
  guarantee_type guarantee(typename input_metric::distance_type d_in) const {
    return mechanism_.guarantee(
        convert_distance<typename Transform::output_metric, typename Mechanism::input_metric>(
            transform_.stability(d_in)));
  }

  /// The transformation step.
  [[nodiscard]] const Transform& transform() const noexcept { return transform_; }
  /// The mechanism step.
  [[nodiscard]] const Mechanism& mechanism() const noexcept { return mechanism_; }

 private:
  Transform transform_;
  Mechanism mechanism_;
};

/// Composes a transformation with a following transformation or mechanism.
/// Fails to compile, with a sentence saying why, when the second step does
/// not accept the first step's output metric. Found by argument-dependent
/// lookup for steps declared in any namespace (they derive from
/// pipeline_step): no `using privet::operator|;` is needed.
template <transformation First, class Second>
requires(transformation<Second> || measurement<Second>) auto operator|(First first, Second second) {
  detail::check_metric_fits<typename First::output_metric, typename Second::input_metric>();
  if constexpr (measurement<Second>) {
    return chained_measurement<First, Second>(std::move(first), std::move(second));
  } else {
    return chained_transformation<First, Second>(std::move(first), std::move(second));
  }
}

/// The guarantee type a pipeline or mechanism reports, known at compile time.
template <measurement M>
using guarantee_t = typename M::guarantee_type;

}  // namespace privet
