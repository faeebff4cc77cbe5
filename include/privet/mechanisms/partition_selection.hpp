// privet/mechanisms/partition_selection.hpp — differentially private
// partition selection: which keys of an unbounded domain (n-grams, pages) to
// release, given for each key the number n of distinct privacy units that
// contributed to it, when each unit touches at most max_partitions = D0 keys.
// Three policies, each built from a target approx_dp{eps, delta} for one
// unit's whole contribution:
//
//   laplace_partition_selection    n + discrete Laplace noise >= T (Korolova,
//                                  Kenthapadi, Mishra & Ntoulas 2009; Google
//                                  DP's LaplacePartitionSelection)
//   gaussian_partition_selection   n + discrete Gaussian noise >= T (Google
//                                  DP's GaussianPartitionSelection; Gopi et
//                                  al. 2020, "Differentially private set union")
//   optimal_partition_selection    keep with probability pi(n), the optimal
//                                  rule of Desfontaines, Voss, Gipson &
//                                  Mandayam 2022, "Differentially private
//                                  partition selection", Theorem 1 (Google
//                                  DP's truncated-geometric/"pre-aggregation"
//                                  selection)
//
// Why the claimed delta holds for what is sampled:
//  - the thresholding policies use privet's exact integer samplers, and T is
//    computed from the *discrete* tail that is sampled: q^k / (1 + q) for the
//    discrete Laplace (q = exp(-1 / scale)), and for the discrete Gaussian a
//    summed pmf whose remainder is bounded by a geometric series and whose
//    normaliser is bounded below by sqrt(2 pi) sigma (Poisson summation), so
//    every rounding or truncation only overestimates the tail;
//  - the optimal rule's pi(n) are doubles built step by step so that each one
//    is provably below the bound the previous one allows (directed margins,
//    then an independent check of both DP inequalities for every consecutive
//    pair), and the coin is Bernoulli of the double's exact binary value.
//
// Which keeps more: for D0 = 1 the optimal rule keeps every partition with at
// least the probability of any (eps, delta)-DP rule, both thresholdings
// included (Desfontaines et al., Theorem 1). For D0 > 1 it is only optimal
// among rules that spend (eps / D0, delta / D0) per partition, which the
// Laplace policy does; the Gaussian policy uses the L2 sensitivity sqrt(D0)
// instead and, for large D0, can keep more. expected_kept() compares policies
// on a histogram of counts.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/detail/zcdp_conversion.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/detail/dyadic.hpp>
#include <privet/mechanisms/detail/grid.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/noise.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace privet {

namespace detail {

/// The most noise draws one run of a selection (or a sparse vector) makes:
/// one per partition (or query), counted in 64 bits. A data-independent
/// bound, so that what the constant-time samplers' total variation adds up
/// to never depends on how many partitions the data has.
inline constexpr double max_release_draws = 0x1p64;

/// n + Z >= T with Z drawn from `sampler`: for the constant-time samplers
/// every call draws and compares, n = 0 folded in without a branch; the
/// exact samplers return false for n = 0 before drawing.
template <bool ConstantTime, class Sampler, random_bit_source G>
bool threshold_keep(std::uint64_t n, const Sampler& sampler, G& gen, std::int64_t threshold) {
  if constexpr (ConstantTime) {
    const bool above = static_cast<int128>(n) + sampler(gen) >= threshold;
    return static_cast<bool>(static_cast<unsigned>(n != 0) & static_cast<unsigned>(above));
  } else {
    if (n == 0) return false;
    return static_cast<int128>(n) + sampler(gen) >= threshold;
  }
}

/// A sampler's total variation from its exact law: its bound for the
/// constant-time samplers, 0 for the exact ones.
template <class Sampler>
double sampler_total_variation(const Sampler& sampler) noexcept {
  if constexpr (requires { sampler.total_variation_bound(); }) {
    return sampler.total_variation_bound();
  } else {
    return 0;
  }
}

/// delta_share minus the delta that constant-time samplers of total
/// variation tau per draw cost an eps-guarantee over max_release_draws
/// draws, (1 + e^eps) 2^64 tau (a mechanism within total variation T of an
/// (eps, d)-DP one is (eps, d + (1 + e^eps) T)-DP), rounded down; tau = 0
/// (exact samplers) leaves delta_share. Throws invalid_parameter naming
/// target.delta when nothing is left.
inline double delta_after_sampler(double delta_share, double epsilon, double tau) {
  if (tau == 0) return delta_share;
  const double factor = next_up(1 + next_up(std::exp(epsilon) * (1 + 0x1p-51)));
  const double reserve = mul_up(mul_up(factor, max_release_draws), tau);
  const double left = delta_share - reserve;
  if (!(left > 0 && reserve < delta_share / 2)) {
    throw_invalid("target.delta", delta_share,
                  "large enough to hold the constant-time sampler's total variation over 2^64 "
                  "draws, (1 + e^eps) 2^64 tau = " +
                      detail::format_value(reserve) + ", at most half of its share");
  }
  return std::nextafter(left, 0.0);  // the subtraction may have rounded up
}

/// Checks a partition-selection target in the order epsilon, delta,
/// max_partitions, and that the per-partition shares stay normal doubles.
inline approx_dp validate_partition_target(const approx_dp& target, std::uint64_t max_partitions) {
  validate_epsilon(target.epsilon(), "target.epsilon");
  validate_delta_positive(target.delta(), "target.delta");
  validate_at_least<std::uint64_t>(max_partitions, 1, "max_partitions");
  const double tiny = std::numeric_limits<double>::min();
  const auto d0 = static_cast<long double>(max_partitions);
  if (target.epsilon() / d0 < tiny) {
    throw_invalid("target.epsilon", target.epsilon(),
                  "finite and > 0 with target.epsilon / max_partitions >= 2^-1022");
  }
  if (target.delta() / d0 < tiny) {
    throw_invalid("target.delta", target.delta(),
                  "(0, 1) with target.delta / max_partitions >= 2^-1022");
  }
  return target;
}

/// x / d0, never above the exact quotient: each of the d0 partitions gets at
/// most this share, so d0 shares never exceed x.
inline double share_down(double x, std::uint64_t d0) {
  if (d0 == 1) return x;
  // Two roundings (long double, then double) stay within one ulp of the
  // quotient, so one step down lands below it.
  const auto q = static_cast<double>(static_cast<long double>(x) / static_cast<long double>(d0));
  return std::nextafter(q, 0.0);
}

/// d0 / x, never below the exact quotient (a noise scale must not shrink).
inline double ratio_up(std::uint64_t d0, double x) {
  if (d0 <= (std::uint64_t{1} << 53)) return div_up(static_cast<double>(d0), x);
  const auto q = static_cast<double>(static_cast<long double>(d0) / static_cast<long double>(x));
  return std::nextafter(q, std::numeric_limits<double>::infinity());
}

/// The largest double <= v.
inline double round_down(long double v) {
  auto d = static_cast<double>(v);
  if (static_cast<long double>(d) > v)
    d = std::nextafter(d, -std::numeric_limits<double>::infinity());
  return d;
}

/// x + d >= 1, decided exactly for doubles x, d in [0, 1].
inline bool sum_reaches_one(double x, double d) {
  if (x >= 0.5) return 1.0 - x <= d;  // 1 - x is exact here (Sterbenz)
  if (d >= 0.5) return 1.0 - d <= x;
  return false;
}

}  // namespace detail

/// n + discrete Laplace noise compared with an integer threshold T (keep when
/// n + Z >= T). With Noise = constant_time_noise the noise comes from
/// constant_time_discrete_laplace and keep() takes the same time for every n
/// and every draw (no early return for n = 0); the guarantee is still the
/// target: the sampler's total variation over at most 2^64 partitions,
/// (1 + e^eps) 2^64 tau < 1e-17 for eps <= 1, is taken from delta before
/// the threshold is set (detail::delta_after_sampler).
///
/// Budget: all of eps goes to the noise, with scale t >= D0 / eps, so the
/// noisy counts of the partitions a unit already shares with others are
/// (D0 / t)-DP (L1 sensitivity D0). A partition the unit alone creates
/// (n = 1) is kept with probability P[Z >= T - 1] = q^(T-1) / (1 + q), and T
/// is the least integer >= 1 with this <= delta / D0 (rounded down), so that
/// the at most D0 such partitions appear with probability <= delta (union
/// bound; the pure-DP part is unaffected by conditioning on their absence
/// because their noise is independent). Together: (eps, delta)-DP.
template <mechanism_noise_policy Noise = constant_time_noise>
class laplace_partition_selection {
  static constexpr bool constant_time = std::same_as<Noise, constant_time_noise>;
  using sampler_type = std::conditional_t<constant_time, constant_time_discrete_laplace,
                                          discrete_laplace_distribution>;

 public:
  /// Throws invalid_parameter naming target.epsilon (finite and > 0),
  /// target.delta (in (0, 1)) or max_partitions (>= 1), and target.epsilon
  /// when the noise scale max_partitions / eps leaves the discrete Laplace
  /// sampler's range [2^-11, 2^64) or the threshold would not fit 62 bits.
  laplace_partition_selection(approx_dp target, std::uint64_t max_partitions)
      : target_(detail::validate_partition_target(target, max_partitions)),
        max_partitions_(max_partitions),
        noise_(noise_scale(target.epsilon(), max_partitions)),
        sampler_(make_sampler(noise_, target.epsilon())) {
    per_partition_delta_ = detail::share_down(
        detail::delta_after_sampler(target.delta(), target.epsilon(), sampler_total_variation()),
        max_partitions);
    threshold_ = compute_threshold();
  }

  /// True when the partition is released. Never for n = 0.
  template <random_bit_source G>
  bool keep(std::uint64_t n, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    return detail::threshold_keep<constant_time>(n, sampler_, gen, threshold_);
  }

  /// The total variation of one draw from the exact discrete Laplace: 0 for
  /// secure_noise, the constant-time sampler's bound (below 2^-120)
  /// otherwise.
  [[nodiscard]] double sampler_total_variation() const noexcept {
    return detail::sampler_total_variation(sampler_);
  }

  /// P[n + Z >= T] from the closed form of the discrete Laplace tail.
  [[nodiscard]] double keep_probability(std::uint64_t n) const {
    if (n == 0) return 0;
    const auto k = static_cast<long double>(static_cast<detail::int128>(threshold_) -
                                            static_cast<detail::int128>(n));
    const long double inv = inverse_scale();
    const long double one_plus_q = 1 + std::exp(-inv);
    // P[Z >= k] = q^k / (1 + q) for k >= 0, and 1 - P[Z >= 1 - k] below.
    if (k >= 0) return static_cast<double>(std::exp(-k * inv) / one_plus_q);
    return static_cast<double>(1 - std::exp(-(1 - k) * inv) / one_plus_q);
  }

  /// The target it was built for; one unit's contribution is (eps, delta)-DP.
  [[nodiscard]] approx_dp guarantee() const { return target_; }
  /// The integer threshold T, >= 1.
  [[nodiscard]] std::int64_t threshold() const noexcept { return threshold_; }
  /// The discrete Laplace scale t (exact: the sampler uses this double's value).
  [[nodiscard]] double scale() const noexcept { return noise_.scale(); }
  /// The noise distribution Z.
  [[nodiscard]] const discrete_laplace_distribution& noise() const noexcept { return noise_; }
  /// D0, the most partitions one unit contributes to.
  [[nodiscard]] std::uint64_t max_partitions() const noexcept { return max_partitions_; }
  /// The bound on keep_probability(1): delta / max_partitions, rounded down
  /// (with constant-time noise, delta less the sampler's share first).
  [[nodiscard]] double per_partition_delta() const noexcept { return per_partition_delta_; }
  /// 1 / t <= eps / max_partitions: each partition's noisy count is this-DP.
  [[nodiscard]] double per_partition_epsilon() const noexcept {
    return static_cast<double>(inverse_scale());
  }

 private:
  static sampler_type make_sampler(const discrete_laplace_distribution& d, double epsilon) {
    if constexpr (constant_time) {
      if (!(d.scale() < 1e17)) {
        throw_invalid("target.epsilon", epsilon,
                      "large enough that max_partitions / target.epsilon < 1e17 (the "
                      "constant-time discrete Laplace's range)");
      }
    } else {
      (void)epsilon;
    }
    return sampler_type(d);
  }

  static double noise_scale(double epsilon, std::uint64_t max_partitions) {
    const double t = detail::ratio_up(max_partitions, epsilon);
    if (!(t >= 0x1p-11 && t < 0x1p64)) {
      throw_invalid("target.epsilon", epsilon,
                    "finite and > 0 with max_partitions / target.epsilon in [2^-11, 2^64) (the "
                    "discrete Laplace scale)");
    }
    return t;
  }

  [[nodiscard]] long double inverse_scale() const {
    return static_cast<long double>(noise_.scale_den()) /
           static_cast<long double>(noise_.scale_num());
  }

  // The least k = T - 1 >= 0 with log P[Z >= k] = -k / t - ln(1 + q) below
  // ln(per_partition_delta) by a margin that dwarfs long double's rounding.
  [[nodiscard]] std::int64_t compute_threshold() const {
    const long double inv = inverse_scale();
    const long double log_one_plus_q = std::log1p(std::exp(-inv));
    const long double log_delta = std::log(static_cast<long double>(per_partition_delta_));
    auto fits = [&](long double k) {
      const long double log_tail = -k * inv - log_one_plus_q;
      return log_tail + std::ldexp(1.0L, -50) * (1 + k * inv - log_delta) <= log_delta;
    };
    const long double estimate = std::ceil((-log_delta - log_one_plus_q) / inv);
    constexpr long double limit = 0x1p62L;
    if (estimate > limit) {
      throw_invalid("target.epsilon", target_.epsilon(),
                    "large enough that the threshold fits 62 bits (about max_partitions * "
                    "ln(1 / delta) / epsilon < 2^62)");
    }
    long double k = std::max(estimate, 0.0L);
    while (!fits(k)) k += 1;
    while (k > 0 && fits(k - 1)) k -= 1;
    return static_cast<std::int64_t>(k) + 1;
  }

  approx_dp target_;
  std::uint64_t max_partitions_;
  discrete_laplace_distribution noise_;
  sampler_type sampler_;
  double per_partition_delta_ = 0;
  std::int64_t threshold_ = 0;
};

/// n + discrete Gaussian noise compared with an integer threshold T (keep
/// when n + Z >= T).
///
/// Budget: delta is split in halves. The noise gets (eps, delta / 2): the
/// counts of the partitions a unit shares with others move by at most 1 in
/// each of at most D0 coordinates (L2 sensitivity sqrt(D0)), the discrete
/// Gaussian with variance sigma^2 is then rho = D0 / (2 sigma^2)-zCDP
/// (Canonne, Kamath & Steinke 2020, Theorem 14), and sigma is the least
/// (to about 1e-12 relative) whose rho converts to (eps, <= delta / 2) by their
/// Corollary 13. The threshold gets delta / 2: T is the least integer >= 1
/// with P[Z >= T - 1] <= delta / (2 D0), so the at most D0 partitions the unit
/// alone creates appear with probability <= delta / 2 (union bound), as for
/// the Laplace policy. Together: (eps, delta)-DP. With Noise =
/// constant_time_noise the noise comes from constant_time_discrete_gaussian
/// (a table scan up to sigma about 307, a sum of tables above) and keep()
/// takes the same time for every n and every draw; the sampler's total
/// variation over at most 2^64 partitions is taken from the threshold's
/// half of delta (detail::delta_after_sampler), so the guarantee is still
/// the target.
template <mechanism_noise_policy Noise = constant_time_noise>
class gaussian_partition_selection {
  static constexpr bool constant_time = std::same_as<Noise, constant_time_noise>;
  using sampler_type = std::conditional_t<constant_time, constant_time_discrete_gaussian,
                                          discrete_gaussian_distribution>;

 public:
  /// Throws invalid_parameter naming target.epsilon, target.delta or
  /// max_partitions as laplace_partition_selection does, and target.epsilon
  /// when the noise would exceed the sampler's range (sigma about 3.6e9).
  gaussian_partition_selection(approx_dp target, std::uint64_t max_partitions)
      : target_(detail::validate_partition_target(target, max_partitions)),
        max_partitions_(max_partitions),
        noise_delta_(target.delta() / 2),
        noise_(calibrate(target.epsilon(), target.delta() / 2, max_partitions)),
        sampler_(noise_) {
    per_partition_delta_ =
        detail::share_down(detail::delta_after_sampler(target.delta() / 2, target.epsilon(),
                                                       sampler_total_variation()),
                           max_partitions);
    threshold_ = compute_threshold();
  }

  /// True when the partition is released. Never for n = 0.
  template <random_bit_source G>
  bool keep(std::uint64_t n, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    return detail::threshold_keep<constant_time>(n, sampler_, gen, threshold_);
  }

  /// The total variation of one draw from the exact discrete Gaussian: 0
  /// for secure_noise, the constant-time sampler's bound otherwise.
  [[nodiscard]] double sampler_total_variation() const noexcept {
    return detail::sampler_total_variation(sampler_);
  }

  /// P[n + Z >= T], with the discrete Gaussian's pmf summed numerically
  /// (relative error about 1e-15; O(sigma) terms, meant for tests and planning).
  [[nodiscard]] double keep_probability(std::uint64_t n) const {
    if (n == 0) return 0;
    const detail::int128 k = static_cast<detail::int128>(threshold_) - n;
    // P[Z >= k] = 1 - P[Z >= 1 - k] by symmetry when k <= 0.
    if (k >= 1) return static_cast<double>(upper_tail(static_cast<long double>(k)));
    return static_cast<double>(1 - upper_tail(static_cast<long double>(1 - k)));
  }

  /// The target it was built for; one unit's contribution is (eps, delta)-DP.
  [[nodiscard]] approx_dp guarantee() const { return target_; }
  /// The integer threshold T, >= 1.
  [[nodiscard]] std::int64_t threshold() const noexcept { return threshold_; }
  /// The discrete Gaussian's sigma, rounded to a double.
  [[nodiscard]] double sigma() const noexcept { return noise_.sigma(); }
  /// The noise distribution Z.
  [[nodiscard]] const discrete_gaussian_distribution& noise() const noexcept { return noise_; }
  /// D0, the most partitions one unit contributes to.
  [[nodiscard]] std::uint64_t max_partitions() const noexcept { return max_partitions_; }
  /// The share of delta spent by the noise: delta / 2.
  [[nodiscard]] double noise_delta() const noexcept { return noise_delta_; }
  /// The bound on keep_probability(1): delta / (2 max_partitions), rounded
  /// down (with constant-time noise, delta / 2 less the sampler's share
  /// first).
  [[nodiscard]] double per_partition_delta() const noexcept { return per_partition_delta_; }

 private:
  static long double rho_upper(const discrete_gaussian_distribution& d, std::uint64_t d0) {
    // rho = D0 / (2 sigma^2) = D0 b / (2 a), rounded up past long double's error.
    const long double rho = static_cast<long double>(d0) *
                            static_cast<long double>(d.sigma2_den()) /
                            (2 * static_cast<long double>(d.sigma2_num()));
    return rho * (1 + std::ldexp(1.0L, -58));
  }

  static discrete_gaussian_distribution calibrate(double epsilon, double noise_delta,
                                                  std::uint64_t d0) {
    constexpr double max_sigma = 3.5e9;  // below the sampler's limit of about 3.6e9
    // Judged on the sampler actually built: its sigma^2 may be rounded up.
    auto private_enough = [&](double sigma) {
      const discrete_gaussian_distribution d(sigma);
      return detail::zcdp_delta_upper(epsilon, rho_upper(d, d0)) <= noise_delta;
    };
    double hi = std::sqrt(static_cast<double>(d0)) / epsilon;
    if (hi > max_sigma) hi = max_sigma;
    while (!private_enough(hi)) {
      if (hi >= max_sigma) {
        throw_invalid("target.epsilon", epsilon,
                      "large enough that the Gaussian noise has sigma <= 3.5e9 for this delta "
                      "and max_partitions");
      }
      hi = std::min(hi * 2, max_sigma);
    }
    double lo = hi / 2;
    while (lo > 1e-6 && private_enough(lo)) lo /= 2;
    for (int i = 0; i < 200 && hi - lo > hi * 1e-12; ++i) {
      const double mid = lo + (hi - lo) / 2;
      (private_enough(mid) ? hi : lo) = mid;
    }
    return discrete_gaussian_distribution(hi);
  }

  [[nodiscard]] long double sigma2() const {
    return static_cast<long double>(noise_.sigma2_num()) /
           static_cast<long double>(noise_.sigma2_den());
  }

  [[nodiscard]] long double weight(long double x) const {
    return std::exp(-x * x / (2 * sigma2()));
  }

  // An upper bound on P[Z >= k] for an integer k >= 0: up to 2^12 terms of
  // the unnormalised pmf summed, the rest bounded by a geometric series (the
  // ratio of consecutive terms beyond x is at most exp(-(2x + 1) / (2 sigma^2))),
  // divided by a lower bound on the normaliser, sum_x exp(-x^2 / (2 sigma^2))
  // >= max(1, sqrt(2 pi) sigma) (Poisson summation: the dual sum is >= its
  // k = 0 term); then a relative margin for long double's rounding.
  [[nodiscard]] long double upper_tail_bound(long double k) const {
    const long double s2 = sigma2();
    // Beyond about sigma^2 / k terms the geometric bound is nearly tight
    // (within a factor 1 + sigma^2 / x^2), so a short exact prefix suffices.
    const long double terms = std::min(std::ceil(8 * s2 / std::max(k, 1.0L)) + 1, 0x1p12L);
    long double sum = 0;
    long double x = k;
    for (long double i = 0; i < terms; ++i, ++x) sum += weight(x);
    const long double one_minus_ratio = -std::expm1(-(2 * x + 1) / (2 * s2));
    if (!(one_minus_ratio > 0)) return 1;
    sum += weight(x) / one_minus_ratio;
    const long double z_lower =
        std::max(1.0L, std::sqrt(2 * std::numbers::pi_v<long double> * s2)) *
        (1 - std::ldexp(1.0L, -60));
    return sum / z_lower * (1 + std::ldexp(1.0L, -40));
  }

  [[nodiscard]] std::int64_t compute_threshold() const {
    const long double target = per_partition_delta_;
    auto fits = [&](long double k) { return upper_tail_bound(k) <= target; };
    // T - 1 = k; search the least k >= 0 that fits, by doubling then bisection.
    long double hi = std::max(1.0L, std::ceil(std::sqrt(sigma2() * 2 * -std::log(target))));
    while (!fits(hi)) hi *= 2;
    long double lo = -1;  // does not fit (or is below the range)
    while (hi - lo > 1) {
      const long double mid = std::floor((lo + hi) / 2);
      (mid >= 0 && fits(mid) ? hi : lo) = mid;
    }
    return static_cast<std::int64_t>(hi) + 1;
  }

  // P[Z >= k] for an integer k >= 1, summed until the terms stop mattering.
  [[nodiscard]] long double upper_tail(long double k) const {
    long double sum = 0;
    for (long double x = k;; ++x) {
      const long double w = weight(x);
      sum += w;
      if (w <= sum * 1e-22L || w == 0) break;
    }
    return sum / normaliser();
  }

  // sum_x exp(-x^2 / (2 sigma^2)): directly for sigma < 1, else by its
  // Poisson-summation dual, which needs a few terms.
  [[nodiscard]] long double normaliser() const {
    const long double s2 = sigma2();
    if (s2 < 1) {
      long double z = 1;
      for (long double x = 1;; ++x) {
        const long double w = weight(x);
        if (w < 1e-40L) break;
        z += 2 * w;
      }
      return z;
    }
    const long double pi = std::numbers::pi_v<long double>;
    long double dual = 1;
    for (long double j = 1;; ++j) {
      const long double w = std::exp(-2 * pi * pi * s2 * j * j);
      if (w < 1e-40L) break;
      dual += 2 * w;
    }
    return std::sqrt(2 * pi * s2) * dual;
  }

  approx_dp target_;
  std::uint64_t max_partitions_;
  double noise_delta_;
  discrete_gaussian_distribution noise_;
  sampler_type sampler_;
  double per_partition_delta_ = 0;
  std::int64_t threshold_ = 0;
};

/// The optimal rule (Desfontaines, Voss, Gipson & Mandayam 2022, Theorem 1):
/// keep a partition of n units with probability pi(n), where pi(0) = 0 and
///   pi(n) = min(e^eps pi(n-1) + delta, 1 - e^-eps (1 - pi(n-1) - delta), 1),
/// the largest values the two (eps, delta)-DP inequalities between n - 1 and
/// n allow (the other two follow from monotonicity). pi grows geometrically,
/// then approaches 1 geometrically and reaches it at a finite n*.
///
/// Budget: for D0 > 1 each partition uses (eps / D0, delta / D0), rounded
/// down, as the paper recommends (its Section 5); a unit changes at most D0
/// independent decisions, so basic composition gives (eps, delta).
///
/// Soundness of the doubles: each pi(n) is built from the double pi(n-1) with
/// eps and delta lowered by 2^-32 relative, exp bounded in the safe
/// direction, a margin of 2^-56 (relative for the first bound, absolute for
/// the second) over long double's rounding, then rounded down to a double,
/// so pi(n) <= the exact bound. The table is then checked independently with
/// the true per-partition eps and delta. When the increments fall below the
/// doubles' resolution (delta / D0 below about 2^-54 near 1) the table stops
/// short of 1 (at 1 - 2^-53 or so) and pi stays at its last value, which is
/// still DP. The table holds at most 2^22 + 1 values (32 MiB; n* is about
/// 2 ln(eps / delta) D0 / eps, which covers eps / D0 down to about 1e-5);
/// a budget that needs more, or whose table would stop below 1 - 2^-30,
/// throws rather than silently keeping less.
///
/// With Noise = constant_time_noise, keep() reads the whole table (pi(n)
/// selected by masks: no memory access depends on n; its cost is the
/// table's length, n* + 1, typically tens to thousands of entries) and
/// tosses a 128-bit comparison coin (two CSPRNG words, keep probability
/// floor(pi(n) 2^128) / 2^128, within 2^-128 below pi(n)); the coins'
/// distance over at most 2^64 partitions, (1 + e^eps) 2^64 2^-128, is taken
/// from delta before the table is built, so the guarantee is still the
/// target.
template <mechanism_noise_policy Noise = constant_time_noise>
class optimal_partition_selection {
  static constexpr bool constant_time = std::same_as<Noise, constant_time_noise>;

 public:
  /// Throws invalid_parameter naming target.epsilon, target.delta or
  /// max_partitions as laplace_partition_selection does.
  optimal_partition_selection(approx_dp target, std::uint64_t max_partitions)
      : target_(detail::validate_partition_target(target, max_partitions)),
        max_partitions_(max_partitions),
        per_partition_epsilon_(detail::share_down(target.epsilon(), max_partitions)),
        per_partition_delta_(detail::share_down(
            detail::delta_after_sampler(target.delta(), target.epsilon(), coin_total_variation()),
            max_partitions)) {
    build_table();
    // A table that stops near 1 only ran out of double resolution; one that
    // stops lower (at the size limit, or an eps / D0 near 2^-53) would keep
    // far less than the rule promises.
    if (table_.back() < 1 - 0x1p-30) {
      throw_invalid("target.epsilon", target.epsilon(),
                    "finite and > 0 with the keep probability reaching 1 - 2^-30 within 2^22 "
                    "units (n* is about 2 ln(epsilon / delta) max_partitions / epsilon; the "
                    "thresholding policies have no such limit)");
    }
    verify_table();
  }

  /// True with probability exactly keep_probability(n) (a double's binary
  /// value, tossed with integer arithmetic); with constant_time_noise, with
  /// probability within 2^-128 below it, in constant time (see the class
  /// comment). Never for n = 0.
  template <random_bit_source G>
  bool keep(std::uint64_t n, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    if constexpr (constant_time) {
      // pi(min(n, N)), every entry read.
      const std::uint64_t last = table_.size() - 1;
      const std::uint64_t index =
          detail::ct_select(detail::ct_mask(detail::ct_lt(n, last)), n, last);
      double p = 0;
      for (std::uint64_t i = 0; i <= last; ++i) {
        p = detail::ct_select_double(detail::ct_mask(detail::ct_is_zero(i ^ index)), table_[i], p);
      }
      // floor(p 2^128) is only defined below 1: p = 1 keeps for certain.
      const std::uint64_t one =
          detail::ct_is_zero(std::bit_cast<std::uint64_t>(p) ^ std::bit_cast<std::uint64_t>(1.0));
      const double below_one = detail::ct_select_double(detail::ct_mask(one), 0.0, p);
      return static_cast<bool>(detail::ct_coin(gen, detail::ct_threshold_below(below_one)) | one);
    } else {
      return bernoulli_double(gen, keep_probability(n));
    }
  }

  /// The distance of one decision's law from keep_probability(n)'s: 2^-128
  /// for constant_time_noise, 0 otherwise.
  [[nodiscard]] static constexpr double coin_total_variation() noexcept {
    return constant_time ? detail::ct_coin_error : 0.0;
  }

  /// pi(n): 0 for n = 0, pi(N) for n beyond the table (see table()).
  [[nodiscard]] double keep_probability(std::uint64_t n) const {
    return n < table_.size() ? table_[n] : table_.back();
  }

  /// The target it was built for; one unit's contribution is (eps, delta)-DP.
  [[nodiscard]] approx_dp guarantee() const { return target_; }
  /// D0, the most partitions one unit contributes to.
  [[nodiscard]] std::uint64_t max_partitions() const noexcept { return max_partitions_; }
  /// eps / max_partitions, rounded down: each partition's epsilon.
  [[nodiscard]] double per_partition_epsilon() const noexcept { return per_partition_epsilon_; }
  /// delta / max_partitions, rounded down: each partition's delta (with
  /// constant-time noise, delta less the coins' share first).
  [[nodiscard]] double per_partition_delta() const noexcept { return per_partition_delta_; }
  /// n*, the least n kept for certain, or 0 when the table stops short of 1.
  [[nodiscard]] std::uint64_t certain_from() const noexcept {
    return table_.back() == 1 ? table_.size() - 1 : 0;
  }
  /// pi(0), ..., pi(N); keep_probability(n) = pi(N) for n > N.
  [[nodiscard]] std::span<const double> table() const noexcept { return table_; }

 private:
  static constexpr std::size_t max_table = (std::size_t{1} << 22) + 1;

  void build_table() {
    const double eps = per_partition_epsilon_ * (1 - 0x1p-32);
    const double delta = per_partition_delta_ * (1 - 0x1p-32);
    const long double growth_lo = std::exp(static_cast<long double>(eps)) * (1 - 0x1p-61L);
    const long double decay_hi = std::exp(-static_cast<long double>(eps)) * (1 + 0x1p-61L);
    const long double margin = 0x1p-56L;
    table_.assign(1, 0.0);
    while (table_.size() < max_table) {
      const double x = table_.back();
      if (x == 1) break;
      const long double a = (growth_lo * x + delta) * (1 - margin);
      double next = 0;
      if (detail::sum_reaches_one(x, delta)) {
        // The second bound is >= 1 exactly, so only the first can hold pi below 1.
        next = a >= 1 ? 1.0 : detail::round_down(a);
      } else {
        const long double b = 1 - decay_hi * ((1.0L - x) - delta) - margin;
        next = detail::round_down(std::min(a, b));
      }
      // The exact bound is >= x, so x itself is always allowed; no progress
      // means none will ever come (the step depends on x only).
      if (!(next > x)) break;
      table_.push_back(next);
    }
  }

  // Both DP inequalities with the true per-partition eps and delta, for every
  // consecutive pair, evaluated conservatively: a bug in build_table() cannot
  // go unnoticed.
  void verify_table() const {
    const long double eps = per_partition_epsilon_;
    const long double delta = per_partition_delta_;
    const long double growth_lo = std::exp(eps) * (1 - 0x1p-61L);
    const long double decay_hi = std::exp(-eps) * (1 + 0x1p-61L);
    for (std::size_t n = 0; n + 1 < table_.size(); ++n) {
      const double x = table_[n], y = table_[n + 1];
      bool ok = x <= y && y <= 1;
      // pi(n+1) <= e^eps pi(n) + delta
      ok = ok && y <= (growth_lo * x + delta) * (1 - 0x1p-60L);
      // 1 - pi(n) <= e^eps (1 - pi(n+1)) + delta
      if (!detail::sum_reaches_one(x, per_partition_delta_)) {
        ok = ok && y <= 1 - decay_hi * ((1.0L - x) - delta) - 0x1p-58L;
      }
      if (!ok) {
        throw error(
            "privet: optimal_partition_selection built a keep probability that breaks "
            "its DP inequalities at n = " +
            detail::format_value(n + 1) + " (a bug; please report it)");
      }
    }
  }

  approx_dp target_;
  std::uint64_t max_partitions_;
  double per_partition_epsilon_;
  double per_partition_delta_;
  std::vector<double> table_;
};

/// A partition-selection policy: keep_probability(n) and a guarantee.
template <class P>
concept partition_selection_policy = requires(const P& p, std::uint64_t n) {
  { p.keep_probability(n) } -> std::convertible_to<double>;
  { p.guarantee() } -> std::same_as<approx_dp>;
};

/// The expected number of partitions `policy` releases among partitions with
/// the given numbers of distinct units: sum of keep_probability(n). For
/// comparing policies at the same (eps, delta, D0) on a real histogram.
template <partition_selection_policy P>
double expected_kept(const P& policy, std::span<const std::uint64_t> counts) {
  double total = 0;
  for (const std::uint64_t n : counts) total += policy.keep_probability(n);
  return total;
}

}  // namespace privet
