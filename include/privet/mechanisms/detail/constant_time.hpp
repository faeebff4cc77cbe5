// privet/mechanisms/detail/constant_time.hpp — coins whose cost does not
// depend on their outcome or on the secret they are tossed for: the building
// blocks of the constant-time release samplers (constant_time_noise.hpp).
//
// Why: a rejection sampler that stops at its first failing coin takes time
// that depends on the sample it returns, and whoever times a release learns
// the noise (Jin, McMurtry, Rubinstein & Ohrimenko 2022, "Are We There Yet?
// Timing and Floating-Point Attacks on Differential Privacy Systems", IEEE
// S&P). Everything here draws a fixed number of 64-bit words, runs loops
// whose trip counts are fixed when the object is built (from public
// parameters only), and combines secret bits with masks, never with a
// branch or a secret-dependent memory index.
//
// The price is exactness: a coin with an irrational probability p cannot be
// tossed exactly from a bounded number of random bits. Each coin here is a
// comparison of a uniform 128-bit integer U with a threshold T fixed at
// construction, P[U < T] = T / 2^128, and T is p * 2^128 rounded to the
// nearest integer (clamped to 2^128 - 1), computed from certified bounds on
// p that are 2^128 times finer (big integers with every rounding directed,
// as in exp_bounds.hpp). So |T / 2^128 - p| <= 2^-129 + 2^-250 < 2^-128 for
// every coin. A sampler that is a function of k independent coins is then
// within total variation k 2^-128 of the same function of exact coins
// (couple each coin with its exact twin: they differ with probability
// |T / 2^128 - p|, and a union bound over the k coins), and the samplers
// report that sum, with every other approximation, as their
// total_variation_bound() for the accounting layer to turn into delta.
//
// Bernoulli(exp(-n / d)) for a secret integer n < 2^n_bits and a public
// d >= 1 (ct_exp_coin): exp(-n / d) = prod_j exp(-2^j / d)^(n_j) over the
// bits n_j of n, so it is the AND of independent coins C_j ~
// Bernoulli(exp(-2^j / d)), each counted only where n_j = 1 (C_j | !n_j).
// Every coin is drawn whatever n is. With n = floor(gamma) d + r this is the
// product of exp(-2^i) coins over gamma's integer bits and exp(-2^j / d)
// coins over the fraction's bits, without dividing the secret n by d (a
// hardware division's time depends on its operands). Two public cuts keep
// the number of coins near 136 whatever d is:
//  - bits j with 2^j >= 89 d (89 > 128 ln 2): if any is set, exp(-n / d) <=
//    exp(-89) < 2^-128 and the coin returns false (error below 2^-128);
//  - bits j below L with 2^L <= 2^-129 d: together they weigh less than
//    2^-129 in the exponent, so dropping them moves the probability by less
//    than 2^-129.
//
// What this does not cover: the compiler's output (GCC 12 at -O1/-O2 on
// x86-64 was checked to emit no conditional jump on a secret here; another
// compiler could in principle turn a masked select into a branch, which the
// value barriers below make unlikely but cannot forbid), cache and power
// side channels, and the time of the random generator itself (ChaCha20's
// time does not depend on its output).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/ct_word.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/error.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/big_uint.hpp>
#include <privet/mechanisms/detail/exp_bounds.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <utility>
#include <vector>

namespace privet::detail {

// ---- branch-free word arithmetic (the single words: core/detail/ct_word.hpp) ---

/// A 256-bit unsigned integer as four little-endian words.
using ct_u256 = std::array<std::uint64_t, 4>;

/// k^2 for k = k_hi 2^64 + k_lo, without a data-dependent carry branch.
inline ct_u256 ct_square_128(std::uint64_t k_hi, std::uint64_t k_lo) noexcept {
  const uint128 p00 = static_cast<uint128>(k_lo) * k_lo;
  const uint128 p01 = static_cast<uint128>(k_lo) * k_hi;
  const uint128 p11 = static_cast<uint128>(k_hi) * k_hi;
  ct_u256 r{};
  r[0] = static_cast<std::uint64_t>(p00);
  // Each partial sum stays below 2^66, so uint128 holds it with its carry.
  uint128 t = (p00 >> 64) + (static_cast<uint128>(static_cast<std::uint64_t>(p01)) << 1);
  r[1] = static_cast<std::uint64_t>(t);
  t = (t >> 64) + ((p01 >> 64) << 1) + static_cast<std::uint64_t>(p11);
  r[2] = static_cast<std::uint64_t>(t);
  t = (t >> 64) + (p11 >> 64);
  r[3] = static_cast<std::uint64_t>(t);
  return r;
}

// ---- thresholds ----------------------------------------------------------------

/// The probability T / 2^128 of a constant-time coin, T = hi 2^64 + lo.
struct ct_threshold {
  std::uint64_t hi = 0;  ///< High word of T.
  std::uint64_t lo = 0;  ///< Low word of T.
  /// T / 2^128, rounded to a double (for tests and reports).
  [[nodiscard]] double probability() const noexcept {
    return std::ldexp(static_cast<double>(hi), -64) + std::ldexp(static_cast<double>(lo), -128);
  }
};

/// The working precision of the thresholds' bounds: 2^128 times finer than
/// the thresholds, so that rounding to nearest is off by at most 2^-129
/// plus the bounds' width.
inline constexpr int ct_bound_bits = 256;

/// Certified bounds on exp(-num / den) in units of 2^-bits, for num >= 0,
/// den >= 1, bits >= 64: lo and hi at most a few units apart; exact at
/// num = 0; 0 and 1 when exp(-num / den) <= 2^-(bits + 2). The rational
/// counterpart of exp_neg_bounds (the same Taylor series of exp(y) for
/// y = x / 2^r < 1/2, every term rounded down for lo and up for hi, squared
/// r times, then inverted).
inline fixed_interval exp_neg_ratio_bounds(const big_uint& num, const big_uint& den, int bits) {
  fixed_interval out;
  out.bits = bits;
  const big_uint one = big_uint(1) << bits;
  if (num.is_zero()) {
    out.lo = one;
    out.hi = one;
    return out;
  }
  // x >= 0.7 (bits + 2) > (bits + 2) ln 2: exp(-x) <= 2^-(bits + 2).
  if (big_uint(num * big_uint(10)) >=
      big_uint(den * big_uint(7 * static_cast<std::uint64_t>(bits + 2)))) {
    out.lo = big_uint(0);
    out.hi = big_uint(1);
    return out;
  }
  // x < 2^top with top = width(num) - width(den) + 1; y = x / 2^r < 1/2.
  const int top = num.bit_width() - den.bit_width() + 1;
  const int r = top + 1 > 0 ? top + 1 : 0;
  const int w = bits + 2 * r + 64;
  const big_uint unit = big_uint(1) << w;
  const big_uint scaled_num = num << (w - r);  // y = scaled_num / den in units of 2^-w
  big_uint y_lo = div_floor(scaled_num, den);
  big_uint y_hi = div_ceil(scaled_num, den);
  big_uint term_lo = unit, term_hi = unit;
  big_uint sum_lo = unit, sum_hi = unit;
  for (std::uint64_t k = 1; term_hi > big_uint(1); ++k) {
    term_lo = div_floor(shift_floor(term_lo * y_lo, w), big_uint(k));
    term_hi = div_ceil(shift_ceil(term_hi * y_hi, w), big_uint(k));
    sum_lo += term_lo;
    sum_hi += term_hi;
  }
  sum_hi += term_hi;  // the tail, every ratio below 1/2
  for (int i = 0; i < r; ++i) {
    sum_lo = shift_floor(sum_lo * sum_lo, w);
    sum_hi = shift_ceil(sum_hi * sum_hi, w);
  }
  const big_uint numerator = big_uint(1) << (bits + w);
  out.lo = div_floor(numerator, sum_hi);
  out.hi = div_ceil(numerator, sum_lo);
  return out;
}

/// Bounds on e / (1 + e) from bounds on e (increasing in e), same units.
inline fixed_interval logistic_bounds(const fixed_interval& e) {
  fixed_interval p;
  p.bits = e.bits;
  const big_uint one = big_uint(1) << e.bits;
  p.lo = div_floor(e.lo << e.bits, one + e.lo);
  p.hi = div_ceil(e.hi << e.bits, one + e.hi);
  return p;
}

/// The threshold nearest to a probability known within `p` (ct_bound_bits
/// bits), clamped to 2^128 - 1: off by at most 2^-129 plus the width of p,
/// below 2^-128 for the widths this header produces (checked).
inline ct_threshold nearest_threshold(const fixed_interval& p) {
  if (p.bits != ct_bound_bits || big_uint(p.hi - p.lo) > big_uint(std::uint64_t{1} << 32)) {
    throw error("privet: internal error: a constant-time coin's probability bounds are too wide");
  }
  constexpr int drop = ct_bound_bits - 128;
  const big_uint mid = (p.lo + p.hi) >> 1;
  big_uint t = (mid + (big_uint(1) << (drop - 1))) >> drop;
  const big_uint cap = (big_uint(1) << 128) - big_uint(1);
  if (t > cap) t = cap;
  const uint128 v = low_u128(t);
  return {static_cast<std::uint64_t>(v >> 64), static_cast<std::uint64_t>(v)};
}

/// The threshold nearest to a ratio num / den in [0, 1] known within bounds
/// (num_lo <= num <= num_hi, den_lo <= den <= den_hi, den_lo > 0), as a
/// cumulative table's entries are: partial sum over total, each rounded
/// outwards to ct_bound_bits.
inline ct_threshold ratio_threshold(const big_uint& num_lo, const big_uint& num_hi,
                                    const big_uint& den_lo, const big_uint& den_hi) {
  fixed_interval c;
  c.bits = ct_bound_bits;
  c.lo = div_floor(num_lo << ct_bound_bits, den_hi);
  c.hi = div_ceil(num_hi << ct_bound_bits, den_lo);
  return nearest_threshold(c);
}

/// The threshold of Bernoulli(exp(-num / den)).
inline ct_threshold exp_neg_threshold(const big_uint& num, const big_uint& den) {
  return nearest_threshold(exp_neg_ratio_bounds(num, den, ct_bound_bits));
}

/// The threshold of Bernoulli(e / (1 + e)) for e = exp(-num / den).
inline ct_threshold logistic_threshold(const big_uint& num, const big_uint& den) {
  return nearest_threshold(logistic_bounds(exp_neg_ratio_bounds(num, den, ct_bound_bits)));
}

/// A table of thresholds, shared: tables are built from public parameters
/// only and never change, so every object built with the same parameters
/// reads one copy (see cached_ct_table).
class ct_table {
 public:
  ct_table() = default;
  explicit ct_table(std::shared_ptr<const std::vector<ct_threshold>> t) : table_(std::move(t)) {}

  [[nodiscard]] const std::vector<ct_threshold>& vector() const noexcept {
    static const std::vector<ct_threshold> none;
    return table_ ? *table_ : none;
  }
  [[nodiscard]] std::size_t size() const noexcept { return vector().size(); }
  [[nodiscard]] const ct_threshold& operator[](std::size_t i) const noexcept {
    return (*table_)[i];
  }
  [[nodiscard]] auto begin() const noexcept { return vector().begin(); }
  [[nodiscard]] auto end() const noexcept { return vector().end(); }

 private:
  std::shared_ptr<const std::vector<ct_threshold>> table_;
};

/// The table `build()` returns for the public parameters `key`, built once
/// per process: a table costs 1-2 ms of certified big-integer arithmetic
/// (about 2 ms for a constant-time AboveThreshold, whose statistical test
/// builds 20,000 of them), while a mechanism is often rebuilt with the same
/// parameters (per query, per call from Python). Thread-safe; the cache is
/// emptied, never evicted piecemeal, once it holds 2^20 thresholds (16 MiB),
/// and tables already handed out live on in their holders. A hit or a miss
/// depends on the parameters alone, which are public.
template <class Build>
ct_table cached_ct_table(const std::array<std::uint64_t, 4>& key, Build&& build) {
  static std::mutex lock;
  static std::map<std::array<std::uint64_t, 4>, std::shared_ptr<const std::vector<ct_threshold>>>
      tables;
  static std::size_t held = 0;
  {
    const std::scoped_lock guard(lock);
    if (const auto it = tables.find(key); it != tables.end()) return ct_table(it->second);
  }
  // Built outside the lock: two threads may build the same table, and both
  // results are identical.
  auto table = std::make_shared<const std::vector<ct_threshold>>(build());
  const std::scoped_lock guard(lock);
  if (held + table->size() > (std::size_t{1} << 20)) {
    tables.clear();
    held = 0;
  }
  const auto [it, added] = tables.emplace(key, table);
  if (added) held += table->size();
  return ct_table(it->second);
}

/// The error of one coin against its exact probability: below 2^-128.
inline constexpr double ct_coin_error = 0x1p-128;

// ---- coins ---------------------------------------------------------------------

/// Exactly two 64-bit words: 1 with probability T / 2^128, else 0.
template <random_bit_source G>
std::uint64_t ct_coin(G& gen, const ct_threshold& t) {
  const std::uint64_t u_hi = random_u64(gen);
  const std::uint64_t u_lo = random_u64(gen);
  return ct_lt_128(u_hi, u_lo, t.hi, t.lo);
}

/// Bernoulli(exp(-n / d)) for a secret n < 2^n_bits (n_bits <= 256) and a
/// public d in [1, 2^128), as the file comment describes: a fixed number of
/// coins, every one drawn.
class ct_exp_coin {
 public:
  ct_exp_coin() = default;

  /// Thresholds exp(-2^j / d) for the bits that matter; throws
  /// invalid_parameter for d = 0 or n_bits outside [1, 256].
  ct_exp_coin(uint128 d, int n_bits) {
    if (d == 0) throw_invalid("d", 0, ">= 1");
    if (n_bits < 1 || n_bits > 256) throw_invalid("n_bits", n_bits, "[1, 256]");
    const big_uint den = big_uint(static_cast<std::uint64_t>(d >> 64)) << 64 |
                         big_uint(static_cast<std::uint64_t>(d));
    // The least H with 2^H >= 89 d.
    const big_uint limit = den * big_uint(89);
    int high = limit.bit_width() - 1;
    if ((big_uint(1) << high) < limit) ++high;
    low_ = den.bit_width() - 1 - 129 > 0 ? den.bit_width() - 1 - 129 : 0;
    top_ = high < n_bits ? high : n_bits;
    if (low_ > top_) low_ = top_;
    cut_high_ = high < n_bits;
    cut_low_ = low_ > 0;
    for (int w = 0; w < 4; ++w) {
      const int first = 64 * w;
      std::uint64_t m = 0;
      if (cut_high_) {
        if (high <= first) {
          m = ~std::uint64_t{0};
        } else if (high < first + 64) {
          m = ~std::uint64_t{0} << (high - first);
        }
      }
      high_mask_[static_cast<std::size_t>(w)] = m;
    }
    thresholds_ =
        cached_ct_table({1, static_cast<std::uint64_t>(d >> 64), static_cast<std::uint64_t>(d),
                         static_cast<std::uint64_t>(n_bits)},
                        [&] {
                          std::vector<ct_threshold> t;
                          t.reserve(static_cast<std::size_t>(top_ - low_));
                          for (int j = low_; j < top_; ++j)
                            t.push_back(exp_neg_threshold(big_uint(1) << j, den));
                          return t;
                        });
  }

  /// 1 with probability exp(-n / d) up to total_variation(), else 0; draws
  /// words() words whatever n is.
  template <random_bit_source G>
  std::uint64_t operator()(G& gen, const ct_u256& n) const {
    std::uint64_t ok = 1;
    for (int j = low_; j < top_; ++j) {
      const std::uint64_t c = ct_coin(gen, thresholds_[static_cast<std::size_t>(j - low_)]);
      const std::uint64_t bit = (n[static_cast<std::size_t>(j >> 6)] >> (j & 63)) & 1;
      ok &= c | (bit ^ 1);
    }
    std::uint64_t high = 0;
    for (std::size_t w = 0; w < 4; ++w) high |= n[w] & high_mask_[w];
    return ok & ct_is_zero(ct_barrier(high));
  }

  /// exp(-n / d) as a 128-bit fixed-point number W (value W / 2^128), with
  /// no randomness and the same work for every n: the product of the same
  /// thresholds over n's bits, each product rounded down, starting from
  /// 2^128 - 1, and 0 when a bit at or above the high cut is set. Within
  /// weight_error() of exp(-n / d).
  [[nodiscard]] ct_threshold weight(const ct_u256& n) const noexcept {
    std::uint64_t hi = ~std::uint64_t{0}, lo = ~std::uint64_t{0};
    for (int j = low_; j < top_; ++j) {
      const ct_threshold& t = thresholds_[static_cast<std::size_t>(j - low_)];
      // floor(W T / 2^128) from the four 64-bit partial products.
      const uint128 ll = static_cast<uint128>(lo) * t.lo;
      const uint128 lh = static_cast<uint128>(lo) * t.hi;
      const uint128 hl = static_cast<uint128>(hi) * t.lo;
      const uint128 hh = static_cast<uint128>(hi) * t.hi;
      const uint128 mid =
          (ll >> 64) + static_cast<std::uint64_t>(lh) + static_cast<std::uint64_t>(hl);
      const uint128 top = hh + (lh >> 64) + (hl >> 64) + (mid >> 64);
      const std::uint64_t bit = (n[static_cast<std::size_t>(j >> 6)] >> (j & 63)) & 1;
      const std::uint64_t m = ct_mask(bit);
      hi = ct_select(m, static_cast<std::uint64_t>(top >> 64), hi);
      lo = ct_select(m, static_cast<std::uint64_t>(top), lo);
    }
    std::uint64_t high = 0;
    for (std::size_t w = 0; w < 4; ++w) high |= n[w] & high_mask_[w];
    const std::uint64_t keep = ct_mask(ct_is_zero(ct_barrier(high)));
    return {hi & keep, lo & keep};
  }

  /// An upper bound on |weight(n) / 2^128 - exp(-n / d)| for every n: the
  /// start 2^128 - 1 and each factor's threshold and rounding (2^-128 each,
  /// all factors at most 1), 2^-129 for the dropped low bits (a relative
  /// error below 2^-129 on a value at most 1), 2^-128 for the high cut.
  [[nodiscard]] double weight_error() const noexcept {
    return std::ldexp(1.0 + 2.0 * coins() + (cut_high_ ? 1.0 : 0.0) + (cut_low_ ? 0.5 : 0.0), -128);
  }

  /// The number of coins tossed per call.
  [[nodiscard]] int coins() const noexcept { return top_ - low_; }
  /// The number of 64-bit words drawn per call.
  [[nodiscard]] int words() const noexcept { return 2 * coins(); }
  /// An upper bound on |P[1] - exp(-n / d)| for every n: one coin error per
  /// coin, 2^-129 for the dropped low bits, 2^-128 for the high cut.
  [[nodiscard]] double total_variation() const noexcept {
    return std::ldexp(
        static_cast<double>(coins()) + (cut_high_ ? 1.0 : 0.0) + (cut_low_ ? 0.5 : 0.0), -128);
  }

 private:
  int low_ = 0;
  int top_ = 0;
  bool cut_high_ = false;
  bool cut_low_ = false;
  std::array<std::uint64_t, 4> high_mask_{};
  ct_table thresholds_;  // exp(-2^j / d) for j in [low_, top_)
};

/// A geometric variable G with P[G = g] proportional to q^g, q = exp(-s / t),
/// conditioned on G < 2^digits, drawn from its binary digits. The digits of
/// an untruncated geometric are independent with P[digit i = 1] =
/// q^(2^i) / (1 + q^(2^i)): P[G = g] = (1 - q) prod_i (q^(2^i))^(g_i) is a
/// product over the digits (and the product of the normalisers
/// prod_i (1 + q^(2^i)) is 1 / (1 - q)). So B coins with those
/// probabilities give exactly G conditioned on G < 2^B, which is within
/// total variation q^(2^B) of G. digits is chosen so that q^(2^B) < 2^-128.
class ct_geometric {
 public:
  ct_geometric() = default;

  /// q = exp(-s / t) for s, t >= 1; B is the least number of digits with
  /// 2^B s >= 89 t (so q^(2^B) <= exp(-89) < 2^-128), at least 1. Throws
  /// invalid_parameter naming `scale` when B would exceed max_digits.
  ct_geometric(std::uint64_t s, std::uint64_t t, int max_digits) {
    const big_uint limit = big_uint(t) * big_uint(89);
    int b = 1;
    while (big_uint(big_uint(s) << b) < limit) ++b;
    if (b > max_digits) {
      throw_invalid("scale", detail::format_value(t) + "/" + detail::format_value(s),
                    "at most 2^" + detail::format_value(max_digits) +
                        " / 89 (the constant-time geometric's " + detail::format_value(max_digits) +
                        " binary digits must hold all but 2^-128 of its mass)");
    }
    thresholds_ = cached_ct_table({2, s, t, static_cast<std::uint64_t>(b)}, [&] {
      std::vector<ct_threshold> table;
      table.reserve(static_cast<std::size_t>(b));
      for (int i = 0; i < b; ++i) table.push_back(logistic_threshold(big_uint(s) << i, t));
      return table;
    });
  }

  /// One draw, 2 digits() words, in [0, 2^digits()).
  template <random_bit_source G>
  std::uint64_t operator()(G& gen) const {
    std::uint64_t g = 0;
    const int b = digits();
    for (int i = 0; i < b; ++i) g |= ct_coin(gen, thresholds_[static_cast<std::size_t>(i)]) << i;
    return g;
  }

  /// The number of binary digits B.
  [[nodiscard]] int digits() const noexcept { return static_cast<int>(thresholds_.size()); }
  /// The number of 64-bit words drawn per call.
  [[nodiscard]] int words() const noexcept { return 2 * digits(); }
  /// The digits' coins, for tests.
  [[nodiscard]] const std::vector<ct_threshold>& thresholds() const noexcept {
    return thresholds_.vector();
  }
  /// An upper bound on the total variation between a draw and the
  /// untruncated geometric: the cut (below 2^-128) and one coin error per
  /// digit.
  [[nodiscard]] double total_variation() const noexcept {
    return std::ldexp(static_cast<double>(digits()) + 1.0, -128);
  }

 private:
  ct_table thresholds_;  // digit i: q^(2^i) / (1 + q^(2^i))
};

/// A cumulative distribution table of |X| for the discrete Gaussian X with
/// sigma^2 = a / b, cut at M = ceil(sqrt(178) sigma) (so P[|X| > M] <
/// e^-89 < 2^-128, see below), scanned whole: |X| = #{k < M : U >= T_k} for
/// a uniform 128-bit U and thresholds T_k = P[|X| <= k | |X| <= M] 2^128,
/// rounded to nearest. Every entry is compared, in order, whatever U is.
///
/// The weights w(m) = exp(-m^2 b / (2 a)) are bounded in 320-bit fixed point
/// by the recurrence w(m + 1) = w(m) f(m), f(m + 1) = f(m) r^2 with
/// f(0) = r = exp(-b / (2 a)) (each product rounded down for the lower and
/// up for the upper bound), which for M <= 2^16 widens the bounds by less
/// than 2^-290; the thresholds come from the lower and upper bounds of the
/// partial sums over the whole truncated sum.
///
/// The cut: sum_{m > M} w(m) <= integral_M^inf e^(-x^2 / (2 sigma^2)) dx <=
/// (sigma^2 / M) e^(-M^2 / (2 sigma^2)), and the normaliser is at least
/// sqrt(2 pi) sigma (Poisson summation), so P[|X| > M] <= 2 sigma / (sqrt(2
/// pi) M) e^(-89) < e^(-89) for M >= sigma.
class ct_gaussian_table {
 public:
  ct_gaussian_table() = default;

  /// The table for sigma^2 = a / b, or an empty one (entries() == 0) when
  /// M would exceed max_entries.
  ct_gaussian_table(std::uint64_t a, std::uint64_t b, std::uint64_t max_entries) {
    // M = ceil(sqrt(178 a / b)): the least M with M^2 b >= 178 a.
    const uint128 target = static_cast<uint128>(a) * 178;
    std::uint64_t m = 1;
    while (static_cast<uint128>(m) * m * b < target) {
      if (m > max_entries) return;
      m = m < 16 ? m + 1 : m + m / 8;  // overshoot by at most 1/8, then walk back
    }
    while (m > 1 && static_cast<uint128>(m - 1) * (m - 1) * b >= target) --m;
    if (m > max_entries) return;
    thresholds_ = cached_ct_table({3, a, b, m}, [&] { return build(a, b, m); });
  }

  /// |X| for one uniform 128-bit U = u_hi 2^64 + u_lo: a full scan.
  [[nodiscard]] std::uint64_t magnitude(std::uint64_t u_hi, std::uint64_t u_lo) const noexcept {
    std::uint64_t count = 0;
    for (const ct_threshold& t : thresholds_) count += ct_lt_128(u_hi, u_lo, t.hi, t.lo) ^ 1;
    return count;
  }

  /// M, the number of thresholds (0 when the table was not built).
  [[nodiscard]] std::uint64_t entries() const noexcept { return thresholds_.size(); }
  /// The thresholds, for tests.
  [[nodiscard]] const std::vector<ct_threshold>& thresholds() const noexcept {
    return thresholds_.vector();
  }
  /// An upper bound on the total variation between |X|'s table law and the
  /// exact one: 2^-128 for the cut and one rounding error per threshold.
  [[nodiscard]] double total_variation() const noexcept {
    return std::ldexp(static_cast<double>(entries()) + 1.0, -128);
  }

 private:
  // The thresholds for M = m, as the class comment describes.
  static std::vector<ct_threshold> build(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
    constexpr int w = 320;
    const fixed_interval r = exp_neg_ratio_bounds(big_uint(b), big_uint(2) * big_uint(a), w);
    const fixed_interval r2 = exp_neg_ratio_bounds(big_uint(b), big_uint(a), w);
    big_uint w_lo = big_uint(1) << w, w_hi = w_lo;  // w(0) = 1
    big_uint f_lo = r.lo, f_hi = r.hi;
    // Partial sums of the folded weights: w(0) + 2 (w(1) + ... + w(k)).
    std::vector<big_uint> s_lo, s_hi;
    s_lo.reserve(m + 1);
    s_hi.reserve(m + 1);
    big_uint sum_lo = w_lo, sum_hi = w_hi;
    s_lo.push_back(sum_lo);
    s_hi.push_back(sum_hi);
    for (std::uint64_t k = 1; k <= m; ++k) {
      w_lo = shift_floor(w_lo * f_lo, w);
      w_hi = shift_ceil(w_hi * f_hi, w);
      f_lo = shift_floor(f_lo * r2.lo, w);
      f_hi = shift_ceil(f_hi * r2.hi, w);
      sum_lo += w_lo << 1;
      sum_hi += w_hi << 1;
      s_lo.push_back(sum_lo);
      s_hi.push_back(sum_hi);
    }
    std::vector<ct_threshold> table;
    table.reserve(m);
    for (std::uint64_t k = 0; k < m; ++k) {
      table.push_back(ratio_threshold(s_lo[k], s_hi[k], s_lo[m], s_hi[m]));
    }
    return table;
  }

  ct_table thresholds_;  // P[|X| <= k | |X| <= M] for k < M
};

/// One signed sample of the discrete Gaussian whose |X| `table` holds: 3
/// words (U, then a sign; X = 0 whatever the sign, so 0 keeps its one share).
template <random_bit_source G>
std::int64_t ct_table_sample(const ct_gaussian_table& table, G& gen) {
  const std::uint64_t u_hi = random_u64(gen);
  const std::uint64_t u_lo = random_u64(gen);
  const std::uint64_t sign_mask = ct_mask(random_u64(gen) & 1);
  const std::uint64_t m = table.magnitude(u_hi, u_lo);
  return static_cast<std::int64_t>((m ^ sign_mask) - sign_mask);
}

/// An upper bound on eps(tau^2) = 2 sum_{j >= 1} exp(-2 pi^2 tau^2 j^2), the
/// relative wobble of a Gaussian sum over a shifted lattice (see
/// ct_gaussian_convolution), for tau^2 >= 1/4: 2 e^(-2 pi^2 tau^2) /
/// (1 - e^(-6 pi^2 tau^2)) (j^2 - 1 >= 3 (j - 1)), raised by 2^-40
/// relative for the few roundings of double arithmetic.
inline double convolution_epsilon(double tau2) {
  const double pi2 = std::numbers::pi * std::numbers::pi;
  const double head = 2 * std::exp(-2 * pi2 * tau2);
  return head / (1 - std::exp(-6 * pi2 * tau2)) * (1 + 0x1p-40);
}

/// The discrete Gaussian with sigma^2 = a / b beyond one table's reach, as a
/// sum of small table samples (the one-dimensional case of the convolution
/// theorems for discrete Gaussians: Peikert 2010, "An Efficient and Parallel
/// Gaussian Sampler for Lattices", Theorem 3.1; Micciancio & Walter 2017,
/// "Gaussian Sampling over the Integers: Efficient, Generic, Constant-Time",
/// CRYPTO), every table scanned whole for every sample:
///
///   Y = X_1 + c_1 (X_2 + c_2 (X_3 + ... + c_{L-1} (X_L + c_L X_0))),
///
/// X_i ~ D(sigma_i^2) from table i and X_0 from a base table (sigma_0 <= 16).
/// Level i is built for a target tau^2 = T^2 (T^2 = a / b at the top): with a
/// multiplier c and an integer s, the deeper sum targets sigma'^2 = s and
/// X_i takes the rest, sigma_i^2 = T^2 - c^2 s, in [144, 144 + c^2) (s =
/// floor((T^2 - 144) / c^2)), so every level's table has about 13 sqrt(144 +
/// c^2) entries whatever sigma is, and each level divides sigma by about c.
///
/// Why the sum is (almost exactly) discrete Gaussian: for independent X ~
/// D(s1^2), X' ~ D(s2^2) and an integer c, completing the square gives
/// (y - c k)^2 / s1^2 + k^2 / s2^2 = y^2 / S^2 + (k - mu_y)^2 / tau^2 with
/// S^2 = s1^2 + c^2 s2^2, tau = s1 s2 / S and mu_y = c y s2^2 / S^2, so
/// P[X + c X' = y] is proportional to e^(-y^2 / (2 S^2)) times
/// sum_k e^(-(k - mu_y)^2 / (2 tau^2)). By Poisson summation that sum is
/// sqrt(2 pi) tau (1 + 2 sum_{j >= 1} e^(-2 pi^2 tau^2 j^2) cos(2 pi j
/// mu_y)), within a factor 1 +- eps (convolution_epsilon(tau^2)) of a
/// constant, so the law's ratio to D(S^2) lies in [(1 - eps) / (1 + eps),
/// (1 + eps) / (1 - eps)] and its total variation to it is at most eps /
/// (1 - eps). Each level is built with tau >= 2 (eps < 2^-112; the
/// multiplier c, 4 by default, is lowered until it holds), and a sampled
/// level adds its table's distance and the deeper sum's (couple each with
/// its exact twin), so total_variation() is the sum of the tables' bounds and
/// of 2 eps per level.
class ct_gaussian_convolution {
 public:
  ct_gaussian_convolution() = default;

  /// The sum for sigma^2 = a / b (sigma > 16), or an empty one (levels() ==
  /// 0) when a level's sigma_i^2 numerator would overflow 64 bits (b above
  /// about 2^56) or a table would exceed max_entries (it needs about 215).
  ct_gaussian_convolution(std::uint64_t a, std::uint64_t b, std::uint64_t max_entries) {
    if (b == 0 || a <= base_limit2 * static_cast<uint128>(b)) return;
    std::vector<level> built;
    uint128 num = a, den = b;  // T^2 = num / den; den = 1 below the top
    double tv = 0;
    while (num > base_limit2 * den) {
      bool placed = false;
      for (std::uint64_t c = max_multiplier; c >= 1 && !placed; --c) {
        const uint128 c2 = static_cast<uint128>(c) * c;
        const uint128 s = (num - level_min2 * den) / (c2 * den);
        if (s == 0) continue;
        const uint128 rest = num - c2 * s * den;  // sigma_i^2 = rest / den
        if (rest > UINT64_MAX || den > UINT64_MAX) return;
        // tau^2 = sigma_i^2 s / T^2, in long double, lowered by 2^-50
        // relative for its roundings.
        const long double t2 = static_cast<long double>(rest) * static_cast<long double>(s) /
                               static_cast<long double>(num) * (1 - 0x1p-50L);
        if (t2 < min_tau2) continue;
        ct_gaussian_table table(static_cast<std::uint64_t>(rest), static_cast<std::uint64_t>(den),
                                max_entries);
        if (table.entries() == 0) return;
        tv += table.total_variation() + 2 * convolution_epsilon(static_cast<double>(t2));
        built.push_back(level{std::move(table), c});
        num = s;
        den = 1;
        placed = true;
      }
      if (!placed) return;  // c = 1 always places for T > 16; kept for safety
    }
    ct_gaussian_table base(static_cast<std::uint64_t>(num), static_cast<std::uint64_t>(den),
                           max_entries);
    if (base.entries() == 0) return;
    tv += base.total_variation();
    levels_ = std::move(built);
    base_ = std::move(base);
    tv_ = tv * (1 + 0x1p-40);
  }

  /// One sample: every level's table and the base table scanned, 3 words
  /// each, whatever the result. Never throws.
  template <random_bit_source G>
  std::int64_t operator()(G& gen) const {
    std::int64_t y = ct_table_sample(base_, gen);
    for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
      // |y| stays below 13 sigma << 2^63 for the sigma a distribution allows.
      y = static_cast<std::int64_t>(it->c) * y + ct_table_sample(it->table, gen);
    }
    return y;
  }

  /// The number of levels L (0: not built).
  [[nodiscard]] std::size_t levels() const noexcept { return levels_.size(); }
  /// Level i's multiplier c_i (i < levels(), the top first).
  [[nodiscard]] std::uint64_t multiplier(std::size_t i) const { return levels_.at(i).c; }
  /// Level i's table (the top first).
  [[nodiscard]] const ct_gaussian_table& table(std::size_t i) const { return levels_.at(i).table; }
  /// The base table.
  [[nodiscard]] const ct_gaussian_table& base() const noexcept { return base_; }
  /// Every table's entries, summed: the comparisons one sample makes.
  [[nodiscard]] std::uint64_t entries() const noexcept {
    std::uint64_t n = base_.entries();
    for (const auto& l : levels_) n += l.table.entries();
    return n;
  }
  /// The words one sample draws: 3 per table.
  [[nodiscard]] int words() const noexcept { return 3 * static_cast<int>(levels_.size() + 1); }
  /// An upper bound on the total variation to the exact discrete Gaussian.
  [[nodiscard]] double total_variation() const noexcept { return tv_; }

  /// The base table's largest sigma^2 (16^2) and each level's least
  /// sigma_i^2 (12^2), multiplier and tau^2.
  static constexpr std::uint64_t base_limit2 = 256;
  static constexpr std::uint64_t level_min2 = 144;
  static constexpr std::uint64_t max_multiplier = 4;
  static constexpr long double min_tau2 = 4;

 private:
  struct level {
    ct_gaussian_table table;
    std::uint64_t c = 1;
  };
  std::vector<level> levels_;  // the top first
  ct_gaussian_table base_;
  double tv_ = 0;
};

}  // namespace privet::detail
