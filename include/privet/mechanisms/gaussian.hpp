// privet/mechanisms/gaussian.hpp — the Gaussian mechanism: adding N(0, s^2)
// noise to each coordinate of a value with L2 sensitivity D is
// (D^2 / (2 s^2))-zCDP (Bun & Steinke 2016, Proposition 1.6).
//
// With secure_noise the noise is a discrete Gaussian sample (exact, Canonne,
// Kamath & Steinke 2020, whose Theorem 14 gives the same zCDP bound on Z^d)
// on a grid g = 2^k with s / g in [2^20, 2^21); s / g is rounded up to a
// multiple of 2^-10 so that s^2 / g^2 is an exact rational of 64-bit
// integers. Rounding inputs to the grid moves d-apart neighbours to at most
// d / g + sqrt(dimension) grid steps apart in L2 (floor(d / g) + 1 in one
// dimension), and the privacy map uses exactly that.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/additive_noise.hpp>
#include <privet/mechanisms/detail/grid.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/noise.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <ranges>
#include <string>
#include <vector>

namespace privet {

template <real_number Real = double, noise_policy Noise = secure_noise>
class gaussian_mechanism : public detail::additive_noise<gaussian_mechanism<Real, Noise>, Real> {
 public:
  using value_type = Real;
  using noise_type = Noise;
  using input_metric = l2_distance;
  using guarantee_type = zcdp;

  /// N(0, sigma^2) noise on each of `dimension` coordinates (secure_noise
  /// rounds sigma up by less than 2^-30 relative; see sigma()).
  static gaussian_mechanism from_scale(double sigma, std::size_t dimension = 1) {
    validate_scale(sigma, "sigma");
    validate_at_least<std::size_t>(dimension, 1, "dimension");
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      return gaussian_mechanism(sigma, 0, 0, dimension);
    } else {
      const double g = detail::grid_for(sigma, grid_bits);
      const auto units =
          static_cast<std::uint64_t>(std::ceil(std::ldexp(sigma / g, sigma_fraction_bits)));
      return gaussian_mechanism(std::ldexp(static_cast<double>(units), -sigma_fraction_bits) * g, g,
                                units, dimension);
    }
  }

  /// The least noise (up to one step of sigma's representation) whose
  /// guarantee for inputs `l2_sensitivity` apart is at most `target`.
  static gaussian_mechanism from_guarantee(zcdp target, double l2_sensitivity,
                                           std::size_t dimension = 1) {
    validate_positive(target.rho(), "target.rho");
    validate_positive(l2_sensitivity, "l2_sensitivity");
    validate_at_least<std::size_t>(dimension, 1, "dimension");
    const double sigma0 = l2_sensitivity / std::sqrt(2 * target.rho());
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      double sigma = sigma0;
      while (gaussian_mechanism(sigma, 0, 0, dimension).guarantee(l2_sensitivity).rho() >
             target.rho())
        sigma = detail::next_up(sigma);
      return gaussian_mechanism(sigma, 0, 0, dimension);
    } else {
      double g = detail::grid_for(sigma0, grid_bits);
      std::uint64_t units = 0;
      // The grid's rounding slack raises sigma a little above sigma0; if that
      // pushes sigma / g past 2^21 (units^2 would leave 62 bits), coarsen g.
      for (;;) {
        const double steps = grid_steps(l2_sensitivity, g, dimension);
        units = static_cast<std::uint64_t>(
            std::ceil(std::ldexp(steps / std::sqrt(2 * target.rho()), sigma_fraction_bits)));
        if (units < max_units) break;
        g *= 2;
      }
      auto make = [&](std::uint64_t u) {
        return gaussian_mechanism(std::ldexp(static_cast<double>(u), -sigma_fraction_bits) * g, g,
                                  u, dimension);
      };
      gaussian_mechanism m = make(units);
      while (m.guarantee(l2_sensitivity).rho() > target.rho())
        m = make(++units);  // < max_units + a few
      return m;
    }
  }

  /// The zCDP guarantee for inputs at L2 distance `l2_sensitivity`.
  [[nodiscard]] zcdp guarantee(double l2_sensitivity) const {
    validate_non_negative(l2_sensitivity, "l2_sensitivity");
    if (l2_sensitivity == 0) return zcdp(0);
    double steps = l2_sensitivity;
    double sigma = sigma_;
    if constexpr (std::same_as<Noise, secure_noise>) {
      steps = grid_steps(l2_sensitivity, granularity_, dimension_);
      sigma = std::ldexp(static_cast<double>(sigma_units_), -sigma_fraction_bits);
    }
    const double ratio = detail::div_up(steps, sigma);
    return zcdp(detail::mul_up(ratio, ratio) / 2);
  }

  [[nodiscard]] double sigma() const noexcept { return sigma_; }
  [[nodiscard]] double granularity() const noexcept { return granularity_; }
  [[nodiscard]] std::size_t dimension() const noexcept { return dimension_; }
  [[nodiscard]] double variance() const noexcept { return sigma_ * sigma_; }

 private:
  friend class detail::additive_noise<gaussian_mechanism<Real, Noise>, Real>;

  static constexpr int grid_bits = 20;
  static constexpr int sigma_fraction_bits = 10;
  // sigma in grid units times 2^10 stays below 2^31, so its square fits the
  // discrete Gaussian's 62-bit numerator.
  static constexpr std::uint64_t max_units = std::uint64_t{1} << 31;

  gaussian_mechanism(double sigma, double granularity, std::uint64_t sigma_units,
                     std::size_t dimension)
      : sigma_(sigma), granularity_(granularity), sigma_units_(sigma_units), dimension_(dimension) {
    if constexpr (std::same_as<Noise, secure_noise>) {
      // sigma^2 in grid units = units^2 / 2^20, exact in 64 bits (units < 2^32).
      sampler_.emplace(sigma_units_ * sigma_units_, std::uint64_t{1} << (2 * sigma_fraction_bits));
    }
  }

  static double grid_steps(double d, double g, std::size_t dimension) {
    if (dimension == 1) return std::floor(d / g) + 1;
    return detail::add_up(d / g, detail::sqrt_up(static_cast<double>(dimension)));
  }

  template <random_bit_source G>
  Real perturb(Real x, G& gen) const {
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      std::normal_distribution<double> n(0.0, sigma_);
      return static_cast<Real>(static_cast<double>(x) + n(gen));
    } else {
      const std::int64_t k = detail::to_grid(static_cast<double>(x), granularity_, "x");
      return static_cast<Real>(detail::from_grid(k, (*sampler_)(gen), granularity_));
    }
  }

  double sigma_;
  double granularity_;
  std::uint64_t sigma_units_;
  std::size_t dimension_;
  std::optional<discrete_gaussian_distribution> sampler_;
};

}  // namespace privet
