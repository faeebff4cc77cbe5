// privet/mechanisms/randomized_response.hpp — randomised response, the local
// randomiser of Warner (1965): binary, and k-ary ("generalised randomised
// response", Wang, Blocki, Li & Jha 2017). Each report is eps-LDP: the true
// value is kept with probability p' (below), otherwise one of the other
// k - 1 values is reported uniformly.
//
// The report is computed in constant time (issue 36; Jin, McMurtry,
// Rubinstein & Ohrimenko 2022 time releases to learn their noise): no
// branch, loop bound or memory access depends on the value, on whether it
// is kept, or on the report. Every report draws
//  - the keep coin: two 64-bit words U and the comparison U < T
//    (detail::ct_coin), true with probability exactly p' = T / 2^128, where
//    T = floor(p 2^128) for p = e^eps / (e^eps + k - 1) (detail/ct_local.hpp
//    computes it from certified bounds), so p - 2^-128 < p' <= p;
//  - a stand-in value uniform in [0, k), which replaces a value outside the
//    domain (by masks; see operator());
//  - the "other" value o uniform in [0, k - 1), drawn whether or not the
//    coin keeps, and mapped past the true value z as o + (o >= z) by masks.
// Both uniforms come from one word when k (k - 1) <= 2^60 (else one word
// each) by Lemire's multiply-and-reject with its threshold precomputed
// (detail::ct_draws): the only branch is the rejection of a word, whose
// probability is (2^64 mod n) / 2^64 for its bound n (below 1/16 when one
// word serves both, up to 1/2 for a single bound near 2^63; tiny for small
// k) and whose outcome depends on that word alone,
// not on z, the coin or the report (a rejected word is discarded, and the
// accepted one is uniform whatever was rejected before). The report is then
// z if the coin is true, else o + (o >= z), selected by masks.
//
// The law. P[report = z | z] = p' and P[report = y | z] = (1 - p') / (k - 1)
// for each y != z. Since p' <= p, p' / ((1 - p') / (k - 1)) <= p / ((1 - p)
// / (k - 1)) = e^eps, and since p' >= 1 / k (checked at construction; it
// holds for every eps >= 2^-62, and a smaller eps that fails it throws), the
// inverse ratio is at most 1: each report is exactly eps-LDP, pure_dp(eps)
// as before. More: with p' in [1 / k, p] the report is post-processing of
// the exact-p randomiser (re-randomise its report to a uniform value with a
// fixed probability; detail/ct_local.hpp), so the accounting layer's PLD,
// RDP and shuffle bounds for k-ary randomised response remain valid.
//
// Frequency estimation (unbiased for the law sampled): with p = p_true() =
// p' and r = p_other() = (1 - p') / (k - 1), a value with observed count c
// among n reports has estimate (c - n r) / (p - r) and variance
// n (r (1 - r)) / (p - r)^2 when its true count is 0 (Wang et al. 2017,
// Eq. 2 and Theorem 2). p' and the exact p differ by less than 2^-128,
// below a double's resolution near p (p >= 1 / k >= 2^-64), but r is
// computed from 2^128 - T, so that for a large eps, where 1 - p' = 2^-128
// may exceed 1 - p by far, r is the sampled one.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>
#include <privet/mechanisms/detail/ct_local.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace privet {

/// k-ary randomised response over the values [0, k): an eps-LDP local
/// randomiser with unbiased frequency estimation.
class randomized_response {
 public:
  /// k >= 2 values, epsilon finite and > 0 (and not below about 2^-62:
  /// see the file comment). Throws invalid_parameter naming `epsilon` or `k`
  /// otherwise.
  randomized_response(double epsilon, std::uint64_t k)
      : epsilon_(validate_epsilon(epsilon)),
        k_(validate_at_least<std::uint64_t>(k, 2, "k")),
        keep_(detail::ldp_keep_threshold(1, k - 1, epsilon)),
        draws_({k, k - 1}) {}

  /// The randomised report of `value` in [0, k), in constant time (see the
  /// file comment). Any other value is reported as a uniformly random one
  /// of [0, k) would be (never throws).
  template <random_bit_source G>
  std::uint64_t operator()(std::uint64_t value, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    const std::uint64_t keep = detail::ct_coin(gen, keep_);
    std::uint64_t draw[2];  // the stand-in in [0, k), the other in [0, k - 1)
    draws_.draw(gen, draw);
    // A value outside the domain is data, not an error: it is replaced by a
    // uniform value of [0, k), whose report is the mixture of the in-domain
    // reports and so within e^eps of each of them (still eps-LDP).
    const std::uint64_t z =
        detail::ct_select(detail::ct_mask(detail::ct_lt(value, k_)), value, draw[0]);
    const std::uint64_t other = draw[1] + (detail::ct_lt(draw[1], z) ^ 1);
    return detail::ct_select(detail::ct_mask(keep), z, other);
  }

  /// Each report is epsilon-LDP: pure_dp for a change of one user's value.
  [[nodiscard]] pure_dp guarantee() const { return pure_dp(epsilon_); }

  /// p', the probability of reporting the true value: e^eps / (e^eps + k - 1)
  /// rounded down to a multiple of 2^-128 (then to a double).
  [[nodiscard]] double p_true() const noexcept { return keep_.probability(); }
  /// (1 - p') / (k - 1), the probability of reporting one given other value.
  [[nodiscard]] double p_other() const noexcept {
    return p_not_kept() / static_cast<double>(k_ - 1);
  }
  /// The keep coin's threshold T: the coin is true with probability
  /// T / 2^128 (for tests and audits).
  [[nodiscard]] detail::ct_threshold keep_threshold() const noexcept { return keep_; }

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
  [[nodiscard]] double p_not_kept() const noexcept { return detail::threshold_complement(keep_); }

  double epsilon_;
  std::uint64_t k_;
  detail::ct_threshold keep_;  // P[kept] = T / 2^128 = floor(2^128 e^eps / (e^eps + k - 1)) / 2^128
  detail::ct_draws draws_;     // the stand-in value in [0, k), the other in [0, k - 1)
};

/// Binary randomised response (Warner 1965): k = 2.
class binary_randomized_response {
 public:
  /// Throws invalid_parameter naming `epsilon` unless it is finite and > 0.
  explicit binary_randomized_response(double epsilon) : rr_(epsilon, 2) {}

  /// The randomised report of `value`: kept with probability p_true(), in
  /// constant time (randomized_response's report for k = 2).
  template <random_bit_source G>
  bool operator()(bool value, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    return rr_(static_cast<std::uint64_t>(value), gen) == 1u;
  }

  /// Each report is epsilon-LDP: pure_dp for a change of one user's bit.
  [[nodiscard]] pure_dp guarantee() const { return rr_.guarantee(); }
  /// Probability of reporting the true bit: e^eps / (e^eps + 1) rounded
  /// down to a multiple of 2^-128.
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
