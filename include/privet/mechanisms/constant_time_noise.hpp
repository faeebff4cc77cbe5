// privet/mechanisms/constant_time_noise.hpp — discrete Laplace and discrete
// Gaussian samplers whose work does not depend on the sample they return:
// the same number of random words, the same loop trip counts and the same
// branches for every output, fixed when the sampler is built from its public
// parameters (see detail/constant_time.hpp for the coins and what "the same"
// covers).
//
// The exact samplers (discrete_laplace.hpp, discrete_gaussian.hpp) stop at
// their first failing coin, so their running time reveals the noise (Jin,
// McMurtry, Rubinstein & Ohrimenko 2022, "Are We There Yet? Timing and
// Floating-Point Attacks on Differential Privacy Systems", IEEE S&P). A
// sampler that always does the same work cannot be exact for these laws
// (their probabilities are irrational and their supports unbounded); these
// are exact up to a stated total variation distance tau, returned by
// total_variation_bound(): for every event S, |P[X in S] - P_exact[S]| <=
// tau. A mechanism that is (eps, delta)-DP with the exact noise is then
// (eps, delta + (1 + e^eps) tau)-DP with this one (for any event S,
// P[M'(x) in S] <= P[M(x) in S] + tau <= e^eps P[M(x') in S] + delta + tau
// <= e^eps P[M'(x') in S] + delta + (1 + e^eps) tau).
//
// Discrete Laplace with scale t (constant_time_discrete_laplace): X = G1 -
// G2 for independent geometric G1, G2 with P[G = g] = (1 - q) q^g, q =
// exp(-1 / t), is exactly discrete Laplace: P[X = x] = (1 - q) / (1 + q)
// q^|x|: for x >= 0, sum_g (1 - q)^2 q^(g + x) q^g = (1 - q)^2 q^x / (1 - q^2)
// (Inusah & Kozubowski 2006, "A discrete analogue of the Laplace
// distribution", derive the law this way). Each geometric is drawn from B binary
// digits, which for the untruncated geometric are independent
// Bernoulli(q^(2^i) / (1 + q^(2^i))) coins (detail::ct_geometric), with B the
// least number such that q^(2^B) < 2^-128. tau <= 2 (B + 1) 2^-128: the cut
// at 2^B of each geometric and one coin error per digit.
//
// Discrete Gaussian with variance parameter sigma^2
// (constant_time_discrete_gaussian), two constructions:
//
// - sigma up to about 307 (a table of at most 4096 entries by default): a
//   cumulative distribution table of |X| cut at M = ceil(sqrt(178) sigma),
//   scanned whole for one uniform 128-bit U, and a random sign
//   (detail::ct_gaussian_table): 3 words and M comparisons per sample;
//   tau <= (M + 1) 2^-128 (the cut, below e^-89, and one rounding per
//   threshold).
// - larger sigma (by default): a sum Y = X_1 + c_1 (X_2 + c_2 (... + c_L
//   X_0)) of small table samples (sigma_i about 12, c_i <= 4, so L is about
//   log_4(sigma / 16) levels), each table scanned whole
//   (detail::ct_gaussian_convolution, where the sum's law is shown to be
//   within eps / (1 - eps) of the discrete Gaussian per level, eps < 2^-112
//   for the levels' widths); 3 (L + 1) words per sample and about 215 + 160
//   L comparisons: sigma = 1000 takes 3 levels, 2^30 takes 13.
// - larger sigma with max_table = 0 (or a sigma^2 = a / b with b above about
//   2^56): the rejection sampler of Canonne, Kamath
// & Steinke 2020 ("The Discrete Gaussian for Differential Privacy",
// Algorithm 3) with t = floor(sigma) + 1, run for a fixed number R of
// proposals, every one of them computed, the first accepted one selected by
// masks (0 if none is). A proposal is a random sign s and a geometric
// magnitude m with q = exp(-1 / t), -0 rejected, so the proposal is discrete
// Laplace; it is accepted with probability exp(-(m - sigma^2 / t)^2 / (2
// sigma^2)) = exp(-k^2 / D), k = |m b t - a|, D = 2 a b t^2 for sigma^2 =
// a / b, by detail::ct_exp_coin on the secret integer k^2. With exact coins,
// P[proposal = y, accepted] = (1 - q) / 2 e^(-sigma^2 / (2 t^2))
// e^(-y^2 / (2 sigma^2)) for every integer y, so an accepted proposal is
// exactly discrete Gaussian, and each proposal is accepted with probability
// p = (1 - q) / 2 e^(-sigma^2 / (2 t^2)) Z, Z = sum_y e^(-y^2 / (2 sigma^2))
// >= max(1, sqrt(2 pi) sigma) (Poisson summation). R is the least number of
// proposals with (1 - p_lo)^R < 2^-128 for that lower bound p_lo, so the R
// proposals' output is within (1 - p)^R of the discrete Gaussian, and the
// approximate coins add R times each proposal's coin errors and cut:
// tau <= (1 - p_lo)^R + R (2^-128 (B + 1) + exp coin error).
//
// What is not constant time: construction (it computes the thresholds from
// the public parameters, and its time depends on them only) and the
// exceptions for invalid parameters; the samplers never throw once built.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace privet {

/// The discrete Laplace distribution with scale t, sampled with a fixed
/// number of random words and no branch on the sample (see the file
/// comment), within total variation total_variation_bound() < 2^-120 of the
/// exact law. Supported scales: t = scale_num / scale_den up to about
/// 2^63 / 89 (1.0e17), so that 63 digits hold the geometrics.
class constant_time_discrete_laplace {
 public:
  using result_type = std::int64_t;  ///< The sample type.

  /// The constant-time sampler for the law of `exact`. Throws
  /// invalid_parameter (`scale`) for a scale above about 2^63 / 89.
  explicit constant_time_discrete_laplace(const discrete_laplace_distribution& exact)
      : exact_(exact), geometric_(exact.scale_den(), exact.scale_num(), max_digits) {}

  /// Scale t = scale_num / scale_den (as discrete_laplace_distribution).
  constant_time_discrete_laplace(std::uint64_t scale_num, std::uint64_t scale_den)
      : constant_time_discrete_laplace(discrete_laplace_distribution(scale_num, scale_den)) {}

  /// Scale given as a double, used at its exact binary value (as
  /// discrete_laplace_distribution).
  explicit constant_time_discrete_laplace(double scale)
      : constant_time_discrete_laplace(discrete_laplace_distribution(scale)) {}

  /// One sample: G1 - G2, 2 words_per_geometric() words each, whatever the
  /// result. Never throws.
  template <random_bit_source G>
  std::int64_t operator()(G& gen) const {
    const std::uint64_t g1 = geometric_(gen);
    const std::uint64_t g2 = geometric_(gen);
    // Both below 2^63: the difference is exact in int64.
    return static_cast<std::int64_t>(g1) - static_cast<std::int64_t>(g2);
  }

  /// The exact law this sampler approximates.
  [[nodiscard]] const discrete_laplace_distribution& exact() const noexcept { return exact_; }
  /// The numerator of the scale, in lowest terms.
  [[nodiscard]] std::uint64_t scale_num() const noexcept { return exact_.scale_num(); }
  /// The denominator of the scale.
  [[nodiscard]] std::uint64_t scale_den() const noexcept { return exact_.scale_den(); }
  /// t, rounded to the nearest double.
  [[nodiscard]] double scale() const noexcept { return exact_.scale(); }
  /// The exact law's pmf (the sampler's differs by at most
  /// total_variation_bound() in total).
  [[nodiscard]] double pmf(std::int64_t x) const { return exact_.pmf(x); }
  /// The exact law's variance.
  [[nodiscard]] double variance() const { return exact_.variance(); }

  /// The binary digits B of each geometric.
  [[nodiscard]] int digits() const noexcept { return geometric_.digits(); }
  /// The 64-bit words every sample draws: 4 B.
  [[nodiscard]] int words_per_sample() const noexcept { return 2 * geometric_.words(); }
  /// An upper bound tau on the total variation distance between a sample's
  /// law and the exact discrete Laplace: 2 (B + 1) 2^-128.
  [[nodiscard]] double total_variation_bound() const noexcept {
    return 2 * geometric_.total_variation();
  }
  /// The digits' coins, for tests.
  [[nodiscard]] const detail::ct_geometric& geometric() const noexcept { return geometric_; }

 private:
  static constexpr int max_digits = 63;

  discrete_laplace_distribution exact_;
  detail::ct_geometric geometric_;
};

/// The discrete Gaussian with variance parameter sigma^2, sampled with a
/// fixed number of proposals, random words and no branch on the sample (see
/// the file comment), within total variation total_variation_bound() of the
/// exact law. Supported: the range of discrete_gaussian_distribution (sigma
/// up to about 3.6e9).
class constant_time_discrete_gaussian {
 public:
  using result_type = std::int64_t;  ///< The sample type.

  /// The largest cumulative table built by default: 4096 thresholds (64
  /// KiB, scanned in a few microseconds), so sigma up to about
  /// 4096 / sqrt(178) = 307.
  static constexpr std::uint64_t default_max_table = 4096;

  /// The constant-time sampler for the law of `exact`: a cumulative table
  /// when it needs at most `max_table` entries (0: never), else a sum of
  /// small tables (when max_table > 0 and the sum can be built: see
  /// detail::ct_gaussian_convolution), else rejection.
  /// Throws invalid_parameter naming `max_table` above 2^16.
  explicit constant_time_discrete_gaussian(const discrete_gaussian_distribution& exact,
                                           std::uint64_t max_table = default_max_table)
      : exact_(exact),
        table_(exact.sigma2_num(), exact.sigma2_den(), check_table_limit(max_table)) {
    if (table_.entries() != 0) return;
    if (max_table != 0) {
      convolution_ =
          detail::ct_gaussian_convolution(exact.sigma2_num(), exact.sigma2_den(), max_table);
      if (convolution_.levels() != 0) return;
    }
    const std::uint64_t a = exact.sigma2_num();
    const std::uint64_t b = exact.sigma2_den();
    const std::uint64_t t = exact.proposal_scale();
    geometric_ = detail::ct_geometric(1, t, max_digits);
    bt_ = static_cast<detail::uint128>(b) * t;  // < 2^65, checked by exact
    // D = 2 a b t^2 < 2^128, checked by exact.
    const detail::uint128 d = static_cast<detail::uint128>(a) * b * 2 * t * t;
    a_ = a;
    // k = |m b t - a| < max(2^B b t, 2^64), so k^2 has at most twice as many
    // bits as that bound.
    const int bt_bits = detail::bit_width_u128(bt_);
    const int k_bits = std::max(geometric_.digits() + bt_bits, 64);
    accept_ = detail::ct_exp_coin(d, std::min(2 * k_bits, 256));
    proposals_ = count_proposals();
  }

  /// sigma^2 = sigma2_num / sigma2_den (as discrete_gaussian_distribution).
  constant_time_discrete_gaussian(std::uint64_t sigma2_num, std::uint64_t sigma2_den)
      : constant_time_discrete_gaussian(discrete_gaussian_distribution(sigma2_num, sigma2_den)) {}

  /// sigma as a double (sigma^2 rounded up, as discrete_gaussian_distribution).
  explicit constant_time_discrete_gaussian(double sigma)
      : constant_time_discrete_gaussian(discrete_gaussian_distribution(sigma)) {}

  /// One sample: proposals() proposals, all computed. Never throws.
  template <random_bit_source G>
  std::int64_t operator()(G& gen) const {
    if (table_.entries() != 0) {  // a public choice, made at construction
      const std::uint64_t u_hi = random_u64(gen);
      const std::uint64_t u_lo = random_u64(gen);
      const std::uint64_t sign_mask = detail::ct_mask(random_u64(gen) & 1);
      const std::uint64_t m = table_.magnitude(u_hi, u_lo);
      return static_cast<std::int64_t>((m ^ sign_mask) - sign_mask);
    }
    if (convolution_.levels() != 0) return convolution_(gen);  // also a public choice
    std::uint64_t done = 0;
    std::uint64_t out = 0;
    const auto bt_hi = static_cast<std::uint64_t>(bt_ >> 64);
    const auto bt_lo = static_cast<std::uint64_t>(bt_);
    for (int r = 0; r < proposals_; ++r) {
      const std::uint64_t sign = random_u64(gen) & 1;
      const std::uint64_t m = geometric_(gen);
      // -0 is rejected so that 0 gets one share, as the exact sampler does.
      const std::uint64_t valid = (sign & detail::ct_is_zero(m)) ^ 1;
      // m b t < 2^63 2^65 fits 128 bits; bt_hi <= 1.
      const detail::uint128 mbt =
          static_cast<detail::uint128>(m) * bt_lo + (static_cast<detail::uint128>(m * bt_hi) << 64);
      const detail::uint128 diff = mbt - a_;
      const std::uint64_t below = detail::ct_lt_128(static_cast<std::uint64_t>(mbt >> 64),
                                                    static_cast<std::uint64_t>(mbt), 0, a_);
      // |diff|: two's complement negation under a mask, no branch.
      const std::uint64_t neg = detail::ct_mask(below);
      const detail::uint128 neg128 = (static_cast<detail::uint128>(neg) << 64) | neg;
      const detail::uint128 k = (diff ^ neg128) - neg128;
      const detail::ct_u256 k2 =
          detail::ct_square_128(static_cast<std::uint64_t>(k >> 64), static_cast<std::uint64_t>(k));
      const std::uint64_t accepted = accept_(gen, k2) & valid;
      const std::uint64_t sign_mask = detail::ct_mask(sign);
      const std::uint64_t y = (m ^ sign_mask) - sign_mask;  // s ? -M : M
      const std::uint64_t take = detail::ct_mask(accepted & (done ^ 1));
      out = detail::ct_select(take, y, out);
      done |= accepted;
    }
    return static_cast<std::int64_t>(out);
  }

  /// The exact law this sampler approximates.
  [[nodiscard]] const discrete_gaussian_distribution& exact() const noexcept { return exact_; }
  /// The numerator a of sigma^2 = a / b, in lowest terms.
  [[nodiscard]] std::uint64_t sigma2_num() const noexcept { return exact_.sigma2_num(); }
  /// The denominator b of sigma^2.
  [[nodiscard]] std::uint64_t sigma2_den() const noexcept { return exact_.sigma2_den(); }
  /// sigma^2, rounded to the nearest double.
  [[nodiscard]] double sigma2() const noexcept { return exact_.sigma2(); }
  /// The exact law's pmf.
  [[nodiscard]] double pmf(std::int64_t x) const { return exact_.pmf(x); }
  /// The exact law's variance.
  [[nodiscard]] double variance() const { return exact_.variance(); }

  /// Whether samples come from the cumulative table (sigma up to about
  /// 300) rather than from a sum of tables or R rejection proposals.
  [[nodiscard]] bool uses_table() const noexcept { return table_.entries() != 0; }
  /// Whether samples are sums of small table samples (sigma beyond the
  /// table, max_table > 0; see detail::ct_gaussian_convolution).
  [[nodiscard]] bool uses_convolution() const noexcept { return convolution_.levels() != 0; }
  /// The sum of tables (empty unless uses_convolution()).
  [[nodiscard]] const detail::ct_gaussian_convolution& convolution() const noexcept {
    return convolution_;
  }
  /// The table's length M (0 without a table).
  [[nodiscard]] std::uint64_t table_entries() const noexcept { return table_.entries(); }
  /// The number R of proposals every sample computes (0 with a table).
  [[nodiscard]] int proposals() const noexcept { return proposals_; }
  /// The binary digits B of each proposal's magnitude.
  [[nodiscard]] int digits() const noexcept { return geometric_.digits(); }
  /// The coins of each proposal's acceptance test.
  [[nodiscard]] int acceptance_coins() const noexcept { return accept_.coins(); }
  /// The 64-bit words every sample draws: R (1 + 2 B + 2 coins).
  [[nodiscard]] int words_per_sample() const noexcept {
    if (uses_table()) return 3;
    if (uses_convolution()) return convolution_.words();
    return proposals_ * (1 + geometric_.words() + accept_.words());
  }
  /// A lower bound on the probability that one proposal (with exact coins)
  /// is accepted.
  [[nodiscard]] double acceptance_lower_bound() const noexcept { return acceptance_lo_; }
  /// An upper bound on the probability that none of the R proposals (with
  /// exact coins) is accepted: below 2^-128.
  [[nodiscard]] double failure_bound() const noexcept { return failure_; }
  /// An upper bound tau on the total variation distance between a sample's
  /// law and the exact discrete Gaussian (see the file comment).
  [[nodiscard]] double total_variation_bound() const noexcept {
    if (uses_table()) return table_.total_variation();
    if (uses_convolution()) return convolution_.total_variation();
    const double per_proposal =
        detail::add_up(geometric_.total_variation(), accept_.total_variation());
    return detail::add_up(failure_, detail::mul_up(static_cast<double>(proposals_), per_proposal));
  }

 private:
  static constexpr int max_digits = 63;

  // The table's 320-bit recurrence is sized for at most 2^16 entries.
  static std::uint64_t check_table_limit(std::uint64_t max_table) {
    if (max_table > (std::uint64_t{1} << 16)) throw_invalid("max_table", max_table, "[0, 65536]");
    return max_table;
  }

  // p >= (1 - q) / 2 e^(-sigma^2 / (2 t^2)) max(1, sqrt(2 pi) sigma), each
  // factor computed in double and the product lowered by 2^-30 relative,
  // far more than the few roundings involved; R is the least count with
  // (1 - p_lo)^R <= 2^-128, and failure_ its bound raised by 2^-30 relative.
  int count_proposals() {
    const double t = static_cast<double>(exact_.proposal_scale());
    const double s2 = exact_.sigma2();
    const double one_minus_q = -std::expm1(-1 / t);
    const double z = std::max(1.0, std::sqrt(2 * std::numbers::pi * s2));
    acceptance_lo_ = one_minus_q / 2 * std::exp(-s2 / (2 * t * t)) * z * (1 - 0x1p-30);
    const double log_miss = std::log1p(-acceptance_lo_);  // < 0
    const double target = -128 * std::numbers::ln2;
    int r = static_cast<int>(std::ceil(target / log_miss));
    while (r * log_miss > target) ++r;
    failure_ = std::exp(r * log_miss) * (1 + 0x1p-30);
    return r;
  }

  discrete_gaussian_distribution exact_;
  detail::ct_gaussian_table table_;
  detail::ct_gaussian_convolution convolution_;
  detail::ct_geometric geometric_;
  detail::ct_exp_coin accept_;
  detail::uint128 bt_ = 0;
  std::uint64_t a_ = 0;
  int proposals_ = 0;
  double acceptance_lo_ = 0;
  double failure_ = 0;
};

}  // namespace privet
