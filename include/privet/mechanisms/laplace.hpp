// privet/mechanisms/laplace.hpp — the Laplace mechanism (Dwork, McSherry,
// Nissim & Smith 2006): adding Lap(b) noise to each coordinate of a value
// with L1 sensitivity D is (D / b)-DP.
//
// With secure_noise the noise is a discrete Laplace sample (exact, Canonne,
// Kamath & Steinke 2020) on a grid g = 2^k with b / g in [2^40, 2^41); the
// input is rounded to the grid first, which can move d-apart neighbours to
// at most floor(d / g) + dimension grid steps apart in L1, and the privacy
// map uses exactly that.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/additive_noise.hpp>
#include <privet/mechanisms/detail/grid.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/noise.hpp>

#include <cmath>
#include <cstddef>
#include <optional>
#include <random>
#include <ranges>
#include <string>
#include <vector>

namespace privet {

template <real_number Real = double, noise_policy Noise = secure_noise>
class laplace_mechanism : public detail::additive_noise<laplace_mechanism<Real, Noise>, Real> {
 public:
  using value_type = Real;
  using noise_type = Noise;
  using input_metric = l1_distance;
  using guarantee_type = pure_dp;

  /// Lap(scale) noise on each of `dimension` coordinates. Throws unless scale
  /// is finite and > 0 and dimension >= 1.
  static laplace_mechanism from_scale(double scale, std::size_t dimension = 1) {
    validate_scale(scale);
    validate_at_least<std::size_t>(dimension, 1, "dimension");
    return laplace_mechanism(scale, detail::grid_for(scale, grid_bits), dimension);
  }

  /// The least noise (up to one grid step) whose guarantee for inputs
  /// `l1_sensitivity` apart is at most `target`.
  static laplace_mechanism from_guarantee(pure_dp target, double l1_sensitivity,
                                          std::size_t dimension = 1) {
    validate_epsilon(target.epsilon(), "target.epsilon");
    validate_positive(l1_sensitivity, "l1_sensitivity");
    validate_at_least<std::size_t>(dimension, 1, "dimension");
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      return laplace_mechanism(detail::div_up(l1_sensitivity, target.epsilon()), 0, dimension);
    } else {
      const double g = detail::grid_for(l1_sensitivity / target.epsilon(), grid_bits);
      double scale = detail::div_up(detail::mul_up(grid_steps(l1_sensitivity, g, dimension), g),
                                    target.epsilon());
      laplace_mechanism m(scale, g, dimension);
      // The computed scale is exact up to one rounding; confirm through the
      // privacy map itself rather than trusting the algebra.
      while (m.guarantee(l1_sensitivity).epsilon() > target.epsilon()) {
        scale = detail::next_up(scale);
        m = laplace_mechanism(scale, g, dimension);
      }
      return m;
    }
  }

  /// The guarantee for inputs at L1 distance `l1_sensitivity`.
  [[nodiscard]] pure_dp guarantee(double l1_sensitivity) const {
    validate_non_negative(l1_sensitivity, "l1_sensitivity");
    if (l1_sensitivity == 0) return pure_dp(0);
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      return pure_dp(detail::div_up(l1_sensitivity, scale_));
    } else {
      return pure_dp(detail::div_up(
          detail::mul_up(grid_steps(l1_sensitivity, granularity_, dimension_), granularity_),
          scale_));
    }
  }

  [[nodiscard]] double scale() const noexcept { return scale_; }
  /// The output grid (0 for simulation_only_noise).
  [[nodiscard]] double granularity() const noexcept { return granularity_; }
  [[nodiscard]] std::size_t dimension() const noexcept { return dimension_; }
  /// Variance of each coordinate's noise: 2 b^2 (continuous Laplace; the
  /// discrete one on a fine grid differs by less than one grid step squared).
  [[nodiscard]] double variance() const noexcept { return 2 * scale_ * scale_; }

 private:
  friend class detail::additive_noise<laplace_mechanism<Real, Noise>, Real>;

  static constexpr int grid_bits = 40;

  laplace_mechanism(double scale, double granularity, std::size_t dimension)
      : scale_(scale), granularity_(granularity), dimension_(dimension) {
    if constexpr (std::same_as<Noise, secure_noise>) sampler_.emplace(scale / granularity);
  }

  // Largest L1 distance in grid units between the rounded inputs.
  static double grid_steps(double d, double g, std::size_t dimension) {
    return detail::add_up(std::floor(d / g), static_cast<double>(dimension));
  }

  template <random_bit_source G>
  Real perturb(Real x, G& gen) const {
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      std::exponential_distribution<double> e(1 / scale_);
      const double noise = e(gen);
      return static_cast<Real>(static_cast<double>(x) + ((gen() & 1u) ? noise : -noise));
    } else {
      const std::int64_t k = detail::to_grid(static_cast<double>(x), granularity_, "x");
      return static_cast<Real>(detail::from_grid(k, (*sampler_)(gen), granularity_));
    }
  }

  double scale_;
  double granularity_;
  std::size_t dimension_;
  std::optional<discrete_laplace_distribution> sampler_;
};

}  // namespace privet
