// privet/core/analytic_gaussian.hpp — the exact (epsilon, delta) curve of
// mu-GDP, and its inverses: the analytic Gaussian mechanism of Balle & Wang
// (2018).
//
// mu-GDP holds (epsilon, delta)-DP for every epsilon >= 0 with exactly
//
//   delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)
//
// (Dong, Roth & Su 2022, Corollary 2.13; Balle & Wang 2018, Theorem 8 for the
// Gaussian mechanism, mu = sensitivity / sigma), and no smaller delta.
//
// The two terms nearly cancel when mu is small, and both underflow when
// epsilon / mu is large, so the difference is never formed. With
// t = epsilon/mu - mu/2 and the Mills ratio M(s) = Phi(-s) / phi(s), the
// exponents of the two terms cancel exactly (their squares differ by
// 2 epsilon), leaving
//
//   delta = Phi(-t) (1 - M(t + mu) / M(t)),  log M(t) - log M(t + mu) = D,
//   D = integral over [t, t + mu] of (lambda(s) - s) ds,
//
// where lambda = 1 / M is the inverse Mills ratio. For mu <= 1, D is computed
// by 20-point Gauss-Legendre quadrature of lambda(s) - s (analytic, its
// nearest poles about 3 away from [-1/2, inf)); for mu > 1 as the difference
// of the two log M values, which is then at least about 1/40 and does not
// cancel. lambda(s) - s itself comes from Laplace's continued fraction above
// s = 2, so it never subtracts nearly equal numbers either. Measured against
// 50-digit arithmetic, delta is within about 1e-13 relative wherever it is a
// normal double (the inputs' own rounding, amplified by t^2, dominates).
//
// Every decision of the inverses (to_approx_dp, largest_gdp_within,
// analytic_gaussian_sigma) compares delta inflated by gdp_delta_margin, far
// above that error, so a calibrated epsilon is never too small and a
// calibrated mu never too large.
#pragma once

#include <privet/core/detail/gauss_legendre.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>

namespace privet {

namespace detail {

/// Relative margin by which every calibration inflates delta: about a
/// thousand times the measured error of the delta computation.
inline constexpr double gdp_delta_margin = 1e-10;

/// lambda(s) - s > 0, with lambda(s) = phi(s) / Phi(-s) the inverse Mills
/// ratio.
inline double inverse_mills_excess(double s) noexcept {
  if (s < 2) {
    // lambda(2) - 2 is about 0.37, so the subtraction costs at most a factor 6.
    const double lambda =
        std::sqrt(2 / std::numbers::pi) * std::exp(-s * s / 2) / std::erfc(s / std::numbers::sqrt2);
    return lambda - s;
  }
  // Laplace: M(s) = 1/(s + 1/(s + 2/(s + 3/(s + ...)))), so lambda - s is the
  // tail 1/(s + 2/(s + 3/(s + ...))); all terms are positive, no cancellation.
  // 150 levels are exact to double precision from s = 2 upwards.
  double tail = 0;
  for (int n = 150; n >= 2; --n) tail = n / (s + tail);
  return 1 / (s + tail);
}

/// log M(s) = log(Phi(-s) / phi(s)) for any s (inf for s below about -1e154).
inline double log_mills_ratio(double s) noexcept {
  if (s >= 2) return -std::log(s + inverse_mills_excess(s));
  const double log_sqrt_2pi = 0.5 * std::log(2 * std::numbers::pi);
  return std::log(std::erfc(s / std::numbers::sqrt2) / 2) + s * s / 2 + log_sqrt_2pi;
}

/// log Phi(-t), the log of the standard normal upper tail, accurate where
/// the tail underflows.
inline double log_normal_tail(double t) noexcept {
  if (t < 37) return std::log(std::erfc(t / std::numbers::sqrt2) / 2);
  const double log_sqrt_2pi = 0.5 * std::log(2 * std::numbers::pi);
  return log_mills_ratio(t) - t * t / 2 - log_sqrt_2pi;
}

/// The two factors of delta for mu-GDP at epsilon (mu > 0):
/// delta = tail * factor, tail = Phi(-t) given as its log, factor = 1 - e^-D.
struct gdp_delta_parts {
  double log_tail;
  double tail;    // Phi(-t) itself when it is a normal double, else 0
  double factor;  // in (0, 1]
};

inline gdp_delta_parts gdp_delta_split(double mu, double epsilon) noexcept {
  const double centre = epsilon / mu;  // inf when mu is tiny: delta is then 0
  const double half = mu / 2;
  const double t = centre - half;
  gdp_delta_parts p{log_normal_tail(t), 0, 1};
  if (t < 37) p.tail = std::erfc(t / std::numbers::sqrt2) / 2;
  // Beyond t = 39, Phi(-t) < 1e-332 is below every double delta, and the
  // factor (<= 1) would not change that.
  if (!(t < 39)) return p;
  double d = 0;
  if (mu <= 1) {
    // Nodes centre + half x keep the interval's length exact even where
    // centre >> half.
    d = half * detail::gauss_legendre<20>().integrate(
                   [&](double x) { return inverse_mills_excess(centre + half * x); });
  } else {
    d = log_mills_ratio(t) - log_mills_ratio(centre + half);
  }
  p.factor = -std::expm1(-d);
  return p;
}

/// log delta(epsilon) of mu-GDP (-inf for mu = 0).
inline double gdp_log_delta(double mu, double epsilon) noexcept {
  if (mu == 0) return -std::numeric_limits<double>::infinity();
  const gdp_delta_parts p = gdp_delta_split(mu, epsilon);
  return p.log_tail + std::log(p.factor);
}

/// The bit pattern of a non-negative double orders like its value, so
/// bisecting on it reaches adjacent doubles in at most 64 steps.
inline double bisect_doubles(double lo, double hi) noexcept {
  const auto a = std::bit_cast<std::uint64_t>(lo);
  const auto b = std::bit_cast<std::uint64_t>(hi);
  return std::bit_cast<double>(a + (b - a) / 2);
}

/// The smallest double x in [0, inf) with ok(x), for ok false below some
/// point and true above it; ok(x) is always evaluated at the returned x.
/// `start` is the first upper bracket tried (doubled until ok).
template <class Ok>
double smallest_double_where(Ok&& ok, double start) {
  if (ok(0.0)) return 0.0;
  double lo = 0, hi = start;
  while (!ok(hi)) {
    lo = hi;
    hi *= 2;
    if (!std::isfinite(hi)) return std::numeric_limits<double>::infinity();
  }
  for (;;) {
    const double mid = bisect_doubles(lo, hi);
    if (mid == lo || mid == hi) return hi;
    (ok(mid) ? hi : lo) = mid;
  }
}

/// The largest double x in [0, inf) with ok(x), for ok true at 0 and below
/// some point and false above it (inf if ok holds up to the largest double).
template <class Ok>
double largest_double_where(Ok&& ok, double start) {
  double lo = 0, hi = start;
  while (ok(hi)) {
    lo = hi;
    hi *= 2;
    if (!std::isfinite(hi)) return std::numeric_limits<double>::max();
  }
  for (;;) {
    const double mid = bisect_doubles(lo, hi);
    if (mid == lo || mid == hi) return lo;
    (ok(mid) ? lo : hi) = mid;
  }
}

/// Whether mu-GDP gives (epsilon, delta)-DP with delta inflated by the
/// margin; log_target = log(delta).
inline bool gdp_meets(double mu, double epsilon, double log_target) noexcept {
  return gdp_log_delta(mu, epsilon) + gdp_delta_margin <= log_target;
}

}  // namespace detail

/// The exact delta at `epsilon` of mu-GDP (Dong, Roth & Su 2022, Corollary
/// 2.13): Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2), to about
/// 1e-13 relative (best estimate, not rounded; the calibrations below add
/// their own margin). Throws unless epsilon is finite and >= 0.
inline double gdp_delta(const gdp& g, double epsilon) {
  validate_non_negative(epsilon, "epsilon");
  if (g.mu() == 0) return 0;
  const detail::gdp_delta_parts p = detail::gdp_delta_split(g.mu(), epsilon);
  if (p.tail > 0) return p.tail * p.factor;
  return std::exp(p.log_tail + std::log(p.factor));
}

/// The smallest epsilon >= 0 (rounded up) at which mu-GDP is
/// (epsilon, delta)-DP; 0 when delta(0) <= delta. Throws unless delta is in
/// (0, 1).
inline approx_dp to_approx_dp(const gdp& g, double delta) {
  validate_delta_positive(delta);
  const double log_target = std::log(delta);
  const double mu = g.mu();
  const double eps = detail::smallest_double_where(
      [&](double e) { return detail::gdp_meets(mu, e, log_target); }, 1.0);
  return approx_dp(eps, delta);
}

/// The largest mu (rounded down) such that mu-GDP is (target.epsilon,
/// target.delta)-DP: the noise of the analytic Gaussian mechanism (Balle &
/// Wang 2018, Algorithm 1) is sigma = sensitivity / mu. Throws unless
/// target.delta is in (0, 1).
inline gdp largest_gdp_within(const approx_dp& target) {
  validate_non_negative(target.epsilon(), "target.epsilon");
  validate_delta_positive(target.delta(), "target.delta");
  const double log_target = std::log(target.delta());
  const double eps = target.epsilon();
  return gdp(detail::largest_double_where(
      [&](double mu) { return detail::gdp_meets(mu, eps, log_target); }, 1.0));
}

/// The smallest sigma (rounded up, within about 1e-10 relative of the exact
/// one) for which adding N(0, sigma^2) to each coordinate of a value with L2
/// sensitivity `l2_sensitivity` is (target.epsilon, target.delta)-DP: the
/// analytic Gaussian mechanism (Balle & Wang 2018). Throws unless
/// target.delta is in (0, 1) and l2_sensitivity is finite and > 0, and
/// overflow_error if sigma exceeds the double range.
inline double analytic_gaussian_sigma(const approx_dp& target, double l2_sensitivity) {
  validate_positive(l2_sensitivity, "l2_sensitivity");
  const double mu = largest_gdp_within(target).mu();
  const double sigma =
      mu > 0 ? detail::div_up(l2_sensitivity, mu) : std::numeric_limits<double>::infinity();
  if (!std::isfinite(sigma)) {
    throw overflow_error("privet: the analytic Gaussian sigma for " + to_string(target) +
                         " and l2_sensitivity = " + detail::format_value(l2_sensitivity) +
                         " exceeds the double range");
  }
  return sigma;
}

}  // namespace privet
