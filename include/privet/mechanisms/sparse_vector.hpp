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
#include <privet/mechanisms/detail/grid.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/noise.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace privet {

/// AboveThreshold with a budget of epsilon: one instance answers queries
/// until the first noisy answer at or above the noisy threshold, then
/// halts. pure_dp as in the file comment.
class above_threshold {
 public:
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
        threshold_(validate_finite(threshold, "threshold")),
        threshold_draw_(threshold_noise_(gen)) {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    if (in_int128(threshold_)) noisy_threshold_ = units(threshold_) + threshold_draw_;
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
    const double a = finite_answer(answer);
    const std::int64_t draw = query_noise_(gen);
    ++queries_;
    // Compared as exact integers: a rounded comparison would change the mechanism.
    if (in_int128(a) && in_int128(threshold_)) {
      halted_ = units(a) + draw >= noisy_threshold_;
    } else {
      halted_ = a != threshold_ ? a > threshold_ : draw >= threshold_draw_;
    }
    return halted_;
  }

  /// D_units / b1 + 2 D_units / b2 in grid units, rounded up: at most epsilon.
  [[nodiscard]] pure_dp guarantee() const {
    return pure_dp(detail::add_up(detail::div_up(steps_, threshold_noise_.scale()),
                                  detail::div_up(2 * steps_, query_noise_.scale())));
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
  double threshold_;
  std::int64_t threshold_draw_;
  detail::int128 noisy_threshold_ = 0;  // in grid units, when threshold_ is in_int128
  bool halted_ = false;
  std::uint64_t queries_ = 0;
};

}  // namespace privet
