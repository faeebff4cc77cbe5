// privet/mechanisms/binomial.hpp — exact geometric and binomial samplers for
// success probabilities of the form p = 1 - exp(-rate), from random bits and
// integer arithmetic only.
//
// The geometric sampler is Algorithm 2 of Canonne, Kamath & Steinke (2020,
// "The Discrete Gaussian for Differential Privacy") without the sign: for a
// rate s / t, U uniform in [0, t) kept with probability exp(-U / t), plus t
// times V ~ Geometric(exp(-1)), is X with P[X >= x] = exp(-x / t); then
// G = floor(X / s) has P[G >= g] = exp(-g s / t). Every coin is an exact
// Bernoulli(exp(-rational)) (mechanisms/bernoulli.hpp), so the law is exact
// for the rate's binary value, whatever its size.
//
// The binomial count of successes among n trials walks from success to
// success with geometric gaps (Devroye 1986, "Non-Uniform Random Variate
// Generation", Section X.4: the waiting-time method), so the law is exact
// too and the cost is one geometric draw per success: O(1 + n p). That is
// what DPNE needs (algorithms/dpne.hpp: the number of spurious n-grams among
// |V_k| candidates, n p about eta |S_{k-1}|); sampling a large mean this way
// would be slow, so a mean above 2^32 is refused rather than left to run for
// minutes.
//
// The rate rather than p parametrises both samplers because 1 - exp(-rate)
// has exact coins and a double p does not; a threshold's tail probability p
// (an irrational number in any case) becomes the rate -log1p(-p) to within an
// ulp (from_probability).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/detail/dyadic.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace privet {

/// The geometric distribution on {0, 1, 2, ...} with P[G >= g] =
/// exp(-rate g): the number of failures before the first success of trials
/// that succeed with probability 1 - exp(-rate). Samples are exact; a
/// sample of 2^64 - 1 or more is returned as 2^64 - 1 (result_max).
class geometric_distribution {
 public:
  using result_type = std::uint64_t;  ///< The sample type.
  /// The saturation value, 2^64 - 1.
  static constexpr result_type result_max = std::numeric_limits<result_type>::max();

  /// rate finite and > 0, taken at its exact binary value. Throws
  /// invalid_parameter naming `rate` otherwise.
  explicit geometric_distribution(double rate) : rate_(validate_positive(rate, "rate")) {
    const auto [m, e] = detail::exact_binary_value(rate);
    // rate = s / t with t = 1 or a power of two; 128-bit arithmetic covers
    // rates in about [2^-126, 2^73], big integers the rest.
    if (e >= 0) {
      fast_ = std::bit_width(m) + e <= fast_bits;
      big_s_ = big(m) << e;
      big_t_ = 1;
    } else {
      fast_ = -e <= fast_bits;
      big_s_ = big(m);
      big_t_ = big(1) << -e;
    }
    if (fast_) {
      s_ = e >= 0 ? static_cast<detail::uint128>(m) << e : static_cast<detail::uint128>(m);
      t_ = e >= 0 ? detail::uint128{1} : detail::uint128{1} << -e;
    }
  }

  /// One exact sample (saturated at result_max).
  template <random_bit_source G>
  result_type operator()(G& gen) const {
    return fast_ ? sample_fast(gen) : sample_big(gen);
  }

  /// The rate: P[G >= g] = exp(-rate g).
  [[nodiscard]] double rate() const noexcept { return rate_; }
  /// 1 - exp(-rate), rounded to the nearest double.
  [[nodiscard]] double success_probability() const noexcept { return -std::expm1(-rate_); }
  /// P[G = g] = exp(-rate g) (1 - exp(-rate)).
  [[nodiscard]] double pmf(result_type g) const noexcept {
    return std::exp(-rate_ * static_cast<double>(g)) * success_probability();
  }
  /// E[G] = exp(-rate) / (1 - exp(-rate)) = 1 / expm1(rate).
  [[nodiscard]] double mean() const noexcept { return 1 / std::expm1(rate_); }

 private:
  using big = boost::multiprecision::cpp_int;
  static constexpr int fast_bits = 126;

  // X = u + t v with P[X >= x] = exp(-x / t); v counted by exp(-1) coins.
  template <random_bit_source G>
  result_type sample_fast(G& gen) const {
    for (;;) {
      const detail::uint128 u = t_ == 1 ? detail::uint128{0} : detail::draw_below(gen, t_);
      if (!detail::bernoulli_exp_unit(gen, u, t_)) continue;
      std::uint64_t v = 0;
      while (detail::bernoulli_exp_minus_one(gen)) ++v;
      detail::uint128 tv = 0, x = 0;
      if (__builtin_mul_overflow(t_, static_cast<detail::uint128>(v), &tv) ||
          __builtin_add_overflow(tv, u, &x)) {
        // Only for v >= 2 (t < 2^126), probability below exp(-2): redo in
        // big integers rather than lose exactness.
        return saturate(big((big_t_ * v + to_big(u)) / big_s_));
      }
      const detail::uint128 g = x / s_;
      return (g >> 64) != 0 ? result_max : static_cast<result_type>(g);
    }
  }

  template <random_bit_source G>
  result_type sample_big(G& gen) const {
    for (;;) {
      const big u = big_t_ == 1 ? big(0) : big(detail::draw_below(gen, big_t_));
      if (!detail::bernoulli_exp_unit(gen, u, big_t_)) continue;
      std::uint64_t v = 0;
      while (detail::bernoulli_exp_minus_one(gen)) ++v;
      return saturate(big((big_t_ * v + u) / big_s_));
    }
  }

  static big to_big(detail::uint128 x) {
    return (big(static_cast<std::uint64_t>(x >> 64)) << 64) | big(static_cast<std::uint64_t>(x));
  }

  static result_type saturate(const big& g) {
    return g >= big(result_max) ? result_max : static_cast<result_type>(g);
  }

  double rate_;
  bool fast_ = false;
  detail::uint128 s_ = 0, t_ = 0;
  big big_s_, big_t_;
};

/// The binomial distribution: successes among `trials` independent trials,
/// each succeeding with probability 1 - exp(-rate). Exact (each success is
/// reached by an exact geometric gap); O(1 + mean) geometric draws.
class binomial_distribution {
 public:
  using result_type = std::uint64_t;  ///< The sample type (a count of successes).

  /// The largest mean trials (1 - exp(-rate)) accepted: the waiting-time
  /// method draws once per success.
  static constexpr double max_mean = 4294967296.0;  // 2^32

  /// Throws invalid_parameter naming `rate` unless it is finite and > 0, or
  /// naming `trials` when the mean exceeds max_mean.
  binomial_distribution(std::uint64_t trials, double rate)
      : trials_(trials), gap_(validate_positive(rate, "rate")) {
    if (mean() > max_mean) {
      throw_invalid("trials", trials,
                    "a value with trials * (1 - exp(-rate)) <= 2^32 (rate = " +
                        detail::format_value(rate) + "; the sampler draws once per success)");
    }
  }

  /// Success probability p in (0, 1) given as a double: the rate is
  /// -log1p(-p) rounded to the nearest double, so the sampled law is
  /// exactly Binomial(trials, 1 - exp(-rate)), within a few ulps of p.
  /// Throws invalid_parameter naming `p` unless p is in (0, 1).
  static binomial_distribution from_probability(std::uint64_t trials, double p) {
    if (!(p > 0 && p < 1)) throw_invalid("p", p, "(0, 1)");
    return binomial_distribution(trials, -std::log1p(-p));
  }

  /// One exact sample.
  template <random_bit_source G>
  result_type operator()(G& gen) const {
    std::uint64_t successes = 0, used = 0;
    while (used < trials_) {
      const std::uint64_t failures = gap_(gen);
      if (failures >= trials_ - used) break;  // the next success lies beyond the last trial
      used += failures + 1;
      ++successes;
    }
    return successes;
  }

  /// The number of trials n.
  [[nodiscard]] std::uint64_t trials() const noexcept { return trials_; }
  /// The rate: each trial succeeds with probability 1 - exp(-rate).
  [[nodiscard]] double rate() const noexcept { return gap_.rate(); }
  /// p = 1 - exp(-rate), rounded to the nearest double.
  [[nodiscard]] double success_probability() const noexcept { return gap_.success_probability(); }
  /// n p, with p rounded as in success_probability().
  [[nodiscard]] double mean() const noexcept {
    return static_cast<double>(trials_) * success_probability();
  }
  /// n p (1 - p), with 1 - p = exp(-rate).
  [[nodiscard]] double variance() const noexcept { return mean() * std::exp(-rate()); }
  /// P[X = x] by log-gamma (for tests and planning; relative error about
  /// 1e-12 for trials up to 10^6).
  [[nodiscard]] double pmf(std::uint64_t x) const {
    if (x > trials_) return 0;
    const double n = static_cast<double>(trials_), k = static_cast<double>(x);
    const double log_choose = std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
    // log p = log(-expm1(-rate)), log(1 - p) = -rate.
    return std::exp(log_choose + k * std::log(success_probability()) - (n - k) * rate());
  }

 private:
  std::uint64_t trials_;
  geometric_distribution gap_;
};

}  // namespace privet
