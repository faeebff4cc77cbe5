// privet/mechanisms/detail/ct_select.hpp — the exponential mechanism and
// permute-and-flip with constant_time_noise: no branch, loop bound or memory
// index depends on the scores or on the draw (mechanisms/exponential.hpp).
//
// The exact selectors (secure_noise) stop at the first candidate whose coin
// succeeds, so the time of a release tells which candidate won and how many
// lost before it, and they form each exponent in big integers whose size
// follows the score. Here every candidate costs the same:
//
// 1. Scores on a grid. A score q becomes Q = round(q / g), ties to even, on
//    a power-of-two grid g, clamped to |Q| <= 2^116 (+inf and NaN as the
//    finite selectors read them: the top and the bottom of that range).
//    Rounding and clamping are non-decreasing and move a score by at most
//    g / 2, so scores of sensitivity D have grid scores Q g of sensitivity
//    D + g, and monotonic scores stay monotonic. g is chosen so that
//    c (D + g) / (eps g), the exponent's denominator in grid steps, is at
//    least 2^30 (c = 2, or 1 for monotonic scores).
// 2. The exponent k_r / d, with k_r = max Q - Q_r < 2^118 (an integer) and
//    d = ceil(c (D + g) / (eps g)), capped at 2^128 - 1. Rounding d up only
//    lowers the coefficient: the selector is the exact one for the grid
//    scores at eps' = c (D + g) / (d g) <= eps, so it is eps-DP, and eps'
//    is within a factor 1 - 2^-30 of eps (utility, not privacy, moves).
//    Only at extreme ratios is eps' further below eps (never above): c D /
//    eps below about 2^-1043, where g stops at the least double, and above
//    about 2^1151, where d is capped.
// 3. Permute-and-flip: a constant-time Bernoulli(exp(-k_r / d)) coin per
//    candidate (ct_exp_coin: the same number of coins for every k) and a
//    uniform 192-bit priority per candidate; the output is the candidate
//    with the least priority among those whose coin succeeded (the best
//    candidate's always does), found by a masked scan. With distinct
//    priorities the successful candidates come in a uniformly random
//    order, so this is exactly "test candidates in a random order, keep the
//    first success". Within total variation n t_coin + C(n, 2) 2^-192 of
//    exact permute-and-flip on the grid scores (t_coin: one coin's error).
// 4. Exponential mechanism: weights W_r, exp(-k_r / d) in 128-bit fixed
//    point (ct_exp_coin::weight: the product of the same thresholds over
//    k_r's bits), their sum S < n 2^128 in three words, U = floor(V S /
//    2^320) from a uniform 320-bit V, and the candidate r with
//    W_0 + ... + W_(r-1) <= U < W_0 + ... + W_r, found by a masked scan.
//    P[r] is within 2^-320 of W_r / S (V S / 2^320 lands in the interval of
//    r for W_r 2^320 / S values of V, give or take one), and W / S is
//    within total variation n e_w of the exact softmax because the true
//    weights sum to at least 1 (the best is exp(0)) and each W_r is within
//    e_w of its weight (e_w: ct_exp_coin::weight_error). Within total
//    variation n (e_w + 2^-320) of the exact exponential mechanism on the
//    grid scores.
//
// What is not covered, as for the other constant-time samplers
// (detail/constant_time.hpp, detail/grid.hpp): subnormal scores or a grid
// below 2^-1022 may take the floating-point unit's slow path, and cache,
// power and compiler effects beyond the masks and value barriers.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>
#include <privet/mechanisms/detail/dyadic.hpp>
#include <privet/mechanisms/detail/grid.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ranges>
#include <vector>

namespace privet::detail {

/// 1 when the n-word value a is below b (little-endian words), branch-free.
template <std::size_t N>
std::uint64_t ct_lt_words(const std::array<std::uint64_t, N>& a,
                          const std::array<std::uint64_t, N>& b) noexcept {
  std::uint64_t lt = 0;
  for (std::size_t i = 0; i < N; ++i) {  // from the low word up: a higher word decides
    const std::uint64_t eq = ct_is_zero(a[i] ^ b[i]);
    lt = (eq & lt) | ((eq ^ 1) & ct_lt(a[i], b[i]));
  }
  return lt;
}

/// The largest number of candidates the constant-time selectors take (a
/// public count): their total variation bounds are stated up to it.
inline constexpr std::size_t ct_max_candidates = std::size_t{1} << 32;

/// The grid, denominator and coins of the constant-time selectors (see the
/// file comment), fixed by the public parameters.
class ct_selector {
 public:
  ct_selector() = default;

  /// For validated epsilon and sensitivity > 0.
  ct_selector(double epsilon, double sensitivity, bool monotonic) {
    const int c_log2 = monotonic ? 0 : 1;
    // g = 2^e with c D / (eps g) >= 2^30: c D / eps >= 2^(ilogb D + c_log2 -
    // ilogb eps - 1), so e = that exponent - 31 leaves at least 2^30.
    const int e = std::ilogb(sensitivity) + c_log2 - std::ilogb(epsilon) - 31;
    const int clamped = e < -1074 ? -1074 : (e > 1023 ? 1023 : e);
    step_ = std::ldexp(1.0, clamped);
    limit_ = std::ldexp(step_, 116);
    if (!std::isfinite(limit_)) limit_ = std::numeric_limits<double>::max();
    // d = ceil(c (D + g) / (eps g)), exactly.
    dyadic num = dyadic::from_double(sensitivity) + dyadic::from_double(step_);
    num.exponent += c_log2;
    const dyadic den = dyadic::from_double(epsilon) * dyadic::from_double(step_);
    auto [n, m] = ratio(num, den);
    boost::multiprecision::cpp_int d = (n + m - 1) / m;
    const boost::multiprecision::cpp_int cap = (boost::multiprecision::cpp_int(1) << 128) - 1;
    if (d > cap) d = cap;
    denominator_ = static_cast<uint128>(static_cast<std::uint64_t>(d >> 64)) << 64 |
                   static_cast<std::uint64_t>(d & std::numeric_limits<std::uint64_t>::max());
    coin_ = ct_exp_coin(denominator_, gap_bits);
  }

  /// The grid step g.
  [[nodiscard]] double step() const noexcept { return step_; }
  /// d: the exponent of candidate r is k_r / d.
  [[nodiscard]] uint128 denominator() const noexcept { return denominator_; }
  /// The coins (and weights) exp(-k / d).
  [[nodiscard]] const ct_exp_coin& coin() const noexcept { return coin_; }

  /// round(q / g) clamped to [-2^116, 2^116], NaN and -inf to the bottom,
  /// +inf to the top, without a branch on q.
  [[nodiscard]] int128 grid_score(double q) const noexcept {
    constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;
    constexpr std::uint64_t inf_bits = 0x7ff0000000000000ULL;
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(q);
    const std::uint64_t nan = ct_lt(inf_bits, bits & ~sign_bit);
    const std::uint64_t over = ct_lt(std::bit_cast<std::uint64_t>(limit_), bits & ~sign_bit);
    const double signed_limit =
        std::bit_cast<double>(std::bit_cast<std::uint64_t>(limit_) | (bits & sign_bit));
    double x = ct_select_double(ct_mask(over), signed_limit, q);
    x = ct_select_double(ct_mask(nan), -limit_, x);
    const double inverse = 1 / step_;  // exact: a power of two, when finite
    const double y = std::isfinite(inverse) ? x * inverse : x / step_;
    return ct_integer_to_int128(ct_nearbyint(y));
  }

  /// k_r = max Q - Q_r for the grid scores Q of `scores`, as ct_exp_coin's
  /// four-word integers (each below 2^118).
  template <std::ranges::input_range R>
  [[nodiscard]] std::vector<ct_u256> gaps(const R& scores) const {
    // The count is public (the candidates are), so refusing it is no leak.
    if constexpr (std::ranges::sized_range<R>) {
      if (std::ranges::size(scores) > ct_max_candidates)
        throw_invalid("scores.size()", std::ranges::size(scores), "at most 2^32 candidates");
    }
    std::vector<uint128> biased;  // Q + 2^127: unsigned order is signed order
    for (const auto& s : scores) {
      if (biased.size() == ct_max_candidates)
        throw_invalid("scores.size()", "more than 2^32", "at most 2^32 candidates");
      const auto q = static_cast<uint128>(grid_score(static_cast<double>(s)));
      biased.push_back(q ^ (uint128{1} << 127));
    }
    if (biased.empty()) throw_empty("scores");
    std::uint64_t top_hi = 0, top_lo = 0;
    for (const uint128 b : biased) {
      const auto hi = static_cast<std::uint64_t>(b >> 64);
      const auto lo = static_cast<std::uint64_t>(b);
      const std::uint64_t m = ct_mask(ct_lt_128(top_hi, top_lo, hi, lo));
      top_hi = ct_select(m, hi, top_hi);
      top_lo = ct_select(m, lo, top_lo);
    }
    const uint128 top = static_cast<uint128>(top_hi) << 64 | top_lo;
    std::vector<ct_u256> out(biased.size());
    for (std::size_t r = 0; r < biased.size(); ++r) {
      const uint128 k = top - biased[r];
      out[r] = {static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(k >> 64), 0, 0};
    }
    return out;
  }

  /// Permute-and-flip (file comment, step 3).
  template <std::ranges::input_range R, random_bit_source G>
  std::size_t permute_and_flip(const R& scores, G& gen) const {
    const std::vector<ct_u256> k = gaps(scores);
    std::array<std::uint64_t, 3> best{};
    std::uint64_t found = 0, chosen = 0;
    for (std::size_t r = 0; r < k.size(); ++r) {
      const std::uint64_t success = coin_(gen, k[r]);
      const std::array<std::uint64_t, 3> priority{random_u64(gen), random_u64(gen),
                                                  random_u64(gen)};
      const std::uint64_t take = success & ((found ^ 1) | ct_lt_words(priority, best));
      const std::uint64_t m = ct_mask(take);
      for (std::size_t w = 0; w < 3; ++w) best[w] = ct_select(m, priority[w], best[w]);
      chosen = ct_select(m, static_cast<std::uint64_t>(r), chosen);
      found |= take;
    }
    return static_cast<std::size_t>(chosen);
  }

  /// The exponential mechanism (file comment, step 4).
  template <std::ranges::input_range R, random_bit_source G>
  std::size_t exponential(const R& scores, G& gen) const {
    const std::vector<ct_u256> k = gaps(scores);
    std::vector<ct_threshold> weight(k.size());
    std::array<std::uint64_t, 3> total{};
    for (std::size_t r = 0; r < k.size(); ++r) {
      weight[r] = coin_.weight(k[r]);
      add(total, weight[r]);
    }
    // U = floor(V S / 2^320): the top three words of the eight-word product.
    std::array<std::uint64_t, 5> v{};
    for (auto& w : v) w = random_u64(gen);
    std::array<std::uint64_t, 8> product{};
    for (std::size_t i = 0; i < 5; ++i) {
      std::uint64_t carry = 0;
      for (std::size_t j = 0; j < 3; ++j) {
        const uint128 t = static_cast<uint128>(v[i]) * total[j] + product[i + j] + carry;
        product[i + j] = static_cast<std::uint64_t>(t);
        carry = static_cast<std::uint64_t>(t >> 64);
      }
      product[i + 3] = carry;
    }
    const std::array<std::uint64_t, 3> u{product[5], product[6], product[7]};
    std::array<std::uint64_t, 3> running{};
    std::uint64_t found = 0, chosen = 0;
    for (std::size_t r = 0; r < k.size(); ++r) {
      add(running, weight[r]);
      const std::uint64_t take = ct_lt_words(u, running) & (found ^ 1);
      chosen = ct_select(ct_mask(take), static_cast<std::uint64_t>(r), chosen);
      found |= take;
    }
    return static_cast<std::size_t>(chosen);
  }

  /// Total variation to exact permute-and-flip on the grid scores, for n
  /// candidates (file comment, step 3), rounded up.
  [[nodiscard]] double permute_and_flip_total_variation(std::size_t n) const noexcept {
    const double nd = static_cast<double>(n);
    // C(n, 2) 2^-192 <= n^2 2^-193 for the priorities' ties.
    return add_up(mul_up(nd, coin_.total_variation()), mul_up(mul_up(nd, nd), 0x1p-193));
  }

  /// Total variation to the exact exponential mechanism on the grid scores,
  /// for n candidates (file comment, step 4), rounded up.
  [[nodiscard]] double exponential_total_variation(std::size_t n) const noexcept {
    return mul_up(static_cast<double>(n), add_up(coin_.weight_error(), 0x1p-320));
  }

  /// 64-bit words one permute-and-flip release of n candidates draws.
  [[nodiscard]] std::size_t permute_and_flip_words(std::size_t n) const noexcept {
    return n * (static_cast<std::size_t>(coin_.words()) + 3);
  }
  /// 64-bit words one exponential-mechanism release draws (any n).
  static constexpr std::size_t exponential_words = 5;

  /// Bits of the gaps k_r: |Q| <= 2^116, so k_r <= 2^117 < 2^118.
  static constexpr int gap_bits = 118;

 private:
  static void add(std::array<std::uint64_t, 3>& acc, const ct_threshold& w) noexcept {
    uint128 t = static_cast<uint128>(acc[0]) + w.lo;
    acc[0] = static_cast<std::uint64_t>(t);
    t = static_cast<uint128>(acc[1]) + w.hi + static_cast<std::uint64_t>(t >> 64);
    acc[1] = static_cast<std::uint64_t>(t);
    acc[2] += static_cast<std::uint64_t>(t >> 64);
  }

  double step_ = 1;
  double limit_ = 0;
  uint128 denominator_ = 1;
  ct_exp_coin coin_;
};

}  // namespace privet::detail
