// privet/mechanisms/subset_selection.hpp — the subset-selection local
// randomiser (Ye & Barg 2018, "Optimal schemes for discrete distribution
// estimation under locally differential privacy"; Wang, Wu & Hu 2016): a
// user holding item z of s candidates reports d of them,
//
//   with probability p = d e^eps / (d e^eps + s - d): z and d - 1 others,
//   otherwise:                                       d others,
//
// the others uniform among the s - 1 candidates other than z. For an output
// set O, P[O | z] is p / C(s-1, d-1) if z is in O and (1 - p) / C(s-1, d)
// otherwise, and their ratio is exactly e^eps: each report is eps-LDP for
// every d in [1, s - 1]. The default d = ceil(s / (e^eps + 1)) minimises the
// l2 error of frequency estimates (Ye & Barg, Section III); LDP TrieHH uses
// it (Sun, Kairouz, Sun, Gascón & Suresh 2024, "Private federated discovery
// of out-of-vocabulary words for Gboard", arXiv:2404.11607).
//
// Sampling is exact and costs O(d) time and memory for any s: the branch is
// one logistic_bernoulli coin (not a rejection loop over s / d rounds), and
// the others are Floyd's uniform subset of the s - 1 other candidates.
//
// Frequency estimation: an item is reported by a user holding it with
// probability p and by any other user with probability
// q = (p (d - 1) + (1 - p) d) / (s - 1). With c reports of it among n users,
// (c - n q) / (p - q) is unbiased, with variance
// (f p (1 - p) + (n - f) q (1 - q)) / (p - q)^2 when f users hold it.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace privet {

/// The subset-selection local randomiser over s candidates [0, s): each
/// report is a set of d candidates, eps-LDP, with unbiased frequency
/// estimation (see the file comment).
class subset_selection {
 public:
  /// s >= 2 candidates, epsilon finite and > 0, d = ceil(s / (e^eps + 1)).
  subset_selection(double epsilon, std::uint64_t s)
      : subset_selection(epsilon, s, default_d(epsilon, s)) {}

  /// An explicit output size d in [1, s - 1] (every such d is eps-LDP).
  subset_selection(double epsilon, std::uint64_t s, std::uint64_t d)
      : epsilon_(validate_epsilon(epsilon)),
        s_(validate_s(s)),
        d_(validate_d(d, s)),
        keep_true_(d, s - d, epsilon) {}

  /// Appends the report of `item` (in [0, s)) to `out`: d distinct
  /// candidates in no particular order. An item >= s is reported as a
  /// uniformly random item of [0, s) would be (never throws).
  template <random_bit_source G>
  void operator()(std::uint64_t item, G& gen, std::vector<std::uint64_t>& out) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    // An item outside the domain is data, not an error: it is replaced by a
    // uniform item of [0, s), whose report (a uniform d-subset) is the
    // mixture of the in-domain reports, so still eps-LDP.
    if (item >= s_) item = uniform_below(gen, s_);
    const std::size_t first = out.size();
    const bool with_item = keep_true_(gen);
    uniform_subset(gen, s_ - 1, with_item ? d_ - 1 : d_, out);
    // Others are drawn from [0, s - 1); shifting those >= item skips it.
    for (std::size_t i = first; i < out.size(); ++i) out[i] += out[i] >= item ? 1 : 0;
    if (with_item) out.push_back(item);
  }

  /// The report of `item`: d distinct candidates in no particular order.
  template <random_bit_source G>
  std::vector<std::uint64_t> operator()(std::uint64_t item, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    std::vector<std::uint64_t> out;
    (*this)(item, gen, out);
    return out;
  }

  /// Each report is epsilon-LDP: pure_dp for a change of one user's item.
  [[nodiscard]] pure_dp guarantee() const { return pure_dp(epsilon_); }

  /// p: the probability that a report contains the user's own item.
  [[nodiscard]] double p_true() const {
    const double ds = static_cast<double>(d_);
    return ds / (ds + static_cast<double>(s_ - d_) * std::exp(-epsilon_));
  }
  /// q: the probability that a report contains a given other candidate.
  [[nodiscard]] double p_other() const {
    const double p = p_true();
    const double ds = static_cast<double>(d_);
    return (p * (ds - 1) + (1 - p) * ds) / static_cast<double>(s_ - 1);
  }

  /// Unbiased estimates of every candidate's number of holders from
  /// `counts` (one per candidate: how many of the n reports contain it).
  [[nodiscard]] std::vector<double> estimate_counts(const std::vector<std::uint64_t>& counts,
                                                    std::uint64_t n) const {
    if (counts.size() != s_) {
      throw_invalid("counts.size()", counts.size(), "== s = " + detail::format_value(s_));
    }
    const double p = p_true(), q = p_other(), nd = static_cast<double>(n);
    std::vector<double> est;
    est.reserve(counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i) {
      const std::uint64_t c = counts[i];
      if (c > n) {
        throw_invalid("counts[" + std::to_string(i) + "]", c, "<= n = " + detail::format_value(n));
      }
      est.push_back((static_cast<double>(c) - nd * q) / (p - q));
    }
    return est;
  }

  /// The variance of one estimate from n reports when `holders` users hold the item.
  [[nodiscard]] double estimate_variance(double n, double holders) const {
    validate_non_negative(n, "n");
    validate_closed_range(holders, 0, n, "holders");
    const double p = p_true(), q = p_other();
    return (holders * p * (1 - p) + (n - holders) * q * (1 - q)) / ((p - q) * (p - q));
  }

  /// The per-report epsilon.
  [[nodiscard]] double epsilon() const noexcept { return epsilon_; }
  /// The number of candidates s.
  [[nodiscard]] std::uint64_t s() const noexcept { return s_; }
  /// The number of candidates in each report d.
  [[nodiscard]] std::uint64_t d() const noexcept { return d_; }

 private:
  static std::uint64_t validate_s(std::uint64_t s) {
    if (s < 2 || s == ~std::uint64_t{0}) {
      throw_invalid("s", s, "[2, 2^64 - 2] (the number of candidates)");
    }
    return s;
  }
  static std::uint64_t validate_d(std::uint64_t d, std::uint64_t s) {
    if (d < 1 || d >= s)
      throw_invalid("d", d, "[1, s - 1] = [1, " + detail::format_value(s - 1) + "]");
    return d;
  }
  static std::uint64_t default_d(double epsilon, std::uint64_t s) {
    validate_epsilon(epsilon);
    validate_s(s);
    // d only steers utility (every d is eps-LDP), so a double is precise
    // enough. s / (e^eps + 1) < s / 2 keeps d <= s - 1; it is 0 only when
    // e^eps overflows, where d = 1 is the formula's limit.
    const double d = std::ceil(static_cast<double>(s) / (std::exp(epsilon) + 1));
    return d < 1 ? 1 : static_cast<std::uint64_t>(d);
  }

  double epsilon_;
  std::uint64_t s_;
  std::uint64_t d_;
  logistic_bernoulli keep_true_;  // P[true] = d / (d + (s - d) e^-eps) = p
};

}  // namespace privet
