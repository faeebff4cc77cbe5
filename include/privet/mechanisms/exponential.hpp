// privet/mechanisms/exponential.hpp — selecting a candidate with high score
// privately: the exponential mechanism (McSherry & Talwar 2007) and
// permute-and-flip (McKenna & Sheldon 2020).
//
// Both weigh candidate r by exp(-eps (q_max - q_r) / (c D)) for scores q
// with sensitivity D, where c = 2 in general and c = 1 for monotonic scores
// (each neighbour moves all scores the same direction). The exponential
// mechanism outputs r with probability proportional to that weight
// (report-noisy-max with Gumbel noise); permute-and-flip tests candidates in
// a random order without replacement, keeping each with probability equal
// to its weight (report-noisy-max with exponential noise, Ding et al. 2021),
// and is never worse in expected score. Both are eps-DP.
//
// Two samplers, chosen by the noise policy (mechanisms/noise.hpp):
//  - constant_time_noise, the default: the same work for every scores and
//    every draw (detail/ct_select.hpp). Scores are rounded to a power-of-two
//    grid 2^-30 finer than c D / eps, and the coefficient eps / (c D) is
//    rounded down to a grid fraction, so the sampled law is the exact
//    mechanism's on the grid scores at an epsilon within 2^-30 below eps,
//    up to 128-bit coins and weights: guarantee(n) is within_tv<pure_dp>
//    with a total variation below n 2^-120 (about 2^-89 for 2^32
//    candidates). Scores beyond 2^116 grid steps (about 2^86 c D / eps)
//    saturate there.
//  - secure_noise: the exact law from the doubles' binary values, with
//    Canonne-Kamath-Steinke's exact Bernoulli(exp(-x)) coin; the
//    exponential mechanism draws candidates with replacement until a coin
//    succeeds and permute-and-flip stops at its first success, so a
//    release's time depends on the selected candidate.
//
// Scores are data and never make a selection throw: any double is taken,
// +inf saturated to the largest double and -inf or NaN to the lowest
// (score_selector::finite_score; the grid's saturation keeps that order). An
// empty candidate list is a parameter error (the candidates are public).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/detail/ct_select.hpp>
#include <privet/mechanisms/detail/dyadic.hpp>
#include <privet/mechanisms/noise.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <numeric>
#include <ranges>
#include <string>
#include <type_traits>
#include <vector>

namespace privet {

namespace detail {

/// The state a secure_noise selector does not need.
struct empty_selector {};

class score_selector {
 public:
  score_selector(double epsilon, double sensitivity, bool monotonic = false)
      : epsilon_(validate_epsilon(epsilon)),
        sensitivity_(validate_positive(sensitivity, "sensitivity")),
        monotonic_(monotonic) {}

  [[nodiscard]] double epsilon() const noexcept { return epsilon_; }
  [[nodiscard]] double sensitivity() const noexcept { return sensitivity_; }
  [[nodiscard]] bool monotonic() const noexcept { return monotonic_; }

  /// The score a candidate is ranked by: its own value when finite, +inf
  /// saturated to the largest double, -inf and NaN to the lowest (a
  /// candidate whose score is undefined is the least preferred). Scores are
  /// data, so none makes the mechanism throw; the map is 1-Lipschitz on the
  /// extended reals, so scores of sensitivity D keep sensitivity D.
  [[nodiscard]] static double finite_score(double v) noexcept {
    if (std::isnan(v)) return std::numeric_limits<double>::lowest();
    return std::clamp(v, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
  }

 protected:
  // Exact fractions x_r = eps (q_max - q_r) / (c D), one per candidate,
  // from the scores as finite_score reads them. Differences up to 2^1025
  // are exact big integers, and the coin costs about 1.6 Bernoulli(e^-1)
  // draws whatever the exponent (bernoulli.hpp).
  template <std::ranges::input_range R>
  std::vector<std::pair<boost::multiprecision::cpp_int, boost::multiprecision::cpp_int>> exponents(
      const R& scores) const {
    std::vector<double> q;
    for (const auto& s : scores) q.push_back(finite_score(static_cast<double>(s)));
    if (q.empty()) throw_empty("scores");
    const dyadic top = dyadic::from_double(*std::max_element(q.begin(), q.end()));
    const dyadic eps = dyadic::from_double(epsilon_);
    dyadic denom = dyadic::from_double(sensitivity_);
    if (!monotonic_) denom.exponent += 1;  // 2 D
    std::vector<std::pair<boost::multiprecision::cpp_int, boost::multiprecision::cpp_int>> out;
    out.reserve(q.size());
    for (double v : q) out.push_back(ratio(eps * (top - dyadic::from_double(v)), denom));
    return out;
  }

  template <class G>
  static bool coin(
      G& gen, const std::pair<boost::multiprecision::cpp_int, boost::multiprecision::cpp_int>& x) {
    return x.first == 0 || bernoulli_exp(gen, x.first, x.second);
  }

 private:
  double epsilon_;
  double sensitivity_;
  bool monotonic_;
};

/// The state and guarantees both selectors share for a noise policy: the
/// constant-time selector's grid and coins (constant_time_noise only).
template <grid_noise Noise>
class policy_selector : public score_selector {
 public:
  /// pure_dp with secure_noise, within_tv<pure_dp> with constant_time_noise.
  using guarantee_type =
      std::conditional_t<std::same_as<Noise, constant_time_noise>, within_tv<pure_dp>, pure_dp>;

  policy_selector(double epsilon, double sensitivity, bool monotonic)
      : score_selector(epsilon, sensitivity, monotonic) {
    if constexpr (std::same_as<Noise, constant_time_noise>)
      ct_ = ct_selector(this->epsilon(), this->sensitivity(), monotonic);
  }

  /// The constant-time selector's grid and coins (constant_time_noise), for
  /// tests and reports.
  [[nodiscard]] const ct_selector& constant_time_selector()
      const noexcept requires std::same_as<Noise, constant_time_noise> {
    return ct_;
  }

 protected:
  // eps, with the distance total_variation(ct_, candidates) under
  // constant_time_noise (at most 2^32 candidates).
  template <class Distance>
  guarantee_type guarantee_for(std::size_t candidates, Distance total_variation) const {
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      if (candidates > ct_max_candidates) throw_invalid("candidates", candidates, "at most 2^32");
      return within_tv<pure_dp>(pure_dp(epsilon()), total_variation(ct_, candidates));
    } else {
      return pure_dp(epsilon());
    }
  }

  [[no_unique_address]] std::conditional_t<std::same_as<Noise, constant_time_noise>, ct_selector,
                                           empty_selector>
      ct_;
};

}  // namespace detail

/// The exponential mechanism: index r with probability proportional to
/// exp(eps q_r / (2 D)) (or / D for monotonic scores). With
/// constant_time_noise (the default) every release does the same work
/// whatever the scores and the draw (detail/ct_select.hpp: grid scores,
/// 128-bit weights, one 320-bit uniform) and the guarantee is
/// within_tv<pure_dp>; secure_noise samples the exact law with coins that
/// stop at the selected candidate (variable time).
template <grid_noise Noise = constant_time_noise>
class exponential_mechanism : public detail::policy_selector<Noise> {
 public:
  /// Throws invalid_parameter naming epsilon or sensitivity unless each is
  /// finite and > 0.
  exponential_mechanism(double epsilon, double sensitivity, bool monotonic = false)
      : detail::policy_selector<Noise>(epsilon, sensitivity, monotonic) {}

  /// The guarantee of one release among `candidates` candidates (the
  /// total variation grows with their number); eps-DP for any number.
  [[nodiscard]] auto guarantee(std::size_t candidates) const {
    return this->guarantee_for(candidates, [](const detail::ct_selector& s, std::size_t n) {
      return s.exponential_total_variation(n);
    });
  }
  /// The guarantee of one release among at most 2^32 candidates.
  [[nodiscard]] auto guarantee() const { return guarantee(detail::ct_max_candidates); }

  /// The index of the selected candidate among `scores` (any doubles; see
  /// the file comment). Throws invalid_parameter naming `scores` if there
  /// are none (or, with constant_time_noise, more than 2^32). G must be a
  /// secure_bit_source (checked at compile time).
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to < std::ranges::range_value_t<R>,
  double > std::size_t operator()(const R& scores, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return this->ct_.exponential(scores, gen);
    } else {
      const auto x = this->exponents(scores);
      for (;;) {
        const std::size_t r = uniform_below(gen, static_cast<std::uint64_t>(x.size()));
        if (this->coin(gen, x[r])) return r;
      }
    }
  }
};

/// Permute-and-flip: candidates in random order, each kept with probability
/// exp(-eps (q_max - q_r) / (2 D)); the best candidate is always kept. With
/// constant_time_noise (the default) every candidate's coin is tossed and
/// the first success in a random priority order is found by a masked scan
/// (detail/ct_select.hpp), and the guarantee is within_tv<pure_dp>;
/// secure_noise stops at the first success (variable time, exact law).
template <grid_noise Noise = constant_time_noise>
class permute_and_flip : public detail::policy_selector<Noise> {
 public:
  /// Throws invalid_parameter naming epsilon or sensitivity unless each is
  /// finite and > 0.
  permute_and_flip(double epsilon, double sensitivity, bool monotonic = false)
      : detail::policy_selector<Noise>(epsilon, sensitivity, monotonic) {}

  /// The guarantee of one release among `candidates` candidates.
  [[nodiscard]] auto guarantee(std::size_t candidates) const {
    return this->guarantee_for(candidates, [](const detail::ct_selector& s, std::size_t n) {
      return s.permute_and_flip_total_variation(n);
    });
  }
  /// The guarantee of one release among at most 2^32 candidates.
  [[nodiscard]] auto guarantee() const { return guarantee(detail::ct_max_candidates); }

  /// The index of the selected candidate among `scores`, as for
  /// exponential_mechanism: throws invalid_parameter naming `scores` if
  /// there are none; G must be a secure_bit_source.
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to < std::ranges::range_value_t<R>,
  double > std::size_t operator()(const R& scores, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      return this->ct_.permute_and_flip(scores, gen);
    } else {
      const auto x = this->exponents(scores);
      std::vector<std::size_t> order(x.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      // Lazy Fisher-Yates: draw the next candidate only when needed.
      for (std::size_t i = 0; i < order.size(); ++i) {
        const std::size_t j = i + uniform_below(gen, static_cast<std::uint64_t>(order.size() - i));
        std::swap(order[i], order[j]);
        if (this->coin(gen, x[order[i]])) return order[i];
      }
      return order.back();  // unreachable: the best candidate's coin is certain
    }
  }
};

/// Noise distributions of report-noisy-max, for report_noisy_max below.
struct gumbel_noise {};
struct exponential_noise {};

template <class Noise>
concept report_noisy_max_noise =
    std::same_as<Noise, gumbel_noise> || std::same_as<Noise, exponential_noise>;

/// Report-noisy-max (the index of the largest q_r + noise with scale 2 D /
/// eps, or D / eps for monotonic scores) under its two exact names: with
/// Gumbel noise its output has exactly the exponential mechanism's
/// distribution (the Gumbel-max trick), and with exponential noise exactly
/// permute-and-flip's (Ding, Kifer, Wang, Xiao & Zhang 2021). privet samples
/// them through those exact coins rather than adding floating-point noise,
/// whose rounding would break the privacy proof.
template <report_noisy_max_noise Noise, grid_noise Policy = constant_time_noise>
using report_noisy_max =
    std::conditional_t<std::same_as<Noise, gumbel_noise>, exponential_mechanism<Policy>,
                       permute_and_flip<Policy>>;

}  // namespace privet
