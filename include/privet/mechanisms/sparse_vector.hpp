// privet/mechanisms/sparse_vector.hpp — AboveThreshold, the sparse vector
// technique (Dwork, Naor, Reingold, Rothblum & Vadhan 2009; Dwork & Roth
// 2014, Algorithm 1, with the corrected analysis of Lyu, Su & Li 2017):
// answers a stream of sensitivity-D queries with "below" until one noisy
// answer clears a noisy threshold, then halts. With threshold noise of scale
// b1 and query noise of scale b2 it is (D / b1 + 2 D / b2)-DP, however many
// queries come before the halt.
//
// Release-grade: answers and threshold are rounded to a power-of-two grid
// g (about D * 2^-40, never below 2^-1074), so the sensitivity in grid
// units is the integer floor(D / g) + 1, and the noise is exact discrete
// Laplace in grid units; the privacy map above is applied to those integers.
// Calling it again after it has halted throws budget_exhausted.
//
// Every finite answer and threshold is compared exactly, with no range
// limit and no saturation: the decision is round(a / g) + n_a >=
// round(t / g) + n_t over the integers (g = 2^k with D / (epsilon g) in
// [2^40, 2^41), so the grid's extra step costs about 2^-40 of epsilon). It is computed in __int128
// while both |a| and |t| are below 2^117 g; otherwise, the larger of the two rounded values is a
// double of magnitude >= 2^117, so two distinct rounded values differ by at least 2^64 > |n_a -
// n_t| (each |n| < 2^63) and the noise cannot change the order: the decision is a > t, or n_a >=
// n_t when a == t. An answer of +-inf is data and is read as +-DBL_MAX, and NaN as 0 (it is no
// point of the answer space); neither throws. The threshold is a parameter: it must be finite.
//
// Constant time (above_threshold<constant_time_noise>): the threshold and
// query noise come from constant_time_discrete_laplace, and a query's
// decision is computed without a branch on the answer or the noise: the
// answer's NaN / infinity mapping, its rounding to the grid (clamped to
// 2^116 g first, so the integer path is always defined) and both decision
// rules are evaluated, and the one the answer's magnitude selects is taken
// by masks. The guarantee is within_tv<pure_dp>: the same epsilon, up to
// the samplers' total variation over at most 2^64 queries and the
// threshold, (2^64 + 1) tau with tau < 2^-120 per draw (a data-independent
// bound: the number of queries before the halt depends on the data).
//
// Parameters: epsilon, sensitivity finite and > 0, with the query noise
// 4 (floor(D / g) + 1) / epsilon at most 2^52 grid steps (so a sample never
// nears the sampler's 64-bit range), that is epsilon >= about 2^-50.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/detail/grid.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/noise.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace privet {

/// AboveThreshold with a budget of epsilon: one instance answers queries
/// until the first noisy answer at or above the noisy threshold, then
/// halts. pure_dp as in the file comment; within_tv<pure_dp> with
/// Noise = constant_time_noise.
template <mechanism_noise_policy Noise = constant_time_noise>
class above_threshold {
  static constexpr bool constant_time = std::same_as<Noise, constant_time_noise>;
  using sampler_type = std::conditional_t<constant_time, constant_time_discrete_laplace,
                                          discrete_laplace_distribution>;

 public:
  /// pure_dp, or within_tv<pure_dp> for constant-time noise.
  using guarantee_type = std::conditional_t<constant_time, within_tv<pure_dp>, pure_dp>;

  /// epsilon split half to the threshold, half to the queries (b1 = 2D/eps,
  /// b2 = 4D/eps). Draws the noisy threshold from `gen` at once. Throws
  /// invalid_parameter unless epsilon and sensitivity are finite and > 0,
  /// epsilon is at least about 2^-50 (see the file comment) and threshold is
  /// finite.
  template <random_bit_source G>
  above_threshold(double epsilon, double sensitivity, double threshold, G& gen)
      : epsilon_(validate_epsilon(epsilon)),
        sensitivity_(validate_positive(sensitivity, "sensitivity")),
        granularity_(grid(epsilon_, sensitivity_)),
        steps_(std::floor(sensitivity_ / granularity_) + 1),
        threshold_noise_(noise_scale(2 * steps_, epsilon_)),
        query_noise_(noise_scale(4 * steps_, epsilon_)),
        threshold_sampler_(threshold_noise_),
        threshold_(validate_finite(threshold, "threshold")),
        threshold_draw_(threshold_sampler_(gen)),
        query_sampler_(query_noise_) {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    threshold_in_int128_ = in_int128(threshold_);
    if (threshold_in_int128_) noisy_threshold_ = units(threshold_) + threshold_draw_;
  }

  /// True when the noisy `answer` clears the noisy threshold (and the
  /// mechanism halts); false otherwise. Every answer is accepted (see the
  /// file comment for +-inf and NaN). Throws budget_exhausted after a true.
  template <random_bit_source G>
  bool operator()(double answer, G& gen) {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    if (halted_) {
      throw budget_exhausted(
          "privet: above_threshold has already reported a query above the threshold; its "
          "budget is spent (start a new instance with fresh budget)");
    }
    const std::int64_t draw = query_sampler_(gen);
    ++queries_;
    if constexpr (constant_time) {
      halted_ = decide_constant_time(answer, draw);
    } else {
      const double a = finite_answer(answer);
      // Compared as exact integers: a rounded comparison would change the mechanism.
      if (in_int128(a) && in_int128(threshold_)) {
        halted_ = units(a) + draw >= noisy_threshold_;
      } else {
        halted_ = a != threshold_ ? a > threshold_ : draw >= threshold_draw_;
      }
    }
    return halted_;
  }

  /// D_units / b1 + 2 D_units / b2 in grid units, rounded up: at most
  /// epsilon; for constant-time noise, within (2^64 + 1) tau of it.
  [[nodiscard]] guarantee_type guarantee() const {
    const pure_dp base(detail::add_up(detail::div_up(steps_, threshold_noise_.scale()),
                                      detail::div_up(2 * steps_, query_noise_.scale())));
    if constexpr (constant_time) {
      return within_tv<pure_dp>(base, total_variation());
    } else {
      return base;
    }
  }

  /// The distance of the whole run's output from the exact mechanism's, for
  /// any data and any sequence of queries: (2^64 + 1) times the larger
  /// per-draw bound of the two samplers for constant-time noise (at most
  /// 2^64 queries and the threshold), 0 for secure_noise.
  [[nodiscard]] double total_variation() const noexcept {
    if constexpr (constant_time) {
      const double tau = std::max(threshold_sampler_.total_variation_bound(),
                                  query_sampler_.total_variation_bound());
      return detail::mul_up(detail::next_up(0x1p64), tau);  // >= (2^64 + 1) tau
    } else {
      return 0;
    }
  }

  /// Whether a query has cleared the threshold (further calls throw).
  [[nodiscard]] bool halted() const noexcept { return halted_; }
  /// The number of queries answered so far.
  [[nodiscard]] std::uint64_t queries() const noexcept { return queries_; }
  /// The grid g that answers and threshold are rounded to.
  [[nodiscard]] double granularity() const noexcept { return granularity_; }

 private:
  // The largest noise scale in grid steps: a sample then reaches the
  // sampler's 2^63 limit with probability about exp(-2^11).
  static constexpr double max_noise_steps = 0x1p52;

  static double grid(double epsilon, double sensitivity) {
    const double ratio = sensitivity / epsilon;
    return detail::grid_for(std::isfinite(ratio) ? ratio : std::numeric_limits<double>::max(), 40);
  }

  double noise_scale(double numerator, double epsilon) const {
    const double scale = detail::div_up(numerator, epsilon);
    if (!(scale <= max_noise_steps)) {
      throw_invalid("epsilon", epsilon,
                    ">= about 2^-50 for sensitivity = " + detail::format_value(sensitivity_) +
                        " (the query noise 4 (floor(sensitivity / g) + 1) / epsilon must stay "
                        "within 2^52 grid steps)");
    }
    return scale;
  }

  // The decision without a branch on the answer or the draw (see the file
  // comment). threshold_ is a parameter, so branching on it is fine.
  [[nodiscard]] bool decide_constant_time(double answer, std::int64_t draw) const noexcept {
    // NaN -> 0, +-inf -> +-DBL_MAX, by masks and min / max.
    const std::uint64_t nan_mask = detail::ct_mask(std::isnan(answer));
    double a = detail::ct_select_double(nan_mask, 0.0, answer);
    a = std::fmin(std::fmax(a, std::numeric_limits<double>::lowest()),
                  std::numeric_limits<double>::max());
    const double limit = std::ldexp(granularity_, 116);  // may be inf: nothing is clamped
    const double a_small = std::fmin(std::fmax(a, -limit), limit);
    const auto in_range = static_cast<unsigned>(std::fabs(a) < std::ldexp(granularity_, 117));
    const detail::int128 u =
        detail::ct_integer_to_int128(detail::ct_nearbyint(a_small / granularity_));
    const auto by_units = static_cast<unsigned>(u + draw >= noisy_threshold_);
    const auto by_order =
        static_cast<unsigned>(a > threshold_) |
        (static_cast<unsigned>(a == threshold_) & static_cast<unsigned>(draw >= threshold_draw_));
    const unsigned small = in_range & static_cast<unsigned>(threshold_in_int128_);
    return static_cast<bool>((small & by_units) | (~small & 1u & by_order));
  }

  static double finite_answer(double a) noexcept {
    if (std::isnan(a)) return 0;
    return std::clamp(a, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
  }

  // |x / g| < 2^117: round(x / g) plus any int64 fits __int128.
  [[nodiscard]] bool in_int128(double x) const {
    return std::fabs(x) < std::ldexp(granularity_, 117);  // the bound may be inf: then always
  }

  [[nodiscard]] detail::int128 units(double x) const {
    return static_cast<detail::int128>(std::nearbyint(x / granularity_));
  }

  double epsilon_;
  double sensitivity_;
  double granularity_;
  double steps_;
  discrete_laplace_distribution threshold_noise_;
  discrete_laplace_distribution query_noise_;
  sampler_type threshold_sampler_;
  double threshold_;
  std::int64_t threshold_draw_;
  sampler_type query_sampler_;
  bool threshold_in_int128_ = false;
  detail::int128 noisy_threshold_ = 0;  // in grid units, when threshold_ is in_int128
  bool halted_ = false;
  std::uint64_t queries_ = 0;
};

}  // namespace privet
