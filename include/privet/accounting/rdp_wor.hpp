// privet/accounting/rdp_wor.hpp — RDP amplification by subsampling without
// replacement (Wang, Balle & Kasiviswanathan, "Subsampled Rényi Differential
// Privacy and Analytical Moments Accountant", AISTATS 2019, Theorem 9).
//
// A mechanism M with RDP curve eps(.) under replace-one neighbours, run on a
// uniformly random subset of m of the n records (gamma = m / n), satisfies
// for every integer alpha >= 2
//
//   eps'(alpha) <= 1/(alpha - 1) log( 1
//       + gamma^2 C(alpha, 2) min{ 4 (e^{eps(2)} - 1),
//                                  e^{eps(2)} min{2, (e^{eps(inf)} - 1)^2} }
//       + sum_{j=3}^{alpha} gamma^j C(alpha, j) e^{(j - 1) eps(j)}
//                                  min{2, (e^{eps(inf)} - 1)^j} ),
//
// where eps(inf) is the mechanism's pure-DP epsilon (+inf for the Gaussian,
// so the min is 2). The sum is evaluated in log space (binomials by their
// ratio recurrence, log-sum-exp), so orders in the thousands do not overflow.
//
// Fractional orders: (alpha - 1) eps'(alpha) is convex in alpha (it is the
// cumulant generating function of the privacy loss, up to a shift), so the
// chord between the neighbouring integers bounds it from above; for alpha in
// (1, 2) the chord runs from (1, 0), i.e. eps'(alpha) <= eps'(2), which is
// also Rényi divergence's monotonicity in alpha.
#pragma once

#include <privet/accounting/detail/log_math.hpp>
#include <privet/accounting/rdp.hpp>
#include <privet/core/validate.hpp>

#include <cmath>
#include <concepts>
#include <limits>
#include <string>
#include <vector>

namespace privet {

namespace detail {

/// log of the bracket in Theorem 9 at integer alpha >= 2.
template <class Eps>
double wor_log_bracket(double gamma, Eps& eps, double eps_inf, std::uint64_t alpha) {
  const double lg = std::log(gamma);
  const double e2 = eps(2.0);
  // log min{2, (e^{eps_inf} - 1)^j}, for j >= 2.
  auto log_factor = [&](double j) {
    if (!std::isfinite(eps_inf)) return std::log(2.0);
    return std::min(std::log(2.0), j * log_sub(eps_inf, 0.0));
  };
  // j = 2: min{4 (e^{eps(2)} - 1), e^{eps(2)} min{2, (e^{eps_inf} - 1)^2}}.
  const double two = std::min(std::log(4.0) + log_sub(e2, 0.0), e2 + log_factor(2));
  const auto a = static_cast<double>(alpha);
  double total = 0;  // log 1
  // log C(alpha, j) = log C(alpha, j - 1) + log((alpha - j + 1) / j): one
  // log per term instead of three lgammas (its rounding adds up to j ulps).
  double log_c = std::log(a * (a - 1) / 2);
  total = log_add(total, 2 * lg + log_c + two);
  for (std::uint64_t j = 3; j <= alpha; ++j) {
    const auto jd = static_cast<double>(j);
    log_c += std::log((a - jd + 1) / jd);
    const double ej = eps(jd);
    if (!std::isfinite(ej)) return std::numeric_limits<double>::infinity();
    total = log_add(total, jd * lg + log_c + (jd - 1) * ej + log_factor(jd));
  }
  return total;
}

}  // namespace detail

/// The RDP curve, on `orders`, of a mechanism with curve `eps` (alpha ->
/// eps(alpha) under replace-one neighbours, called at integer alpha >= 2)
/// and pure-DP epsilon `eps_inf` (+inf if none) run on a uniformly random
/// fraction gamma in (0, 1] of the records, sampled without replacement.
/// Throws invalid_parameter for gamma outside (0, 1] or a negative or NaN
/// eps value.
template <class Eps>
requires std::is_invocable_r_v<double, Eps&, double> rdp
rdp_subsampled_wor(double gamma, Eps eps, double eps_inf = std::numeric_limits<double>::infinity(),
                   const std::vector<double>& orders = default_rdp_orders()) {
  if (!(gamma > 0 && gamma <= 1)) throw_invalid("gamma", gamma, "(0, 1]");
  if (!(eps_inf >= 0)) throw_invalid("eps_inf", eps_inf, ">= 0 (or +inf)");
  auto checked = [&](double a) {
    const double v = eps(a);
    if (!(v >= 0)) throw_invalid("eps(" + detail::format_value(a) + ")", v, ">= 0 (or +inf)");
    return v;
  };
  // (alpha - 1) eps'(alpha) at integer alpha >= 2.
  auto cumulant = [&](std::uint64_t alpha) {
    return detail::wor_log_bracket(gamma, checked, eps_inf, alpha);
  };
  return detail::rdp_curve(orders, [&](double a) {
    // +inf: subsampling is post-processing of one changed record, so the
    // mechanism's own pure-DP epsilon holds; order 1: monotone in alpha.
    if (std::isinf(a)) return eps_inf;
    if (a == 1) return cumulant(2);
    if (a == std::floor(a)) return cumulant(static_cast<std::uint64_t>(a)) / (a - 1);
    if (a < 2) return cumulant(2);  // monotone in alpha: eps'(a) <= eps'(2)
    const double lo = std::floor(a), hi = lo + 1;
    const double c_lo = cumulant(static_cast<std::uint64_t>(lo));
    const double c_hi = cumulant(static_cast<std::uint64_t>(hi));
    // No bound at a neighbouring integer order, none on the chord (inf - inf
    // would be NaN, not a bound).
    if (!std::isfinite(c_lo) || !std::isfinite(c_hi))
      return std::numeric_limits<double>::infinity();
    // The chord of the convex (alpha - 1) eps'(alpha).
    return (c_lo + (a - lo) * (c_hi - c_lo)) / (a - 1);
  });
}

/// The Gaussian mechanism with noise multiplier sigma (standard deviation
/// over the replace-one L2 sensitivity: with clipping norm C, replacing a
/// record moves a sum by up to 2C, so sigma = noise std / (2C)) on a
/// without-replacement sample of a fraction gamma.
inline rdp rdp_subsampled_wor_gaussian(double gamma, double noise_multiplier,
                                       const std::vector<double>& orders = default_rdp_orders()) {
  validate_positive(noise_multiplier, "noise_multiplier");
  const double s2 = noise_multiplier * noise_multiplier;
  return rdp_subsampled_wor(
      gamma, [s2](double a) { return a / (2 * s2); }, std::numeric_limits<double>::infinity(),
      orders);
}

}  // namespace privet
