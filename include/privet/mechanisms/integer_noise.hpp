// privet/mechanisms/integer_noise.hpp — additive noise mechanisms for integer
// queries (counts, histograms): the discrete Gaussian under zCDP and the
// discrete Laplace under pure DP, with their privacy maps.
//
// Integer noise on an integer query needs no grid and no rounding: the
// output is the count plus an exact sample, and the guarantee is exact in
// the noise's rational parameter:
//
// - discrete Gaussian, sigma^2 = a / b, on a query of L2 sensitivity D:
//   (D^2 / (2 sigma^2))-zCDP (Canonne, Kamath & Steinke 2020, Theorem 14);
// - discrete Laplace, scale t = num / den, on L1 sensitivity D: (D / t)-DP
//   (ibid., Section 2.2; the two-sided geometric of Ghosh, Roughgarden &
//   Sundararajan 2009).
//
// With Noise = constant_time_noise the samples come from the constant-time
// samplers (constant_time_noise.hpp): the same law up to a total variation
// tau below 2^-100, drawn with a fixed number of random words whatever the
// sample; guarantee() then returns within_tv<G> of the guarantee G above,
// and the accounting layer turns it into (eps, delta + (1 + e^eps) tau).
//
// Every privacy map rounds up and every calibration rounds the noise up, so
// the reported guarantee is never below the true one. The value plus noise
// is formed exactly (in 128 bits) and saturates at the limits of the value
// type: a count at or near its type's maximum is data, and data never makes
// a measurement throw. Saturating is post-processing of the exact noisy
// value, so the guarantee is unchanged, and it never wraps.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/noise.hpp>

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace privet {

namespace detail {

/// The largest double <= v and the smallest double >= v, for a uint64 v.
inline double u64_down(std::uint64_t v) noexcept {
  const double d = static_cast<double>(v);
  // 2^64 itself is not a uint64; anything at or above it is above v.
  if (d >= 18446744073709551616.0 || static_cast<std::uint64_t>(d) > v) {
    return std::nextafter(d, 0.0);
  }
  return d;
}
inline double u64_up(std::uint64_t v) noexcept {
  const double d = static_cast<double>(v);
  if (d < 18446744073709551616.0 && static_cast<std::uint64_t>(d) < v) return next_up(d);
  return d;
}

/// value + noise, exact, then clamped to Int's range: a sum outside it
/// comes out as Int's minimum or maximum (post-processing of the exact sum,
/// so it costs no privacy; it never wraps and never throws).
template <std::signed_integral Int>
Int add_noise_saturating(Int value, std::int64_t noise) noexcept {
  const int128 sum = static_cast<int128>(value) + noise;
  if (sum > std::numeric_limits<Int>::max()) return std::numeric_limits<Int>::max();
  if (sum < std::numeric_limits<Int>::min()) return std::numeric_limits<Int>::min();
  return static_cast<Int>(sum);
}

/// add_noise_saturating without a branch on the value or the noise (for
/// constant_time_noise): the same result, the clamps taken by masks from
/// the signs of exact 128-bit differences.
template <std::signed_integral Int>
Int add_noise_saturating_ct(Int value, std::int64_t noise) noexcept {
  constexpr int128 top = std::numeric_limits<Int>::max();
  constexpr int128 bottom = std::numeric_limits<Int>::min();
  const int128 sum = static_cast<int128>(value) + noise;  // |sum| < 2^64
  const auto over = ct_barrier(static_cast<std::uint64_t>(static_cast<uint128>(top - sum) >> 127));
  const auto under =
      ct_barrier(static_cast<std::uint64_t>(static_cast<uint128>(sum - bottom) >> 127));
  const auto s = static_cast<std::uint64_t>(static_cast<uint128>(sum));
  std::uint64_t r =
      ct_select(ct_mask(over), static_cast<std::uint64_t>(static_cast<uint128>(top)), s);
  r = ct_select(ct_mask(under), static_cast<std::uint64_t>(static_cast<uint128>(bottom)), r);
  return static_cast<Int>(static_cast<std::int64_t>(r));
}

/// The saturating sum for the noise policy: branch-free with
/// constant_time_noise.
template <class Noise, std::signed_integral Int>
Int add_noise_for(Int value, std::int64_t noise) noexcept {
  if constexpr (std::same_as<Noise, constant_time_noise>) {
    return add_noise_saturating_ct(value, noise);
  } else {
    return add_noise_saturating(value, noise);
  }
}

}  // namespace detail

/// Discrete Gaussian noise on integer values, rho-zCDP (within total
/// variation tau of it with constant_time_noise).
template <std::signed_integral Int = std::int64_t, grid_noise Noise = constant_time_noise>
class discrete_gaussian_mechanism : public pipeline_step {
 public:
  using input_metric = l2_distance;  ///< Sensitivity is measured in L2.
  /// What guarantee() returns: zcdp, or within_tv<zcdp> with
  /// constant_time_noise.
  using guarantee_type =
      std::conditional_t<std::same_as<Noise, constant_time_noise>, within_tv<zcdp>, zcdp>;
  using value_type = Int;    ///< The type of inputs and outputs.
  using noise_type = Noise;  ///< secure_noise or constant_time_noise.

  /// Adds samples of `noise` (with constant_time_noise, from the
  /// constant-time sampler of the same law).
  explicit discrete_gaussian_mechanism(discrete_gaussian_distribution noise) : noise_(noise) {}

  /// sigma^2 = sigma2_num / sigma2_den exactly.
  static discrete_gaussian_mechanism from_sigma2(std::uint64_t sigma2_num,
                                                 std::uint64_t sigma2_den) {
    return discrete_gaussian_mechanism(discrete_gaussian_distribution(sigma2_num, sigma2_den));
  }

  /// sigma as a double (sigma^2 rounded up, see discrete_gaussian_distribution).
  static discrete_gaussian_mechanism from_scale(double sigma) {
    return discrete_gaussian_mechanism(discrete_gaussian_distribution(sigma));
  }

  /// The least noise (to a relative 2^-50 or so) whose guarantee at this L2
  /// sensitivity is at most target: sigma^2 = D^2 / (2 rho), rounded up.
  static discrete_gaussian_mechanism from_guarantee(zcdp target, double l2_sensitivity) {
    validate_positive(l2_sensitivity, "l2_sensitivity");
    validate_positive(target.rho(), "target.rho");
    const double d2 = detail::mul_up(l2_sensitivity, l2_sensitivity);
    double sigma = detail::sqrt_up(detail::div_up(d2, 2 * target.rho()));
    discrete_gaussian_mechanism m = from_scale(sigma);
    while (m.rho_for(l2_sensitivity) > target.rho()) {
      sigma = detail::next_up(sigma);
      m = from_scale(sigma);
    }
    return m;
  }

  /// rho = D^2 b / (2 a) for sigma^2 = a / b, rounded up; with
  /// constant_time_noise, within total variation sampler_total_variation().
  [[nodiscard]] guarantee_type guarantee(double l2_sensitivity) const {
    const zcdp base(rho_for(l2_sensitivity));
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return within_tv<zcdp>(base, sampler_total_variation());
    } else {
      return base;
    }
  }

  /// value + one sample, saturated at Int's limits (never throws for any
  /// value; see the file comment).
  template <random_bit_source G>
  Int operator()(Int value, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    return detail::add_noise_for<Noise>(value, noise_(gen));
  }

  /// The noise distribution (the exact law; with constant_time_noise the
  /// samples are within sampler_total_variation() of it).
  [[nodiscard]] const discrete_gaussian_distribution& distribution() const noexcept {
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return noise_.exact();
    } else {
      return noise_;
    }
  }

  /// The total variation between one sample's law and the exact one: the
  /// constant-time sampler's bound, 0 with secure_noise.
  [[nodiscard]] double sampler_total_variation() const noexcept {
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return noise_.total_variation_bound();
    } else {
      return 0;
    }
  }

 private:
  [[nodiscard]] double rho_for(double l2_sensitivity) const {
    validate_non_negative(l2_sensitivity, "l2_sensitivity");
    const double d2 = detail::mul_up(l2_sensitivity, l2_sensitivity);
    const double num = detail::mul_up(d2, detail::u64_up(distribution().sigma2_den()));
    return detail::div_up(num, 2 * detail::u64_down(distribution().sigma2_num()));
  }

  std::conditional_t<std::same_as<Noise, constant_time_noise>, constant_time_discrete_gaussian,
                     discrete_gaussian_distribution>
      noise_;
};

/// Discrete Laplace noise on integer values, eps-DP (within total variation
/// tau of it with constant_time_noise).
template <std::signed_integral Int = std::int64_t, grid_noise Noise = constant_time_noise>
class discrete_laplace_mechanism : public pipeline_step {
 public:
  using input_metric = l1_distance;  ///< Sensitivity is measured in L1.
  /// What guarantee() returns: pure_dp, or within_tv<pure_dp> with
  /// constant_time_noise.
  using guarantee_type =
      std::conditional_t<std::same_as<Noise, constant_time_noise>, within_tv<pure_dp>, pure_dp>;
  using value_type = Int;    ///< The type of inputs and outputs.
  using noise_type = Noise;  ///< secure_noise or constant_time_noise.

  /// Adds samples of `noise` (with constant_time_noise, from the
  /// constant-time sampler of the same law; scales above about 2^63 / 89
  /// throw invalid_parameter naming `scale`).
  explicit discrete_laplace_mechanism(discrete_laplace_distribution noise) : noise_(noise) {}

  /// Scale t as a double, taken at its exact binary value.
  static discrete_laplace_mechanism from_scale(double scale) {
    return discrete_laplace_mechanism(discrete_laplace_distribution(scale));
  }

  /// The least scale (to one ulp) with D / t <= target epsilon.
  static discrete_laplace_mechanism from_guarantee(pure_dp target, double l1_sensitivity) {
    validate_positive(l1_sensitivity, "l1_sensitivity");
    validate_positive(target.epsilon(), "target.epsilon");
    double t = detail::div_up(l1_sensitivity, target.epsilon());
    discrete_laplace_mechanism m = from_scale(t);
    while (m.epsilon_for(l1_sensitivity) > target.epsilon()) {
      t = detail::next_up(t);
      m = from_scale(t);
    }
    return m;
  }

  /// eps = D den / num for t = num / den, rounded up; with
  /// constant_time_noise, within total variation sampler_total_variation().
  [[nodiscard]] guarantee_type guarantee(double l1_sensitivity) const {
    const pure_dp base(epsilon_for(l1_sensitivity));
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return within_tv<pure_dp>(base, sampler_total_variation());
    } else {
      return base;
    }
  }

  /// value + one sample, saturated at Int's limits.
  template <random_bit_source G>
  Int operator()(Int value, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    return detail::add_noise_for<Noise>(value, noise_(gen));
  }

  /// The noise distribution (the exact law; with constant_time_noise the
  /// samples are within sampler_total_variation() of it).
  [[nodiscard]] const discrete_laplace_distribution& distribution() const noexcept {
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return noise_.exact();
    } else {
      return noise_;
    }
  }

  /// The total variation between one sample's law and the exact one: the
  /// constant-time sampler's bound, 0 with secure_noise.
  [[nodiscard]] double sampler_total_variation() const noexcept {
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return noise_.total_variation_bound();
    } else {
      return 0;
    }
  }

 private:
  [[nodiscard]] double epsilon_for(double l1_sensitivity) const {
    validate_non_negative(l1_sensitivity, "l1_sensitivity");
    const double num = detail::mul_up(l1_sensitivity, detail::u64_up(distribution().scale_den()));
    return detail::div_up(num, detail::u64_down(distribution().scale_num()));
  }

  std::conditional_t<std::same_as<Noise, constant_time_noise>, constant_time_discrete_laplace,
                     discrete_laplace_distribution>
      noise_;
};

}  // namespace privet
