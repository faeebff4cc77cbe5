// privet/algorithms/dpsu.hpp — differentially private set union (Gopi,
// Gulhane, Kulkarni, Shen, Shokouhi & Yekhanin 2020, "Differentially Private
// Set Union", ICML): release as many items of the users' sets as possible,
// from an unbounded universe, under user-level (eps, delta)-DP. Each user
// keeps at most max_items = Delta_0 of its distinct items (a uniform subset:
// sketches/key_bounding.hpp), adds an update of norm at most 1 to a histogram
// over the items, and the items whose weight plus noise exceeds a threshold
// rho are released.
//
// The update is a template parameter (update_policy):
//   weighted_gaussian  each of m kept items gets 1 / sqrt(m) (L2 norm 1), Gaussian noise
//   weighted_laplace   each gets 1 / m (L1 norm 1), Laplace noise
//   policy_gaussian    l2-descent towards a cutoff Gamma = rho + alpha sigma:
//                      the update (Gamma - H)_+ restricted to the user's items,
//                      scaled to L2 norm min(1, ||(Gamma - H)_+||)
//   policy_laplace     l1-descent: the L1 budget 1 water-filled over the user's
//                      items below Gamma, each raised by the same amount
// The weighted policies ignore the other users, so users are processed in
// parallel; the policies see the histogram so far, so users are processed
// one after another (Gopi et al. prove the l1- and l2-descent maps
// contractive, which keeps the sensitivity at 1).
//
// Privacy: the threshold makes the items only one user holds a (0, delta_t)
// event (mechanisms/tail_threshold.hpp); the noise is a Gaussian mechanism of
// L2 sensitivity 1 or a Laplace mechanism of L1 sensitivity 1. For a target
// (eps, delta), the Gaussian policies spend delta / 2 on each (DPNE's rho_1
// at delta / 2, Kim et al. 2021) and the Laplace policies eps on the noise
// and delta on the threshold; sigma comes from the accounting layer: the
// analytic Gaussian (Balle & Wang 2018) for simulation_only_noise's
// continuous Gaussian, and for secure_noise's discrete Gaussian its zCDP
// (Canonne, Kamath & Steinke 2020, Theorem 14, valid in any dimension)
// converted by their Corollary 13 (accounting/zcdp.hpp), as the library's
// gaussian_mechanism does above one dimension; about 5 % more noise.
//
// Fixed point. Weights are integers in units of 2^-b with b chosen so that
// the noise has 2^20 to 2^21 units per standard deviation (or Laplace
// scale); each user's weights are rounded down, so its update stays within
// norm 1 exactly and the histogram sums exactly in int64. A sum is data and
// never throws: when enough users (2^63 / 2^b) could take one past 2^63 - 1
// it saturates there (update_context::saturate), a 1-Lipschitz clamp that
// keeps every user's update within norm 1, so the sensitivity is unchanged.
// The descent policies never reach it (their counts stay below Gamma).
// The secure noise is then an exact discrete sample added to an exact
// integer, and the comparison with the threshold is exact. The weighted
// policies are exactly as private as stated. The policies' updates are
// computed from the rounded histogram and rounded down too, which keeps each
// update within norm 1 but makes the composed map contractive only up to
// 2^-b per coordinate and user (the paper's proof is in exact arithmetic,
// as is its floating-point reference implementation).
//
// Constant-time noise (Noise = constant_time_noise, issue 36). The exact
// samplers' running time follows their draws (Jin, McMurtry, Rubinstein &
// Ohrimenko 2022, "Are We There Yet? Timing and Floating-Point Attacks on
// Differential Privacy Systems"). With constant_time_noise the fixed point,
// scale, threshold and release are secure_noise's, the noise is drawn by the
// constant-time samplers (mechanisms/constant_time_noise.hpp), whose law per
// item is within total variation tau (below 2^-100) of the exact discrete
// Gaussian's (Laplace's), and the saturating sum is branch-free
// (detail::add_noise_saturating_ct); the one branch left is on whether the
// noisy weight passes the threshold, which the released set shows anyway.
// A run noises the items with a weight, a number that depends on the data
// and has no bound of its own; the guarantee must not depend on the data,
// so it is stated for max_noised_items = N = 2^64, more entries than a
// histogram can hold (its size is a size_t). For every input the run's
// output law is then within N tau of the exact-noise run's (a union bound
// over its samples), so the exact run's (eps, delta) gives (eps, delta +
// (1 + e^eps) N tau) by add_total_variation (core/guarantee.hpp). At the
// fixed point's 2^20 to 2^21 units per standard deviation tau is about
// 2^-117 for the Gaussian and 2^-122 for Laplace, so N tau is about 2^-53
// (8.5e-17), 2^-58 for Laplace. guarantee() reports exactly that; a run
// calibrated from parameters sets at least (1 + e^eps) N tau aside from
// delta first, so its raised guarantee stays within the target. Not
// constant time: the user pass (bounding, hashing, the histogram), and the
// number of draws is the number of items with a weight, so a run's time
// still follows that count (docs/security_model.md).
#pragma once

#include <privet/accounting/calibration.hpp>
#include <privet/accounting/composition.hpp>
#include <privet/accounting/gdp.hpp>
#include <privet/accounting/zcdp.hpp>
#include <privet/core/analytic_gaussian.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/integer_noise.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/mechanisms/noise.hpp>
#include <privet/mechanisms/tail_threshold.hpp>
#include <privet/sketches/contribution_bounding.hpp>
#include <privet/sketches/key_bounding.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <exception>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <ranges>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::dpsu {

/// The norm in which each user's update is at most 1: L2 goes with Gaussian
/// noise, L1 with Laplace noise.
enum class update_norm { l1, l2 };

/// What an update policy is told besides the user's items.
struct update_context {
  unsigned scale_bits = 0;        ///< weights are integers in units of 2^-scale_bits
  std::int64_t cutoff_units = 0;  ///< Gamma in those units (descent policies only)
  /// Whether the weight sums could pass 2^63 - 1 (enough users times 2^b),
  /// so that updates must saturate there (add_weight); set by accumulate.
  bool saturate = false;
};

namespace detail {

/// The update budget, 1 in units of 2^-b.
inline std::int64_t unit_of(const update_context& c) {
  return std::int64_t{1} << c.scale_bits;
}

/// h[k] += w (w >= 0), saturating at 2^63 - 1 when c.saturate says the sums
/// could get there (the file comment: a weight sum is data and never
/// throws; the clamp is 1-Lipschitz, so each user's norm bound holds).
template <class Key>
void add_weight(sparse_histogram<Key, std::int64_t>& h, const Key& k, std::int64_t w,
                const update_context& c) {
  if (c.saturate) {
    privet::detail::add_saturating(h, k, w);
  } else {
    h.add(k, w);
  }
}

/// The gaps Gamma - H[u] > 0 of the user's items below the cutoff.
template <class Key>
void gaps_below_cutoff(std::span<const Key> items, const sparse_histogram<Key, std::int64_t>& h,
                       const update_context& c, std::vector<std::pair<Key, std::int64_t>>& out) {
  out.clear();
  for (const Key& k : items) {
    const std::int64_t current = h[k];
    if (current < c.cutoff_units) out.emplace_back(k, c.cutoff_units - current);
  }
}

}  // namespace detail

/// DPSU's weighted update (Gopi et al. 2020): each of the m kept items gets
/// floor(2^b / sqrt(m)) units (sketches/key_bounding.hpp's exact weight), L2
/// norm <= 1.
struct weighted_gaussian {
  static constexpr update_norm norm = update_norm::l2;  ///< L2: Gaussian noise
  static constexpr bool sequential = false;             ///< users run in parallel

  /// Adds to `h` the update of one user whose kept distinct items are
  /// `items`, in units of 2^-c.scale_bits.
  template <class Key>
  void update(std::span<const Key> items, sparse_histogram<Key, std::int64_t>& h,
              const update_context& c) const {
    if (items.empty()) return;
    const std::int64_t w =
        l2_normalized_keys<std::uint64_t, std::uint64_t>(1, c.scale_bits).weight(items.size());
    for (const Key& k : items) detail::add_weight(h, k, w, c);
  }
  /// No cutoff: the weights do not depend on the histogram.
  [[nodiscard]] double cutoff(double rho, double) const noexcept { return rho; }
};

/// Each of the m kept items gets floor(2^b / m) units, L1 norm <= 1.
struct weighted_laplace {
  static constexpr update_norm norm = update_norm::l1;  ///< L1: Laplace noise
  static constexpr bool sequential = false;             ///< users run in parallel

  /// Adds to `h` the update of one user whose kept distinct items are
  /// `items`, in units of 2^-c.scale_bits.
  template <class Key>
  void update(std::span<const Key> items, sparse_histogram<Key, std::int64_t>& h,
              const update_context& c) const {
    if (items.empty()) return;
    const std::int64_t w = detail::unit_of(c) / static_cast<std::int64_t>(items.size());
    for (const Key& k : items) detail::add_weight(h, k, w, c);
  }
  /// No cutoff: the weights do not depend on the histogram.
  [[nodiscard]] double cutoff(double rho, double) const noexcept { return rho; }
};

/// Gopi et al.'s Policy Gaussian: l2-descent towards the cutoff Gamma =
/// rho + alpha sigma over the user's items still below it.
struct policy_gaussian {
  static constexpr update_norm norm = update_norm::l2;  ///< L2: Gaussian noise
  static constexpr bool sequential = true;              ///< reads the histogram: users in turn
  /// Gamma = rho + alpha sigma. Not checked here: set_union's constructor
  /// refuses a non-finite alpha, or one that puts Gamma beyond 2^63 weight
  /// units, naming `policy.alpha` (invalid_parameter).
  double alpha = 3;

  /// Adds to `h` the update of one user whose kept distinct items are
  /// `items`: the gaps (Gamma - H)_+ of the items below the cutoff, scaled
  /// down to L2 norm 2^b when longer and rounded down, checked exactly in
  /// 128-bit integers. O(m) for m items, plus a few rounding corrections.
  template <class Key>
  void update(std::span<const Key> items, sparse_histogram<Key, std::int64_t>& h,
              const update_context& c) const {
    std::vector<std::pair<Key, std::int64_t>> gaps;
    detail::gaps_below_cutoff(items, h, c, gaps);
    if (gaps.empty()) return;
    const std::int64_t budget = detail::unit_of(c);
    privet::detail::uint128 norm2 = 0;
    for (const auto& g : gaps)
      norm2 +=
          static_cast<privet::detail::uint128>(g.second) * static_cast<std::uint64_t>(g.second);
    const auto budget2 =
        static_cast<privet::detail::uint128>(budget) * static_cast<std::uint64_t>(budget);
    if (norm2 <= budget2) {  // every item reaches the cutoff within the budget
      for (const auto& g : gaps) h.add(g.first, g.second);
      return;
    }
    // Scale the gap vector to norm 2^b, rounding each coordinate down; the
    // exact integer check then removes any excess the doubles let through.
    const long double scale =
        static_cast<long double>(budget) / std::sqrt(static_cast<long double>(norm2));
    std::vector<std::int64_t> step(gaps.size());
    privet::detail::uint128 used = 0;
    for (std::size_t i = 0; i < gaps.size(); ++i) {
      step[i] = std::min(
          gaps[i].second,
          static_cast<std::int64_t>(std::floor(static_cast<long double>(gaps[i].second) * scale)));
      used += static_cast<privet::detail::uint128>(step[i]) * static_cast<std::uint64_t>(step[i]);
    }
    while (used > budget2) {
      const auto top =
          static_cast<std::size_t>(std::max_element(step.begin(), step.end()) - step.begin());
      used -=
          static_cast<privet::detail::uint128>(step[top]) * static_cast<std::uint64_t>(step[top]);
      --step[top];
      used +=
          static_cast<privet::detail::uint128>(step[top]) * static_cast<std::uint64_t>(step[top]);
    }
    for (std::size_t i = 0; i < gaps.size(); ++i)
      if (step[i] > 0) h.add(gaps[i].first, step[i]);
  }
  /// Gamma = rho + alpha sigma, in weight units.
  [[nodiscard]] double cutoff(double rho, double sigma) const { return rho + alpha * sigma; }
};

/// Gopi et al.'s Policy Laplace: l1-descent, the budget spread so that the
/// user's items below Gamma = rho + alpha b rise by one common amount
/// lambda, each capped at Gamma (water-filling, in whole units).
struct policy_laplace {
  static constexpr update_norm norm = update_norm::l1;  ///< L1: Laplace noise
  static constexpr bool sequential = true;              ///< reads the histogram: users in turn
  /// Gamma = rho + alpha b. Not checked here: set_union's constructor
  /// refuses a non-finite alpha, or one that puts Gamma beyond 2^63 weight
  /// units, naming `policy.alpha` (invalid_parameter).
  double alpha = 3;

  /// Adds to `h` the update of one user whose kept distinct items are
  /// `items`: the largest common rise lambda of the items below the cutoff
  /// whose L1 cost, each item capped at its gap, fits 2^b units. O(m log m)
  /// for m items (a sort of the gaps).
  template <class Key>
  void update(std::span<const Key> items, sparse_histogram<Key, std::int64_t>& h,
              const update_context& c) const {
    std::vector<std::pair<Key, std::int64_t>> gaps;
    detail::gaps_below_cutoff(items, h, c, gaps);
    if (gaps.empty()) return;
    const std::int64_t budget = detail::unit_of(c);
    std::sort(gaps.begin(), gaps.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    // lambda: the largest level with sum_i min(gap_i, lambda) <= budget.
    std::int64_t lambda = gaps.back().second;
    std::int64_t below = 0;  // sum of the gaps already filled
    for (std::size_t i = 0; i < gaps.size(); ++i) {
      const auto rest = static_cast<std::int64_t>(gaps.size() - i);
      const std::int64_t g = gaps[i].second;
      // Raising all remaining items to g costs below + rest * g (no overflow:
      // g < 2^62 and rest <= max_items keep it in int128).
      const privet::detail::int128 cost = static_cast<privet::detail::int128>(below) +
                                          static_cast<privet::detail::int128>(rest) * g;
      if (cost > budget) {
        lambda = (budget - below) / rest;
        break;
      }
      below += g;
    }
    for (const auto& g : gaps) {
      const std::int64_t step = std::min(g.second, lambda);
      if (step > 0) h.add(g.first, step);
    }
  }
  /// Gamma = rho + alpha b, in weight units.
  [[nodiscard]] double cutoff(double rho, double scale) const { return rho + alpha * scale; }
};

/// An update rule: its norm, whether it reads the histogram (and so needs
/// users in sequence), its update and its cutoff from the threshold and the
/// noise scale.
template <class P>
concept update_policy = std::copy_constructible<P> && requires {
  { P::norm } -> std::convertible_to<update_norm>;
  { P::sequential } -> std::convertible_to<bool>;
} && requires(const P& p, std::span<const std::uint64_t> items,
              sparse_histogram<std::uint64_t, std::int64_t>& h, const update_context& c) {
  p.update(items, h, c);
  { p.cutoff(1.0, 1.0) } -> std::convertible_to<double>;
};

/// The number of items a constant-time run's guarantee is stated for: 2^64,
/// more than any histogram holds (its size is a size_t), so that the
/// guarantee never depends on how many items the data gives a weight.
inline constexpr double max_noised_items = 0x1p64;
static_assert(sizeof(std::size_t) <= 8, "max_noised_items bounds a size_t");

/// Noise on fixed-point weights: Gaussian (L2) or Laplace (L1) with scale
/// `scale` in weight units, where one user's update has norm <= 1. The
/// weights' unit 2^-b puts 2^20 to 2^21 units in one scale; secure_noise
/// samples the discrete Gaussian (Laplace) in those units, exactly, and
/// rounds its variance (scale) up; simulation_only_noise samples the
/// continuous law with doubles.
///
/// With constant_time_noise the samples come from the constant-time
/// samplers and guarantee() is the exact noise's, within the total variation
/// of max_noised_items samples (see the file comment).
template <update_norm Norm, mechanism_noise_policy Noise>
class fixed_point_noise {
  static constexpr bool ct = std::same_as<Noise, constant_time_noise>;
  // The integer mechanisms' policy: secure_noise for simulation_only_noise
  // too (never built then).
  using grid = std::conditional_t<ct, constant_time_noise, secure_noise>;

 public:
  /// pure DP for Laplace; zCDP for the discrete Gaussian; GDP for the
  /// continuous one; within_tv of pure DP or zCDP with constant_time_noise.
  using guarantee_type = std::conditional_t<
      Norm == update_norm::l1, std::conditional_t<ct, within_tv<pure_dp>, pure_dp>,
      std::conditional_t<ct, within_tv<zcdp>,
                         std::conditional_t<std::same_as<Noise, secure_noise>, zcdp, gdp>>>;

  /// Throws invalid_parameter naming `scale` unless it is finite, > 0 and
  /// within the samplers' range (about 2^-20 to 2^31).
  explicit fixed_point_noise(double scale) {
    validate_positive(scale, "scale");
    bits_ = static_cast<unsigned>(std::clamp(20 - std::ilogb(scale), 1, 40));
    const double units = std::ldexp(scale, static_cast<int>(bits_));  // exact
    if (!(units < 3.5e9)) throw_invalid("scale", scale, "finite, > 0 and below about 2^31");
    if constexpr (Norm == update_norm::l2 && grid_noise<Noise>) {
      gauss_.emplace(discrete_gaussian_mechanism<std::int64_t, grid>::from_scale(units));
      const auto& d = gauss_->distribution();
      scale_units_ = privet::detail::sqrt_up(privet::detail::div_up(
          privet::detail::u64_up(d.sigma2_num()), privet::detail::u64_down(d.sigma2_den())));
    } else if constexpr (Norm == update_norm::l1 && grid_noise<Noise>) {
      lap_.emplace(discrete_laplace_mechanism<std::int64_t, grid>::from_scale(units));
      const auto& d = lap_->distribution();
      scale_units_ = privet::detail::div_up(privet::detail::u64_up(d.scale_num()),
                                            privet::detail::u64_down(d.scale_den()));
    } else if constexpr (Norm == update_norm::l1) {
      sim_lap_.emplace(laplace_mechanism<double, simulation_only_noise>::from_scale(units));
      scale_units_ = units;
    } else {
      scale_units_ = units;
    }
  }

  /// b: weights are integers in units of 2^-b, b in [1, 40].
  [[nodiscard]] unsigned scale_bits() const noexcept { return bits_; }
  /// 2^b: one weight unit in the fixed point.
  [[nodiscard]] double unit() const noexcept { return std::ldexp(1.0, static_cast<int>(bits_)); }
  /// The noise's scale in fixed-point units (rounded up from the sampler's).
  [[nodiscard]] double scale_units() const noexcept { return scale_units_; }
  /// The same in weight units.
  [[nodiscard]] double scale() const noexcept {
    return std::ldexp(scale_units_, -static_cast<int>(bits_));
  }

  /// The guarantee of one release (a histogram of any number of items,
  /// noised) for updates of norm 1 (2^b units), from the mechanism's privacy
  /// map. With constant_time_noise: the exact noise's, within total
  /// variation max_noised_items times sampler_total_variation() (rounded up,
  /// at most 1), whatever the number of items the data gives.
  [[nodiscard]] guarantee_type guarantee() const {
    const double d = unit();
    if constexpr (ct) {
      const double tau = privet::detail::mul_up(max_noised_items, sampler_total_variation());
      if constexpr (Norm == update_norm::l2) {
        return guarantee_type(gauss_->guarantee(d).base(), tau < 1 ? tau : 1.0);
      } else {
        return guarantee_type(lap_->guarantee(d).base(), tau < 1 ? tau : 1.0);
      }
    } else if constexpr (Norm == update_norm::l2 && std::same_as<Noise, secure_noise>) {
      return gauss_->guarantee(d);
    } else if constexpr (Norm == update_norm::l2) {
      return gdp_gaussian(scale_units_, d);
    } else if constexpr (std::same_as<Noise, secure_noise>) {
      return lap_->guarantee(d);
    } else {
      return sim_lap_->guarantee(d);
    }
  }

  /// The total variation tau between one sample's law and the exact one:
  /// the constant-time sampler's bound, 0 for the other policies.
  [[nodiscard]] double sampler_total_variation() const noexcept {
    if constexpr (ct) {
      if constexpr (Norm == update_norm::l2) {
        return gauss_->sampler_total_variation();
      } else {
        return lap_->sampler_total_variation();
      }
    } else {
      return 0;
    }
  }

  /// ceil(x 2^b) for a threshold x in weight units. Throws overflow_error if
  /// it leaves int64.
  [[nodiscard]] std::int64_t to_units(double x) const {
    validate_finite(x, "x");
    const double u = std::ceil(std::ldexp(x, static_cast<int>(bits_)));
    if (!(u > -0x1p63 && u < 0x1p63)) {
      throw overflow_error("privet: threshold " + privet::detail::format_value(x) +
                           " in units of 2^-" + std::to_string(bits_) +
                           " does not fit int64; allowed: |x| 2^b < 2^63");
    }
    return static_cast<std::int64_t>(u);
  }

  /// Whether weight + noise > tau (both in units).
  template <random_bit_source G>
  bool passes(std::int64_t weight, std::int64_t tau, G& gen) const {
    // With constant_time_noise the sample and the saturating sum are
    // branch-free; the comparison's result is what the release shows.
    if constexpr (Norm == update_norm::l2 && grid_noise<Noise>) {
      return (*gauss_)(weight, gen) > tau;
    } else if constexpr (Norm == update_norm::l1 && grid_noise<Noise>) {
      return (*lap_)(weight, gen) > tau;
    } else if constexpr (Norm == update_norm::l1) {
      return (*sim_lap_)(static_cast<double>(weight), gen) > static_cast<double>(tau);
    } else {
      std::normal_distribution<double> n(0.0, scale_units_);
      return static_cast<double>(weight) + n(gen) > static_cast<double>(tau);
    }
  }

  /// P[weight + noise > tau], accurate to about 1e-16 relative (for DPNE's
  /// count of spurious grams and for tests): pass_probability_bounds'
  /// estimate.
  [[nodiscard]] double pass_probability(std::int64_t weight, std::int64_t tau) const {
    return static_cast<double>(pass_probability_bounds(weight, tau).estimate);
  }

  /// P[weight + noise > tau] for the exact law (for constant_time_noise
  /// too: its samples are within sampler_total_variation() of it), with
  /// certified bounds (mechanisms/tail_threshold.hpp): the discrete
  /// Gaussian's tail, the normal tail, or the Laplace tails in closed form
  /// with libm_allowance per exponential (amplified by the exponent).
  [[nodiscard]] probability_bounds pass_probability_bounds(std::int64_t weight,
                                                           std::int64_t tau) const {
    const auto gap = static_cast<long double>(tau) - static_cast<long double>(weight);
    const long double allowance = privet::detail::libm_allowance;
    // Beyond 2^62 units (2^62 / 2^bits weight units, more than 2^30 sigma for
    // every grid) the tail is below the smallest long double.
    const long double tiny = std::numeric_limits<long double>::denorm_min();
    if constexpr (grid_noise<Noise>) {
      if (!(gap < 0x1p62L && gap > -0x1p62L)) {
        return gap > 0 ? probability_bounds{0, 0, tiny} : probability_bounds{1 - tiny, 1, 1};
      }
    }
    if constexpr (Norm == update_norm::l2 && grid_noise<Noise>) {
      return discrete_gaussian_upper_tail_bounds(gauss_->distribution(),
                                                 static_cast<std::int64_t>(gap) + 1);
    } else if constexpr (Norm == update_norm::l2) {
      return normal_upper_tail_bounds(gap / static_cast<long double>(scale_units_));
    } else {
      // Laplace: P[Z >= k] = q^k / (1 + q) for k >= 1 and 1 - q^(1-k) / (1 + q)
      // below (discrete, q = e^{-1/b}); P[L > x] = e^{-x} / 2 for x >= 0 and
      // 1 - e^{x} / 2 below (continuous, x in scales).
      long double part = 0, exponent = 0;
      bool upper_part = true;
      if constexpr (grid_noise<Noise>) {
        const auto& d = lap_->distribution();
        const long double inv =
            static_cast<long double>(d.scale_den()) / static_cast<long double>(d.scale_num());
        const long double k = gap + 1;
        upper_part = k >= 1;
        exponent = (upper_part ? k : 1 - k) * inv;
        part = std::exp(-exponent) / (1 + std::exp(-inv));
      } else {
        const long double x = gap / static_cast<long double>(scale_units_);
        upper_part = x >= 0;
        exponent = std::fabs(x);
        part = std::exp(-exponent) / 2;
      }
      // exp's error is relative in the normal range, absolute below it.
      const long double rel = allowance * (4 + exponent);
      const long double floor = std::numeric_limits<long double>::min();
      probability_bounds b{std::max(0.0L, privet::detail::step_down(part * (1 - rel) - floor)),
                           part, std::min(1.0L, privet::detail::step_up(part * (1 + rel) + floor))};
      return upper_part ? b : privet::detail::complement(b);
    }
  }

 private:
  unsigned bits_ = 0;
  double scale_units_ = 0;
  std::optional<discrete_gaussian_mechanism<std::int64_t, grid>> gauss_;
  std::optional<discrete_laplace_mechanism<std::int64_t, grid>> lap_;
  std::optional<laplace_mechanism<double, simulation_only_noise>> sim_lap_;
};

/// The (eps, delta) of a noise guarantee at `delta`: pure DP has delta 0
/// and ignores it; zCDP and GDP convert by to_approx_dp (Canonne, Kamath &
/// Steinke 2020, Corollary 13; the exact GDP curve), which throws
/// invalid_parameter for a delta outside (0, 1).
///@{
inline approx_dp at_delta(const pure_dp& g, double) {
  return approx_dp(g.epsilon(), 0);
}
inline approx_dp at_delta(const zcdp& g, double delta) {
  return to_approx_dp(g, delta);
}
inline approx_dp at_delta(const gdp& g, double delta) {
  return to_approx_dp(g, delta);
}
///@}

/// The (eps, delta) of a set-union run whose noise has guarantee `noise`:
/// the noise at noise_delta (at_delta) and the threshold's (0,
/// threshold_delta) by basic composition. For constant-time noise
/// (within_tv<G>), the exact noise's run so composed, then raised by
/// add_total_variation to (eps, delta + (1 + e^eps) tau) for the noise's
/// distance tau (see the file comment).
///@{
template <class G>
approx_dp run_guarantee(const G& noise, double noise_delta, double threshold_delta) {
  return compose_basic({at_delta(noise, noise_delta), approx_dp(0, threshold_delta)});
}
template <tv_qualifiable Base>
approx_dp run_guarantee(const within_tv<Base>& noise, double noise_delta, double threshold_delta) {
  return add_total_variation(run_guarantee(noise.base(), noise_delta, threshold_delta),
                             noise.total_variation());
}
///@}

/// sigma for Gaussian noise on a query of L2 sensitivity 1 that meets
/// `target`, from the accounting layer: the analytic Gaussian (Balle & Wang
/// 2018) for simulation_only_noise's continuous Gaussian; for secure_noise's
/// discrete Gaussian the least sigma whose zCDP 1 / (2 sigma^2) converts to
/// target.epsilon at target.delta (Canonne, Kamath & Steinke 2020,
/// Corollary 13), to 1e-12 relative, rounded up. constant_time_noise
/// samples the same discrete Gaussian: secure_noise's sigma.
template <mechanism_noise_policy Noise>
double gaussian_sigma(const approx_dp& target) {
  validate_epsilon(target.epsilon(), "target.epsilon");
  validate_delta_positive(target.delta(), "target.delta");
  if constexpr (grid_noise<Noise>) {
    return smallest_noise_multiplier(
        [&](double s) { return to_approx_dp(zcdp_gaussian(s), target.delta()).epsilon(); },
        target.epsilon(), 1e-12);
  } else {
    return analytic_gaussian_sigma(target, 1);
  }
}

/// Users are processed in chunks of this many, so that the records of one
/// chunk (and never of all users) are in memory at once.
inline constexpr std::size_t chunk_users = 1024;

/// The most records a chunk holds before its users are bounded (2^18, a few
/// MiB): a chunk that reaches it is bounded at the next user boundary, and
/// a user who alone reaches it is reduced while its items arrive (below),
/// so memory follows this and max_items, never the items one user holds.
inline constexpr std::size_t buffered_records = std::size_t{1} << 18;

namespace detail {

/// The records of a chunk's users, bounded per user by bound_keys' bottom-k
/// rule. A user with buffered_records records or more is reduced segment by
/// segment: each segment's bottom-k (its max_items distinct keys of least
/// priority) is merged into the user's, which is exact because a key among
/// the max_items least priorities of all the user's keys is among those of
/// every segment holding it. The reduced keys go back into the chunk as the
/// user's records, so the chunk's own bounding keeps all of them.
template <class Key>
class chunk_buffer {
 public:
  using selector = bound_keys<std::uint64_t, Key>;
  using record = unit_record<std::uint64_t, Key>;
  using kept_key = typename selector::kept_key;

  chunk_buffer(const selector& select, std::uint64_t salt, std::size_t limit)
      : select_(select), salt_(salt), limit_(limit) {}

  void begin_user(std::uint64_t u) {
    unit_ = u;
    tail_ = records_.size();
    reduced_.clear();
    spilled_ = false;
  }
  void push(const Key& k) {
    records_.push_back(record{unit_, k});
    if (records_.size() - tail_ >= limit_) reduce_tail();
  }
  void end_user() {
    if (!spilled_) return;
    reduce_tail();
    for (const kept_key& k : reduced_) records_.push_back(record{unit_, k.key});
    reduced_.clear();
  }
  [[nodiscard]] bool full() const noexcept { return records_.size() >= limit_; }

  /// Bounds the buffered users, calling visit(kept) with each one's kept
  /// keys (a range of kept_key), and empties the buffer.
  template <class Visit>
  void flush(Visit&& visit) {
    if (records_.empty()) return;
    select_.select(records_, salt_, [&](const std::uint64_t&, const auto& kept) { visit(kept); });
    records_.clear();
  }

 private:
  void reduce_tail() {
    const std::span<const record> tail(records_.data() + tail_, records_.size() - tail_);
    select_.select(tail, salt_, [&](const std::uint64_t&, const auto& kept) {
      reduced_.insert(reduced_.end(), kept.begin(), kept.end());
    });
    records_.erase(records_.begin() + static_cast<std::ptrdiff_t>(tail_), records_.end());
    // The least priorities, each key once (a key has one priority per
    // user and salt, so its copies are neighbours after the sort).
    std::sort(reduced_.begin(), reduced_.end(),
              [](const kept_key& a, const kept_key& b) { return a.priority < b.priority; });
    std::size_t n = 0;
    for (std::size_t i = 0; i < reduced_.size(); ++i) {
      bool repeat = false;
      for (std::size_t j = n; j-- > 0 && reduced_[j].priority == reduced_[i].priority;) {
        if (reduced_[j].key == reduced_[i].key) {
          repeat = true;
          break;
        }
      }
      if (!repeat) reduced_[n++] = reduced_[i];
    }
    const auto keep = static_cast<std::size_t>(std::min<std::uint64_t>(n, select_.max_keys()));
    reduced_.erase(reduced_.begin() + static_cast<std::ptrdiff_t>(keep), reduced_.end());
    spilled_ = true;
  }

  const selector& select_;
  std::uint64_t salt_;
  std::size_t limit_;
  std::vector<record> records_;
  std::vector<kept_key> reduced_;  // the current user's bottom-k so far, once spilled
  std::uint64_t unit_ = 0;
  std::size_t tail_ = 0;  // where the current user's records start
  bool spilled_ = false;
};

}  // namespace detail

/// Where an emit of the streaming form puts a user's items, one at a time
/// (emit(u, sink) calling sink.push_back(item) or sink(item)): the items
/// are bounded as they arrive and never held all at once.
template <class Key>
class item_sink {
 public:
  /// A sink into accumulate's buffer; made by accumulate, not by callers.
  explicit item_sink(detail::chunk_buffer<Key>& buffer) noexcept : buffer_(&buffer) {}
  /// Hands one item of the current user to the bounding.
  void push_back(const Key& k) { buffer_->push(k); }
  /// The same as push_back(k).
  void operator()(const Key& k) { buffer_->push(k); }

 private:
  detail::chunk_buffer<Key>* buffer_;
};

/// emit(u, out) appends user u's items to `out`: a std::vector<Key> (the
/// user's items are then held at once, emit's choice), or an
/// item_sink<Key> (streamed: memory does not grow with the user's items).
/// The vector form is used when emit accepts both.
template <class Emit, class Key>
concept item_emitter = std::invocable < const Emit&,
        std::size_t, std::vector<Key>
& > || std::invocable<const Emit&, std::size_t, item_sink<Key>&>;

/// The fixed-point histogram of the users' updates: users 0..users-1, where
/// emit(i, out) appends user i's items to `out` (item_emitter: any order,
/// repeats allowed; called from several threads at once when the policy is
/// not sequential). Each user keeps at most max_items of its distinct items,
/// a uniform subset chosen by bound_keys' bottom-k rule with `salt`, then
/// policy.update adds its update. The weighted policies run on `threads`
/// threads (the result does not depend on their number); the descent
/// policies run in one, chunk after chunk. Memory beyond the histogram:
/// about buffered_records records and max_items keys per thread (plus, for
/// an emit of the vector form, one user's items). A weight sum saturates at
/// 2^63 - 1 rather than overflow (file comment); nothing here throws for data.
template <class Key, update_policy Policy, item_emitter<Key> Emit>
sparse_histogram<Key, std::int64_t> accumulate(const Policy& policy, std::size_t users,
                                               const Emit& emit, std::uint64_t max_items,
                                               const update_context& context, std::uint64_t salt,
                                               unsigned threads) {
  validate_at_least<std::uint64_t>(max_items, 1, "max_items");
  validate_at_least<unsigned>(threads, 1, "threads");
  const bound_keys<std::uint64_t, Key> select(max_items, 1);
  // Each user adds at most 2^b to a count (an update of norm <= 1).
  update_context ctx = context;
  ctx.saturate = ctx.saturate ||
                 privet::detail::may_saturate(static_cast<std::uint64_t>(users),
                                              std::uint64_t{1} << std::min(ctx.scale_bits, 62u));
  const std::size_t chunks = (users + chunk_users - 1) / chunk_users;
  auto run_chunk = [&](std::size_t c, sparse_histogram<Key, std::int64_t>& h,
                       detail::chunk_buffer<Key>& buffer, std::vector<Key>& items,
                       std::vector<Key>& kept) {
    const auto update = [&](const auto& chosen) {
      kept.clear();
      for (const auto& k : chosen) kept.push_back(k.key);
      policy.update(std::span<const Key>(kept), h, ctx);
    };
    const std::size_t end = std::min(users, (c + 1) * chunk_users);
    for (std::size_t u = c * chunk_users; u < end; ++u) {
      buffer.begin_user(static_cast<std::uint64_t>(u));
      if constexpr (std::invocable<const Emit&, std::size_t, std::vector<Key>&>) {
        items.clear();
        emit(u, items);
        for (const Key& k : items) buffer.push(k);
      } else {
        item_sink<Key> sink(buffer);
        emit(u, sink);
      }
      buffer.end_user();
      if (buffer.full()) buffer.flush(update);
    }
    buffer.flush(update);
  };
  if (Policy::sequential || threads == 1 || chunks <= 1) {
    sparse_histogram<Key, std::int64_t> h;
    detail::chunk_buffer<Key> buffer(select, salt, buffered_records);
    std::vector<Key> items, kept;
    for (std::size_t c = 0; c < chunks; ++c) run_chunk(c, h, buffer, items, kept);
    return h;
  }
  const unsigned workers_n = static_cast<unsigned>(std::min<std::size_t>(threads, chunks));
  std::vector<sparse_histogram<Key, std::int64_t>> parts(workers_n);
  std::vector<std::exception_ptr> errors(workers_n);
  std::atomic<std::size_t> next{0};
  {
    std::vector<std::thread> workers;
    workers.reserve(workers_n);
    for (unsigned t = 0; t < workers_n; ++t) {
      workers.emplace_back([&, t] {
        try {
          detail::chunk_buffer<Key> buffer(select, salt, buffered_records);
          std::vector<Key> items, kept;
          for (std::size_t c = next++; c < chunks; c = next++) {
            run_chunk(c, parts[t], buffer, items, kept);
          }
        } catch (...) {
          errors[t] = std::current_exception();
          next = chunks;  // the others stop at their next chunk
        }
      });
    }
    for (auto& w : workers) w.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  // Integer sums: the merged histogram does not depend on who added what
  // (saturation included: min(a + b, max) is associative over non-negative
  // weights).
  for (unsigned t = 1; t < workers_n; ++t) {
    if (ctx.saturate) {
      privet::detail::merge_saturating(parts[0], parts[t]);
    } else {
      parts[0].merge(parts[t]);
    }
  }
  return std::move(parts[0]);
}

/// A set-union run's parameters: the target guarantee for the whole run,
/// the contribution bound Delta_0 and the threads for the user passes.
struct parameters {
  double epsilon = 0;             ///< finite, > 0 (0 by default: must be set)
  double delta = 0;               ///< in (0, 1), < 0.5 for the Laplace policies (must be set)
  std::uint64_t max_items = 100;  ///< Delta_0: distinct items kept per user
  unsigned threads = 1;           ///< >= 1, for the weighted policies' user pass

  /// Throws invalid_parameter naming epsilon (finite, > 0), delta (in
  /// (0, 1)), max_items (>= 1) or threads (>= 1).
  void validate() const {
    validate_epsilon(epsilon);
    validate_delta_positive(delta);
    validate_at_least<std::uint64_t>(max_items, 1, "max_items");
    validate_at_least<unsigned>(threads, 1, "threads");
  }
};

/// What a run released: the items (sorted) and how many had a weight.
template <class Key>
struct release {
  std::vector<Key> items;   ///< the released items, in increasing key order
  std::size_t support = 0;  ///< distinct items with a nonzero weight
};

/// DPSU (Gopi et al. 2020, Algorithm 1 with the chosen update policy) with
/// update policy `Policy` and noise policy `Noise`: calibrated once, then
/// run on any number of user sets, each run (eps, delta)-DP at the user
/// level as stated by guarantee(). A run costs one pass over the users'
/// items (bounded to max_items per user as they arrive) and one noise draw
/// per distinct item with a weight. With constant_time_noise every draw
/// takes the same work and guarantee() includes the samplers' total
/// variation (see the file comment).
template <update_policy Policy = weighted_gaussian,
          mechanism_noise_policy Noise = constant_time_noise>
class set_union {
 public:
  /// The fixed-point noise of the policy's norm.
  using noise_type = fixed_point_noise<Policy::norm, Noise>;
  /// pure_dp (Laplace), zcdp (discrete Gaussian) or gdp (continuous);
  /// within_tv of the first two with constant_time_noise.
  using guarantee_type = typename noise_type::guarantee_type;

  /// Calibrated to (p.epsilon, p.delta) for the whole run: the Gaussian
  /// policies spend delta / 2 on the noise and delta / 2 on the threshold,
  /// the Laplace ones epsilon on the noise and delta on the threshold. With
  /// constant_time_noise, a share of delta of at least (1 + e^eps)
  /// max_noised_items tau is set aside first and the rest split so.
  /// Throws invalid_parameter as parameters::validate does, for
  /// delta >= 0.5 with the Laplace policies, and (`delta`) for a delta
  /// below twice the constant-time samplers' share.
  explicit set_union(const parameters& p, Policy policy = {})
      : set_union(calibrate(p), p.max_items, p.threads, std::move(policy)) {}

  /// Noise of `scale` (Gaussian sigma or Laplace b, in weight units) and a
  /// threshold for `threshold_delta`, for callers that split a budget
  /// themselves through the accounting layer (DPNE's first level, DPSU-even).
  /// guarantee() then throws; guarantee(noise_delta) gives the run's.
  /// @throws privet::invalid_parameter unless scale is finite, > 0 and below
  /// about 2^31, threshold_delta is in (0, 1) ((0, 0.5) for the Laplace
  /// policies), and max_items and threads are >= 1
  /// @throws privet::overflow_error if rho or the cutoff, in fixed-point
  /// units, does not fit int64
  static set_union with_noise(double scale, double threshold_delta, std::uint64_t max_items,
                              unsigned threads = 1, Policy policy = {}) {
    validate_positive(scale, "scale");
    validate_delta_positive(threshold_delta, "threshold_delta");
    // The Laplace tail bound needs delta < 1/2; checked here so that the
    // message names the caller's parameter, not the bound's own `delta`.
    if constexpr (Policy::norm == update_norm::l1) {
      if (!(threshold_delta < 0.5))
        throw_invalid("threshold_delta", threshold_delta, "(0, 0.5) for the Laplace policies");
    }
    return set_union(plan{scale, threshold_delta, std::numeric_limits<double>::quiet_NaN()},
                     max_items, threads, std::move(policy));
  }

  /// Runs on `users`, a random-access range whose elements are ranges of
  /// the user's items (repeats allowed). Keys must be totally ordered (the
  /// noise is drawn in key order, so a seeded generator repeats the run).
  /// A user's items are read once, as they come (a lazy range is never
  /// held whole), and bounded to max_items while they arrive.
  template <std::ranges::random_access_range Users, random_bit_source G>
  requires std::ranges::input_range<std::ranges::range_reference_t<const Users&>>
  auto operator()(const Users& users, G& gen) const {
    using Key = std::remove_cvref_t<
        std::ranges::range_value_t<std::ranges::range_reference_t<const Users&>>>;
    const auto n = static_cast<std::size_t>(std::ranges::size(users));
    return run<Key>(
        n,
        [&](std::size_t i, item_sink<Key>& out) {
          for (const auto& k : users[static_cast<std::ranges::range_difference_t<const Users&>>(i)])
            out.push_back(k);
        },
        gen);
  }

  /// Runs on `users` users whose items emit(i, out) appends (see accumulate):
  /// the salt of the bounding and then, in increasing key order, one noise
  /// draw per item with a weight, all from `gen`. Nothing here throws for
  /// data; what emit throws propagates.
  template <class Key, item_emitter<Key> Emit, random_bit_source G>
  requires std::totally_ordered<Key> release<Key> run(std::size_t users, const Emit& emit, G& gen)
  const {
    const update_context ctx{noise_.scale_bits(), cutoff_units_};
    const auto h =
        accumulate<Key>(policy_, users, emit, max_items_, ctx, random_u64(gen), threads_);
    release<Key> out;
    out.support = h.size();
    for (const auto& [k, w] : h.sorted_by_key()) {
      if (noise_.passes(w, threshold_units_, gen)) out.items.push_back(k);
    }
    return out;
  }

  /// The noise as built (its scale is rounded up from the calibrated one).
  [[nodiscard]] const noise_type& noise() const noexcept { return noise_; }
  /// rho in weight units (rounded up) and in fixed-point units.
  [[nodiscard]] double threshold() const noexcept { return rho_; }
  /// rho in fixed-point units, ceil(rho 2^b): an item is released when
  /// its weight plus noise exceeds it.
  [[nodiscard]] std::int64_t threshold_units() const noexcept { return threshold_units_; }
  /// Gamma for the descent policies (rho for the weighted ones), in weight units.
  [[nodiscard]] double cutoff() const noexcept { return cutoff_; }
  /// Delta_0: the distinct items a user keeps.
  [[nodiscard]] std::uint64_t max_items() const noexcept { return max_items_; }
  /// The delta the threshold pays for (the items only one user holds).
  [[nodiscard]] double threshold_delta() const noexcept { return threshold_delta_; }
  /// The noise's guarantee for one run (from its privacy map).
  [[nodiscard]] guarantee_type noise_guarantee() const { return noise_.guarantee(); }

  /// The run's (eps, delta): the noise at noise_delta (basic composition
  /// with the threshold's (0, threshold_delta)); with constant_time_noise,
  /// that of the exact noise raised to (eps, delta + (1 + e^eps) N tau), N =
  /// max_noised_items (run_guarantee).
  [[nodiscard]] approx_dp guarantee(double noise_delta) const {
    if constexpr (Policy::norm == update_norm::l2)
      validate_delta_positive(noise_delta, "noise_delta");
    return run_guarantee(noise_guarantee(), noise_delta, threshold_delta_);
  }
  /// The run's (eps, delta) as calibrated; throws invalid_parameter for a
  /// run made by with_noise (which has no target).
  [[nodiscard]] approx_dp guarantee() const {
    if (std::isnan(noise_delta_)) {
      throw_invalid(
          "noise_delta", noise_delta_,
          "a run calibrated from parameters (with_noise runs: call guarantee(noise_delta))");
    }
    return guarantee(noise_delta_);
  }

 private:
  struct plan {
    double scale;
    double threshold_delta;
    double noise_delta;
  };

  set_union(const plan& pl, std::uint64_t max_items, unsigned threads, Policy policy)
      : policy_(std::move(policy)),
        noise_(pl.scale),
        max_items_(validate_at_least<std::uint64_t>(max_items, 1, "max_items")),
        threads_(validate_at_least<unsigned>(threads, 1, "threads")),
        threshold_delta_(pl.threshold_delta),
        noise_delta_(pl.noise_delta) {
    // The threshold is computed for the sampler's own (rounded-up) scale.
    if constexpr (Policy::norm == update_norm::l2) {
      rho_ = set_union_gaussian_threshold(max_items_, noise_.scale(), threshold_delta_);
    } else {
      rho_ = set_union_laplace_threshold(max_items_, noise_.scale(), threshold_delta_);
    }
    threshold_units_ = noise_.to_units(rho_);
    // The cutoff Gamma = rho + alpha scale, refused by the policy's own
    // parameter (to_units would name its argument, x).
    if constexpr (requires { policy_.alpha; }) {
      if (!std::isfinite(policy_.alpha)) {
        throw_invalid("policy.alpha", policy_.alpha, "a finite number");
      }
    }
    cutoff_ = policy_.cutoff(rho_, noise_.scale());
    if constexpr (requires { policy_.alpha; }) {
      const double u = std::ceil(std::ldexp(cutoff_, static_cast<int>(noise_.scale_bits())));
      if (!(u > -0x1p63 && u < 0x1p63)) {  // as to_units converts it
        throw_invalid("policy.alpha", policy_.alpha,
                      "small enough that Gamma = rho + alpha scale (rho = " +
                          privet::detail::format_value(rho_) +
                          ", scale = " + privet::detail::format_value(noise_.scale()) +
                          ") is below 2^63 weight units of 2^-" +
                          std::to_string(noise_.scale_bits()) + " in magnitude");
      }
    }
    cutoff_units_ = noise_.to_units(cutoff_);
  }

  // The exact noise's guarantee (the base of a within_tv).
  template <class G>
  static const auto& exact_part(const G& g) {
    if constexpr (std::same_as<G, exact_guarantee_t<G>>) {
      return g;
    } else {
      return g.base();
    }
  }

  // The noise scale for the target, from the accounting layer, confirmed on
  // the sampler actually built (its rounding can only add noise, but the
  // privacy maps round up too). With constant_time_noise: the exact
  // calibration for delta minus a share, the share at least twice the
  // samplers' (1 + e^eps) N tau for the noise built at the whole delta,
  // doubled until the raised guarantee (run_guarantee) fits the target.
  static plan calibrate(const parameters& p) {
    p.validate();
    if constexpr (Policy::norm == update_norm::l1) {
      if (!(p.delta < 0.5)) throw_invalid("delta", p.delta, "(0, 0.5) for the Laplace policies");
    }
    if constexpr (!std::same_as<Noise, constant_time_noise>) {
      return calibrate_exact(p.epsilon, p.delta);
    } else {
      const plan whole = calibrate_exact(p.epsilon, p.delta);
      const approx_dp raised = run_guarantee(noise_type(whole.scale).guarantee(), whole.noise_delta,
                                             whole.threshold_delta);
      double share = std::max(2 * (raised.delta() - p.delta), std::ldexp(p.delta, -48));
      while (share < p.delta / 2) {
        const plan pl = calibrate_exact(p.epsilon, p.delta - share);
        const approx_dp g =
            run_guarantee(noise_type(pl.scale).guarantee(), pl.noise_delta, pl.threshold_delta);
        if (g.epsilon() <= p.epsilon && g.delta() <= p.delta) return pl;
        share *= 2;
      }
      throw_invalid("delta", p.delta,
                    "(0, 1) and above twice the constant-time samplers' share (1 + e^eps) 2^64 "
                    "tau = " +
                        privet::detail::format_value(raised.delta() - whole.noise_delta -
                                                     whole.threshold_delta));
    }
  }

  // The exact noise's calibration to (epsilon, delta): Laplace spends
  // epsilon on the noise and delta on the threshold, the Gaussian half of
  // delta on each.
  static plan calibrate_exact(double epsilon, double delta) {
    if constexpr (Policy::norm == update_norm::l1) {
      double b = privet::detail::div_up(1.0, epsilon);
      while (exact_part(noise_type(b).guarantee()).epsilon() > epsilon)
        b = privet::detail::next_up(b * (1 + 1e-15));
      return {b, delta, 0.0};
    } else {
      const double half = delta / 2;
      double sigma = gaussian_sigma<Noise>(approx_dp(epsilon, half));
      while (at_delta(exact_part(noise_type(sigma).guarantee()), half).epsilon() > epsilon)
        sigma = privet::detail::next_up(sigma * (1 + 1e-12));
      return {sigma, half, half};
    }
  }

  Policy policy_;
  noise_type noise_;
  std::uint64_t max_items_;
  unsigned threads_;
  double threshold_delta_;
  double noise_delta_;
  double rho_ = 0;
  std::int64_t threshold_units_ = 0;
  double cutoff_ = 0;
  std::int64_t cutoff_units_ = 0;
};

}  // namespace privet::dpsu
