// privet/mechanisms/subset_selection.hpp — the subset-selection local
// randomiser (Ye & Barg 2018, "Optimal schemes for discrete distribution
// estimation under locally differential privacy"; Wang, Wu & Hu 2016): a
// user holding item z of s candidates reports a set of d of them,
//
//   with probability p' (below):  z and d - 1 others,
//   otherwise:                    d others,
//
// the others uniform among the s - 1 candidates other than z. The default
// d = ceil(s / (e^eps + 1)) minimises the l2 error of frequency estimates
// (Ye & Barg, Section III); LDP TrieHH uses it (Sun, Kairouz, Sun, Gascón &
// Suresh 2024, "Private federated discovery of out-of-vocabulary words for
// Gboard", arXiv:2404.11607).
//
// The keep probability. The exact scheme keeps z with probability
// p = d e^eps / (d e^eps + s - d). The report here tosses its keep coin in
// constant time (detail::ct_coin: two 64-bit words compared with a
// threshold T), true with probability exactly p' = T / 2^128 for
// T = floor(p 2^128) (detail/ct_local.hpp, from certified bounds), so
// p - 2^-128 < p' <= p. For an output set O, P[O | z] is p' / C(s-1, d-1)
// if z is in O and (1 - p') / C(s-1, d) otherwise; as C(s-1, d) /
// C(s-1, d-1) = (s - d) / d, a set holding z but not z' has ratio
// P[O | z] / P[O | z'] = p' (s - d) / ((1 - p') d) <= p (s - d) / ((1 - p) d)
// = e^eps (p' <= p), its inverse is at most 1 because p' >= d / s (checked
// at construction: true for every eps >= 2^-62, and a smaller eps that
// fails it throws), and a set holding both or neither has ratio 1. So each
// report is exactly eps-LDP, pure_dp(eps) as before, for every d in
// [1, s - 1]; and with p' in [d / s, p] it is post-processing of the exact
// scheme (detail/ct_local.hpp), so the accounting layer's bounds for it
// (shuffle amplification in LDP TrieHH) remain valid.
//
// Constant time (issue 36; Jin, McMurtry, Rubinstein & Ohrimenko 2022):
// neither the time of a report nor the memory it touches depends on z, on
// the coin, or on anything but the released set, and the set is released
// in increasing order (a function of the set alone). Every report:
//  1. tosses the coin (two words) and draws, by Lemire's multiply-and-
//     reject with precomputed thresholds (detail::ct_draws; its only branch
//     is a rejected word, which depends on that word alone), t_i uniform in
//     [0, s - 1 - d + i] for i < d, a stand-in item in [0, s) and a slot r in
//     [0, d);
//  2. replaces an item >= s by the stand-in, by masks;
//  3. runs Floyd's algorithm (Bentley & Floyd 1987) on [0, s - 1): slot i
//     becomes t_i, or s - 1 - d + i if t_i is already in slots 0..i-1, the test
//     comparing t_i with all i earlier slots by masks (no hash set, no
//     early exit), giving a uniform d-subset D of [0, s - 1);
//  4. maps every slot v to v + (v >= z) by masks: D becomes a uniform
//     d-subset of the others [0, s) \ {z} (a bijection);
//  5. writes z into slot r when the coin keeps, by masks over all d slots;
//  6. sorts the d slots by Batcher's merge exchange (detail::ct_sort: a
//     sorting network of about d (log2 d)^2 / 4 compare-exchanges by
//     masks, the same pairs for every input).
// The output law is the stated one: without the coin, step 4's set. With
// it, slot r is uniform among D's d elements given D (r is independent of
// everything else), so D minus it is a uniform (d - 1)-subset A of the
// others: P[A] = (s - d) / (d C(s-1, d)) = 1 / C(s-1, d-1) (each A arises
// from the s - d sets A + {e}, each chosen with probability 1 / C(s-1, d)
// and losing e with probability 1 / d); z is added to it. Sorting makes the
// report's order a function of its set: Floyd's order is not (slot i never
// holds an index above s - 1 - d + i), and released unsorted it would tell
// which candidates were mapped past z.
//
// Cost: d (d - 1) / 2 comparisons for step 3 (vectorised), O(d^2) where
// the exact sampler took O(d) expected, and O(d log^2 d) compare-exchanges
// for step 6, plus about d / 3 words for s near 10^6 (draws sharing a word
// while their product stays below 2^60). LDP TrieHH's d is small (eps 10,
// s = 980 101: d = 46, 1.6 us a report in bench/README.md). Above d of
// about 500 a report takes over 0.1 ms (d = 269: 25 us), and at d in the
// thousands milliseconds (eps 1 over s = 10^4, d = 2 690: 1.5 ms; d =
// 6 693: 8.8 ms), the membership scan of step 3 being most of it; there is
// no variable-time fallback.
//
// Frequency estimation (unbiased for the law sampled, p = p_true() = p'):
// an item is reported by a user holding it with probability p and by any
// other user with probability q = (p (d - 1) + (1 - p) d) / (s - 1). With c
// reports of it among n users, (c - n q) / (p - q) is unbiased, with
// variance (f p (1 - p) + (n - f) q (1 - q)) / (p - q)^2 when f users hold
// it.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>
#include <privet/mechanisms/detail/ct_local.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace privet {

/// The subset-selection local randomiser over s candidates [0, s): each
/// report is a set of d candidates, eps-LDP, with unbiased frequency
/// estimation (see the file comment).
class subset_selection {
 public:
  /// s >= 2 candidates, epsilon finite and > 0 (and not below about 2^-62:
  /// see the file comment), d = ceil(s / (e^eps + 1)).
  subset_selection(double epsilon, std::uint64_t s)
      : subset_selection(epsilon, s, default_d(epsilon, s)) {}

  /// An explicit output size d in [1, s - 1] (every such d is eps-LDP).
  subset_selection(double epsilon, std::uint64_t s, std::uint64_t d)
      : epsilon_(validate_epsilon(epsilon)),
        s_(validate_s(s)),
        d_(validate_d(d, s)),
        keep_(detail::ldp_keep_threshold(d, s - d, epsilon)),
        draws_(draw_bounds(s, d)) {}

  /// Appends the report of `item` (in [0, s)) to `out`: d distinct
  /// candidates in increasing order, computed in constant time (see the
  /// file comment). An item >= s is reported as a uniformly random item of
  /// [0, s) would be (never throws).
  template <random_bit_source G>
  void operator()(std::uint64_t item, G& gen, std::vector<std::uint64_t>& out) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    const std::size_t first = out.size();
    const auto d = static_cast<std::size_t>(d_);
    // Slots 0..d-1 receive the t_i, slot d the stand-in, slot d + 1 the
    // slot r; the last two are dropped at the end.
    out.resize(first + d + 2);
    std::uint64_t* v = out.data() + first;
    const std::uint64_t keep = detail::ct_coin(gen, keep_);
    draws_.draw(gen, v);
    // An item outside the domain is data, not an error: it is replaced by a
    // uniform item of [0, s), whose report (a uniform d-subset) is the
    // mixture of the in-domain reports, so still eps-LDP.
    const std::uint64_t z = detail::ct_select(detail::ct_mask(detail::ct_lt(item, s_)), item, v[d]);
    const std::uint64_t r = v[d + 1];
    // Floyd on [0, s - 1): slot i takes t_i, or s - 1 - d + i if t_i is
    // already held, every earlier slot compared.
    detail::ct_floyd(v, d, s_ - 1);
    // Past z, then z into slot r when kept.
    for (std::size_t i = 0; i < d; ++i) {
      const std::uint64_t shifted = v[i] + (detail::ct_lt(v[i], z) ^ 1);
      const std::uint64_t here = detail::ct_mask(keep & detail::ct_is_zero(i ^ r));
      v[i] = detail::ct_select(here, z, shifted);
    }
    detail::ct_sort(v, d);
    out.resize(first + d);
  }

  /// The report of `item`: d distinct candidates in increasing order.
  template <random_bit_source G>
  std::vector<std::uint64_t> operator()(std::uint64_t item, G& gen) const {
    PRIVET_REQUIRE_SECURE_GENERATOR(G);
    std::vector<std::uint64_t> out;
    (*this)(item, gen, out);
    return out;
  }

  /// Each report is epsilon-LDP: pure_dp for a change of one user's item.
  [[nodiscard]] pure_dp guarantee() const { return pure_dp(epsilon_); }

  /// p', the probability that a report contains the user's own item:
  /// d e^eps / (d e^eps + s - d) rounded down to a multiple of 2^-128 (then
  /// to a double).
  [[nodiscard]] double p_true() const noexcept { return keep_.probability(); }
  /// q: the probability that a report contains a given other candidate,
  /// (p' (d - 1) + (1 - p') d) / (s - 1), with 1 - p' from 2^128 - T.
  [[nodiscard]] double p_other() const noexcept {
    const double ds = static_cast<double>(d_);
    return (p_true() * (ds - 1) + detail::threshold_complement(keep_) * ds) /
           static_cast<double>(s_ - 1);
  }
  /// The keep coin's threshold T: the coin is true with probability
  /// T / 2^128 (for tests and audits).
  [[nodiscard]] detail::ct_threshold keep_threshold() const noexcept { return keep_; }

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

  // The draws of a report: t_i in [0, s - 1 - d + i] for i < d (Floyd on
  // [0, s - 1)), the stand-in item in [0, s), the slot r in [0, d).
  static detail::ct_draws draw_bounds(std::uint64_t s, std::uint64_t d) {
    std::vector<std::uint64_t> bounds;
    bounds.reserve(static_cast<std::size_t>(d) + 2);
    for (std::uint64_t i = 0; i < d; ++i) bounds.push_back(s - d + i);
    bounds.push_back(s);
    bounds.push_back(d);
    return detail::ct_draws(std::move(bounds));
  }

  double epsilon_;
  std::uint64_t s_;
  std::uint64_t d_;
  detail::ct_threshold keep_;  // P[kept] = T / 2^128 = floor(2^128 p) / 2^128
  detail::ct_draws draws_;
};

}  // namespace privet
