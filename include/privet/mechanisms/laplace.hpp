// privet/mechanisms/laplace.hpp — the Laplace mechanism (Dwork, McSherry,
// Nissim & Smith 2006): adding Lap(b) noise to each coordinate of a value
// with L1 sensitivity D is (D / b)-DP.
//
// With secure_noise the noise is a discrete Laplace sample (exact, Canonne,
// Kamath & Steinke 2020) on a grid g = 2^k with b / g in [2^40, 2^41) (g is
// never below 2^-1074, so for b under 2^-1034 the ratio is smaller); the
// input is rounded to the grid first, which can move d-apart neighbours to
// at most floor(d / g) + dimension grid steps apart in L1, and the privacy
// map uses exactly that.
//
// Inputs: every finite value of Real is released with the same exactness,
// as a fixed function of the exact integer round(x / g) + noise (see
// detail/grid.hpp): an input beyond 2^(p + 64) g (p = 53 for double) comes
// back unchanged, and an output beyond Real's range saturates at its max /
// lowest. +-inf inputs are read as max / lowest and NaN as 0 before the
// noise; no input throws.
//
// With constant_time_noise the grid and the release are the same, and the
// sample comes from constant_time_discrete_laplace (constant_time_noise.hpp),
// whose work does not depend on the noise and whose law is within total
// variation tau < 2^-100 of the exact one; guarantee() then reports
// within_tv<pure_dp> with the same epsilon and tau times the dimension
// (every coordinate's sample is one draw), which to_approx_dp turns into
// (eps, (1 + e^eps) dimension tau)-DP.
//
// Parameters: from_guarantee needs l1_sensitivity / target.epsilon finite
// and, with secure_noise, the noise in grid steps at most 2^52 (so a sample
// never nears the 64-bit range): target.epsilon >= about dimension * 2^-52,
// because each coordinate's rounding costs one grid step whatever g is.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/detail/additive_noise.hpp>
#include <privet/mechanisms/detail/grid.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/noise.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <ranges>
#include <string>
#include <type_traits>
#include <vector>

namespace privet {

/// The Laplace mechanism on values of type Real: a `measurement` whose
/// privacy map is guarantee(d) = pure_dp(d / scale) for inputs at L1
/// distance d (with secure_noise, d widened to the grid as in the file
/// comment). Release with `m(x, gen)` (dimension 1), `m(xs, gen)` or
/// `m(xs, gen, parallel_options)`; release generators must be
/// secure_bit_source unless Noise is simulation_only_noise.
template <real_number Real = double, mechanism_noise_policy Noise = constant_time_noise>
class laplace_mechanism : public detail::additive_noise<laplace_mechanism<Real, Noise>, Real> {
 public:
  using value_type = Real;   ///< The type of inputs and outputs.
  using noise_type = Noise;  ///< secure_noise, constant_time_noise or simulation_only_noise.
  using input_metric = l1_distance;  ///< Sensitivity is measured in L1.
  /// What guarantee() returns: pure_dp, or within_tv<pure_dp> with
  /// constant_time_noise.
  using guarantee_type =
      std::conditional_t<std::same_as<Noise, constant_time_noise>, within_tv<pure_dp>, pure_dp>;

  /// Lap(scale) noise on each of `dimension` coordinates. Throws unless scale
  /// is finite and > 0 and dimension >= 1; every such scale works, down to
  /// 2^-1074.
  static laplace_mechanism from_scale(double scale, std::size_t dimension = 1) {
    validate_scale(scale);
    validate_at_least<std::size_t>(dimension, 1, "dimension");
    return laplace_mechanism(scale, detail::grid_for(scale, grid_bits), dimension);
  }

  /// The least noise (up to one grid step) whose guarantee for inputs
  /// `l1_sensitivity` apart is at most `target`. Throws overflow_error when
  /// l1_sensitivity / target.epsilon exceeds the double range and, with
  /// secure_noise, invalid_parameter (target.epsilon) when the noise would
  /// exceed 2^52 grid steps (see the file comment).
  static laplace_mechanism from_guarantee(pure_dp target, double l1_sensitivity,
                                          std::size_t dimension = 1) {
    const double eps = validate_epsilon(target.epsilon(), "target.epsilon");
    validate_positive(l1_sensitivity, "l1_sensitivity");
    validate_at_least<std::size_t>(dimension, 1, "dimension");
    const double ideal = detail::div_up(l1_sensitivity, eps);
    double scale = ideal;
    double g = 0;
    if constexpr (grid_noise<Noise>) {
      if (std::isfinite(ideal)) {
        g = detail::grid_for(ideal, grid_bits);
        scale = detail::div_up(grid_distance(l1_sensitivity, g, dimension), eps);
      }
    }
    if (!std::isfinite(scale)) {
      throw overflow_error("privet: the Laplace scale for " + to_string(target) +
                           " and l1_sensitivity = " + detail::format_value(l1_sensitivity) +
                           " exceeds the double range");
    }
    if constexpr (grid_noise<Noise>) {
      // scale / g is at least dimension / epsilon whatever g is.
      if (!(scale / g <= max_noise_steps)) {
        throw_invalid("target.epsilon", eps,
                      ">= about dimension * 2^-52 = " +
                          detail::format_value(std::ldexp(static_cast<double>(dimension), -52)) +
                          " with grid noise (each coordinate's rounding to the grid costs one "
                          "step, and the noise must stay within 2^52 steps)");
      }
    }
    laplace_mechanism m(scale, g, dimension);
    // The computed scale is exact up to one rounding; confirm through the
    // privacy map itself rather than trusting the algebra. A few next_up
    // steps at most: the cap only guards against a broken invariant.
    for (int i = 0; m.epsilon_for(l1_sensitivity) > eps; ++i) {
      if (i == 64) {
        throw overflow_error("privet: no Laplace scale found for " + to_string(target) +
                             " and l1_sensitivity = " + detail::format_value(l1_sensitivity));
      }
      scale = detail::next_up(scale);
      m = laplace_mechanism(scale, g, dimension);
    }
    return m;
  }

  /// The guarantee for inputs at L1 distance `l1_sensitivity`. Throws
  /// overflow_error when epsilon exceeds the double range (a scale far below
  /// the sensitivity). With constant_time_noise: the same epsilon, within
  /// total variation dimension * tau (see the file comment).
  [[nodiscard]] guarantee_type guarantee(double l1_sensitivity) const {
    const pure_dp base(epsilon_for(l1_sensitivity));
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return within_tv<pure_dp>(base, sampler_total_variation());
    } else {
      return base;
    }
  }

  /// The total variation between a release's noise (all coordinates) and
  /// the exact discrete Laplace's: dimension * tau with constant_time_noise,
  /// rounded up; 0 with the exact samplers.
  [[nodiscard]] double sampler_total_variation() const noexcept {
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return detail::mul_up(static_cast<double>(dimension_), sampler_->total_variation_bound());
    } else {
      return 0;
    }
  }

  /// The 64-bit words each coordinate's sample draws with
  /// constant_time_noise (the same for every sample); 0 otherwise, where it
  /// varies.
  [[nodiscard]] int words_per_coordinate() const noexcept {
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return sampler_->words_per_sample();
    } else {
      return 0;
    }
  }

 private:
  // The epsilon of the privacy map (the base's, with constant_time_noise).
  [[nodiscard]] double epsilon_for(double l1_sensitivity) const {
    validate_non_negative(l1_sensitivity, "l1_sensitivity");
    if (l1_sensitivity == 0) return 0;
    double eps = 0;
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      eps = detail::div_up(l1_sensitivity, scale_);
    } else {
      eps = detail::div_up(grid_distance(l1_sensitivity, granularity_, dimension_), scale_);
    }
    if (!std::isfinite(eps)) {
      throw overflow_error("privet: the Laplace guarantee for l1_sensitivity = " +
                           detail::format_value(l1_sensitivity) + " at scale = " +
                           detail::format_value(scale_) + " exceeds the double range");
    }
    return eps;
  }

 public:
  /// The noise scale b (with secure_noise, a whole number of grid steps).
  [[nodiscard]] double scale() const noexcept { return scale_; }
  /// The output grid g with secure_noise; simulation_only_noise does not
  /// use it (from_guarantee then sets it to 0).
  [[nodiscard]] double granularity() const noexcept { return granularity_; }
  /// The number of coordinates each release noises.
  [[nodiscard]] std::size_t dimension() const noexcept { return dimension_; }
  /// Variance of each coordinate's noise: 2 b^2 (continuous Laplace; the
  /// discrete one on a fine grid differs by less than one grid step squared).
  [[nodiscard]] double variance() const noexcept { return 2 * scale_ * scale_; }

 private:
  friend class detail::additive_noise<laplace_mechanism<Real, Noise>, Real>;

  static constexpr int grid_bits = 40;
  // The largest noise scale in grid steps: a sample then reaches the
  // sampler's 2^63 limit with probability about exp(-2^11).
  static constexpr double max_noise_steps = 0x1p52;

  laplace_mechanism(double scale, double granularity, std::size_t dimension)
      : scale_(scale), granularity_(granularity), dimension_(dimension) {
    if constexpr (grid_noise<Noise>) sampler_.emplace(scale / granularity);
  }

  // The largest L1 distance between the rounded inputs, (floor(d / g) +
  // dimension) g, rounded up; floor(d / g) g = d once d / g >= 2^53, which
  // keeps the product finite when d / g itself is not.
  static double grid_distance(double d, double g, std::size_t dimension) {
    const double units = d / g;
    const double floored = units < 0x1p53 ? std::floor(units) * g : d;
    return detail::add_up(floored, detail::mul_up(static_cast<double>(dimension), g));
  }

  // Never throws on x (see the file comment).
  template <random_bit_source G>
  Real perturb(Real x, G& gen) const {
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      std::exponential_distribution<double> e(1 / scale_);
      const double noise = e(gen);
      return detail::add_saturated<Real>(x, (gen() & 1u) ? noise : -noise);
    } else if constexpr (std::same_as<Noise, constant_time_noise>) {
      return detail::release_on_grid_constant_time<Real>(x, granularity_, (*sampler_)(gen));
    } else {
      return detail::release_on_grid<Real>(x, granularity_, (*sampler_)(gen));
    }
  }

  double scale_;
  double granularity_;
  std::size_t dimension_;
  std::optional<std::conditional_t<std::same_as<Noise, constant_time_noise>,
                                   constant_time_discrete_laplace, discrete_laplace_distribution>>
      sampler_;
};

}  // namespace privet
