// privet/mechanisms/sparse_vector.hpp — AboveThreshold, the sparse vector
// technique (Dwork, Naor, Reingold, Rothblum & Vadhan 2009; Dwork & Roth
// 2014, Algorithm 1, with the corrected analysis of Lyu, Su & Li 2017):
// answers a stream of sensitivity-D queries with "below" until one noisy
// answer clears a noisy threshold, then halts. With threshold noise of scale
// b1 and query noise of scale b2 it is (D / b1 + 2 D / b2)-DP, however many
// queries come before the halt.
//
// Release-grade: answers and threshold are rounded to a power-of-two grid
// g (about D * 2^-40), so the sensitivity in grid units is the integer
// floor(D / g) + 1, and the noise is exact discrete Laplace in grid units;
// the privacy map above is applied to those integers. Calling it again after
// it has halted throws budget_exhausted.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/grid.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/noise.hpp>

#include <cmath>
#include <cstdint>

namespace privet {

class above_threshold {
 public:
  /// epsilon split half to the threshold, half to the queries (b1 = 2D/eps,
  /// b2 = 4D/eps). Draws the noisy threshold from `gen` at once.
  template <random_bit_source G>
  above_threshold(double epsilon, double sensitivity, double threshold, G& gen)
      : epsilon_(validate_epsilon(epsilon)),
        sensitivity_(validate_positive(sensitivity, "sensitivity")),
        granularity_(detail::grid_for(sensitivity_, 40)),
        steps_(std::floor(sensitivity_ / granularity_) + 1),
        threshold_noise_(detail::div_up(2 * steps_, epsilon_)),
        query_noise_(detail::div_up(4 * steps_, epsilon_)) {
    validate_finite(threshold, "threshold");
    noisy_threshold_ = detail::add_noise(detail::to_grid(threshold, granularity_, "threshold"),
                                         threshold_noise_(gen));
  }

  /// True when the noisy `answer` clears the noisy threshold (and the
  /// mechanism halts); false otherwise. Throws budget_exhausted after a true.
  template <random_bit_source G>
  bool operator()(double answer, G& gen) {
    if (halted_) {
      throw budget_exhausted(
          "privet: above_threshold has already reported a query above the threshold; its "
          "budget is spent (start a new instance with fresh budget)");
    }
    validate_finite(answer, "answer");
    // Compared as exact integers: a rounded comparison would change the mechanism.
    const std::int64_t noisy =
        detail::add_noise(detail::to_grid(answer, granularity_, "answer"), query_noise_(gen));
    ++queries_;
    if (noisy >= noisy_threshold_) halted_ = true;
    return halted_;
  }

  /// D_units / b1 + 2 D_units / b2 in grid units, rounded up: at most epsilon.
  [[nodiscard]] pure_dp guarantee() const {
    return pure_dp(detail::add_up(detail::div_up(steps_, threshold_noise_.scale()),
                                  detail::div_up(2 * steps_, query_noise_.scale())));
  }

  [[nodiscard]] bool halted() const noexcept { return halted_; }
  [[nodiscard]] std::uint64_t queries() const noexcept { return queries_; }
  [[nodiscard]] double granularity() const noexcept { return granularity_; }

 private:
  double epsilon_;
  double sensitivity_;
  double granularity_;
  double steps_;
  discrete_laplace_distribution threshold_noise_;
  discrete_laplace_distribution query_noise_;
  std::int64_t noisy_threshold_ = 0;  // in grid units
  bool halted_ = false;
  std::uint64_t queries_ = 0;
};

}  // namespace privet
