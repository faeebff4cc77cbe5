// privet/mechanisms/exponential.hpp — selecting a candidate with high score
// privately: the exponential mechanism (McSherry & Talwar 2007) and
// permute-and-flip (McKenna & Sheldon 2020), both sampled exactly.
//
// Both test candidates with the same coin, true with probability
// exp(-eps (q_max - q_r) / (c D)) for scores q with sensitivity D, where
// c = 2 in general and c = 1 for monotonic scores (each neighbour moves all
// scores the same direction). The exponential mechanism draws candidates
// uniformly with replacement until a coin succeeds, which outputs r with
// probability proportional to exp(eps q_r / (c D)); this equals report-noisy-
// max with Gumbel noise. Permute-and-flip tests candidates in a random order
// without replacement (equal to report-noisy-max with exponential noise,
// Ding et al. 2021) and is never worse in expected score. Both are eps-DP.
// The exponent is formed exactly from the doubles' binary values and the
// coin is Canonne-Kamath-Steinke's exact Bernoulli(exp(-x)).
//
// Scores are data and never make a selection throw: any double is taken,
// +inf saturated to the largest double and -inf or NaN to the lowest
// (score_selector::finite_score). An empty candidate list is a parameter
// error (the candidates are public).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/detail/dyadic.hpp>

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

class score_selector {
 public:
  score_selector(double epsilon, double sensitivity, bool monotonic = false)
      : epsilon_(validate_epsilon(epsilon)),
        sensitivity_(validate_positive(sensitivity, "sensitivity")),
        monotonic_(monotonic) {}

  [[nodiscard]] pure_dp guarantee() const { return pure_dp(epsilon_); }
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

}  // namespace detail

/// The exponential mechanism: index r with probability proportional to
/// exp(eps q_r / (2 D)) (or / D for monotonic scores).
class exponential_mechanism : public detail::score_selector {
 public:
  using detail::score_selector::score_selector;

  /// The index of the selected candidate among `scores` (any doubles; see
  /// the file comment). Throws invalid_parameter naming `scores` if there
  /// are none. G must be a secure_bit_source (checked at compile time).
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to < std::ranges::range_value_t<R>,
  double > std::size_t operator()(const R& scores, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    const auto x = exponents(scores);
    for (;;) {
      const std::size_t r = uniform_below(gen, static_cast<std::uint64_t>(x.size()));
      if (coin(gen, x[r])) return r;
    }
  }
};

/// Permute-and-flip: candidates in random order, each kept with probability
/// exp(-eps (q_max - q_r) / (2 D)); the best candidate is always kept.
class permute_and_flip : public detail::score_selector {
 public:
  using detail::score_selector::score_selector;

  /// The index of the selected candidate among `scores`, as for
  /// exponential_mechanism: throws invalid_parameter naming `scores` if
  /// there are none; G must be a secure_bit_source.
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to < std::ranges::range_value_t<R>,
  double > std::size_t operator()(const R& scores, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    const auto x = exponents(scores);
    std::vector<std::size_t> order(x.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    // Lazy Fisher-Yates: draw the next candidate only when needed.
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::size_t j = i + uniform_below(gen, static_cast<std::uint64_t>(order.size() - i));
      std::swap(order[i], order[j]);
      if (coin(gen, x[order[i]])) return order[i];
    }
    return order.back();  // unreachable: the best candidate's coin is certain
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
template <report_noisy_max_noise Noise>
using report_noisy_max =
    std::conditional_t<std::same_as<Noise, gumbel_noise>, exponential_mechanism, permute_and_flip>;

}  // namespace privet
