// privet/mechanisms/constant_time_binomial.hpp — the binomial count, and the
// Poisson sample of a large population built on it, drawn with the same work
// whatever they return (issue 36; docs/security_model.md).
//
// binomial.hpp's exact sampler walks from success to success, so its time
// grows with the count it returns. DPNE (algorithms/dpne.hpp) draws that way
// how many candidate n-grams nobody wrote pass the threshold, and which:
// whoever times it learns how many of the released grams are spurious, and so
// how many are real.
//
// constant_time_binomial: X ~ Bin(n, p), p = 1 - exp(-rate) (binomial.hpp's
// parametrisation), from a cumulative table of X's law on a window [lo, hi],
// conditioned on the window, scanned whole for one uniform 128-bit U: two
// words and hi - lo comparisons per sample, whatever X is. The window holds
// all but 2^-99 of the mass: hi by the upper-tail Chernoff bound
// (detail::ct_poisson_capacity), lo by the lower one (detail::ct_binomial_
// floor), each tail at most e^-70 < 2^-100. The table's weights w(lo) = 1,
// w(i + 1) = w(i) (n - i) / (i + 1) odds, odds = p / (1 - p) = (1 - e^-rate)
// / e^-rate, are carried as certified intervals in big integers (every
// product and quotient rounded outwards from bounds on e^-rate, mechanisms/
// detail/exp_bounds.hpp), and each threshold P[X <= lo + k | window] is
// rounded to the nearest multiple of 2^-128 from bounds 2^-256 wide, as the
// discrete Gaussian's table is (detail::ct_gaussian_table). The table's law
// is within total variation total_variation() <= 2^-99 + (hi - lo + 1)
// 2^-128 of Bin(n, p): conditioning on the window moves at most the mass
// outside it, and each threshold's rounding at most 2^-128.
//
// constant_time_poisson_sample: each of n elements independently with
// probability p, returned as the increasing list of members. The exact law:
// the number of members is X ~ Bin(n, p) and, given X, the members are a
// uniform X-subset. Here X comes from constant_time_binomial (X <= hi, the
// window's upper end), and the members from one of two fixed-work draws:
//  - sorted draws (detail::ct_distinct_draws), when n is large enough: m =
//    hi + e independent uniform values, sorted by Batcher's network, whose
//    d distinct values are a uniform d-subset with d >= hi but with
//    probability 2^-100 (e bounds the collisions); selection sampling
//    (Knuth, TAOCP vol. 2, 3.4.2, Algorithm S) then keeps min(X, d) of them
//    in increasing order, value j with probability (X - kept) / (d - j), by
//    uniform draws below the public-to-the-draws d - j and comparisons by
//    masks. O(m log^2 m) work.
//  - otherwise Floyd's uniform hi-subset by masks (detail::ct_uniform_subset,
//    hi (hi - 1) / 2 comparisons), then the same selection of X of its hi
//    elements.
// Either way exactly min(X, d) elements are kept and they are a uniform
// subset of [0, n) of that size. The work depends on n and rate alone, and
// on the random draws (the words rejected by uniform draws, d), which say
// nothing about the members or their number; the law is within
// total_variation() <= 2^-98 of the exact one (the count's distance and
// the sorted draws' 2^-100).
//
// What is not constant time: construction (its time depends on n and rate,
// which are public), and the memory addresses written by the compaction (a
// cache channel, outside the timing model of docs/security_model.md).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>
#include <privet/mechanisms/detail/ct_local.hpp>
#include <privet/mechanisms/detail/exp_bounds.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace privet {

/// The binomial law Bin(n, 1 - exp(-rate)) sampled with two random words and
/// a fixed number of comparisons whatever the sample (see the file comment),
/// within total variation total_variation() < 2^-98 of the exact law.
class constant_time_binomial {
 public:
  using result_type = std::uint64_t;  ///< The sample type.

  /// The largest rate accepted (p = 1 - e^-16, about 1 - 1.1e-7).
  static constexpr double max_rate = 16;
  /// The largest window hi - lo accepted: 2^20 thresholds (a mean of about
  /// 2 10^9 for a small p; the window is about 2 sqrt(140 mean (1 - p))
  /// wide), 16 MiB.
  static constexpr std::uint64_t max_entries = std::uint64_t{1} << 20;
  /// A bound on total_variation() for every table this class builds:
  /// 2^-99 for the tails plus (max_entries + 1) 2^-128 for the roundings.
  static constexpr double max_total_variation = 0x1p-98;

  /// The window [lo, hi] a table for (n, rate) covers (see the file
  /// comment), for callers that check max_entries first. rate in (0,
  /// max_rate].
  struct window_type {
    std::uint64_t lo = 0;  ///< least sample
    std::uint64_t hi = 0;  ///< greatest sample
    double tails = 0;      ///< P[X < lo] + P[X > hi] <= tails
  };
  [[nodiscard]] static window_type window(std::uint64_t n, double rate) noexcept {
    const double q = -std::expm1(-rate);
    const auto up = detail::ct_poisson_capacity(static_cast<std::size_t>(n), q);
    const auto down = detail::ct_binomial_floor(static_cast<std::size_t>(n), q);
    return {std::min<std::uint64_t>(down.rows, up.rows), up.rows, up.tail + down.tail};
  }

  /// n trials, each a success with probability 1 - exp(-rate). Throws
  /// invalid_parameter naming `rate` outside (0, max_rate], or `n` when the
  /// window would need more than max_entries thresholds.
  constant_time_binomial(std::uint64_t n, double rate) : n_(n), rate_(rate) {
    if (!(rate > 0 && rate <= max_rate)) {
      throw_invalid("rate", rate, "(0, " + detail::format_value(max_rate) + "]");
    }
    const window_type w = window(n, rate);
    if (w.hi - w.lo > max_entries) {
      throw_invalid("n", n,
                    "at most a mean n (1 - exp(-rate)) whose window has " +
                        std::to_string(max_entries) +
                        " entries (rate = " + detail::format_value(rate) + ")");
    }
    lo_ = w.lo;
    hi_ = w.hi;
    tv_ = w.tails + std::ldexp(static_cast<double>(hi_ - lo_) + 1.0, -128);
    if (hi_ > lo_) {
      thresholds_ = detail::cached_ct_table({4, n, std::bit_cast<std::uint64_t>(rate), 0},
                                            [&] { return build(n, rate, lo_, hi_); });
    }
  }

  /// One sample: two words and hi() - lo() comparisons, whatever it is.
  /// Never throws.
  template <random_bit_source G>
  result_type operator()(G& gen) const {
    const std::uint64_t u_hi = random_u64(gen);
    const std::uint64_t u_lo = random_u64(gen);
    std::uint64_t count = lo_;
    for (const detail::ct_threshold& t : thresholds_) {
      count += detail::ct_lt_128(u_hi, u_lo, t.hi, t.lo) ^ 1;
    }
    return count;
  }

  [[nodiscard]] std::uint64_t trials() const noexcept { return n_; }  ///< n
  [[nodiscard]] double rate() const noexcept { return rate_; }        ///< the rate
  /// The least sample (the window's lower end).
  [[nodiscard]] result_type min() const noexcept { return lo_; }
  /// The greatest sample (the window's upper end).
  [[nodiscard]] result_type max() const noexcept { return hi_; }
  /// The number of thresholds scanned per sample, hi - lo.
  [[nodiscard]] std::size_t entries() const noexcept { return thresholds_.size(); }
  /// P[sample <= min() + k] = thresholds()[k] / 2^128, for tests.
  [[nodiscard]] const std::vector<detail::ct_threshold>& thresholds() const noexcept {
    return thresholds_.vector();
  }
  /// An upper bound on the total variation to Bin(n, 1 - exp(-rate)).
  [[nodiscard]] double total_variation() const noexcept { return tv_; }

 private:
  using big_uint = detail::big_uint;

  static std::vector<detail::ct_threshold> build(std::uint64_t n, double rate, std::uint64_t lo,
                                                 std::uint64_t hi) {
    using detail::div_ceil;
    using detail::div_floor;
    using detail::shift_ceil;
    using detail::shift_floor;
    // Bits enough that 1 - e^-rate (about rate for a small one) and e^-rate
    // (at least e^-16) are known to 2^-380 relative.
    const int w = 400 + std::max(0, -std::ilogb(rate));
    const detail::fixed_interval e = detail::exp_neg_bounds(rate, w);
    const big_uint one = big_uint(1) << w;
    if (e.lo.is_zero() || e.hi >= one) {
      throw error("privet: internal error: e^-rate not bounded inside (0, 1)");
    }
    const big_uint odds_lo = div_floor((one - e.hi) << w, e.hi);
    const big_uint odds_hi = div_ceil((one - e.lo) << w, e.lo);
    const std::size_t m = static_cast<std::size_t>(hi - lo);
    // Two passes over the same recurrence, so that only running sums are
    // held: the first for s(m), the normaliser, the second for the
    // thresholds s(k) / s(m). Both passes compute the same numbers.
    const auto walk = [&](auto&& visit) {
      big_uint w_lo = one, w_hi = one;  // w(lo) = 1
      big_uint sum_lo = w_lo, sum_hi = w_hi;
      visit(std::size_t{0}, sum_lo, sum_hi);
      for (std::uint64_t i = lo; i < hi; ++i) {
        // w(i + 1) = w(i) odds (n - i) / (i + 1)
        w_lo = div_floor(shift_floor(w_lo * odds_lo, w) * big_uint(n - i), big_uint(i + 1));
        w_hi = div_ceil(shift_ceil(w_hi * odds_hi, w) * big_uint(n - i), big_uint(i + 1));
        sum_lo += w_lo;
        sum_hi += w_hi;
        visit(static_cast<std::size_t>(i + 1 - lo), sum_lo, sum_hi);
      }
    };
    big_uint total_lo, total_hi;  // s(m)
    walk([&](std::size_t k, const big_uint& s_lo, const big_uint& s_hi) {
      if (k == m) {
        total_lo = s_lo;
        total_hi = s_hi;
      }
    });
    std::vector<detail::ct_threshold> table;
    table.reserve(m);
    walk([&](std::size_t k, const big_uint& s_lo, const big_uint& s_hi) {
      if (k < m) table.push_back(detail::ratio_threshold(s_lo, s_hi, total_lo, total_hi));
    });
    return table;
  }

  std::uint64_t n_ = 0;
  double rate_ = 0;
  std::uint64_t lo_ = 0;
  std::uint64_t hi_ = 0;
  double tv_ = 0;
  detail::ct_table thresholds_;
};

/// Poisson sampling of [0, n) with probability 1 - exp(-rate) each, in work
/// that depends on n and rate alone (see the file comment): at most
/// capacity() members, increasing, within total_variation() of the exact
/// law.
class constant_time_poisson_sample {
 public:
  /// The largest capacity accepted with sorted draws (Batcher's network on
  /// about capacity() values: about 10^8 compare-exchanges at this bound).
  static constexpr std::uint64_t max_capacity = std::uint64_t{1} << 20;
  /// The largest capacity accepted when n is too small for sorted draws
  /// (Floyd's capacity()^2 / 2 comparisons, 1.3 10^8 at this bound).
  static constexpr std::uint64_t max_floyd_capacity = std::uint64_t{1} << 14;
  /// A bound on total_variation() for every sample this class builds: the
  /// count's 2^-99 + 2^-108 and the sorted draws' 2^-100.
  static constexpr double max_total_variation = 0x1p-98;

  /// Whether (n, rate) is within this class's reach (rate in (0,
  /// constant_time_binomial::max_rate], a count window of at most
  /// constant_time_binomial::max_entries, and its upper end at most
  /// max_capacity, or max_floyd_capacity when n is below about 4 times it):
  /// what the constructor checks, without throwing.
  [[nodiscard]] static bool supports(std::uint64_t n, double rate) noexcept {
    if (!(rate > 0 && rate <= constant_time_binomial::max_rate)) return false;
    const auto w = constant_time_binomial::window(n, rate);
    if (w.hi - w.lo > constant_time_binomial::max_entries) return false;
    if (w.hi <= max_floyd_capacity) return true;
    return w.hi <= max_capacity && detail::ct_distinct_draws(n, w.hi).valid();
  }

  /// Throws invalid_parameter naming `rate` or `n` when supports(n, rate) is
  /// false.
  constant_time_poisson_sample(std::uint64_t n, double rate) : count_(n, rate) {
    const std::uint64_t cap = count_.max();
    if (cap > 0 && cap <= max_capacity) distinct_ = detail::ct_distinct_draws(n, cap);
    if (cap > max_floyd_capacity && !distinct_.valid()) {
      throw_invalid("n", n,
                    "a count window whose upper end is at most " + std::to_string(max_capacity) +
                        " (" + std::to_string(max_floyd_capacity) + " when n < 4 times it; it is " +
                        std::to_string(cap) + " at rate = " + detail::format_value(rate) + ")");
    }
    if (cap > 0 && !distinct_.valid()) {
      subset_ = detail::ct_uniform_subset(n, cap);
      std::vector<std::uint64_t> bounds;
      for (std::uint64_t j = cap; j > 0; --j) bounds.push_back(j);
      select_ = detail::ct_draws(std::move(bounds));
    }
  }

  /// The most members a sample has (the count's window's upper end).
  [[nodiscard]] std::size_t capacity() const noexcept {
    return static_cast<std::size_t>(count_.max());
  }
  /// Whether samples come from sorted independent draws (else from Floyd's
  /// draws by masks).
  [[nodiscard]] bool sorted_draws() const noexcept { return distinct_.valid(); }

  /// Writes the members, increasing, to out[0, returned count); out must
  /// hold capacity() slots, all of which are written. Never throws.
  template <random_bit_source G>
  std::size_t operator()(G& gen, std::uint64_t* out) const {
    const std::uint64_t x = count_(gen);
    const std::size_t cap = capacity();
    if (cap == 0) return 0;  // public: n and rate
    return distinct_.valid() ? from_sorted_draws(gen, x, out) : from_floyd(gen, x, out);
  }

  /// The count's sampler.
  [[nodiscard]] const constant_time_binomial& count() const noexcept { return count_; }
  /// An upper bound on the total variation to the exact Poisson sample: the
  /// count's, plus the sorted draws' failure() when they are used.
  [[nodiscard]] double total_variation() const noexcept {
    return count_.total_variation() + (distinct_.valid() ? distinct_.failure() : 0.0);
  }

 private:
  // Floyd's uniform cap-subset, then selection sampling (Knuth's Algorithm
  // S) keeps x of its cap elements, element j with probability (x - kept) /
  // (cap - j).
  template <random_bit_source G>
  std::size_t from_floyd(G& gen, std::uint64_t x, std::uint64_t* out) const {
    const std::size_t cap = capacity();
    subset_(gen, out);  // a uniform cap-subset, increasing
    std::vector<std::uint64_t> u(cap);
    select_.draw(gen, u.data());  // u[j] uniform below cap - j
    std::uint64_t kept = 0;
    for (std::size_t j = 0; j < cap; ++j) {
      const std::uint64_t take = detail::ct_lt(u[j], x - kept);  // kept <= x always
      const std::uint64_t v = out[j];
      out[kept] = v;  // kept <= j: a slot already read
      kept += take;
    }
    return static_cast<std::size_t>(kept);
  }

  // The d distinct values of m sorted independent draws (a uniform
  // d-subset, d >= cap but with probability 2^-100), then selection
  // sampling of min(x, d) of them in increasing order. The loop runs over
  // all m draws, a repeated value taking no step of the selection.
  template <random_bit_source G>
  std::size_t from_sorted_draws(G& gen, std::uint64_t x, std::uint64_t* out) const {
    const std::size_t m = distinct_.draws();
    std::vector<std::uint64_t> v(m), fresh(m), buffer(m + 1);
    const std::size_t d = distinct_(gen, v.data(), fresh.data());
    // d depends on the draws alone: its bounds say nothing about x.
    std::vector<std::uint64_t> bounds(d);
    for (std::size_t j = 0; j < d; ++j) bounds[j] = d - j;
    std::vector<std::uint64_t> u(d);
    detail::ct_draws(std::move(bounds)).draw(gen, u.data());
    const std::uint64_t wanted = detail::ct_select(detail::ct_mask(detail::ct_lt(x, d)), x, d);
    std::uint64_t kept = 0, j = 0;
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint64_t at = detail::ct_select(detail::ct_mask(detail::ct_lt(j, d)), j, d - 1);
      const std::uint64_t take = fresh[i] & detail::ct_lt(u[at], wanted - kept);
      buffer[kept] = v[i];
      kept += take;
      j += fresh[i];
    }
    std::copy(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(capacity()), out);
    return static_cast<std::size_t>(kept);
  }

  constant_time_binomial count_;
  detail::ct_distinct_draws distinct_;
  detail::ct_uniform_subset subset_;
  detail::ct_draws select_;
};

}  // namespace privet
