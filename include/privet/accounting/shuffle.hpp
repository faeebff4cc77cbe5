// privet/accounting/shuffle.hpp — privacy amplification by shuffling: n
// users each apply an eps0-LDP randomiser and a shuffler hides who sent
// which report; the shuffled multiset is (eps, delta)-DP for a change of one
// user's input.
//
// Closed form (Feldman, McMillan & Talwar 2023, "Stronger Privacy
// Amplification by Shuffling for Rényi and Approximate Differential Privacy",
// SODA, Theorem 3.1; arXiv:2208.04591, whose errata restricts that theorem to
// a class of local randomisers): for eps0 <= ln(n / (8 ln(2 / delta)) - 1),
//   eps <= ln(1 + (e^eps0 - 1) (4 sqrt(2 ln(4 / delta)) / sqrt((e^eps0 + 1) n) + 4 / n)).
//
// Numerical bound (Feldman, McMillan & Talwar 2021, "Hiding Among the
// Clones: A Simple and Nearly Optimal Analysis of Privacy Amplification by
// Shuffling", FOCS, Section 4): the shuffled output is a
// post-processing of the pair P, Q of distributions of (C, A) with
// C ~ Bin(n - 1, e^-eps0) "clones" of the changed user, A | C = c distributed
// as P_c = a B + (1 - a)(B + 1) or Q_c = a (B + 1) + (1 - a) B, B ~ Bin(c, 1/2),
// a = e^eps0 / (e^eps0 + 1). So delta(eps) = sum_c Pr[C = c] delta_c with
// delta_c = sum_x (P_c(x) - e^eps Q_c(x))_+. privet evaluates this exactly:
//  - P_c(x) / Q_c(x) falls with x, so the positive part is the prefix
//    x <= t_c with t_c = floor(R (c + 1) / (1 + R)),
//    R = (a - e^eps (1 - a)) / (e^eps a - (1 - a)), and delta_c is two
//    binomial CDFs; mapping x -> c + 1 - x swaps P_c and Q_c, so both
//    directions of the divergence are equal and one is computed;
//  - every c of a window around the mean of C is summed once (no chunks, so
//    no chunk endpoint can be counted twice), and the mass of C outside the
//    window, bounded by Bernstein's inequality, is *added* to delta
//    (each delta_c <= 1): the tail is cut where it is provably negligible,
//    not summed term by term, so n = 10^7 costs a few hundred terms at
//    eps0 = 10 (the window is about 24 standard deviations of C wide);
//  - a rounding margin is added and nothing is ever subtracted from the
//    total, so delta is never negative and never under-estimated.
// eps(delta) is the smallest eps (bisection, rounded up) with delta(eps) <= delta.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <boost/math/distributions/binomial.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace privet {

namespace detail {

inline void validate_shuffle(double epsilon0, std::uint64_t n) {
  validate_epsilon(epsilon0, "epsilon0");
  validate_at_least<std::uint64_t>(n, 2, "n");
}

}  // namespace detail

/// The closed-form bound; throws invalid_parameter naming `epsilon0` when
/// eps0 > ln(n / (8 ln(2 / delta)) - 1), outside the theorem's range.
inline approx_dp shuffle_amplification_closed_form(double epsilon0, std::uint64_t n, double delta) {
  detail::validate_shuffle(epsilon0, n);
  validate_delta_positive(delta);
  const double nd = static_cast<double>(n);
  const double inner = nd / (8 * std::log(2 / delta)) - 1;
  if (!(inner > 1) || epsilon0 > std::log(inner)) {
    throw_invalid("epsilon0", epsilon0,
                  "<= ln(n / (8 ln(2 / delta)) - 1)" +
                      (inner > 1 ? " = " + detail::format_value(std::log(inner))
                                 : std::string(" (no eps0 > 0 qualifies for this n and delta)")));
  }
  const double e0 = std::exp(epsilon0);
  const double factor = 4 * std::sqrt(2 * std::log(4 / delta)) / std::sqrt((e0 + 1) * nd) + 4 / nd;
  return approx_dp(std::log1p(std::expm1(epsilon0) * factor), delta);
}

/// delta(eps) of the numerical bound, an upper bound on the exact
/// divergence; in [0, 1].
inline double shuffle_amplification_delta(double epsilon0, std::uint64_t n, double epsilon) {
  detail::validate_shuffle(epsilon0, n);
  validate_non_negative(epsilon, "epsilon");
  if (epsilon >= epsilon0) return 0;               // delta_c = 0 for every c: R <= 0
  const double a = 1 / (1 + std::exp(-epsilon0));  // e^eps0 / (e^eps0 + 1)
  const double ee = std::exp(epsilon);
  const double r = (a - ee * (1 - a)) / (ee * a - (1 - a));
  const double beta = r / (1 + r);
  const double p = std::exp(-epsilon0);
  const boost::math::binomial_distribution<double> clones(static_cast<double>(n - 1), p);
  // The window of C around its mean: by Bernstein's inequality each side
  // outside it has mass at most e^-L (here 1e-30), which is added to delta
  // as a whole (each delta_c <= 1) instead of being summed term by term.
  const double mean = static_cast<double>(n - 1) * p;
  const double var = mean * (1 - p);
  constexpr double log_inv_tail = 69.0775527898214;  // ln 1e30
  const double width =
      log_inv_tail / 3 + std::sqrt(log_inv_tail * log_inv_tail / 9 + 2 * log_inv_tail * var);
  const auto lo = static_cast<std::uint64_t>(std::max(0.0, std::floor(mean - width)));
  const auto hi =
      static_cast<std::uint64_t>(std::min(static_cast<double>(n - 1), std::ceil(mean + width)));
  const double outside = (lo > 0 ? 1e-30 : 0.0) + (hi < n - 1 ? 1e-30 : 0.0);
  // Walk c upwards with O(1) recurrences instead of a CDF per c (which, at
  // c in the millions, is what made the reference slow): with B_c ~ Bin(c, 1/2),
  // keep F = P[B_c <= t] and f = P[B_c = t]; B_{c+1} = B_c + a fair bit gives
  // F' = F - f / 2 and f' = (f + P[B_c = t - 1]) / 2, and moving t up by one
  // adds the next pmf term. Weights of C follow their ratio recurrence.
  const double cd_lo = static_cast<double>(lo);
  double t = std::floor(beta * (cd_lo + 1));
  double big_f = 0, small_f = 0;
  if (t >= cd_lo) {
    big_f = 1;
    small_f = t > cd_lo ? 0 : std::ldexp(1.0, -static_cast<int>(std::min(cd_lo, 1100.0)));
  } else {
    const boost::math::binomial_distribution<double> half(cd_lo, 0.5);
    big_f = boost::math::cdf(half, t);
    small_f = boost::math::pdf(half, t);
  }
  double w = boost::math::pdf(clones, cd_lo);
  if (!(w >= std::numeric_limits<double>::min())) {
    // The window starts where C's mass is about 1e-30, far above underflow;
    // a zero here would make the recurrence drop everything.
    throw overflow_error("privet: shuffle_amplification_delta lost C's weights to underflow (n = " +
                         std::to_string(n) + ", epsilon0 = " + detail::format_value(epsilon0) +
                         ")");
  }
  const double odds = p / (1 - p);
  double delta = 0, magnitude = 0;
  for (std::uint64_t c = lo;; ++c) {
    const double cd = static_cast<double>(c);
    const double f_below = t >= 1 ? small_f * t / (cd - t + 1) : 0;  // P[B_c = t - 1]
    const double cdf_t = std::min(1.0, big_f), cdf_t1 = std::max(0.0, big_f - small_f);
    const double p_mass = a * cdf_t + (1 - a) * cdf_t1;
    const double q_mass = (1 - a) * cdf_t + a * cdf_t1;
    delta += w * std::max(0.0, p_mass - ee * q_mass);  // >= 0 in exact arithmetic
    magnitude += w * (p_mass + ee * q_mass);
    if (c == hi) break;
    // To c + 1.
    if (t <= cd) {
      big_f -= small_f / 2;
      small_f = (small_f + f_below) / 2;
    } else {  // t = c + 1 > c: F stayed 1, f was 0; now P[B_{c+1} = c + 1] = 2^-(c+1)
      small_f = std::ldexp(1.0, -static_cast<int>(std::min(cd + 1, 1100.0)));
    }
    const double t_next = std::floor(beta * (cd + 2));
    if (t_next > t && t_next <= cd + 1) {
      small_f = small_f * (cd + 1 - t) / (t + 1);
      big_f += small_f;
    }
    t = t_next;
    w *= (static_cast<double>(n - 1) - cd) / (cd + 1) * odds;
  }
  // Each recurrence step rounds by a few ulps of numbers <= 1; with
  // (hi - lo + 1) steps, 1e-15 per step and unit of (1 + e^eps) bounds the
  // drift of delta from exact, and 1e-12 of the magnitude covers the rest.
  const double steps = static_cast<double>(hi - lo + 1);
  const double total =
      delta + 1e-12 * magnitude + steps * 1e-15 * (1 + ee) * (magnitude > 0 ? 1 : 0) + outside;
  return std::min(1.0, total);
}

/// The smallest eps (to 1e-10 relative, rounded up) with
/// shuffle_amplification_delta(eps0, n, eps) <= delta; at most eps0.
inline approx_dp shuffle_amplification(double epsilon0, std::uint64_t n, double delta) {
  detail::validate_shuffle(epsilon0, n);
  validate_delta_positive(delta);
  double lo = 0, hi = epsilon0;
  if (shuffle_amplification_delta(epsilon0, n, 0) <= delta) return approx_dp(0, delta);
  while (hi - lo > 1e-10 * hi) {
    const double mid = (lo + hi) / 2;
    (shuffle_amplification_delta(epsilon0, n, mid) <= delta ? hi : lo) = mid;
  }
  return approx_dp(hi, delta);
}

}  // namespace privet
