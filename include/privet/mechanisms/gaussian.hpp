// privet/mechanisms/gaussian.hpp — the Gaussian mechanism: adding N(0, s^2)
// noise to each coordinate of a value with L2 sensitivity D is
// (D^2 / (2 s^2))-zCDP (Bun & Steinke 2016, Proposition 1.6).
//
// With secure_noise the noise is a discrete Gaussian sample (exact, Canonne,
// Kamath & Steinke 2020, whose Theorem 14 gives the same zCDP bound on Z^d)
// on a grid g = 2^k with s / g in [2^30, 2^31) (never below 2^-1074), s
// rounded up to a whole number of grid steps, at most 2^31, so that
// (s / g)^2 is an exact integer in the sampler's range. Rounding inputs to
// the grid moves d-apart neighbours to at most d / g + sqrt(dimension) grid
// steps apart in L2 (floor(d / g) + 1 in one dimension), and the privacy map
// uses exactly that. Calibration keeps the slack sqrt(dimension) g a small
// part of s: g is chosen from s and coarsened (at most a few doublings)
// only while s would pass 2^31 steps; the calibration loops are bounded.
//
// Inputs: every finite value of Real is released with the same exactness,
// as a fixed function of the exact integer round(x / g) + noise (see
// detail/grid.hpp): an input beyond 2^(p + 64) g (p = 53 for double) comes
// back unchanged, and an output beyond Real's range saturates at its max /
// lowest. +-inf inputs are read as max / lowest and NaN as 0 before the
// noise; no input throws.
//
// With constant_time_noise the grid, the calibration and the release are
// the same, and the sample comes from constant_time_discrete_gaussian
// (constant_time_noise.hpp; at the grid's sigma of 2^30 to 2^31 steps, its R
// rejection proposals), whose work does not depend on the noise and whose
// law is within total variation tau < 2^-100 of the exact one. guarantee()
// reports within_tv<zcdp> (the same rho, tau times the dimension), and
// approx_guarantee(d, delta) keeps delta as asked: it computes epsilon at
// delta minus the sampler's share (1 + e^eps) dimension tau
// (add_total_variation).
//
// approx_guarantee gives the smallest sound (eps, delta) directly, which is
// tighter than going through zCDP:
//  - simulation_only_noise: the continuous Gaussian is exactly mu-GDP with
//    mu = D / s in any dimension, so eps is the analytic Gaussian's
//    (core/analytic_gaussian.hpp; Balle & Wang 2018).
//  - secure_noise, one dimension: the exact delta of the discrete Gaussian
//    with integer shift k (Canonne, Kamath & Steinke 2020, Theorem 7),
//    delta = P[X > eps s^2/k - k/2] - e^eps P[X > eps s^2/k + k/2], is bounded
//    above by the continuous mu-GDP delta at mu = k / s plus a midpoint-rule
//    remainder, 1e-11 to 1e-9 relative at the grid's s >= 2^20 (see
//    detail::discrete_gaussian_log_delta_bound); summing the pmf itself would
//    take tens of millions of terms per evaluation at that s.
//  - secure_noise, dimension > 1: the conversion of the zCDP guarantee by
//    Canonne, Kamath & Steinke 2020, Corollary 13, which holds for every
//    rho-zCDP mechanism (their exact multivariate (eps, delta) result is not
//    used).
#pragma once

#include <privet/core/analytic_gaussian.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/detail/zcdp_conversion.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/detail/additive_noise.hpp>
#include <privet/mechanisms/detail/grid.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/noise.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <ranges>
#include <string>
#include <vector>

namespace privet {

namespace detail {

/// log(sum of e^x over xs), -inf for an empty sum.
inline double log_sum_exp(std::initializer_list<double> xs) noexcept {
  double top = -std::numeric_limits<double>::infinity();
  for (double x : xs) top = std::max(top, x);
  if (!std::isfinite(top)) return top;
  double sum = 0;
  for (double x : xs) sum += std::exp(x - top);
  return top + std::log(sum);
}

/// An upper bound on log delta(epsilon) of adding the discrete Gaussian
/// N_Z(0, sigma^2) to integers that differ by at most `steps` (an integer
/// >= 1), valid for every sigma > 0 and tight to about
/// 1 / (sigma^2 mu) relative when mu = steps / sigma.
///
/// For a shift k, with a = eps sigma^2 / k - k / 2 and
/// h(x) = e^{-x^2 / 2 sigma^2} - e^eps e^{-(x + k)^2 / 2 sigma^2}, the exact
/// delta (Canonne, Kamath & Steinke 2020, Theorem 7) is sum_{j > a} h(j) / Z,
/// all terms positive, Z = sum_j e^{-j^2 / 2 sigma^2} >= sqrt(2 pi) sigma
/// (Poisson summation). The midpoint rule on cells [j - 1/2, j + 1/2] gives
/// sum_{j >= n} h(j) <= integral_{n - 1/2}^inf h + (1/24) sum_j sup_cell |h''|,
/// and since h < 0 below a and > 0 above it, integral_{n - 1/2}^inf h <=
/// integral_a^inf h = sqrt(2 pi) sigma (continuous mu_k-GDP delta), which
/// grows with k. The remainder is at most integral |h''| plus the total
/// variation of |h''| over [n - 1/2, inf); with u = (n - 1/2) / sigma and
/// v = u + mu_k (so that e^eps e^{-v^2/2} = e^{-u^2/2} up to the half-step
/// offset), each term has a closed form bounded below for every k <= steps.
inline double discrete_gaussian_log_delta_bound(double sigma, double steps, double epsilon) {
  const double mu_up = div_up(steps, sigma);
  const double continuous = gdp_log_delta(mu_up, epsilon);
  // u over all shifts is smallest at the largest one; the relative slack
  // covers the rounding of this line.
  double u = epsilon / mu_up - mu_up / 2 - 1 / (2 * sigma);
  u -= 1e-9 * (1 + std::fabs(u));
  const double log_sigma = std::log(sigma);
  const double log4 = std::log(4.0);
  // Ib(u) >= integral_u^inf |w^2 - 1| e^{-w^2/2} dw, non-increasing in u.
  const double log_i = u >= 1 ? std::log(u) - u * u / 2 : log4 - 0.5;
  // Vb(u) >= total variation of |w^2 - 1| e^{-w^2/2} on [u, inf).
  const double log_v = u >= std::numbers::sqrt3 ? std::log(u * u - 1) - u * u / 2 : log4;
  // The e^eps-weighted terms at v, bounded over all shifts.
  double log_j = 0, log_vbar = 0;
  if (u >= 1) {
    log_j = std::log(u + mu_up) - u * u / 2;
  } else {
    log_j = std::log(1 + mu_up);
    if (epsilon < 0.5) log_j = std::max(log_j, log4 - 0.5 + epsilon);
  }
  if (u >= 2) {
    log_vbar = 2 * std::log(u + mu_up) - u * u / 2;
  } else {
    log_vbar = std::log(2 + 2 * mu_up * mu_up);
    if (epsilon < 1.5) log_vbar = std::max(log_vbar, log4 + epsilon);
  }
  // (1/24) [ (Ib + J) / sigma + (Vb + Vbar) / sigma^2 ] / (sqrt(2 pi) sigma),
  // doubled to cover the rounding of this bound itself.
  const double log_remainder = log_sum_exp({log_i - log_sigma, log_j - log_sigma,
                                            log_v - 2 * log_sigma, log_vbar - 2 * log_sigma}) -
                               std::log(24 * std::sqrt(2 * std::numbers::pi)) - log_sigma +
                               std::log(2.0);
  return log_sum_exp({continuous + gdp_delta_margin, log_remainder});
}

}  // namespace detail

/// The Gaussian mechanism on values of type Real: a `measurement` whose
/// privacy map is guarantee(d) = zcdp(d^2 / (2 sigma^2)) for inputs at L2
/// distance d (with secure_noise, d widened to the grid as in the file
/// comment); approx_guarantee gives (eps, delta) directly. Release with
/// `m(x, gen)` (dimension 1), `m(xs, gen)` or `m(xs, gen, parallel_options)`;
/// release generators must be secure_bit_source unless Noise is
/// simulation_only_noise.
template <real_number Real = double, mechanism_noise_policy Noise = constant_time_noise>
class gaussian_mechanism : public detail::additive_noise<gaussian_mechanism<Real, Noise>, Real> {
 public:
  using value_type = Real;   ///< The type of inputs and outputs.
  using noise_type = Noise;  ///< secure_noise, constant_time_noise or simulation_only_noise.
  using input_metric = l2_distance;  ///< Sensitivity is measured in L2.
  /// What guarantee() returns: zcdp, or within_tv<zcdp> with
  /// constant_time_noise.
  using guarantee_type =
      std::conditional_t<std::same_as<Noise, constant_time_noise>, within_tv<zcdp>, zcdp>;

  /// N(0, sigma^2) noise on each of `dimension` coordinates (secure_noise
  /// rounds sigma up to whole grid steps, by less than 2^-30 relative; see
  /// sigma()). Throws unless sigma is finite and > 0 (and, with secure_noise,
  /// at most (2^31 - 1) 2^993, about 1.7976931340e308, so that the rounded-up
  /// sigma stays finite) and dimension >= 1.
  static gaussian_mechanism from_scale(double sigma, std::size_t dimension = 1) {
    validate_scale(sigma, "sigma");
    validate_at_least<std::size_t>(dimension, 1, "dimension");
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      return gaussian_mechanism(sigma, 0, 0, dimension);
    } else {
      const double g = detail::grid_for(sigma, grid_bits);
      const auto units = static_cast<std::uint64_t>(std::ceil(sigma / g));  // <= 2^31
      if (!std::isfinite(static_cast<double>(units) * g)) {
        throw_invalid("sigma", sigma,
                      "finite, > 0 and <= " + detail::format_value(std::ldexp(0x1p31 - 1, 993)) +
                          " with grid noise (sigma is rounded up to whole grid steps)");
      }
      return from_units(units, g, dimension);
    }
  }

  /// The least noise (up to one step of sigma's representation) whose
  /// guarantee for inputs `l2_sensitivity` apart is at most `target`. With
  /// secure_noise, sigma exceeds the ideal l2_sensitivity / sqrt(2 rho) by
  /// at most about 2 sqrt(dimension) / (2^31 sqrt(2 rho)) relative (the
  /// grid's rounding slack), and target.rho must be >= dimension * 2^-61:
  /// rounding each coordinate costs one grid step (sqrt(dimension) in L2),
  /// and sigma must stay within the exact sampler's 2^31 grid steps. Throws
  /// overflow_error when sigma exceeds the double range.
  static gaussian_mechanism from_guarantee(zcdp target, double l2_sensitivity,
                                           std::size_t dimension = 1) {
    const double rho = validate_positive(target.rho(), "target.rho");
    validate_positive(l2_sensitivity, "l2_sensitivity");
    validate_at_least<std::size_t>(dimension, 1, "dimension");
    // sqrt(2) sqrt(rho): 2 rho itself may overflow.
    const double root = std::numbers::sqrt2 * std::sqrt(rho);
    const double sigma0 = l2_sensitivity / root;
    auto too_large = [&] {
      return overflow_error("privet: the Gaussian sigma for " + to_string(target) +
                            " and l2_sensitivity = " + detail::format_value(l2_sensitivity) +
                            " exceeds the double range");
    };
    if (!std::isfinite(sigma0)) throw too_large();
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      double sigma = std::max(sigma0, std::numeric_limits<double>::denorm_min());
      // A few next_up steps at most: sigma0 is exact up to two roundings.
      for (int i = 0;
           gaussian_mechanism(sigma, 0, 0, dimension).guarantee(l2_sensitivity).rho() > rho; ++i) {
        if (i == 64) throw too_large();  // not reached: guards the invariant
        sigma = detail::next_up(sigma);
      }
      if (!std::isfinite(sigma)) throw too_large();
      return gaussian_mechanism(sigma, 0, 0, dimension);
    } else {
      const double rho_min = std::ldexp(static_cast<double>(dimension), -61);
      if (rho < rho_min) {
        throw_invalid("target.rho", rho,
                      ">= dimension * 2^-61 = " + detail::format_value(rho_min) +
                          " with grid noise (rounding each coordinate to the grid costs one "
                          "step, and sigma must stay within the exact sampler's 2^31 steps)");
      }
      // With rho >= dimension 2^-61 the slack alone needs at most 2^30 steps
      // of sigma, and sigma0 / g < 2^31 halves with each doubling of g, so
      // the loop ends by the third pass.
      double g = detail::grid_for(sigma0, grid_bits);
      for (int pass = 0; pass < 8 && std::isfinite(g); ++pass, g *= 2) {
        const double steps = grid_steps(l2_sensitivity, g, dimension);
        const double estimate = std::ceil(steps / root);
        if (!(estimate <= static_cast<double>(max_units))) continue;
        auto units = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(estimate));
        // The estimate is within one rounding; the privacy map decides.
        while (units <= max_units && zcdp_units(steps, units) > rho) ++units;
        if (units > max_units) continue;
        if (!std::isfinite(static_cast<double>(units) * g)) throw too_large();
        return from_units(units, g, dimension);
      }
      throw too_large();  // not reached for finite sigma0 (see above)
    }
  }

  /// The least noise (up to one step of sigma's representation) whose
  /// approx_guarantee at target.delta for inputs `l2_sensitivity` apart has
  /// epsilon <= target.epsilon: the analytic Gaussian mechanism (Balle & Wang
  /// 2018) for simulation_only_noise, its discrete counterpart for
  /// secure_noise and constant_time_noise (whose calibration aims at
  /// target.delta minus room for the sampler's share, about 2^-47
  /// relative). Throws unless target.delta is in (0, 1), l2_sensitivity is
  /// finite and > 0 and dimension >= 1; overflow_error when sigma exceeds the
  /// double range; with secure_noise, invalid_parameter (target.epsilon) when
  /// the target needs sigma above 2^30 grid steps even on the coarsest grid
  /// (rounding costs one step per coordinate, sqrt(dimension) in L2).
  static gaussian_mechanism from_guarantee(approx_dp target, double l2_sensitivity,
                                           std::size_t dimension = 1) {
    validate_delta_positive(target.delta(), "target.delta");
    validate_positive(l2_sensitivity, "l2_sensitivity");
    validate_at_least<std::size_t>(dimension, 1, "dimension");
    // The continuous Gaussian needs the least noise: the grid only adds
    // sensitivity, and the discrete and zCDP bounds are above the exact
    // continuous delta.
    const double sigma0 = analytic_gaussian_sigma(target, l2_sensitivity);
    // With constant_time_noise, room is left for the sampler's share.
    const double delta = calibration_delta(target, dimension);
    const double eps = target.epsilon();
    auto too_large = [&] {
      return overflow_error("privet: the Gaussian sigma for " + to_string(target) +
                            " and l2_sensitivity = " + detail::format_value(l2_sensitivity) +
                            " exceeds the double range");
    };
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      double sigma = sigma0;
      for (int i = 0; continuous_epsilon(l2_sensitivity, sigma, delta) > eps; ++i) {
        if (i == 64) throw too_large();  // not reached: guards the invariant
        sigma = detail::next_up(sigma);
      }
      if (!std::isfinite(sigma)) throw too_large();
      return gaussian_mechanism(sigma, 0, 0, dimension);
    } else {
      // The least sensitivity in grid steps, reached on a coarse grid.
      const double least_steps =
          dimension == 1 ? 1.0 : detail::sqrt_up(static_cast<double>(dimension));
      if (!(secure_epsilon(least_steps, max_units / 2, dimension, delta) <= eps)) {
        throw_invalid("target.epsilon", eps,
                      "large enough for the secure sampler at target.delta = " +
                          detail::format_value(target.delta()) +
                          " and dimension = " + std::to_string(dimension) +
                          " (rounding each coordinate to the grid costs one step, and sigma "
                          "must stay within 2^30 of the exact sampler's steps)");
      }
      // Each pass halves sigma0 / g; the check above bounds the slack's own
      // share, so a few passes suffice (the cap guards the invariant).
      double g = detail::grid_for(sigma0, grid_bits);
      for (int pass = 0; pass < 64 && std::isfinite(g); ++pass, g *= 2) {
        const double steps = grid_steps(l2_sensitivity, g, dimension);
        auto ok = [&](std::uint64_t u) {
          return secure_epsilon(steps, u, dimension, delta) <= eps;
        };
        const double start = std::floor(sigma0 / g);
        if (!(start < static_cast<double>(max_units))) continue;
        std::uint64_t lo = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(start));
        while (lo > 1 && ok(lo)) lo /= 2;  // not expected; keeps lo failing
        if (ok(lo)) return checked_units(lo, g, dimension, too_large);
        // Gallop up from lo (the zCDP bound for dimension > 1 may need tens of
        // percent more noise), then bisect: the result has passed ok().
        std::uint64_t stride = std::max<std::uint64_t>(1, lo >> 12);
        std::uint64_t hi = lo + stride;
        while (hi <= max_units && !ok(hi)) {
          lo = hi;
          stride *= 2;
          hi = lo + stride;
        }
        if (hi > max_units) continue;  // sigma / g would leave the sampler's range
        while (hi - lo > 1) {
          const std::uint64_t mid = lo + (hi - lo) / 2;
          (ok(mid) ? hi : lo) = mid;
        }
        return checked_units(hi, g, dimension, too_large);
      }
      throw too_large();
    }
  }

  /// The smallest sound epsilon (rounded up) at which inputs `l2_sensitivity`
  /// apart are (epsilon, delta)-DP; see the header comment for the bound used
  /// by each noise. Throws unless l2_sensitivity is finite and >= 0 and delta
  /// is in (0, 1), and overflow_error when epsilon exceeds the double range.
  [[nodiscard]] approx_dp approx_guarantee(double l2_sensitivity, double delta) const {
    validate_non_negative(l2_sensitivity, "l2_sensitivity");
    validate_delta_positive(delta);
    if (l2_sensitivity == 0) return approx_dp(0, delta);
    double eps = 0;
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      eps = continuous_epsilon(l2_sensitivity, sigma_, delta);
    } else if constexpr (std::same_as<Noise, constant_time_noise>) {
      return constant_time_approx(l2_sensitivity, delta);
    } else {
      eps = secure_epsilon(grid_steps(l2_sensitivity, granularity_, dimension_), sigma_units_,
                           dimension_, delta);
    }
    if (!std::isfinite(eps)) throw guarantee_overflow(l2_sensitivity);
    return approx_dp(eps, delta);
  }

  /// The zCDP guarantee for inputs at L2 distance `l2_sensitivity` (with
  /// constant_time_noise, within total variation sampler_total_variation()).
  /// Throws overflow_error when rho exceeds the double range.
  [[nodiscard]] guarantee_type guarantee(double l2_sensitivity) const {
    const zcdp base(rho_for(l2_sensitivity));
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return within_tv<zcdp>(base, sampler_total_variation());
    } else {
      return base;
    }
  }

  /// The total variation between a release's noise (all coordinates) and
  /// the exact discrete Gaussian's: dimension * tau with
  /// constant_time_noise, rounded up; 0 otherwise.
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
  [[nodiscard]] double rho_for(double l2_sensitivity) const {
    validate_non_negative(l2_sensitivity, "l2_sensitivity");
    if (l2_sensitivity == 0) return 0;
    double rho = 0;
    if constexpr (grid_noise<Noise>) {
      rho = zcdp_units(grid_steps(l2_sensitivity, granularity_, dimension_), sigma_units_);
    } else {
      const double ratio = detail::div_up(l2_sensitivity, sigma_);
      rho = detail::mul_up(ratio, ratio) / 2;
    }
    if (!std::isfinite(rho)) throw guarantee_overflow(l2_sensitivity);
    return rho;
  }

 public:
  /// The noise standard deviation (with secure_noise, a whole number of
  /// grid steps).
  [[nodiscard]] double sigma() const noexcept { return sigma_; }
  /// The output grid g with secure_noise, 0 with simulation_only_noise.
  [[nodiscard]] double granularity() const noexcept { return granularity_; }
  /// The number of coordinates each release noises.
  [[nodiscard]] std::size_t dimension() const noexcept { return dimension_; }
  /// sigma^2, the continuous Gaussian's variance per coordinate (the
  /// discrete one's is slightly below).
  [[nodiscard]] double variance() const noexcept { return sigma_ * sigma_; }

 private:
  friend class detail::additive_noise<gaussian_mechanism<Real, Noise>, Real>;

  // sigma = units grid steps, a whole number in [1, 2^31]: its square fits
  // the discrete Gaussian's range (2 units^2 (units + 1)^2 < 2^128), and a
  // grid of 2^-30 sigma leaves room for the rounding slack below 2^31.
  static constexpr int grid_bits = 30;
  static constexpr std::uint64_t max_units = std::uint64_t{1} << 31;
  // The most total variation a constant-time sample may add (checked when
  // the sampler is built); the calibration leaves room for it.
  static constexpr double max_sampler_tv = 0x1p-100;

  // The share of delta to set aside for the sampler: at least 4 tau (the
  // factor 1 + e^eps is at least 2) and a few ulps of delta, so that the
  // rounding of delta - share and of add_total_variation never eats the
  // margin.
  static double sampler_share(double delta, double tau) {
    return std::max(4 * tau, std::ldexp(delta, -48));
  }

  // (eps, delta) with constant_time_noise: eps at delta minus the sampler's
  // share, the share raised until add_total_variation of the exact
  // guarantee fits within delta.
  [[nodiscard]] approx_dp constant_time_approx(double l2_sensitivity, double delta) const {
    const double tau = sampler_total_variation();
    const double steps = grid_steps(l2_sensitivity, granularity_, dimension_);
    for (double share = sampler_share(delta, tau); share < delta; share *= 2) {
      const double base = delta - share;
      const double eps = secure_epsilon(steps, sigma_units_, dimension_, base);
      if (!std::isfinite(eps)) throw guarantee_overflow(l2_sensitivity);
      if (add_total_variation(approx_dp(eps, base), tau).delta() <= delta) {
        return approx_dp(eps, delta);
      }
    }
    throw_invalid("delta", delta,
                  "above the constant-time sampler's share (1 + e^eps) dimension tau = " +
                      detail::format_value(tau) + " times (1 + e^eps)");
  }

  // The delta the approx calibration aims at: target.delta minus room for the
  // sampler's share at the target's epsilon (constant_time_noise), so that
  // approx_guarantee at target.delta meets the target.
  static double calibration_delta(const approx_dp& target, std::size_t dimension) {
    if constexpr (!std::same_as<Noise, constant_time_noise>) {
      (void)dimension;
      return target.delta();
    } else {
      const double factor = detail::next_up(detail::next_up(1 + std::exp(target.epsilon())));
      const double tau = detail::mul_up(static_cast<double>(dimension), max_sampler_tv);
      const double room = std::isfinite(factor)
                              ? 2 * sampler_share(target.delta(), detail::mul_up(factor, tau))
                              : target.delta();
      const double delta = target.delta() - room;
      if (!(delta > 0)) {
        throw_invalid("target.delta", target.delta(),
                      "above the constant-time sampler's share of delta");
      }
      return delta;
    }
  }

  gaussian_mechanism(double sigma, double granularity, std::uint64_t sigma_units,
                     std::size_t dimension)
      : sigma_(sigma), granularity_(granularity), sigma_units_(sigma_units), dimension_(dimension) {
    if constexpr (grid_noise<Noise>) {
      sampler_.emplace(discrete_gaussian_distribution(sigma_units_ * sigma_units_, 1));
      if constexpr (std::same_as<Noise, constant_time_noise>) {
        // The calibration's slack assumes tau <= 2^-100 per coordinate; the
        // samplers stay below 2^-110 over the grid's whole sigma range.
        if (!(sampler_->total_variation_bound() <= max_sampler_tv)) {
          throw error(
              "privet: internal error: the constant-time sampler's total variation "
              "exceeds 2^-100");
        }
      }
    }
  }

  static gaussian_mechanism from_units(std::uint64_t units, double g, std::size_t dimension) {
    return gaussian_mechanism(static_cast<double>(units) * g, g, units, dimension);
  }

  template <class TooLarge>
  static gaussian_mechanism checked_units(std::uint64_t units, double g, std::size_t dimension,
                                          TooLarge& too_large) {
    if (!std::isfinite(static_cast<double>(units) * g)) throw too_large();
    return from_units(units, g, dimension);
  }

  [[nodiscard]] overflow_error guarantee_overflow(double l2_sensitivity) const {
    return overflow_error("privet: the Gaussian guarantee for l2_sensitivity = " +
                          detail::format_value(l2_sensitivity) + " at sigma = " +
                          detail::format_value(sigma_) + " exceeds the double range");
  }

  // rho = (steps / units)^2 / 2, rounded up (both in grid steps).
  static double zcdp_units(double steps, std::uint64_t units) {
    const double ratio = detail::div_up(steps, static_cast<double>(units));
    return detail::mul_up(ratio, ratio) / 2;
  }

  // mu-GDP with mu = d / sigma, rounded up.
  static double continuous_epsilon(double d, double sigma, double delta) {
    return to_approx_dp(gdp(detail::div_up(d, sigma)), delta).epsilon();
  }

  // steps in grid units, sigma = units grid units (exact).
  static double secure_epsilon(double steps, std::uint64_t units, std::size_t dimension,
                               double delta) {
    const double sigma = static_cast<double>(units);
    if (dimension > 1) {
      const double ratio = detail::div_up(steps, sigma);
      return detail::zcdp_epsilon_upper(detail::mul_up(ratio, ratio) / 2, delta);
    }
    const double log_target = std::log(delta);
    return detail::smallest_double_where(
        [&](double eps) {
          return detail::discrete_gaussian_log_delta_bound(sigma, steps, eps) <= log_target;
        },
        1.0);
  }

  static double grid_steps(double d, double g, std::size_t dimension) {
    if (dimension == 1) return std::floor(d / g) + 1;
    return detail::add_up(d / g, detail::sqrt_up(static_cast<double>(dimension)));
  }

  // Never throws on x (see the file comment).
  template <random_bit_source G>
  Real perturb(Real x, G& gen) const {
    if constexpr (std::same_as<Noise, simulation_only_noise>) {
      std::normal_distribution<double> n(0.0, sigma_);
      return detail::add_saturated<Real>(x, n(gen));
    } else if constexpr (std::same_as<Noise, constant_time_noise>) {
      return detail::release_on_grid_constant_time<Real>(x, granularity_, (*sampler_)(gen));
    } else {
      return detail::release_on_grid<Real>(x, granularity_, (*sampler_)(gen));
    }
  }

  double sigma_;
  double granularity_;
  std::uint64_t sigma_units_;
  std::size_t dimension_;
  std::optional<std::conditional_t<std::same_as<Noise, constant_time_noise>,
                                   constant_time_discrete_gaussian, discrete_gaussian_distribution>>
      sampler_;
};

}  // namespace privet
