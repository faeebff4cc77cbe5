// privet/mechanisms/tail_threshold.hpp — tails of the Gaussian and Laplace
// noises and the thresholds built from them, for releasing keys whose noisy
// weight exceeds a threshold: set union and n-gram extraction
// (algorithms/dpsu.hpp: Gopi et al. 2020, "Differentially Private Set
// Union", ICML; algorithms/dpne.hpp: Kim, Gopi, Kulkarni & Yekhanin 2021,
// "Differentially Private n-gram Extraction", NeurIPS).
//
// - normal_upper_tail / normal_upper_quantile: Phi-bar(x) = P[N(0,1) > x]
//   and its inverse, rounded to the safe side (a threshold from the inverse
//   is never too low).
// - discrete_gaussian_upper_tail: P[Z >= k] for the discrete Gaussian
//   (mechanisms/discrete_gaussian.hpp), accurate to about 1e-16 relative:
//   the probability a zero count passes a threshold, which DPNE's count of
//   spurious n-grams is drawn with.
// - discrete_gaussian_upper_tail_bounds, normal_upper_tail_bounds and
//   success_probability_bounds: certified bounds (probability_bounds) on
//   those tails and on 1 - e^-rate, the probability binomial.hpp's samplers
//   draw with, so that DPNE can bound, and pay for, how far the probability
//   it draws with is from the exact tail. Every rounding is directed or
//   bounded, and every libm call is allowed detail::libm_allowance.
// - set_union_gaussian_threshold / set_union_laplace_threshold: the
//   thresholds of Gopi, Gulhane, Kulkarni, Shen, Shokouhi & Yekhanin (2020,
//   "Differentially Private Set Union", the weighted Gaussian and weighted
//   Laplace algorithms): a unit whose t items nobody else holds gives each at
//   most 1 / sqrt(t) (L2-normalised weights) or 1 / t (L1), and
//     rho = max over 1 <= t <= max_items of  w(t) + (the noise's upper
//           quantile at q_t),   q_t = 1 - (1 - delta)^(1 / t),
//   makes each such item pass with probability <= q_t, so that any of them
//   is released with probability <= 1 - (1 - q_t)^t = delta.
//
// Discrete noise in fixed point. DPSU and DPNE add the discrete Gaussian
// (or Laplace) to weights counted in units of 2^-b. The continuous
// thresholds above bound the discrete tails too: for the discrete Gaussian
// with parameter s and an integer k >= 1, sum_{x >= k} e^{-x^2/2s^2} <=
// integral_{k-1}^inf e^{-x^2/2s^2} dx (the summand decreases) and the
// normaliser is >= sqrt(2 pi) s (Poisson summation), so P[Z >= k] <=
// Phi-bar((k - 1) / s); for the discrete Laplace with scale b,
// P[Z >= k] = e^{-k/b} / (1 + e^{-1/b}) <= e^{-(k-1)/b} / 2. An item of
// weight w units released when w + Z > tau (Z >= tau - w + 1) therefore
// passes with at most the continuous probability at tau - w, and a
// threshold tau >= rho 2^b (rho computed for the noise's own s or b)
// keeps the delta.
#pragma once

#include <privet/core/analytic_gaussian.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/big_uint.hpp>
#include <privet/mechanisms/detail/exp_bounds.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

namespace privet {

namespace detail {

/// The relative margin by which every safe inverse below inflates the tail
/// it inverts: far above erfc's error (a few ulps).
inline constexpr double tail_margin = 1e-12;

/// q_t = 1 - (1 - delta)^(1 / t), rounded down (a smaller share per item
/// only raises the threshold).
inline double per_item_share(double delta, std::uint64_t t) {
  const double q = -std::expm1(std::log1p(-delta) / static_cast<double>(t));
  return q * (1 - tail_margin);
}

}  // namespace detail

/// P[N(0, 1) > x] for any x (0 and 1 at the infinities), to a few ulps.
inline double normal_upper_tail(double x) {
  if (std::isnan(x)) throw_invalid("x", x, "a number (not NaN)");
  return std::erfc(x / std::numbers::sqrt2) / 2;
}

/// The smallest double x (up to one bisection step on the doubles) with
/// P[N(0, 1) > x] <= q, the tail inflated by a relative 1e-12 so that
/// rounding never puts x below the exact quantile. Throws invalid_parameter
/// naming `q` unless q is in (0, 1).
inline double normal_upper_quantile(double q) {
  if (!(q > 0 && q < 1)) throw_invalid("q", q, "(0, 1)");
  const double margin = std::log1p(detail::tail_margin);
  if (q <= 0.5) {
    const double log_q = std::log(q);
    return detail::smallest_double_where(
        [&](double x) { return detail::log_normal_tail(x) + margin <= log_q; }, 1.0);
  }
  // x < 0: P[N > x] = 1 - P[N > -x] <= q  <=>  P[N > y] >= 1 - q for y = -x,
  // with the tail deflated for the same safety; the largest such y.
  const double log_rest = std::log1p(-q);
  const double y = detail::largest_double_where(
      [&](double v) { return detail::log_normal_tail(v) - margin >= log_rest; }, 1.0);
  return -y;
}

/// A probability p with certified bounds, lower <= p <= upper, and the
/// estimate they were computed around: every rounding of the computation
/// and the error of every library function in it (at most
/// detail::libm_allowance relative) is covered by the bounds.
struct probability_bounds {
  long double lower = 0;
  long double estimate = 0;
  long double upper = 0;
};

/// The largest |p - q| over p in a and q in b, rounded up: how far apart
/// two probabilities known only by their bounds can be.
inline long double max_distance(const probability_bounds& a, const probability_bounds& b) {
  const long double inf = std::numeric_limits<long double>::infinity();
  const long double d = std::max(a.upper - b.lower, b.upper - a.lower);
  return std::max(0.0L, std::nextafter(d, inf));
}

namespace detail {

/// The relative error each long double evaluation of exp, expm1, erfc and
/// sqrt is allowed in the certified bounds below: 2^8 units in the last
/// place (2^-56 for x86's 64-bit significand). glibc's tables of measured
/// errors (libm-test-ulps) give at most a few units for these functions,
/// so the margin is about 50 times that; the accounting layer's allowance
/// for double erfc (tail_error_ulps) rests on the same tables.
inline constexpr long double libm_allowance = 128 * std::numeric_limits<long double>::epsilon();

/// A value and a bound on its error: the exact quantity is within
/// value +- error.
struct approximate {
  long double value = 0;
  long double error = 0;
};

inline long double step_down(long double x) {
  return std::nextafter(x, -std::numeric_limits<long double>::infinity());
}
inline long double step_up(long double x) {
  return std::nextafter(x, std::numeric_limits<long double>::infinity());
}

/// [lower, upper] of num / den from num +- e and den +- e', den - e' > 0,
/// rounded outwards and clamped to [0, 1].
inline probability_bounds ratio_bounds(const approximate& num, const approximate& den) {
  probability_bounds b;
  b.estimate = std::clamp(num.value / den.value, 0.0L, 1.0L);
  const long double lo_num = step_down(num.value - num.error);
  const long double hi_den = step_up(den.value + den.error);
  const long double hi_num = step_up(num.value + num.error);
  const long double lo_den = step_down(den.value - den.error);
  b.lower = lo_num <= 0 ? 0.0L : std::clamp(step_down(lo_num / hi_den), 0.0L, 1.0L);
  b.upper = lo_den <= 0 ? 1.0L : std::clamp(step_up(hi_num / lo_den), 0.0L, 1.0L);
  return b;
}

/// 1 - p from bounds on p, rounded outwards.
inline probability_bounds complement(const probability_bounds& p) {
  return {std::max(0.0L, step_down(1 - p.upper)), 1 - p.estimate,
          std::min(1.0L, step_up(1 - p.lower))};
}

/// sum_{x >= from} e^{-x^2 / (2 s2)} for an integer from >= 1, term by term
/// (Neumaier's compensated sum). Each term's error is at most
/// libm_allowance (1 + a) relative for its exponent a = x^2 / (2 s2): exp's
/// own error, and its argument's few roundings amplified by a. The sum stops
/// when the rest, at most f(x + 1) / (1 - f(x + 2) / f(x + 1)) (the ratio of
/// consecutive terms, e^{-(2x + 1) / (2 s2)}, falls as x grows), is below
/// 2^-100 of the sum or the terms underflow; the rest goes into the error.
inline approximate gaussian_tail_direct(long double s2, long double from) {
  const long double allowance = libm_allowance;
  const long double smallest = std::numeric_limits<long double>::denorm_min();
  long double sum = 0, carry = 0, error = 0;
  long double a = from * from / (2 * s2);
  long double w = std::exp(-a);
  for (long double x = from;; ++x) {
    const long double t = sum + w;
    carry += std::fabs(sum) >= w ? (sum - t) + w : (w - t) + sum;
    sum = t;
    // A term in the subnormal range has an absolute error of a few of the
    // smallest steps, which the relative allowance does not cover.
    error += w * allowance * (1 + a) + 4 * smallest;
    const long double a1 = (x + 1) * (x + 1) / (2 * s2);
    const long double w1 = std::exp(-a1);
    const long double next = w1 * (1 + allowance * (1 + a1)) + smallest;
    const long double gap = -std::expm1(-(2 * x + 3) / (2 * s2)) * (1 - 4 * allowance);
    const long double rest = step_up(next / gap);
    if (w == 0 || rest <= (sum + carry) * 0x1p-100L) {
      error += rest;
      break;
    }
    a = a1;
    w = w1;
  }
  sum += carry;
  // Neumaier's sum is within 2 units in the last place of the total.
  error += 4 * std::numeric_limits<long double>::epsilon() * sum;
  return {sum, step_up(error)};
}

/// The same sum for s2 >= 2048^2 by Euler-Maclaurin: integral + f(k)/2 -
/// f'(k)/12 + f'''(k)/720 - f^(5)(k)/30240 + R, |R| <= (2 zeta(6) /
/// (2 pi)^6) int_k^inf |f^(6)| = (1 / 30240) int_k^inf |f^(6)|. With
/// f^(n)(x) = (-1/s)^n He_n(x/s) f(x), the integral is |f^(5)(k)| past
/// He_6's last zero (3.3243 s), and at most s^-5 int |He_6(t)| e^{-t^2/2} dt
/// <= s^-5 sqrt(6! sqrt(2 pi)) sqrt(sqrt(2 pi)) < 68 s^-5 (Cauchy-Schwarz on
/// the whole line) before it, where the tail is above 10^-4 and 68 / (30240
/// s^5) is under 2^-60 of it at s = 2048. The integral is sqrt(2 pi) s
/// erfc(k / (s sqrt 2)) / 2, whose error is libm_allowance (1 + 2a)
/// relative (erfc's own, and its argument's roundings amplified by about
/// 2a); the correction terms' error is bounded on their absolute values.
inline approximate gaussian_tail_euler_maclaurin(long double s2, long double from) {
  const long double allowance = libm_allowance;
  const long double s = std::sqrt(s2);
  const long double a = from * from / (2 * s2);
  const long double fk = std::exp(-a);
  const long double r = from / s2;  // -f'(x) / f(x)
  const long double integral = std::sqrt(2 * std::numbers::pi_v<long double>) * s *
                               std::erfc(from / (s * std::sqrt(2.0L))) / 2;
  // The odd derivatives are Hermite polynomials times f: f'''(x) =
  // -(r^3 - 3 r / s^2) f(x), f^(5)(x) = -(r^5 - 10 r^3 / s^2 + 15 r / s^4) f(x).
  const long double r3 = r * r * r, r5 = r3 * r * r;
  const long double third = -(r3 - 3 * r / s2) * fk;
  const long double fifth = -(r5 - 10 * r3 / s2 + 15 * r / (s2 * s2)) * fk;
  const long double corrections = fk / 2 + r * fk / 12 + third / 720 - fifth / 30240;
  const long double size = fk / 2 + r * fk / 12 + (r3 + 3 * r / s2) * fk / 720 +
                           (r5 + 10 * r3 / s2 + 15 * r / (s2 * s2)) * fk / 30240;
  // Beyond He_6's largest zero (3.3243) f^(6) keeps its sign, so there
  // int_k^inf |f^(6)| = |f^(5)(k)|: the remainder is below the next term's size.
  const long double remainder = from > 3.4L * s
                                    ? std::fabs(fifth) / 30240 * (1 + allowance * (8 + a))
                                    : 68 / (30240 * s2 * s2 * s) * (1 + allowance);
  const long double sum = integral + corrections;
  // Far in the tail erfc and f(k) leave the normal range (erfc first, while
  // the integral is still most of the sum): their absolute error is then up
  // to the least normal long double, times the factors they are scaled by.
  const long double underflow =
      std::numeric_limits<long double>::min() * (2 * s + 1 + r + r3 + r5 + 3 * r / s2);
  const long double error = integral * allowance * (2 + 2 * a) + size * allowance * (4 + a) +
                            remainder + underflow +
                            8 * std::numeric_limits<long double>::epsilon() * sum;
  return {sum, step_up(error)};
}

/// sum over all integers x of e^{-x^2 / (2 s2)}: for s2 >= 1, sqrt(2 pi s2)
/// theta with theta = 1 + 2 sum_j e^{-2 pi^2 s2 j^2} (Poisson summation, an
/// identity; the first omitted term is below 1e-40 and the ones after it
/// fall faster than by halves), else 1 + 2 gaussian_tail_direct(s2, 1).
inline approximate gaussian_normaliser(long double s2) {
  if (s2 < 1) {
    const approximate t = gaussian_tail_direct(s2, 1);
    return {1 + 2 * t.value,
            step_up(2 * t.error + 2 * std::numeric_limits<long double>::epsilon())};
  }
  long double theta = 1;
  const long double pi = std::numbers::pi_v<long double>;
  long double omitted = 0;
  for (long double j = 1;; ++j) {
    const long double w = std::exp(-2 * pi * pi * s2 * j * j);
    if (w < 1e-40L) {
      omitted = 4 * 1e-40L;
      break;
    }
    theta += 2 * w;
  }
  const long double root = std::sqrt(2 * pi * s2);
  const long double z = root * theta;
  return {z, step_up(z * libm_allowance * 4 + root * omitted)};
}

}  // namespace detail

/// P[Z >= k] for the discrete Gaussian d, with certified bounds (see
/// probability_bounds): the tail sum over x >= k (or, for k <= 0, one minus
/// the sum over x >= 1 - k, by symmetry) term by term for sigma < 2048 and
/// by Euler-Maclaurin with a bounded remainder above, over the normaliser
/// by Poisson summation (detail::gaussian_tail_direct,
/// gaussian_tail_euler_maclaurin, gaussian_normaliser). The bounds are
/// within a few times 2^-56 (1 + k^2 / sigma^2) of the tail, relative, on
/// x86-64; a term-by-term sum costs up to about 12 sigma exponentials.
inline probability_bounds discrete_gaussian_upper_tail_bounds(
    const discrete_gaussian_distribution& d, std::int64_t k) {
  const long double s2 =
      static_cast<long double>(d.sigma2_num()) / static_cast<long double>(d.sigma2_den());
  const bool lower = k <= 0;
  const long double from = lower ? 1 - static_cast<long double>(k) : static_cast<long double>(k);
  const detail::approximate tail = s2 < 2048.0L * 2048.0L
                                       ? detail::gaussian_tail_direct(s2, from)
                                       : detail::gaussian_tail_euler_maclaurin(s2, from);
  const probability_bounds b = detail::ratio_bounds(tail, detail::gaussian_normaliser(s2));
  return lower ? detail::complement(b) : b;
}

/// P[Z >= k] for the discrete Gaussian d, accurate to about 1e-16 relative
/// wherever it is a normal double: the estimate of
/// discrete_gaussian_upper_tail_bounds.
inline double discrete_gaussian_upper_tail(const discrete_gaussian_distribution& d,
                                           std::int64_t k) {
  return static_cast<double>(discrete_gaussian_upper_tail_bounds(d, k).estimate);
}

/// P[N(0, 1) > x] with certified bounds: erfc(x / sqrt 2) / 2, whose error
/// is detail::libm_allowance (2 + x^2) relative (erfc's own, and its
/// argument's roundings amplified by about x^2). Throws invalid_parameter
/// naming `x` if it is NaN.
inline probability_bounds normal_upper_tail_bounds(long double x) {
  if (std::isnan(x)) throw_invalid("x", static_cast<double>(x), "a number (not NaN)");
  const long double p = std::erfc(x / std::sqrt(2.0L)) / 2;
  if (std::isinf(x)) return {p, p, p};
  const long double rel = detail::libm_allowance * (2 + x * x);
  probability_bounds b;
  b.estimate = p;
  // Below the normal range erfc's error is absolute, up to the least
  // normal long double.
  const long double floor = std::numeric_limits<long double>::min();
  b.lower = std::max(0.0L, detail::step_down(p * (1 - rel) - floor));
  b.upper = std::min(1.0L, detail::step_up(p * (1 + rel) + floor));
  return b;
}

/// Certified bounds on 1 - exp(-rate), the success probability of
/// binomial_distribution(n, rate) and of the constant-time binomial (finite
/// rate > 0): exp(-rate) bounded in 128-bit fixed point with every rounding
/// directed (detail::exp_neg_bounds), so the bounds are a few units of
/// 2^-128 apart. Throws invalid_parameter naming `rate` otherwise.
inline probability_bounds success_probability_bounds(double rate) {
  validate_positive(rate, "rate");
  constexpr int bits = 128;
  const detail::fixed_interval e = detail::exp_neg_bounds(rate, bits);
  const detail::big_uint one = detail::big_uint(1) << bits;
  // 1 - e in units of 2^-128, exact; then rounded outwards to long double.
  auto scaled = [&](const detail::big_uint& v, bool up) {
    if (v >= one) return 1.0L;
    const long double x = std::ldexp(static_cast<long double>(detail::low_u128(v)), -bits);
    return up ? detail::step_up(x) : detail::step_down(x);
  };
  probability_bounds b;
  b.lower = std::max(0.0L, scaled(e.hi >= one ? detail::big_uint(0) : one - e.hi, false));
  b.upper = std::min(1.0L, scaled(e.lo >= one ? detail::big_uint(0) : one - e.lo, true));
  b.estimate = -std::expm1(-static_cast<long double>(rate));
  return b;
}

/// DPSU's threshold for L2-normalised weights and Gaussian noise of standard
/// deviation sigma (in weight units): max over t in [1, max_items] of
/// 1 / sqrt(t) + sigma Phi^-1((1 - delta)^(1 / t)), rounded up. DPNE's rho_1
/// (Kim et al. 2021) is this with delta / 2. O(max_items) tail inversions.
/// Throws invalid_parameter naming max_items (>= 1), sigma (finite, > 0) or
/// delta (in (0, 1)).
inline double set_union_gaussian_threshold(std::uint64_t max_items, double sigma, double delta) {
  validate_at_least<std::uint64_t>(max_items, 1, "max_items");
  validate_positive(sigma, "sigma");
  validate_delta_positive(delta);
  double rho = -std::numeric_limits<double>::infinity();
  for (std::uint64_t t = 1; t <= max_items; ++t) {
    // 1 / sqrt(t) is within 1.5 ulps; two steps up put it above the exact value.
    const double w = detail::next_up(detail::next_up(1 / std::sqrt(static_cast<double>(t))));
    const double x = normal_upper_quantile(detail::per_item_share(delta, t));
    rho = std::max(rho, detail::add_up(w, detail::mul_up(sigma, x)));
  }
  return rho;
}

/// The same for L1-normalised weights (1 / t each) and Laplace noise of
/// scale b: max over t of 1 / t + b ln(1 / (2 q_t)), rounded up (P[L > x] =
/// e^{-x / b} / 2 for x >= 0). Throws invalid_parameter as above, naming
/// `scale` for b, and `delta` unless it is in (0, 1/2) (where that tail
/// formula holds).
inline double set_union_laplace_threshold(std::uint64_t max_items, double scale, double delta) {
  validate_at_least<std::uint64_t>(max_items, 1, "max_items");
  validate_positive(scale, "scale");
  if (!(delta > 0 && delta < 0.5)) throw_invalid("delta", delta, "(0, 0.5)");
  double rho = -std::numeric_limits<double>::infinity();
  for (std::uint64_t t = 1; t <= max_items; ++t) {
    const double w = detail::div_up(1.0, static_cast<double>(t));
    const double q = detail::per_item_share(delta, t);
    // q_t <= delta < 1 / 2 keeps the logarithm positive; 1e-12 relative
    // covers its rounding.
    const double x = -std::log(2 * q) * (1 + detail::tail_margin);
    rho = std::max(rho, detail::add_up(w, detail::mul_up(scale, x)));
  }
  return rho;
}

}  // namespace privet
