// privet/mechanisms/randomized_response.hpp — randomised response, the local
// randomiser of Warner (1965): binary, and k-ary ("generalised randomised
// response", Wang, Blocki, Li & Jha 2017). Each report is eps-LDP: the true
// value is kept with probability e^eps / (e^eps + k - 1), otherwise one of
// the other k - 1 values is reported uniformly.
//
// Sampling is exact from random bits and costs O(1) for every k and eps: one
// logistic_bernoulli coin keeps the true value with probability
// 1 / (1 + (k - 1) e^-eps) (no rejection loop whose length would grow as
// k e^-eps), and otherwise one uniform draw picks among the k - 1 others.
//
// Frequency estimation (unbiased): with p = e^eps / (e^eps + k - 1) and
// r = 1 / (e^eps + k - 1), a value with observed count c among n reports has
// estimate (c - n r) / (p - r) and variance n (r (1 - r)) / (p - r)^2 when its
// true count is 0 (Wang et al. 2017, Eq. 2 and Theorem 2).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace privet {

/// k-ary randomised response over the values [0, k): an eps-LDP local
/// randomiser with unbiased frequency estimation.
class randomized_response {
 public:
  /// k >= 2 values, epsilon finite and > 0. Throws invalid_parameter naming
  /// `epsilon` or `k` otherwise.
  randomized_response(double epsilon, std::uint64_t k)
      : epsilon_(validate_epsilon(epsilon)),
        k_(validate_at_least<std::uint64_t>(k, 2, "k")),
        keep_(1, k - 1, epsilon) {}

  /// The randomised report of `value` in [0, k). Any other value is
  /// reported as a uniformly random one of [0, k) would be (never throws).
  template <random_bit_source G>
  std::uint64_t operator()(std::uint64_t value, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    // A value outside the domain is data, not an error: it is replaced by a
    // uniform value of [0, k), whose report is the mixture of the in-domain
    // reports and so within e^eps of each of them (still eps-LDP).
    if (value >= k_) value = uniform_below(gen, k_);
    if (keep_(gen)) return value;
    const std::uint64_t other = uniform_below(gen, k_ - 1);
    return other >= value ? other + 1 : other;
  }

  /// Each report is epsilon-LDP: pure_dp for a change of one user's value.
  [[nodiscard]] pure_dp guarantee() const { return pure_dp(epsilon_); }

  /// Probability of reporting the true value.
  [[nodiscard]] double p_true() const {
    return 1 / (1 + static_cast<double>(k_ - 1) * std::exp(-epsilon_));
  }
  /// Probability of reporting one given other value.
  [[nodiscard]] double p_other() const { return std::exp(-epsilon_) * p_true(); }

  /// Unbiased estimates of every value's true count from the reports'
  /// counts (`counts.size()` must be k).
  [[nodiscard]] std::vector<double> estimate_counts(
      const std::vector<std::uint64_t>& counts) const {
    if (counts.size() != k_)
      throw_invalid("counts.size()", counts.size(), "== k = " + std::to_string(k_));
    double n = 0;
    for (auto c : counts) n += static_cast<double>(c);
    const double p = p_true(), r = p_other();
    std::vector<double> est;
    est.reserve(counts.size());
    for (auto c : counts) est.push_back((static_cast<double>(c) - n * r) / (p - r));
    return est;
  }

  /// Variance of one estimate when n reports were made and the true count is `true_count`.
  [[nodiscard]] double estimate_variance(double n, double true_count) const {
    const double p = p_true(), r = p_other();
    return (true_count * p * (1 - p) + (n - true_count) * r * (1 - r)) / ((p - r) * (p - r));
  }

  /// The per-report epsilon.
  [[nodiscard]] double epsilon() const noexcept { return epsilon_; }
  /// The number of values k.
  [[nodiscard]] std::uint64_t k() const noexcept { return k_; }

 private:
  double epsilon_;
  std::uint64_t k_;
  logistic_bernoulli keep_;  // P[true] = e^eps / (e^eps + k - 1)
};

/// Binary randomised response (Warner 1965): k = 2.
class binary_randomized_response {
 public:
  /// Throws invalid_parameter naming `epsilon` unless it is finite and > 0.
  explicit binary_randomized_response(double epsilon) : rr_(epsilon, 2) {}

  /// The randomised report of `value`: kept with probability p_true().
  template <random_bit_source G>
  bool operator()(bool value, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    return rr_(value ? 1u : 0u, gen) == 1u;
  }

  /// Each report is epsilon-LDP: pure_dp for a change of one user's bit.
  [[nodiscard]] pure_dp guarantee() const { return rr_.guarantee(); }
  /// Probability of reporting the true bit, e^eps / (e^eps + 1).
  [[nodiscard]] double p_true() const { return rr_.p_true(); }

  /// Unbiased estimate of how many of `n` users hold `true`, from the number
  /// of `true` reports.
  [[nodiscard]] double estimate_count(std::uint64_t true_reports, std::uint64_t n) const {
    if (true_reports > n)
      throw_invalid("true_reports", true_reports, "<= n = " + std::to_string(n));
    return rr_.estimate_counts({n - true_reports, true_reports})[1];
  }

 private:
  randomized_response rr_;
};

}  // namespace privet
