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
//   (mechanisms/discrete_gaussian.hpp), accurate to about 1e-14 relative:
//   the probability a zero count passes a threshold, which DPNE's count of
//   spurious n-grams is drawn with.
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

/// P[Z >= k] for the discrete Gaussian d. For sigma >= 1024 the sum
/// sum_{x >= k} e^{-x^2 / 2 sigma^2} is the Euler-Maclaurin series
/// integral + f(k)/2 - f'(k)/12 + f'''(k)/720 - f^(5)(k)/30240, whose next
/// term is below (k / sigma^2)^7 f(k) / 1209600: under 1e-16 relative
/// wherever the tail is a normal double (k < 40 sigma); below 1024 the
/// terms (at most about 10^4) are summed. The normaliser is sqrt(2 pi) sigma theta with theta =
/// 1 + 2 sum_j e^{-2 pi^2 sigma^2 j^2} (Poisson summation) or, for sigma < 1,
/// summed directly.
inline double discrete_gaussian_upper_tail(const discrete_gaussian_distribution& d,
                                           std::int64_t k) {
  const long double s2 =
      static_cast<long double>(d.sigma2_num()) / static_cast<long double>(d.sigma2_den());
  const long double s = std::sqrt(s2);
  auto f = [&](long double x) { return std::exp(-x * x / (2 * s2)); };
  long double z = 0;
  if (s2 < 1) {
    z = 1;
    for (long double x = 1;; ++x) {
      const long double w = f(x);
      if (w < 1e-40L) break;
      z += 2 * w;
    }
  } else {
    long double theta = 1;
    const long double pi = std::numbers::pi_v<long double>;
    for (long double j = 1;; ++j) {
      const long double w = std::exp(-2 * pi * pi * s2 * j * j);
      if (w < 1e-40L) break;
      theta += 2 * w;
    }
    z = std::sqrt(2 * pi * s2) * theta;
  }
  // P[Z >= k] = 1 - P[Z >= 1 - k] for k <= 0 (symmetry).
  const bool lower = k <= 0;
  const long double from = lower ? 1 - static_cast<long double>(k) : static_cast<long double>(k);
  long double sum = 0;
  if (s < 1024) {
    for (long double x = from;; ++x) {
      const long double w = f(x);
      sum += w;
      if (w <= sum * 1e-22L || w == 0) break;
    }
  } else {
    const long double fk = f(from);
    const long double r = from / s2;  // -f'(x) / f(x)
    const long double integral = std::sqrt(2 * std::numbers::pi_v<long double>) * s *
                                 std::erfc(from / (s * std::sqrt(2.0L))) / 2;
    // The odd derivatives are Hermite polynomials times f: f'''(x) =
    // -(r^3 - 3 r / s^2) f(x), f^(5)(x) = -(r^5 - 10 r^3 / s^2 + 15 r / s^4) f(x).
    const long double third = -(r * r * r - 3 * r / s2) * fk;
    const long double fifth = -(r * r * r * r * r - 10 * r * r * r / s2 + 15 * r / (s2 * s2)) * fk;
    sum = integral + fk / 2 + r * fk / 12 + third / 720 - fifth / 30240;
  }
  const long double tail = sum / z;
  return static_cast<double>(lower ? 1 - tail : tail);
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
