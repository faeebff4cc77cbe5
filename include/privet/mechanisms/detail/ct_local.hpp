// privet/mechanisms/detail/ct_local.hpp — the constant-time pieces of the
// local randomisers (randomized_response.hpp, subset_selection.hpp): their
// keep coin's threshold, uniform draws whose time says nothing about the
// value drawn, and a sort without branches; and the samplers of subsets
// built on them: DP-SGD's padded Poisson batches (the binomial window's
// ends, ct_poisson_capacity and ct_binomial_floor) and the sorted draws of
// constant_time_binomial.hpp, and a membership scan of 128-bit keys
// (ct_find_all, for the constant-time TrieHH client) (issue 36; see
// docs/security_model.md).
//
// The keep coin. Both randomisers keep the user's own value with
// probability p = a / (a + b e^-eps) (a = 1, b = k - 1 for randomised
// response; a = d, b = s - d for subset selection). The constant-time coin
// is ct_coin (constant_time.hpp): two 64-bit words U and the comparison
// U < T, which is true with probability exactly T / 2^128. Here T =
// floor(p 2^128), found from logistic_bernoulli's certified bounds on p
// (bernoulli.hpp: big integers, every rounding directed): at 2^-256 and,
// should p lie within the bounds' width of a multiple of 2^-128, finer,
// until floor(lo) = floor(hi) decides it (p is irrational for eps > 0,
// Lindemann-Weierstrass, so that ends). So p' = T / 2^128 satisfies
// p - 2^-128 < p' <= p.
//
// Why rounding down keeps the randomisers exactly eps-LDP, and more: the
// randomiser with p' in [a / (a + b), p] is post-processing of the one with
// p. Re-randomise the exact report: keep it with probability alpha, else
// replace it by the report of a uniformly random input (a uniform value for
// randomised response, a uniform d-subset for subset selection). That
// report holds the true value with probability a / (a + b) (1 / k; d / s),
// and given that, and given not, it is spread over the outputs exactly as
// the randomiser's own two cases are, so the mixture is the randomiser with
// keep probability alpha p + (1 - alpha) a / (a + b), which is p' for
// alpha = (p' - a / (a + b)) / (p - a / (a + b)) in [0, 1]. Every bound on
// the exact randomiser then holds for the rounded one: its eps-LDP ratio
// (directly: p' / (1 - p') <= p / (1 - p), so P[own value reported] / P[it
// reported by another input] <= e^eps, and >= 1 since p' >= a / (a + b)),
// and the accounting layer's PLD, RDP and shuffle-amplification bounds for
// randomised response and subset selection, which are computed from p.
//
// The lower end a / (a + b) holds unless eps is tiny: p - a / (a + b) =
// a b (1 - e^-eps) / ((a + b)(a + b e^-eps)) >= (1 - e^-eps) / (2 (a + b))
// (as a b >= (a + b) / 2 for a, b >= 1), which exceeds 2^-128 for every
// eps >= 2^-62 and a + b <= 2^64. The check T (a + b) >= a 2^128 is exact
// (integers), and a smaller eps that fails it throws invalid_parameter.
//
// Uniform draws. Lemire's multiply-and-reject (uniform.hpp) computes its
// threshold 2^64 mod n only when the low word falls below n, and for a
// value x that low word is one fixed residue, so the time of the accepted
// draw (a division or not) depends on x: with probability up to n / 2^64,
// which is 1/16 for the batched products of 2^60 that Floyd's draws use.
// ct_draws computes every threshold at construction (public bounds) and
// accepts a word by one comparison: the only branch is the rejection, and
// a rejected word is discarded, so the number of words drawn is independent
// of the values returned (rejection sampling) and of everything the caller
// holds. Consecutive bounds whose product stays below 2^60 share a word
// (Brackett-Rozinsky & Lemire 2024, as uniform_below_batch does), so a
// word is redrawn with probability (2^64 mod product) / 2^64: below 1/16
// for a batch, up to 1/2 for a single bound near 2^63.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/detail/big_uint.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace privet::detail {

/// T as a big integer.
inline big_uint to_big(const ct_threshold& t) {
  return big_uint(t.hi) << 64 | big_uint(t.lo);
}

/// floor(p 2^128) for p = a / (a + b e^-x), a, b >= 1 and x > 0 finite
/// (then 0 < p < 1 and p is irrational, so the refinement ends).
inline ct_threshold keep_threshold_floor(std::uint64_t a, std::uint64_t b, double x) {
  const logistic_bernoulli coin(a, b, x);
  const big_uint cap = (big_uint(1) << 128) - big_uint(1);
  for (int bits = 256; bits <= (1 << 16); bits *= 2) {
    const fixed_interval p = coin.bounds(bits);
    const int drop = bits - 128;
    big_uint t = p.lo >> drop;  // T 2^drop <= lo <= p
    // p < 1, so floor(p 2^128) <= 2^128 - 1: lo at or above it decides.
    if (t >= cap) return {~std::uint64_t{0}, ~std::uint64_t{0}};
    // p <= hi < (T + 1) 2^drop: T is floor(p 2^128).
    if (((t + big_uint(1)) << drop) > p.hi) {
      const uint128 v = low_u128(t);
      return {static_cast<std::uint64_t>(v >> 64), static_cast<std::uint64_t>(v)};
    }
  }
  throw error("privet: internal error: a keep probability could not be rounded to 2^-128");
}

/// The keep coin's threshold T = floor(p 2^128) for p = a / (a + b e^-eps)
/// (see the file comment), after checking T / 2^128 >= a / (a + b); throws
/// invalid_parameter naming `epsilon` when eps is too small for that.
inline ct_threshold ldp_keep_threshold(std::uint64_t a, std::uint64_t b, double epsilon) {
  const ct_threshold t = keep_threshold_floor(a, b, epsilon);
  if (to_big(t) * (big_uint(a) + big_uint(b)) < big_uint(a) << 128) {
    throw_invalid("epsilon", epsilon,
                  "large enough that the keep probability rounded down to a multiple of "
                  "2^-128 stays >= its value at eps = 0 (every eps >= 2^-62 is)");
  }
  return t;
}

/// The complement 2^128 - T of a threshold, as a double (exact to double
/// rounding): 1 - p' without the cancellation of 1 - T / 2^128.
inline double threshold_complement(const ct_threshold& t) {
  const uint128 v = (static_cast<uint128>(t.hi) << 64) | t.lo;
  const uint128 c = uint128{0} - v;  // 2^128 - T, as T >= 1
  return std::ldexp(static_cast<double>(static_cast<std::uint64_t>(c >> 64)), -64) +
         std::ldexp(static_cast<double>(static_cast<std::uint64_t>(c)), -128);
}

/// A fixed list of uniform draws out[i] in [0, bounds[i]), independent,
/// with every rejection threshold computed here (see the file comment):
/// the time of draw() depends only on the random words rejected.
class ct_draws {
 public:
  ct_draws() = default;

  /// Every bound >= 1; throws invalid_parameter naming `bounds` otherwise.
  explicit ct_draws(std::vector<std::uint64_t> bounds) : bounds_(std::move(bounds)) {
    for (std::size_t i = 0; i < bounds_.size();) {
      if (bounds_[i] == 0) throw_invalid("bounds", 0, "every bound >= 1");
      std::uint64_t product = bounds_[i];
      std::size_t k = 1;
      while (i + k < bounds_.size() && bounds_[i + k] != 0 &&
             static_cast<uint128>(product) * bounds_[i + k] <= batch_product_limit) {
        product *= bounds_[i + k];
        ++k;
      }
      groups_.push_back({k, (0 - product) % product});
      i += k;
    }
  }

  /// Writes size() draws to out.
  template <random_bit_source G>
  void draw(G& gen, std::uint64_t* out) const {
    const std::uint64_t* bound = bounds_.data();
    for (const group& g : groups_) {
      for (;;) {
        std::uint64_t low = random_u64(gen);
        for (std::size_t i = 0; i < g.count; ++i) {
          const uint128 m = static_cast<uint128>(low) * bound[i];
          out[i] = static_cast<std::uint64_t>(m >> 64);
          low = static_cast<std::uint64_t>(m);
        }
        // Accepted exactly when low >= 2^64 mod product (Lemire 2019).
        if (ct_lt(low, g.threshold) == 0) break;
      }
      bound += g.count;
      out += g.count;
    }
  }

  /// The number of draws.
  [[nodiscard]] std::size_t size() const noexcept { return bounds_.size(); }
  /// The number of words drawn when no word is rejected.
  [[nodiscard]] std::size_t words() const noexcept { return groups_.size(); }

 private:
  struct group {
    std::size_t count;
    std::uint64_t threshold;  // 2^64 mod the group's product
  };
  std::vector<std::uint64_t> bounds_;
  std::vector<group> groups_;
};

/// Floyd's algorithm (Bentley & Floyd 1987) on d draws v[i] uniform in
/// [0, n - d + i], in place: slot i keeps its draw unless an earlier slot
/// holds it, and then takes n - d + i (which no earlier slot can hold). The
/// d slots are then a uniform d-subset of [0, n). Each draw is compared
/// with every earlier slot by masks (no hash set, no early exit), so the
/// time and the memory accessed depend on d alone: d (d - 1) / 2
/// comparisons.
inline void ct_floyd(std::uint64_t* v, std::size_t d, std::uint64_t n) noexcept {
  std::uint64_t j = n - d;
  for (std::size_t i = 0; i < d; ++i, ++j) {
    const std::uint64_t t = v[i];
    std::uint64_t held = 0;
    for (std::size_t q = 0; q < i; ++q) held |= ct_is_zero(v[q] ^ t);
    v[i] = ct_select(ct_mask(held), j, t);
  }
}

/// Calls exchange(i, j) for every compare-exchange of Batcher's merge
/// exchange on n elements (Batcher 1968; Knuth, TAOCP vol. 3, 5.2.2,
/// Algorithm M), i < j: a sorting network for any n, about n (log2 n)^2 / 4
/// pairs, which depend on n alone. The exchanges of a pass are independent,
/// so they overlap in the pipeline.
template <class Exchange>
void ct_merge_exchange(std::size_t n, Exchange&& exchange) {
  if (n < 2) return;
  std::size_t t = 0;  // ceil(log2 n)
  while ((std::size_t{1} << t) < n) ++t;
  for (std::size_t p = std::size_t{1} << (t - 1); p > 0; p >>= 1) {
    std::size_t q = std::size_t{1} << (t - 1), r = 0, d = p;
    for (;;) {
      for (std::size_t i = 0; i + d < n; ++i) {
        if ((i & p) != r) continue;  // public: i, p and r, never the values
        exchange(i, i + d);
      }
      if (q == p) break;
      d = q - p;
      q >>= 1;
      r = p;
    }
  }
}

/// Sorts v[0, n) increasingly by ct_merge_exchange, each compare-exchange by
/// masks, so neither the time nor the memory accessed depends on the
/// values. It replaced odd-even transposition (n (n - 1) / 2 exchanges),
/// which made subset selection's report O(d^2) twice over.
inline void ct_sort(std::uint64_t* v, std::size_t n) noexcept {
  ct_merge_exchange(n, [v](std::size_t i, std::size_t j) {
    const std::uint64_t a = v[i], b = v[j];
    const std::uint64_t flip = (a ^ b) & ct_mask(ct_lt(b, a));
    v[i] = a ^ flip;
    v[j] = b ^ flip;
  });
}

/// Sorts n records of Words 64-bit words each (record i at v[i Words, (i +
/// 1) Words)) increasingly by their first Key words, compared
/// lexicographically, by the network of ct_sort: each comparison and each
/// exchange of whole records by masks. Records equal in their keys may come
/// out in either order (a sorting network is not stable).
template <std::size_t Words, std::size_t Key>
void ct_sort_records(std::uint64_t* v, std::size_t n) noexcept {
  static_assert(Key >= 1 && Key <= Words);
  ct_merge_exchange(n, [v](std::size_t i, std::size_t j) {
    std::uint64_t* a = v + i * Words;
    std::uint64_t* b = v + j * Words;
    std::uint64_t less = 0, equal = 1;  // b < a so far; b = a so far
    for (std::size_t k = 0; k < Key; ++k) {
      less |= equal & ct_lt(b[k], a[k]);
      equal &= ct_is_zero(a[k] ^ b[k]);
    }
    const std::uint64_t m = ct_mask(less);
    for (std::size_t k = 0; k < Words; ++k) {
      const std::uint64_t flip = (a[k] ^ b[k]) & m;
      a[k] ^= flip;
      b[k] ^= flip;
    }
  });
}

/// Membership of n 128-bit keys (halves kh[i], kl[i]) in a table of `size`
/// distinct keys (halves hi[e], lo[e]): hit[i] = 1 and at[i] = e when key i
/// is entry e, else 0 and 0. Every entry is compared with every key by
/// masks, so the time and the memory read depend on n and size alone, not
/// on the keys (a binary search's probes would follow them). Keys go by
/// blocks of eight held in registers, each block against the whole table.
/// The masks are written out without ct_mask's barrier so that the loop
/// vectorises (GCC 12 at -O2 and -O3: no branch, checked in the machine
/// code).
inline void ct_find_all(const std::uint64_t* hi, const std::uint64_t* lo, std::size_t size,
                        const std::uint64_t* kh, const std::uint64_t* kl, std::size_t n,
                        std::uint64_t* hit, std::uint64_t* at) noexcept {
  constexpr std::size_t block = 8;
  for (std::size_t i0 = 0; i0 < n; i0 += block) {
    const std::size_t m = n - i0 < block ? n - i0 : block;
    std::uint64_t bh[block] = {}, bl[block] = {}, bhit[block] = {}, bat[block] = {};
    for (std::size_t j = 0; j < m; ++j) bh[j] = kh[i0 + j], bl[j] = kl[i0 + j];
    for (std::size_t e = 0; e < size; ++e) {
      const std::uint64_t h = hi[e], l = lo[e];
      for (std::size_t j = 0; j < block; ++j) {
        const std::uint64_t x = (bh[j] ^ h) | (bl[j] ^ l);
        const std::uint64_t is = ((x | (0 - x)) >> 63) ^ 1;  // ct_is_zero
        bhit[j] |= is;
        bat[j] |= e & (0 - is);
      }
    }
    for (std::size_t j = 0; j < m; ++j) hit[i0 + j] = bhit[j], at[i0 + j] = bat[j];
  }
}

/// Poisson sampling of [0, n) in constant time: each i is a member with
/// probability T / 2^128 (a ct_coin of two words), written to out[count]
/// whatever its coin while count advances by the coin, so no branch depends
/// on a coin. out must hold n + 1 slots, written in full beforehand (so
/// that no page is first touched at a count-dependent moment); the members,
/// increasing, are out[0, returned count). The write addresses follow the
/// running count: a cache channel, outside the timing model.
template <random_bit_source G>
std::size_t ct_poisson_subset(G& gen, const ct_threshold& t, std::size_t n, std::size_t* out) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out[count] = i;
    count += static_cast<std::size_t>(ct_coin(gen, t));
  }
  return count;
}

/// The work budget of a padded Poisson batch: `rows` rows a step whatever
/// the batch's size, and `tail`, an upper bound on P[Bin(n, q) > rows], the
/// chance that the batch has more members than rows (0 when rows = n).
struct poisson_capacity {
  std::size_t rows = 0;  ///< rows processed every step
  double tail = 0;       ///< P[more members than rows] <= tail
};

/// n D(a / n || mu / n) = a ln(a / mu) + (n - a) ln((n - a) / (n - mu)),
/// Hoeffding's exponent for Bin(n, q) with mean mu in (0, n] at a in [0,
/// n] (both logarithms through log1p, of (a - mu) / mu and -(a - mu) / (n -
/// mu)); +inf for a below n when mu = n, whose law is a point mass.
inline double binomial_chernoff_exponent(std::size_t n, double mu, std::size_t a) noexcept {
  const double d = static_cast<double>(a) - mu;
  const double head = static_cast<double>(a) * std::log1p(d / mu);
  if (a == n) return head;  // (n - a) ln(...) is 0 there
  const double rest = static_cast<double>(n) - mu;
  if (!(rest > 0)) return HUGE_VAL;
  return head + static_cast<double>(n - a) * std::log1p(-d / rest);
}

/// The least capacity the Chernoff bound certifies at P[Bin(n, q) > rows]
/// <= 2^-100 (the scale of the noise samplers' own distances), or n when
/// that is no smaller. For X ~ Bin(n, q) and any
/// integer a above mu = n q, P[X >= a] <= exp(-n D(a / n || q)) with D the
/// relative entropy of two Bernoulli laws (Hoeffding 1963, "Probability
/// inequalities for sums of bounded random variables", JASA, Theorem 1):
/// n D = a ln(a / mu) + (n - a) ln((n - a) / (n - mu)). rows is the least
/// integer a above mu whose exponent reaches L = 70 > 100 ln 2 + 0.6 (the
/// exponent increases with a, so by bisection), and P[X > rows] <=
/// P[X >= rows] <= e^-70 < 2^-100 e^-0.6. mu is rounded up (at a fixed a
/// above mu the exponent falls as q grows), both logarithms go through
/// log1p, and the 0.6 of slack covers their rounding. Checked against
/// exact binomial tails in tests/mechanisms/ct_local_test.cpp. About mu +
/// sqrt(140 mu (1 - q)) rows: 463 for q N = 256 at N = 8192, 17 for q N =
/// 0.1. q in [0, 1].
inline poisson_capacity ct_poisson_capacity(std::size_t n, double q) noexcept {
  if (!(q < 1) || n == 0) return {n, 0.0};
  if (!(q > 0)) return {0, 0.0};
  constexpr double l = 70;
  const double mu = privet::detail::mul_up(static_cast<double>(n), q);
  const auto exponent = [mu, n](std::size_t a) { return binomial_chernoff_exponent(n, mu, a); };
  if (!(mu < static_cast<double>(n)) || exponent(n) < l) return {n, 0.0};
  // The least a in [lo, n] with exponent(a) >= l, lo the least integer above mu.
  std::size_t lo = static_cast<std::size_t>(std::floor(mu)) + 1, hi = n;
  if (exponent(lo) >= l) return {lo, 0x1p-100};
  while (hi - lo > 1) {  // exponent(lo) < l <= exponent(hi)
    const std::size_t mid = lo + (hi - lo) / 2;
    (exponent(mid) >= l ? hi : lo) = mid;
  }
  if (hi >= n) return {n, 0.0};
  return {hi, 0x1p-100};
}

/// The window's lower end for X ~ Bin(n, q): the least lo such that
/// P[X < lo] <= e^-70 < 2^-100 is certified by the lower-tail Chernoff bound
/// P[X <= b] <= exp(-n D(b / n || q)) for b below mu = n q (Hoeffding 1963,
/// Theorem 1, applied to n - X), n D = b ln(b / mu) + (n - b) ln((n - b) /
/// (n - mu)), which falls as b rises to mu: the greatest such b plus one, by
/// bisection, or 0 when P[X = 0] = (1 - q)^n itself exceeds e^-70. mu is
/// rounded down (at a fixed b below mu the exponent grows with mu), and the
/// 0.6 nats between 70 and 100 ln 2 cover the logarithms' rounding, as in
/// ct_poisson_capacity. q in [0, 1].
inline poisson_capacity ct_binomial_floor(std::size_t n, double q) noexcept {
  if (!(q > 0) || n == 0) return {0, 0.0};
  constexpr double l = 70;
  // P[X <= 0] = (1 - q)^n = exp(n ln(1 - q)); q = 1 makes it 0.
  const double at_zero = q < 1 ? -static_cast<double>(n) * std::log1p(-q) : HUGE_VAL;
  if (!(at_zero >= l)) return {0, 0.0};
  const double mu = std::nextafter(static_cast<double>(n) * q, 0.0);
  const auto exponent = [mu, n](std::size_t b) { return binomial_chernoff_exponent(n, mu, b); };
  // The greatest b in [0, hi) with exponent(b) >= l, hi the least integer at
  // or above mu (exponent(0) >= l above).
  std::size_t lo = 0, hi = static_cast<std::size_t>(std::ceil(mu));
  if (hi > n) hi = n;
  while (hi - lo > 1) {  // exponent(lo) >= l; hi is mu's ceiling or fails
    const std::size_t mid = lo + (hi - lo) / 2;
    (exponent(mid) >= l ? lo : hi) = mid;
  }
  return {lo + 1, 0x1p-100};
}

/// floor(x / d) and x mod d for a divisor fixed beforehand, by one
/// multiplication by floor(2^64 / d) and one correction by masks: a
/// hardware division's latency depends on its operands on many processors,
/// and the dividend here is secret.
class ct_divider {
 public:
  ct_divider() = default;
  /// d >= 1 (a 0 is taken as 1).
  explicit ct_divider(std::uint64_t d)
      : d_(d == 0 ? 1 : d),
        inverse_(d_ == 1 ? ~std::uint64_t{0}
                         : static_cast<std::uint64_t>((uint128{1} << 64) / d_)) {}

  /// {x / d, x % d}, with the same instructions for every x.
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> divide(std::uint64_t x) const noexcept {
    // inverse = 2^64 / d - e, 0 <= e < 1, so the estimate is q or q - 1.
    std::uint64_t q = static_cast<std::uint64_t>((static_cast<uint128>(x) * inverse_) >> 64);
    std::uint64_t r = x - q * d_;
    const std::uint64_t over = ct_lt(r, d_) ^ 1;
    q += over;
    r -= ct_select(ct_mask(over), d_, 0);
    return {q, r};
  }
  [[nodiscard]] std::uint64_t divisor() const noexcept { return d_; }

 private:
  std::uint64_t d_ = 1;
  std::uint64_t inverse_ = ~std::uint64_t{0};
};

/// The number of entries of a[0, n) at or below x (std::upper_bound's
/// offset when a is increasing), by a binary search of ceil(log2 n) steps
/// whose probes are chosen by masks: the steps depend on n alone, the
/// addresses read on x (a cache channel, outside the timing model).
inline std::size_t ct_upper_bound(const std::uint64_t* a, std::size_t n, std::uint64_t x) noexcept {
  if (n == 0) return 0;
  std::size_t base = 0, len = n;
  while (len > 1) {
    const std::size_t half = len / 2;
    const std::uint64_t at_or_below = ct_lt(x, a[base + half - 1]) ^ 1;
    base += static_cast<std::size_t>(ct_select(ct_mask(at_or_below), half, 0));
    len -= half;
  }
  return base + static_cast<std::size_t>(ct_lt(x, a[base]) ^ 1);
}

/// 1 when x is among a[0, n) (increasing), else 0, in the steps of
/// ct_upper_bound.
inline std::uint64_t ct_contains(const std::uint64_t* a, std::size_t n, std::uint64_t x) noexcept {
  const std::size_t at = ct_upper_bound(a, n, x);  // a[at - 1] <= x < a[at]
  const std::size_t probe = static_cast<std::size_t>(ct_select(ct_mask(ct_is_zero(at)), 0, at - 1));
  return n == 0 ? 0 : ct_is_zero(a[probe] ^ x) & (ct_is_zero(at) ^ 1);
}

/// A uniform subset of at least b of [0, n), in O(m log^2 m) work fixed by
/// (n, b), for the b where Floyd's b^2 / 2 comparisons are too many: m = b +
/// e independent uniform draws, sorted by Batcher's network, and flagged
/// fresh where they differ from their predecessor. The distinct values are a
/// uniform subset of their number d (by symmetry, whatever d is), and d is
/// independent of everything but the draws. The collisions m - d are at most
/// a sum of m indicators each 1 with probability at most (m - 1) / n given
/// the earlier draws, so they are dominated by Bin(m, (m - 1) / n), and e is
/// that law's 2^-100 quantile (ct_poisson_capacity): d >= b but with
/// probability at most failure() = 2^-100. Not valid() when m would exceed
/// n / 2 or the bound is vacuous (Floyd is then the way).
class ct_distinct_draws {
 public:
  ct_distinct_draws() = default;

  ct_distinct_draws(std::uint64_t n, std::uint64_t b) {
    if (b == 0 || n < 4) return;
    std::uint64_t e = 0;
    for (int round = 0; round < 64; ++round) {
      const std::uint64_t m = b + e;
      if (m > n / 2) return;
      // (m - 1) / n rounded up, so that the bound only grows.
      const double p = std::nextafter(static_cast<double>(m - 1) / static_cast<double>(n), 1.0);
      const poisson_capacity c = ct_poisson_capacity(static_cast<std::size_t>(m), p);
      if (c.tail == 0 && c.rows >= m) return;  // nothing certified below m collisions
      // P[collisions >= rows] <= e^-70, so rows - 1 extra draws suffice.
      const std::uint64_t enough = c.rows == 0 ? 0 : c.rows - 1;
      if (enough <= e) {
        m_ = m;
        draws_ = ct_draws(std::vector<std::uint64_t>(static_cast<std::size_t>(m), n));
        return;
      }
      e = enough;
    }
  }

  /// Whether the construction applies (see the class comment).
  [[nodiscard]] bool valid() const noexcept { return m_ > 0; }
  /// m, the number of draws (and of slots the call writes).
  [[nodiscard]] std::size_t draws() const noexcept { return static_cast<std::size_t>(m_); }
  /// P[fewer than b distinct values] <= failure().
  [[nodiscard]] static constexpr double failure() noexcept { return 0x1p-100; }

  /// Writes the m draws, increasing, to v[0, m), fresh[i] = 1 where v[i] is
  /// not v[i - 1]; returns the number of distinct values.
  template <random_bit_source G>
  std::size_t operator()(G& gen, std::uint64_t* v, std::uint64_t* fresh) const {
    const auto m = static_cast<std::size_t>(m_);
    draws_.draw(gen, v);
    ct_sort(v, m);
    std::size_t distinct = 1;
    fresh[0] = 1;
    for (std::size_t i = 1; i < m; ++i) {
      fresh[i] = ct_is_zero(v[i] ^ v[i - 1]) ^ 1;
      distinct += static_cast<std::size_t>(fresh[i]);
    }
    return distinct;
  }

 private:
  std::uint64_t m_ = 0;
  ct_draws draws_;
};

/// Pads a Poisson batch (ct_poisson_subset's `members`, `count` of them, in
/// a buffer of at least `capacity` slots) to exactly `capacity` rows with
/// the same work for every count: row r is members[r] when r < count, else
/// a uniform random row of [0, n) (one word, by multiply-shift: a filler
/// enters the sum times 0, so its law matters to the time only, and a
/// random filler is distributed as a member is); counted[r] = 1 exactly
/// for the members. A batch of more than `capacity` members keeps its
/// first `capacity` (ct_poisson_capacity bounds the chance). Returns
/// min(count, capacity), without a branch on count.
template <random_bit_source G>
std::size_t ct_pad_batch(G& gen, const std::size_t* members, std::size_t count,
                         std::size_t capacity, std::size_t n, std::size_t* rows,
                         std::uint8_t* counted) {
  for (std::size_t r = 0; r < capacity; ++r) {
    const std::uint64_t u = random_u64(gen);
    const auto filler = static_cast<std::uint64_t>((static_cast<uint128>(u) * n) >> 64);
    const std::uint64_t member = ct_lt(r, count);
    rows[r] = static_cast<std::size_t>(ct_select(ct_mask(member), members[r], filler));
    counted[r] = static_cast<std::uint8_t>(member);
  }
  return static_cast<std::size_t>(ct_select(ct_mask(ct_lt(count, capacity)), count, capacity));
}

/// A uniform b-subset of [0, n) in increasing order, drawn in constant
/// time: b uniform draws with their rejection thresholds precomputed
/// (ct_draws), Floyd's algorithm by masks (ct_floyd) and Batcher's sort
/// (ct_sort). The law is exactly uniform (the draws are exact); the cost
/// is O(b^2) comparisons whatever the subset.
class ct_uniform_subset {
 public:
  ct_uniform_subset() = default;

  /// 1 <= b <= n; throws invalid_parameter naming `b` otherwise.
  ct_uniform_subset(std::uint64_t n, std::uint64_t b) : n_(n), b_(b) {
    if (b < 1 || b > n) throw_invalid("b", b, "[1, n] with n = " + format_value(n));
    std::vector<std::uint64_t> bounds;
    bounds.reserve(static_cast<std::size_t>(b));
    for (std::uint64_t i = 0; i < b; ++i) bounds.push_back(n - b + i + 1);
    draws_ = ct_draws(std::move(bounds));
  }

  /// Writes the b members, increasing, to out[0, b).
  template <random_bit_source G>
  void operator()(G& gen, std::uint64_t* out) const {
    draws_.draw(gen, out);
    ct_floyd(out, static_cast<std::size_t>(b_), n_);
    ct_sort(out, static_cast<std::size_t>(b_));
  }

  /// b.
  [[nodiscard]] std::uint64_t size() const noexcept { return b_; }

 private:
  std::uint64_t n_ = 1;
  std::uint64_t b_ = 1;
  ct_draws draws_;
};

}  // namespace privet::detail
