// privet/accounting/pld.hpp — privacy loss distributions (PLDs), composed by
// FFT (Koskela, Jälkö & Honkela 2020; Google's dp_accounting PLD library).
//
// For a pair of output distributions (P, Q) on neighbours, the privacy loss
// L = log(P(o) / Q(o)), o ~ P, determines the hockey-stick divergence
//
//   delta(eps) = E_P[(1 - e^{eps - L})_+] = sum_i p_i (1 - e^{eps - l_i})_+ + p_inf,
//
// and the loss of a composition is the sum of independent losses, so its
// distribution is a convolution. privet keeps the loss on a uniform grid
// l_i = i h (h = value_discretization_interval) plus a mass at +infinity.
//
// Every approximation only moves mass to a higher loss, adds mass, or moves
// mass to +infinity; delta(eps) is non-decreasing under each (the weight
// (1 - e^{eps - l})_+ is >= 0, grows with l and is 1 at +infinity), and so is
// the delta of any later composition. Hence the reported delta is never below
// the mechanism's:
//
// - discretisation, `pld_discretization::round_up`: each loss is rounded up
//   to the grid (mass with loss in ((i - 1) h, i h] goes to l_i). Exact grid
//   points stay. Simple, but the rounding adds about h / 2 to every step's
//   loss, so k compositions over-state eps by about k h / 2.
// - `pld_discretization::connect_dots` (Doroshenko, Ghazi, Kamath, Kumar &
//   Manurangsi 2022): mass between two grid points is split between them so
//   that both P's and Q's mass are kept. delta(eps) of the result is the chord
//   of the true delta as a function of e^eps, which is convex, so it lies above
//   it; the true pair is then a post-processing of the discrete pair, which
//   composition preserves (Zhu, Dong & Wang 2022, Theorem 10). Its error is of
//   second order in h, so it reaches a given accuracy with a far coarser grid
//   after many compositions (dp_accounting's default). The Poisson-subsampled
//   Gaussian's sparse tails go in blocks of grid points, each block's mass
//   split the same way between its two edges: the same argument holds on any
//   set of points (see discretize_continuous).
// - truncation: P-mass above the upper truncation point goes to +infinity;
//   P-mass below the lowest kept grid point is added to that point.
// - floating point: every mass that privet computes as a difference of two
//   tail probabilities gets an allowance for its rounding (tail_error_ulps
//   ulps of each tail), and the sum of the allowances is added to the
//   +infinity mass. Connect-the-dots divides such a difference by 1 - e^{-h},
//   but an error e in a split only moves mass e between neighbouring grid
//   points, which changes any delta by at most |e| (1 - e^{-h}): the
//   division cancels.
// - FFT (accounting/detail/real_fft.hpp, privet's own real-input FFT): the
//   round-off of each transform is bounded componentwise (every output
//   within a constant times log2(n) u times the input's 1-norm), so a
//   convolution's total error is bounded by sums over the computed spectra
//   (see convolve and self_convolve), and that bound is added to the
//   +infinity mass; only then are the slightly negative masses that
//   round-off leaves set to 0 (which only adds mass). A k-fold
//   self-composition is one FFT power on a window chosen by Chernoff bounds;
//   its bound is about 2.5e-14 per step (the k-th power's own conditioning:
//   the result's mass m^k has k times the input's relative error, so no
//   sound bound on the total error can avoid a factor k). The mass above the
//   window, which the cyclic convolution would wrap to lower losses, is
//   bounded the same way (its Chernoff bound is added to the +infinity
//   mass), while mass below the window wraps upwards, which is pessimistic
//   already. A composition of several kinds, each run its own number of
//   times (compose_all, the odometer's), is one such power per kind in one
//   frequency domain, with one window for the whole sum; the round-off
//   bound is carried per frequency through the product (compose_runs).
//
// Ordered pairs: one PLD gives delta for one order (P, Q). For add/remove
// neighbours privet keeps both, as dp_accounting does: `remove()` is P = M(D),
// Q = M(D minus one record), `add()` is the reverse; composition composes
// each with its own kind (the neighbours are the same pair in every step),
// and delta / epsilon report the worse of the two. Mechanisms whose two
// orders have the same PLD (Laplace, Gaussian, discrete Laplace and Gaussian,
// randomised response) keep one.
#pragma once

#include <privet/accounting/detail/log_math.hpp>
#include <privet/accounting/detail/real_fft.hpp>
#include <privet/accounting/detail/survival.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/parallel.hpp>
#include <privet/core/validate.hpp>

#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <kissfft/kissfft.hh>

#include <algorithm>
#include <cmath>
#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace privet {

/// How a continuous privacy loss is put on the grid; both are pessimistic.
enum class pld_discretization {
  round_up,     ///< each loss rounded up to the grid
  connect_dots  ///< mass split between neighbouring grid points (tighter)
};

/// The PLD's grid and truncation. The defaults are privet's one set for the
/// PLD, the odometer's and calibration's too: h = 1e-4 is dp_accounting's
/// default, so privet's numbers compare with its directly, and converged
/// for DP-SGD (q = 0.01, sigma = 1.1, 10^4 steps: epsilon(1e-5) = 5.19272,
/// 2e-5 above dp_accounting's 5.19262; h = 1e-3 gives 5.19627, 7e-4 higher,
/// in a tenth of the time: about 50 ms against 5 ms for that job).
struct pld_options {
  /// Grid step h of the privacy loss, > 0.
  double value_discretization_interval = 1e-4;
  /// Mass each construction or composition may move from its tails
  /// (pessimistically), in (0, 1).
  double tail_mass_truncation = 1e-15;
  /// How continuous losses go on the grid.
  pld_discretization discretization = pld_discretization::connect_dots;
};

namespace detail {

inline constexpr double unit_roundoff = std::numeric_limits<double>::epsilon() / 2;
// Assumed accuracy of each tail probability (erfc, exp, log and the inverse
// loss they compose), in ulps of the tail's value; glibc's and Boost's erfc
// are within a few ulps.
inline constexpr double tail_error_ulps = 8;
// discretize_continuous's blocks in a loss's sparse tails: P-mass times
// squared width (in loss units) per block at most this. On the DP-SGD jobs
// of bench/README.md (issue 34) it moves epsilon by at most 2.3e-7 relative
// (1e-12 would move it by 1.6e-6) and leaves about 1/11 of their points.
inline constexpr double tail_block_budget = 1e-14;
// Per-stage relative error of KISS FFT in units of the unit roundoff:
// Higham's eta = mu + gamma_4 (sqrt 2 + mu) is about 14 u for twiddles
// accurate to ~8 u; twice that covers the radix-3/5 butterflies.
inline constexpr double fft_stage_ulps = 32;
// No loss grid wider than this many points (128 M doubles = 1 GiB).
inline constexpr std::int64_t max_pld_points = std::int64_t{1} << 27;

/// Upper tail of the standard normal, accurate far into the tail.
inline double normal_sf(double z) {
  return 0.5 * std::erfc(z / std::numbers::sqrt2);
}

/// z with normal_sf(z) = p, for p in (0, 1).
inline double normal_isf(double p) {
  return std::numbers::sqrt2 * boost::math::erfc_inv(2 * p);
}

/// Refuses a loss whose grid index would not fit 2^62 (converting it to an
/// integer would be undefined behaviour; such a grid is far beyond
/// max_pld_points anyway).
inline void check_index_range(double l, double h) {
  if (!(std::fabs(l / h) < 0x1p62)) {
    throw_invalid("value_discretization_interval", h,
                  "coarse enough for the loss range (at most 2^27 grid points; this range "
                  "reaches loss " +
                      format_value(l) + ")");
  }
}

/// log(1 + q (e^y - 1)) for q in (0, 1) at any y (e^y overflows past 709.78).
inline double log1p_q_expm1(double q, double y) {
  if (y < 700) return std::log1p(q * std::expm1(y));
  // = y + log(q + (1 - q) e^{-y}), in log space: (1 - q) / q overflows for
  // subnormal q.
  return y + log_add(std::log(q), std::log1p(-q) - y);
}

/// log(1 + (e^l - 1) / q) for q in (0, 1) at any l > log(1 - q).
inline double log1p_expm1_over_q(double l, double q) {
  if (l < 700) {
    const double v = std::expm1(l) / q;
    // Overflows only for subnormal q, where e^l - 1 >> q: log(e^l - 1 + q) - log q.
    return std::isfinite(v) ? std::log1p(v) : std::log(std::expm1(l) + q) - std::log(q);
  }
  // = l - log q + log(1 - (1 - q) e^{-l}).
  return l - std::log(q) + std::log1p(-(1 - q) * std::exp(-l));
}

/// The grid index of the smallest grid point i h >= l (with i h as computed).
inline std::int64_t ceil_index(double l, double h) {
  check_index_range(l, h);
  auto i = static_cast<std::int64_t>(std::ceil(l / h));
  while (static_cast<double>(i - 1) * h >= l) --i;
  while (static_cast<double>(i) * h < l) ++i;
  return i;
}

/// The grid index of the largest grid point i h <= l.
inline std::int64_t floor_index(double l, double h) {
  check_index_range(l, h);
  auto i = static_cast<std::int64_t>(std::floor(l / h));
  while (static_cast<double>(i + 1) * h <= l) ++i;
  while (static_cast<double>(i) * h > l) --i;
  return i;
}

inline void check_span(std::int64_t lo, std::int64_t hi, double h) {
  if (hi - lo + 1 > max_pld_points) {
    throw_invalid("value_discretization_interval", h,
                  "coarse enough for the loss range (at most 2^27 grid points; this range "
                  "needs " +
                      format_value(hi - lo + 1) + ")");
  }
}

/// Neumaier's compensated sum: error a few ulps of the total, independent of
/// the number of terms.
class compensated_sum {
 public:
  void add(double x) noexcept {
    const double t = sum_ + x;
    comp_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  [[nodiscard]] double value() const noexcept { return sum_ + comp_; }

 private:
  double sum_ = 0, comp_ = 0;
};

/// The tag of pld_pmf's unchecked constructor, for privet's own
/// constructions (pmf_builder, truncate_tails), which produce a pmf by a
/// computation whose invariants hold by design.
struct pmf_built_t {
  explicit pmf_built_t() = default;
};

}  // namespace detail

/// One ordered pair's discretised privacy loss: mass probs()[j] at loss
/// (lowest_index() + j) * interval(), and infinity_mass() at +infinity.
class pld_pmf {
 public:
  /// How far the total mass (probs() and infinity_mass()) may be from 1 in
  /// a pmf given to the constructor: room for the rounding of a computed
  /// distribution (some 10^-16 per point), far below any real error.
  static constexpr double mass_tolerance = 1e-6;

  /// A pmf given by its parts, e.g. one exported by another accountant.
  /// Throws invalid_parameter naming `interval` unless it is finite and > 0,
  /// `probs` if it is empty, `probs.size()` if its last index would pass
  /// 2^63 - 1, `probs` for a mass that is negative or not finite (the
  /// message says which, as probs[j]), `infinity_mass` outside [0, 1], and
  /// `probs` again unless the total mass is within mass_tolerance of 1
  /// (less would understate every delta; more is no distribution).
  pld_pmf(double interval, std::int64_t lowest_index, std::vector<double> probs,
          double infinity_mass)
      : pld_pmf(detail::pmf_built_t{}, interval, lowest_index, std::move(probs), infinity_mass) {
    validate_positive(interval_, "interval");
    validate_non_empty(probs_, "probs");
    // The room above lowest_index, 2^63 - 1 - lowest, is up to 2^64 - 1 for a
    // negative lowest: computed in uint64, where it is exact (in int64 it
    // overflows, as UBSan found).
    const std::uint64_t room =
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) -
        static_cast<std::uint64_t>(lowest_);
    if (probs_.size() - 1 > room) {
      throw_invalid("probs.size()", probs_.size(),
                    "<= 2^63 - lowest_index = 2^63 - " + detail::format_value(lowest_) +
                        " (the highest grid index must fit 64 bits)");
    }
    for (std::size_t j = 0; j < probs_.size(); ++j) {
      if (!(std::isfinite(probs_[j]) && probs_[j] >= 0)) {
        throw invalid_parameter("probs", "privet: probs[" + detail::format_value(j) +
                                             "] = " + detail::format_value(probs_[j]) +
                                             " is invalid; allowed: finite and >= 0");
      }
    }
    validate_probability(infinity_mass_, "infinity_mass");
    const double total = finite_mass() + infinity_mass_;
    if (!(std::fabs(total - 1) <= mass_tolerance)) {
      throw invalid_parameter(
          "probs", "privet: sum(probs) + infinity_mass = " + detail::format_value(total) +
                       " is invalid; allowed: 1 within mass_tolerance = " +
                       detail::format_value(mass_tolerance) +
                       " (a pmf of the privacy loss under P)");
    }
  }

  /// privet's own constructions: nothing is checked (their masses can sum
  /// to more than 1 + mass_tolerance, since every pessimistic step may add
  /// mass, e.g. the tail_mass_truncation of a composition's window, at
  /// +infinity).
  pld_pmf(detail::pmf_built_t, double interval, std::int64_t lowest_index,
          std::vector<double> probs, double infinity_mass)
      : interval_(interval),
        lowest_(lowest_index),
        probs_(std::move(probs)),
        infinity_mass_(infinity_mass) {}

  /// The grid step h of the privacy loss.
  [[nodiscard]] double interval() const noexcept { return interval_; }
  /// The grid index of probs()[0].
  [[nodiscard]] std::int64_t lowest_index() const noexcept { return lowest_; }
  /// The grid index of probs().back().
  [[nodiscard]] std::int64_t highest_index() const noexcept {
    return lowest_ + static_cast<std::int64_t>(probs_.size()) - 1;
  }
  /// The masses at the finite losses lowest_index() .. highest_index().
  [[nodiscard]] const std::vector<double>& probs() const noexcept { return probs_; }
  /// The mass at loss +infinity (a lower bound on delta at every epsilon).
  [[nodiscard]] double infinity_mass() const noexcept { return infinity_mass_; }
  /// The loss of probs()[j]: (lowest_index() + j) * interval().
  [[nodiscard]] double loss(std::size_t j) const noexcept {
    return static_cast<double>(lowest_ + static_cast<std::int64_t>(j)) * interval_;
  }
  /// The mass at grid index i (0 off the stored range).
  [[nodiscard]] double mass_at(std::int64_t i) const noexcept {
    if (i < lowest_ || i > highest_index()) return 0;
    return probs_[static_cast<std::size_t>(i - lowest_)];
  }
  /// The finite mass, sum of probs().
  [[nodiscard]] double finite_mass() const {
    detail::compensated_sum s;
    for (double p : probs_) s.add(p);
    return s.value();
  }

  /// The hockey-stick divergence at any real eps. The sum is compensated;
  /// its few ulps of error are covered by a 1e-14 relative inflation.
  [[nodiscard]] double delta(double eps) const {
    detail::compensated_sum s;
    s.add(infinity_mass_);
    for (std::size_t j = probs_.size(); j-- > 0;) {
      const double l = loss(j);
      if (!(l > eps)) break;
      s.add(probs_[j] * -std::expm1(eps - l));
    }
    return std::min(1.0, s.value() * (1 + 1e-14));
  }

  /// The smallest eps >= 0 (rounded up) with delta(eps) <= target, or +inf
  /// when even the mass at +infinity exceeds the target. Works at any loss:
  /// no exponential is taken of a loss (e^l overflows past 709.78), and the
  /// cost is one pass plus O(log n) checks of delta.
  [[nodiscard]] double epsilon(double target) const {
    return epsilons(std::span<const double>(&target, 1)).front();
  }

  /// epsilon(t) for every t in `targets` (any order), each the value
  /// epsilon(t) gives, in one pass over the grid: the targets are solved in
  /// increasing order while the suffix sums grow from the top loss down, so
  /// a sweep of m targets costs O(n + m log m) where m separate passes would
  /// cost O(m n). Each candidate is certified by the closed form of delta on
  /// its segment with a bound on its rounding (O(1)), or, when that bound
  /// does not clear the target, by a direct evaluation of delta (O(n)) and a
  /// bisection over the grid; the checks run on `parallel`'s threads, and
  /// the results do not depend on the schedule.
  [[nodiscard]] std::vector<double> epsilons(std::span<const double> targets,
                                             const parallel_options& parallel = {}) const {
    validate_parallel_options(parallel);
    const std::size_t m = targets.size();
    std::vector<double> out(m, 0.0), candidate(m, 0.0);
    std::vector<std::size_t> from(m, 0), order;
    const double d0 = delta(0);
    for (std::size_t i = 0; i < m; ++i) {
      const double t = targets[i];
      if (d0 <= t) continue;  // 0
      if (!(infinity_mass_ * (1 + 1e-14) <= t)) {
        out[i] = std::numeric_limits<double>::infinity();
      } else {
        order.push_back(i);
      }
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return targets[a] < targets[b]; });
    // On [l_{j-1}, l_j], delta = p_inf + S_p - e^eps S_q with suffix sums
    // S_p = sum_{i >= j} p_i and S_q = sum_{i >= j} p_i e^{-l_i}; each target
    // is solved on the first segment (from the top) where delta at its lower
    // end exceeds the target. A larger target's segment is never above a
    // smaller one's, so one sweep down serves the targets in increasing
    // order. S_q is kept as e^{-ref} R with R = sum_{i >= j} p_i e^{ref - l_i};
    // ref follows l_j down in steps of at most 512, so every exponent lies in
    // [-512 - h, 0] and R never overflows or loses its terms to underflow.
    detail::compensated_sum sp, sr;
    sp.add(infinity_mass_);
    double ref = loss(probs_.size() - 1);
    // Per target: the sums at its segment, to check the candidate by the
    // closed form (O(1)) before falling back to a direct delta (O(n)).
    struct segment {
      double sp = 0, sr = 0, ref = 0, rescales = 0;
    };
    std::vector<segment> seg(m);
    double rescales = 0;
    std::size_t k = 0;  // order[k] is the smallest target not yet solved
    std::size_t rest_from = 0;
    for (std::size_t j = probs_.size(); k < order.size() && j-- > 0;) {
      const double lj = loss(j);
      if (lj <= 0) {
        rest_from = j + 1;
        break;
      }
      if (ref - lj > 512) {
        const double rescaled = sr.value() * std::exp(lj - ref);
        sr = detail::compensated_sum{};
        sr.add(rescaled);
        ref = lj;
        ++rescales;
      }
      sp.add(probs_[j]);
      sr.add(probs_[j] * std::exp(ref - lj));
      const double lower = std::max(0.0, j == 0 ? 0.0 : loss(j - 1));
      // e^lower S_q = e^{lower - ref} R, with lower - ref <= 0.
      const double at_lower = sp.value() - std::exp(lower - ref) * sr.value();
      for (; k < order.size() && at_lower > targets[order[k]]; ++k) {
        const std::size_t i = order[k];
        double eps = ref + std::log((sp.value() - targets[i]) / sr.value());
        eps = std::clamp(eps, lower, lj);
        candidate[i] = std::min(lj, eps * (1 + 1e-12) + 1e-15);
        from[i] = j;
        seg[i] = {sp.value(), sr.value(), ref, rescales};
      }
    }
    for (; k < order.size(); ++k) from[order[k]] = rest_from;  // candidate 0
    parallel_for_index(order.size(), parallel, [&](std::size_t r) {
      const std::size_t i = order[r];
      // On the candidate's segment delta = S_p - e^{eps - ref} R exactly
      // (the losses of the segment's points are all above eps). Each sum is
      // compensated (a few ulps); every product p_i e^{ref - l_i} is within
      // 3 ulps, e^{eps - ref} within 2 + |eps - ref| ulps (the difference's
      // rounding, magnified by exp), and each rescaling of R within
      // 2 + 514 ulps: E bounds the error of the difference by those
      // relative errors of its two terms, with a factor 2 to spare.
      const segment& g = seg[i];
      if (g.sr > 0 && candidate[i] > 0) {
        const double e = std::exp(candidate[i] - g.ref) * g.sr;
        const double rel =
            2 * (16 + std::fabs(candidate[i] - g.ref) + 520 * g.rescales) * detail::unit_roundoff;
        const double closed = (g.sp - e) + rel * (g.sp + e);
        if (closed * (1 + 1e-14) <= targets[i] && std::isfinite(e)) {
          out[i] = candidate[i];
          return;
        }
      }
      out[i] = checked(candidate[i], from[i], targets[i]);
    });
    return out;
  }

 private:
  /// The first of eps and the grid points from l_j up whose direct delta
  /// meets the target (the closed form carries rounding; the grid points
  /// are safe). delta does not increase with eps, so a bisection over the
  /// grid finds it in O(log n) evaluations; the top point always meets the
  /// target (its delta is the mass at +infinity, checked by epsilons).
  [[nodiscard]] double checked(double eps, std::size_t j, double target) const {
    if (delta(eps) <= target) return eps;
    std::size_t lo = std::min(j, probs_.size() - 1), hi = probs_.size() - 1;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (delta(loss(mid)) <= target) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return loss(hi);
  }

  double interval_;
  std::int64_t lowest_;
  std::vector<double> probs_;
  double infinity_mass_;
};

namespace detail {

/// Builds a pmf from a dense accumulator on [lo, hi].
struct pmf_builder {
  double h;
  std::int64_t lo;
  std::vector<double> probs;
  double inf_mass = 0;
  double allowance = 0;

  pmf_builder(double h_, std::int64_t lo_, std::int64_t hi_) : h(h_), lo(lo_) {
    check_span(lo_, hi_, h_);
    probs.assign(static_cast<std::size_t>(hi_ - lo_ + 1), 0.0);
  }
  void add(std::int64_t i, double p) { probs[static_cast<std::size_t>(i - lo)] += p; }
  [[nodiscard]] double grid(std::int64_t i) const { return static_cast<double>(i) * h; }
  pld_pmf finish() {
    // Round-off can leave a mass a hair below 0; the allowance covers it.
    for (double& p : probs) p = std::max(0.0, p);
    return pld_pmf(pmf_built_t{}, h, lo, std::move(probs), std::min(1.0, inf_mass + allowance));
  }
};

/// A loss model that also gives P's and Q's upper tails together,
/// m.gt_pair(l) = (m.p_gt(l), m.q_gt(l)), and likewise m.le_pair(l), each
/// the same values as the separate calls, computed once where they share work.
template <class Model>
concept joint_tails = requires(const Model& m, double l) {
  { m.gt_pair(l) } -> std::same_as<std::pair<double, double>>;
  { m.le_pair(l) } -> std::same_as<std::pair<double, double>>;
};

/// A loss model whose sparse tails discretize_continuous puts in blocks
/// (Model::block_tails = true): the Poisson-subsampled Gaussian's, a DP-SGD
/// step's. The other models keep every grid point (their PLDs are exact at
/// grid points, as tests against dp_accounting's pmfs and exact deltas check).
template <class Model>
constexpr double default_tail_budget() {
  if constexpr (requires { requires Model::block_tails; }) {
    return tail_block_budget;
  } else {
    return 0.0;
  }
}

/// Discretises a privacy loss given by its tails under P and Q: m.p_gt(l) =
/// P(L > l), m.p_le(l) = P(L <= l), and likewise q_gt, q_le, each accurate to
/// a few ulps of its own value. [lo, hi] holds all but the truncated tails:
/// P-mass below lo is moved up, P-mass above hi goes to +infinity.
/// `budget` bounds connect-the-dots' blocks in the tails (see below; 0
/// keeps every grid point that carries mass).
template <class Model>
pld_pmf discretize_continuous(const Model& m, double lo, double hi, const pld_options& o,
                              double budget = default_tail_budget<Model>()) {
  const double h = o.value_discretization_interval;
  const std::int64_t ilo = floor_index(lo, h), ihi = ceil_index(hi, h);
  pmf_builder b(h, ilo, ihi);
  const double tol = tail_error_ulps * unit_roundoff;
  // The tails of P and Q at the grid points, each evaluated once, and only
  // the smaller one where it is accurate: the upper tail from the first
  // point where it is at most 1/2 (found by bisection; the tails are
  // monotone in l), the lower one up to that point. A mass between two
  // points comes from the pair of tails at its two ends on the same side of
  // that split. (Were rounding to make a tail non-monotone near 1/2, the
  // split would still be a point where both tails are accurate.)
  const std::size_t n = b.probs.size();
  // The tails by grid index, left uninitialised: only the edges below are
  // evaluated, read and touched (a sparse tail's pages are never faulted in).
  auto uninit = [n] { return std::unique_ptr<double[]>(new double[n]); };
  const auto pg = uninit(), pl = uninit();
  std::unique_ptr<double[]> qg, ql;
  auto split = [&](auto&& gt_at) {
    std::size_t lo_j = 0, hi_j = n;
    while (lo_j < hi_j) {
      const std::size_t mid = lo_j + (hi_j - lo_j) / 2;
      if (gt_at(b.grid(ilo + static_cast<std::int64_t>(mid))) <= 0.5) {
        hi_j = mid;
      } else {
        lo_j = mid + 1;
      }
    }
    return lo_j;
  };
  const std::size_t split_p = split([&](double l) { return m.p_gt(l); });
  std::size_t split_q = n;
  const bool dots = o.discretization == pld_discretization::connect_dots;
  if (dots) {
    qg = uninit();
    ql = uninit();
    split_q = split([&](double l) { return m.q_gt(l); });
  }
  // The tails at grid point j on the sides wanted there (at most once each).
  // Where P's and Q's are wanted on the same side, a model with joint_tails
  // gives both from one call (the same values, from one inverse loss and one
  // shared normal tail): a third fewer special functions per point.
  auto eval = [&](std::size_t j) {
    const double l = b.grid(ilo + static_cast<std::int64_t>(j));
    bool want_pg = j >= split_p || j + 1 == n, want_pl = j <= split_p || j == 0;
    bool want_qg = dots && (j >= split_q || j + 1 == n);
    bool want_ql = dots && (j <= split_q || j == 0);
    if constexpr (joint_tails<Model>) {
      if (want_pg && want_qg) {
        std::tie(pg[j], qg[j]) = m.gt_pair(l);
        want_pg = want_qg = false;
      }
      if (want_pl && want_ql) {
        std::tie(pl[j], ql[j]) = m.le_pair(l);
        want_pl = want_ql = false;
      }
    }
    if (want_pg) pg[j] = m.p_gt(l);
    if (want_pl) pl[j] = m.p_le(l);
    if (want_qg) qg[j] = m.q_gt(l);
    if (want_ql) ql[j] = m.q_le(l);
  };
  // The edges: the grid points where the tails are evaluated, ascending; a
  // mass is taken between consecutive edges. Rounding up uses every point.
  // Connect-the-dots uses every point between the splits and, from there
  // outwards, blocks that grow while their P-mass m and width w (in loss)
  // keep m w^2 <= budget (tail_block_budget for the subsampled Gaussian): a
  // DP-SGD step's loss has its bulk within about a thousand points of 0 and
  // sparse tails of tens of thousands of points whose masses are tiny,
  // which then cost a few hundred evaluations (about 500 edges for the
  // 22 k points of q = 0.0055, sigma = 1.15). A block's mass is split
  // between its two edges as a bin's is (keeping its P- and Q-mass): the
  // block's pair, whose likelihood ratio lies in [e^{l_a}, e^{l_b}], is a
  // post-processing of that two-point pair whatever its width (Doroshenko
  // et al. 2022 state connect-the-dots for any finite set of losses), so it
  // stays pessimistic; its delta(eps) is the chord over the block of the
  // finer grid's, hence never below it, and the excess is of second order,
  // about m w^2 times the density of the rest of a composition's loss at
  // the block. (Rounding a block's P-mass up to its top edge would be
  // pessimistic too, since losses first-order stochastically larger give
  // every composition a larger delta(eps) = E[(1 - e^{eps - S})_+], but its
  // excess is of first order, about m w, so its blocks would be far
  // narrower for the same change in epsilon.)
  std::vector<std::size_t> edges;
  edges.reserve(dots ? 1024 : n);
  if (!dots) {
    for (std::size_t j = 0; j < n; ++j) {
      eval(j);
      edges.push_back(j);
    }
  } else {
    const std::size_t mid_lo = std::min({split_p, split_q, n - 1});
    const std::size_t mid_hi = std::min(std::max(split_p, split_q), n - 1);
    // From `from` to `to` (either direction) by blocks; each block's P-mass
    // from the tails on its side, the next width predicted from this one's
    // mass per point (the tails thin out away from the bulk) and at most
    // doubled, halved until the block fits (width 1 always does).
    auto walk = [&](std::size_t from, std::size_t to, auto&& mass) {
      std::vector<std::size_t> out;
      std::size_t a = from, w = 1;
      while (a != to) {
        std::size_t step = std::min(w, a < to ? to - a : a - to);
        for (;;) {
          const std::size_t c = a < to ? a + step : a - step;
          eval(c);
          const double mc = std::max(0.0, mass(a, c));
          const double width = static_cast<double>(step) * h;
          if (step == 1 || mc * width * width <= budget) {
            out.push_back(c);
            double next = 2 * static_cast<double>(step);
            const double per_point = mc / static_cast<double>(step);
            // (No cube root where even width 2 would not fit: the bulk.)
            const double cost = per_point * h * h;
            if (cost * next * next * next > budget) {
              next = 8 * cost > budget ? 1.0 : std::cbrt(budget / cost);
            }
            w = std::max<std::size_t>(1, static_cast<std::size_t>(next));
            a = c;
            break;
          }
          step /= 2;
        }
      }
      return out;
    };
    for (std::size_t j = mid_lo; j <= mid_hi; ++j) eval(j);
    auto down = walk(mid_lo, 0, [&](std::size_t a, std::size_t c) { return pl[a] - pl[c]; });
    auto up = walk(mid_hi, n - 1, [&](std::size_t a, std::size_t c) { return pg[a] - pg[c]; });
    edges.assign(down.rbegin(), down.rend());
    for (std::size_t j = mid_lo; j <= mid_hi; ++j) edges.push_back(j);
    edges.insert(edges.end(), up.begin(), up.end());
  }
  // The mass between edges a < c from the pair of tails at its two ends on
  // the same side of the split (both are evaluated there: blocks never
  // straddle a split).
  auto between = [&](const std::unique_ptr<double[]>& gt, const std::unique_ptr<double[]>& le,
                     std::size_t at, std::size_t a, std::size_t c, double& err) {
    if (a >= at) {
      err += tol * (gt[a] + gt[c]);
      return gt[a] - gt[c];
    }
    err += tol * (le[a] + le[c]);
    return le[c] - le[a];
  };
  b.add(ilo, pl[0]);
  b.allowance += tol * pl[0];
  if (o.discretization == pld_discretization::round_up) {
    for (std::size_t j = 0; j + 1 < n; ++j) {
      b.probs[j + 1] += between(pg, pl, split_p, j, j + 1, b.allowance);
    }
    // The top point may lie above hi: the top bin keeps (l_{n-2}, hi] and
    // the mass above hi goes to +infinity.
    const double top = m.p_gt(hi);
    b.probs[n - 1] += pg[n - 1] - top;
    b.inf_mass = top;
    b.allowance += tol * (top + pg[n - 1]);
  } else {
    // Mass in (l_a, l_c] is split into x at l_a and y at l_c with
    // x + y = P-mass and x e^{-l_a} + y e^{-l_c} = Q-mass.
    const double one_minus_h = -std::expm1(-h);
    for (std::size_t e = 0; e + 1 < edges.size(); ++e) {
      const std::size_t j = edges[e], c = edges[e + 1];
      double err_p = 0, err_q = 0;
      const double pm = between(pg, pl, split_p, j, c, err_p);
      const double qm = between(qg, ql, split_q, j, c, err_q);
      const double li = b.grid(ilo + static_cast<std::int64_t>(j));
      // The split needs e^{l_a} times the Q-mass. A tail below 1e-290 may
      // be subnormal or flushed to 0 (e.g. the Gaussian's Q-tail past l = 650
      // at mu = 34) and is then trusted only to 1e-290 absolute, which e^{l_a}
      // magnifies. Where that error is not negligible (l_a >= 600), where the
      // Q-mass itself is that small, or where e^{l_a} overflows, the bin is
      // rounded up instead: all of its P-mass goes to l_c, which only
      // moves mass to a higher loss, so the result stays pessimistic at any
      // loss. Elsewhere a tiny tail's 1e-290 costs e^{l_a} 1e-290 < 4e-29.
      const bool upper_tail = j >= split_q;
      const double q_small = upper_tail ? qg[c] : ql[j];
      const double q_large = upper_tail ? qg[j] : ql[c];
      if (li >= 700 || q_large < 1e-290 || (q_small < 1e-290 && li >= 600)) {
        b.probs[c] += pm;
        b.allowance += err_p;
        continue;
      }
      const double ea = std::exp(li);
      if (q_small < 1e-290) b.allowance += ea * 1e-290;
      const double one_minus =
          c == j + 1 ? one_minus_h : -std::expm1(-static_cast<double>(c - j) * h);
      const double upper = (pm - ea * qm) / one_minus;
      b.probs[c] += upper;
      b.probs[j] += pm - upper;
      // An error e in the split moves mass e between l_a and l_c, which
      // changes any delta, of this PLD or of a composition, by at most
      // |e| (1 - e^{l_a - l_c}); so the split costs err_p + e^{l_a} err_q,
      // without the division, and the error of the mass itself err_p more.
      b.allowance += 2 * err_p + ea * err_q;
    }
    // Above the top grid point: split between it and +infinity (all of it to
    // +infinity where the split cannot be computed, as above).
    const double l_top = b.grid(ihi);
    if (l_top >= 700 || (qg[n - 1] < 1e-290 && l_top >= 600)) {
      b.inf_mass = pg[n - 1];
      b.allowance += tol * pg[n - 1];
    } else {
      const double at_top = std::exp(l_top) * qg[n - 1];
      b.probs[n - 1] += std::min(pg[n - 1], at_top);
      b.inf_mass = std::max(0.0, pg[n - 1] - at_top);
      b.allowance += tol * (pg[n - 1] + at_top);
      if (qg[n - 1] < 1e-290) b.allowance += std::exp(l_top) * 1e-290;
    }
  }
  return b.finish();
}

/// Discretises a loss with finitely many values: atoms (loss, P-mass).
inline pld_pmf discretize_atoms(const std::vector<std::pair<double, double>>& atoms,
                                double inf_mass, const pld_options& o) {
  const double h = o.value_discretization_interval;
  std::int64_t ilo = std::numeric_limits<std::int64_t>::max();
  std::int64_t ihi = std::numeric_limits<std::int64_t>::min();
  for (const auto& [l, p] : atoms) {
    ilo = std::min(ilo, floor_index(l, h));
    ihi = std::max(ihi, ceil_index(l, h));
  }
  if (atoms.empty()) ilo = ihi = 0;
  pmf_builder b(h, ilo, ihi);
  b.inf_mass = inf_mass;
  for (const auto& [l, p] : atoms) {
    const std::int64_t up = ceil_index(l, h);
    if (o.discretization == pld_discretization::round_up || b.grid(up) == l) {
      b.add(up, p);
      continue;
    }
    // Keeps both masses: y / p = (1 - e^{l_i - l}) / (1 - e^{-h}) in (0, 1).
    const std::int64_t down = up - 1;
    const double share = std::expm1(b.grid(down) - l) / std::expm1(-h);
    b.add(up, p * share);
    b.add(down, p * (1 - share));
  }
  // Each product and split is within a few ulps of its mass.
  double total = 0;
  for (const auto& [l, p] : atoms) total += p;
  b.allowance = tail_error_ulps * unit_roundoff * total;
  return b.finish();
}

// ---- mechanisms' losses --------------------------------------------------------

/// Gaussian mechanism: under P, L ~ N(mu^2 / 2, mu^2); under Q, N(-mu^2 / 2, mu^2).
struct gaussian_loss {
  double mu;
  [[nodiscard]] double p_gt(double l) const { return normal_sf((l - mu * mu / 2) / mu); }
  [[nodiscard]] double p_le(double l) const { return normal_sf((mu * mu / 2 - l) / mu); }
  [[nodiscard]] double q_gt(double l) const { return normal_sf((l + mu * mu / 2) / mu); }
  [[nodiscard]] double q_le(double l) const { return normal_sf(-(l + mu * mu / 2) / mu); }
};

/// Laplace mechanism, P = Lap(0, b), Q = Lap(d, b): L = (|x - d| - |x|) / b,
/// with atoms at +-d/b; L > l iff x < x_l = (d - b l) / 2 for |l| < d/b.
struct laplace_loss {
  double b, d;
  [[nodiscard]] double x_at(double l) const { return (d - b * l) / 2; }
  [[nodiscard]] double p_gt(double l) const {
    if (l < -d / b) return 1;
    if (l >= d / b) return 0;
    return 1 - 0.5 * std::exp(-x_at(l) / b);
  }
  [[nodiscard]] double p_le(double l) const {
    if (l < -d / b) return 0;
    if (l >= d / b) return 1;
    return 0.5 * std::exp(-x_at(l) / b);
  }
  [[nodiscard]] double q_gt(double l) const {
    if (l < -d / b) return 1;
    if (l >= d / b) return 0;
    return 0.5 * std::exp((x_at(l) - d) / b);
  }
  [[nodiscard]] double q_le(double l) const {
    if (l < -d / b) return 0;
    if (l >= d / b) return 1;
    return 1 - 0.5 * std::exp((x_at(l) - d) / b);
  }
};

/// Poisson-subsampled Gaussian, remove order: P = (1 - q) N(0, s^2) + q N(1, s^2),
/// Q = N(0, s^2); L = log(1 - q + q e^{(2x - 1) / (2 s^2)}), increasing in x.
struct subsampled_gaussian_remove_loss {
  static constexpr bool block_tails = true;
  double q, s;
  [[nodiscard]] double loss(double x) const { return log1p_q_expm1(q, (2 * x - 1) / (2 * s * s)); }
  [[nodiscard]] double x_at(double l) const { return s * s * log1p_expm1_over_q(l, q) + 0.5; }
  [[nodiscard]] bool below_range(double l) const { return l <= std::log1p(-q); }
  [[nodiscard]] double p_gt(double l) const {
    if (below_range(l)) return 1;
    const double x = x_at(l);
    return (1 - q) * normal_sf(x / s) + q * normal_sf((x - 1) / s);
  }
  [[nodiscard]] double p_le(double l) const {
    if (below_range(l)) return 0;
    const double x = x_at(l);
    return (1 - q) * normal_sf(-x / s) + q * normal_sf((1 - x) / s);
  }
  [[nodiscard]] double q_gt(double l) const { return below_range(l) ? 1 : normal_sf(x_at(l) / s); }
  [[nodiscard]] double q_le(double l) const { return below_range(l) ? 0 : normal_sf(-x_at(l) / s); }
  // (p_gt, q_gt) and (p_le, q_le): one x_at and one shared N(0, s^2) tail.
  [[nodiscard]] std::pair<double, double> gt_pair(double l) const {
    if (below_range(l)) return {1, 1};
    const double x = x_at(l);
    const double t = normal_sf(x / s);
    return {(1 - q) * t + q * normal_sf((x - 1) / s), t};
  }
  [[nodiscard]] std::pair<double, double> le_pair(double l) const {
    if (below_range(l)) return {0, 0};
    const double x = x_at(l);
    const double t = normal_sf(-x / s);
    return {(1 - q) * t + q * normal_sf((1 - x) / s), t};
  }
};

/// The add order: P = N(0, s^2), Q the mixture; L = -log(1 - q + q e^{(2x - 1)
/// / (2 s^2)}), decreasing in x, below -log(1 - q).
struct subsampled_gaussian_add_loss {
  static constexpr bool block_tails = true;
  double q, s;
  [[nodiscard]] double loss(double x) const { return -log1p_q_expm1(q, (2 * x - 1) / (2 * s * s)); }
  [[nodiscard]] double x_at(double l) const { return s * s * log1p_expm1_over_q(-l, q) + 0.5; }
  [[nodiscard]] bool above_range(double l) const { return l >= -std::log1p(-q); }
  [[nodiscard]] double p_gt(double l) const { return above_range(l) ? 0 : normal_sf(-x_at(l) / s); }
  [[nodiscard]] double p_le(double l) const { return above_range(l) ? 1 : normal_sf(x_at(l) / s); }
  [[nodiscard]] double q_gt(double l) const {
    if (above_range(l)) return 0;
    const double x = x_at(l);
    return (1 - q) * normal_sf(-x / s) + q * normal_sf((1 - x) / s);
  }
  [[nodiscard]] double q_le(double l) const {
    if (above_range(l)) return 1;
    const double x = x_at(l);
    return (1 - q) * normal_sf(x / s) + q * normal_sf((x - 1) / s);
  }
  // (p_gt, q_gt) and (p_le, q_le): one x_at and one shared N(0, s^2) tail.
  [[nodiscard]] std::pair<double, double> gt_pair(double l) const {
    if (above_range(l)) return {0, 0};
    const double x = x_at(l);
    const double t = normal_sf(-x / s);
    return {t, (1 - q) * t + q * normal_sf((1 - x) / s)};
  }
  [[nodiscard]] std::pair<double, double> le_pair(double l) const {
    if (above_range(l)) return {1, 1};
    const double x = x_at(l);
    const double t = normal_sf(x / s);
    return {t, (1 - q) * t + q * normal_sf((x - 1) / s)};
  }
};

/// P(X > x) for X ~ Laplace(mu, b), accurate in both tails.
inline double laplace_sf(double x, double mu, double b) {
  return x >= mu ? 0.5 * std::exp(-(x - mu) / b) : 1 - 0.5 * std::exp((x - mu) / b);
}
/// P(X <= x) for X ~ Laplace(mu, b).
inline double laplace_cdf(double x, double mu, double b) {
  return x < mu ? 0.5 * std::exp((x - mu) / b) : 1 - 0.5 * std::exp(-(x - mu) / b);
}

/// Poisson-subsampled Laplace (scale b, sensitivity d), remove order:
/// P = (1 - q) Lap(0, b) + q Lap(d, b), Q = Lap(0, b);
/// L = log(1 - q + q e^{g(x)}) with g(x) = (|x| - |x - d|) / b, increasing
/// in x and constant outside [0, d] (atoms at both ends of the range).
struct subsampled_laplace_remove_loss {
  double q, b, d;
  [[nodiscard]] double loss(double g) const { return log1p_q_expm1(q, g); }
  [[nodiscard]] double bottom() const { return loss(-d / b); }
  [[nodiscard]] double top() const { return loss(d / b); }
  // The x in (0, d) where L = l, for l strictly inside the range.
  [[nodiscard]] double x_at(double l) const { return (b * log1p_expm1_over_q(l, q) + d) / 2; }
  [[nodiscard]] double p_gt(double l) const {
    if (l < bottom()) return 1;
    if (l >= top()) return 0;
    const double x = x_at(l);
    return (1 - q) * laplace_sf(x, 0, b) + q * laplace_sf(x, d, b);
  }
  [[nodiscard]] double p_le(double l) const {
    if (l < bottom()) return 0;
    if (l >= top()) return 1;
    const double x = x_at(l);
    return (1 - q) * laplace_cdf(x, 0, b) + q * laplace_cdf(x, d, b);
  }
  [[nodiscard]] double q_gt(double l) const {
    if (l < bottom()) return 1;
    if (l >= top()) return 0;
    return laplace_sf(x_at(l), 0, b);
  }
  [[nodiscard]] double q_le(double l) const {
    if (l < bottom()) return 0;
    if (l >= top()) return 1;
    return laplace_cdf(x_at(l), 0, b);
  }
};

/// The add order: P = Lap(0, b), Q the mixture; L = -log(1 - q + q e^{g(x)}),
/// decreasing in x.
struct subsampled_laplace_add_loss {
  double q, b, d;
  [[nodiscard]] double bottom() const { return -log1p_q_expm1(q, d / b); }
  [[nodiscard]] double top() const { return -log1p_q_expm1(q, -d / b); }
  [[nodiscard]] double x_at(double l) const { return (b * log1p_expm1_over_q(-l, q) + d) / 2; }
  // L > l iff x < x_at(l).
  [[nodiscard]] double p_gt(double l) const {
    if (l < bottom()) return 1;
    if (l >= top()) return 0;
    return laplace_cdf(x_at(l), 0, b);
  }
  [[nodiscard]] double p_le(double l) const {
    if (l < bottom()) return 0;
    if (l >= top()) return 1;
    return laplace_sf(x_at(l), 0, b);
  }
  [[nodiscard]] double q_gt(double l) const {
    if (l < bottom()) return 1;
    if (l >= top()) return 0;
    const double x = x_at(l);
    return (1 - q) * laplace_cdf(x, 0, b) + q * laplace_cdf(x, d, b);
  }
  [[nodiscard]] double q_le(double l) const {
    if (l < bottom()) return 0;
    if (l >= top()) return 1;
    const double x = x_at(l);
    return (1 - q) * laplace_sf(x, 0, b) + q * laplace_sf(x, d, b);
  }
};

/// asinh(s e^y) for s = +-1 at any y (e^y may overflow).
inline double asinh_exp(double y, double sign) {
  if (y < 700) return std::asinh(sign * std::exp(y));
  return sign * (y + std::numbers::ln2);  // asinh(t) = log(2t) + O(t^-2)
}

/// log sinh(z) for z > 0.
inline double log_sinh(double z) {
  if (z > 20) return z - std::numbers::ln2 + std::log1p(-std::exp(-2 * z));
  return std::log(std::sinh(z));
}

/// Poisson-subsampled Gaussian (noise multiplier s) under replace-one
/// neighbours: P = q N(1, s^2) + (1 - q) N(0, s^2), Q = q N(-1, s^2) +
/// (1 - q) N(0, s^2), the pair dp_accounting uses (privacy_loss_mechanism.py,
/// AdjacencyType.REPLACE): the replaced record is in the sample with
/// probability q under both datasets, and moves the sum by at most 1 from
/// where it would be without it, in opposite directions. L = L_remove(x) +
/// L_add(x), increasing in x; mirroring x to -x swaps P and Q, so both orders
/// have this PLD. With A = e^{1 / (2 s^2)} (1 - q) / q, L = l at
/// x = s^2 (l / 2 + asinh(A sinh(l / 2))).
struct subsampled_gaussian_replace_loss {
  double q, s;
  [[nodiscard]] double loss(double x) const {
    const double a = 1 / (2 * s * s);
    return log1p_q_expm1(q, a * (2 * x - 1)) - log1p_q_expm1(q, a * (-2 * x - 1));
  }
  [[nodiscard]] double x_at(double l) const {
    if (l == 0) return 0;
    const double log_a = 1 / (2 * s * s) + std::log1p(-q) - std::log(q);
    const double sign = l > 0 ? 1.0 : -1.0;
    return s * s * (l / 2 + asinh_exp(log_a + log_sinh(std::fabs(l) / 2), sign));
  }
  [[nodiscard]] double p_gt(double l) const {
    const double x = x_at(l);
    return q * normal_sf((x - 1) / s) + (1 - q) * normal_sf(x / s);
  }
  [[nodiscard]] double p_le(double l) const {
    const double x = x_at(l);
    return q * normal_sf((1 - x) / s) + (1 - q) * normal_sf(-x / s);
  }
  [[nodiscard]] double q_gt(double l) const {
    const double x = x_at(l);
    return q * normal_sf((x + 1) / s) + (1 - q) * normal_sf(x / s);
  }
  [[nodiscard]] double q_le(double l) const {
    const double x = x_at(l);
    return q * normal_sf((-1 - x) / s) + (1 - q) * normal_sf(-x / s);
  }
};

/// Mixture of Gaussians (Choquette-Choo, Ganesh, Steinke & Thakurta 2023,
/// "Privacy amplification for matrix mechanisms", the MMCC mechanism):
/// Gaussian noise of standard deviation s on a query whose sensitivity is
/// c_i with probability p_i (c_i >= 0). Remove order: P = sum p_i N(c_i, s^2)
/// against Q = N(0, s^2), L(x) = log sum p_i e^{(2 c_i x - c_i^2) / (2 s^2)},
/// increasing in x; the add order is the reverse, L = -L_remove(x) under
/// N(0, s^2). The inverse has no closed form: x_at solves L(x) = l by
/// safeguarded Newton steps to the last ulp.
struct mixture_gaussian_loss {
  double s;
  std::vector<double> c, p;  // sensitivities and their probabilities (p > 0)
  double log_p0;             // log of the mass at sensitivity 0 (-inf if none)

  [[nodiscard]] double loss(double x) const {
    // Log-sum-exp of log p_i + (2 c_i x - c_i^2) / (2 s^2).
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < c.size(); ++i) top = std::max(top, term(i, x));
    double sum = 0;
    for (std::size_t i = 0; i < c.size(); ++i) sum += std::exp(term(i, x) - top);
    return top + std::log(sum);
  }
  // dL/dx = sum w_i c_i / s^2 with w_i the softmax weights of the terms.
  [[nodiscard]] double slope(double x) const {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < c.size(); ++i) top = std::max(top, term(i, x));
    double sum = 0, weighted = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      const double w = std::exp(term(i, x) - top);
      sum += w;
      weighted += w * c[i];
    }
    return weighted / sum / (s * s);
  }
  /// The x with L(x) = l, for l above log p_0 (the infimum of L); clamped
  /// to [lowest, highest], where every tail used is 0 or 1 in double.
  [[nodiscard]] double x_at(double l) const {
    const double cmax = *std::max_element(c.begin(), c.end());
    const double lowest = -40 * s - 1, highest = cmax + 40 * s + 1;
    double lo = lowest, hi = highest;
    if (loss(lo) >= l) return lo;
    if (loss(hi) <= l) return hi;
    // Start from the inverse for the largest sensitivity alone.
    double x = std::clamp(s * s * (l - log_prob_max()) / cmax + cmax / 2, lo, hi);
    for (int it = 0; it < 200 && lo < hi; ++it) {
      const double f = loss(x) - l;
      if (f == 0) return x;
      if (f < 0) {
        lo = x;
      } else {
        hi = x;
      }
      double next = x - f / slope(x);
      if (!(next > lo && next < hi)) next = lo + (hi - lo) / 2;
      if (next == x || next <= lo || next >= hi) break;
      x = next;
    }
    return x;
  }
  [[nodiscard]] double mix_sf(double x) const {  // sum p_i P(N(c_i, s^2) > x)
    double t = 0;
    for (std::size_t i = 0; i < c.size(); ++i) t += p[i] * normal_sf((x - c[i]) / s);
    return t;
  }
  [[nodiscard]] double mix_cdf(double x) const {
    double t = 0;
    for (std::size_t i = 0; i < c.size(); ++i) t += p[i] * normal_sf((c[i] - x) / s);
    return t;
  }

 private:
  [[nodiscard]] double term(std::size_t i, double x) const {
    return std::log(p[i]) + (2 * c[i] * x - c[i] * c[i]) / (2 * s * s);
  }
  [[nodiscard]] double log_prob_max() const {
    const auto i = static_cast<std::size_t>(std::max_element(c.begin(), c.end()) - c.begin());
    return std::log(p[i]);
  }
};

/// The remove order of mixture_gaussian_loss.
struct mixture_gaussian_remove_loss {
  const mixture_gaussian_loss* m;
  [[nodiscard]] bool below_range(double l) const { return l <= m->log_p0; }
  [[nodiscard]] double p_gt(double l) const { return below_range(l) ? 1 : m->mix_sf(m->x_at(l)); }
  [[nodiscard]] double p_le(double l) const { return below_range(l) ? 0 : m->mix_cdf(m->x_at(l)); }
  [[nodiscard]] double q_gt(double l) const {
    return below_range(l) ? 1 : normal_sf(m->x_at(l) / m->s);
  }
  [[nodiscard]] double q_le(double l) const {
    return below_range(l) ? 0 : normal_sf(-m->x_at(l) / m->s);
  }
};

/// The add order: P = N(0, s^2), Q the mixture; L = -L_remove(x), below
/// -log p_0.
struct mixture_gaussian_add_loss {
  const mixture_gaussian_loss* m;
  [[nodiscard]] bool above_range(double l) const { return -l <= m->log_p0; }
  // L > l iff L_remove(x) < -l iff x < x_at(-l).
  [[nodiscard]] double p_gt(double l) const {
    return above_range(l) ? 0 : normal_sf(-m->x_at(-l) / m->s);
  }
  [[nodiscard]] double p_le(double l) const {
    return above_range(l) ? 1 : normal_sf(m->x_at(-l) / m->s);
  }
  [[nodiscard]] double q_gt(double l) const { return above_range(l) ? 0 : m->mix_cdf(m->x_at(-l)); }
  [[nodiscard]] double q_le(double l) const { return above_range(l) ? 1 : m->mix_sf(m->x_at(-l)); }
};

/// w a + (1 - w) b of two pmfs on one grid (the PLD of running the first
/// pair with probability w and the second otherwise, the coin public: its
/// delta is w delta_a + (1 - w) delta_b, which by the joint convexity of the
/// hockey-stick divergence bounds any mixture of the two pairs).
inline pld_pmf mix_pmfs(const pld_pmf& a, const pld_pmf& b, double w) {
  const std::int64_t lo = std::min(a.lowest_index(), b.lowest_index());
  const std::int64_t hi = std::max(a.highest_index(), b.highest_index());
  std::vector<double> probs(static_cast<std::size_t>(hi - lo + 1));
  for (std::int64_t i = lo; i <= hi; ++i) {
    probs[static_cast<std::size_t>(i - lo)] = w * a.mass_at(i) + (1 - w) * b.mass_at(i);
  }
  // Each mixed mass within 2 ulps of itself (both terms >= 0).
  const double inf = w * a.infinity_mass() + (1 - w) * b.infinity_mass() + 4 * unit_roundoff;
  return pld_pmf(pmf_built_t{}, a.interval(), lo, std::move(probs), std::min(1.0, inf));
}

// ---- convolution -----------------------------------------------------------------

/// The smallest n >= m of the form 2^a 3^b 5^c (KISS FFT's fast radices).
inline std::size_t fft_size(std::size_t m) {
  for (std::size_t n = std::max<std::size_t>(m, 1);; ++n) {
    std::size_t r = n;
    for (std::size_t f : {2, 3, 5})
      while (r % f == 0) r /= f;
    if (r == 1) return n;
  }
}

/// Higham's relative 2-norm error bound of one KISS FFT of size n.
inline double fft_relative_error(std::size_t n) {
  double stages = 0;
  for (std::size_t r = n; r > 1; r /= 2) ++stages;
  const double eta = fft_stage_ulps * unit_roundoff;
  return stages * eta / (1 - stages * eta);
}

inline double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

/// Moves tails of at most `tau` each: the bottom onto the lowest kept point,
/// the top to +infinity.
inline pld_pmf truncate_tails(double h, std::int64_t lowest, std::vector<double> probs,
                              double inf_mass, double tau) {
  std::size_t first = 0, last = probs.size();
  double low = 0, high = 0;
  while (first + 1 < last && low + probs[first] <= tau) low += probs[first++];
  while (last - 1 > first && high + probs[last - 1] <= tau) high += probs[--last];
  std::vector<double> kept(probs.begin() + static_cast<std::ptrdiff_t>(first),
                           probs.begin() + static_cast<std::ptrdiff_t>(last));
  kept.front() += low;
  return pld_pmf(pmf_built_t{}, h, lowest + static_cast<std::int64_t>(first), std::move(kept),
                 inf_mass + high);
}

/// +infinity mass of the product of measures with finite masses fa, fb and
/// infinite masses ia, ib.
inline double combined_infinity(double fa, double ia, double fb, double ib) {
  return ia * (fb + ib) + fa * ib;
}

inline std::complex<double> complex_mul(std::complex<double> a, std::complex<double> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

inline pld_pmf convolve(const pld_pmf& a, const pld_pmf& b, double tau) {
  const auto& x = a.probs();
  const auto& y = b.probs();
  const std::size_t n = x.size() + y.size() - 1;
  std::vector<double> out(n, 0.0);
  double err = 0;
  if (std::min(x.size(), y.size()) <= 64 || x.size() * y.size() <= 4'000'000) {
    // Sums of non-negative products: each output within (min size + 1) ulps.
    for (std::size_t i = 0; i < x.size(); ++i)
      for (std::size_t j = 0; j < y.size(); ++j) out[i + j] += x[i] * y[j];
    double total = 0;
    for (double v : out) total += v;
    err = static_cast<double>(std::min(x.size(), y.size()) + 2) * unit_roundoff * total;
  } else {
    // The spectra's errors (real_fft.hpp): |X^ Y^ - X Y| <= |X^| alpha_y +
    // (|Y^| + alpha_y) alpha_x plus the product's 4 u |X^ Y^|, summed over
    // all frequencies, and the inverse's error per unit of the 1-norm of the
    // product spectrum.
    std::size_t big_n = 8;
    while (big_n < n) big_n *= 2;
    const real_fft fft(big_n);
    const std::size_t half = big_n / 2;
    std::vector<double> buf(big_n, 0.0);
    std::vector<std::complex<double>> fx(half + 1), fy(half + 1);
    std::copy(x.begin(), x.end(), buf.begin());
    fft.forward(buf.data(), fx.data());
    std::fill(buf.begin(), buf.end(), 0.0);
    std::copy(y.begin(), y.end(), buf.begin());
    fft.forward(buf.data(), fy.data());
    const double ax = fft.forward_error() * a.finite_mass() * (1 + 4 * unit_roundoff);
    const double ay = fft.forward_error() * b.finite_mass() * (1 + 4 * unit_roundoff);
    double spectral = 0, spectrum = 0;
    for (std::size_t k = 0; k <= half; ++k) {
      const double wk = (k == 0 || k == half) ? 1.0 : 2.0;
      const double mx = std::abs(fx[k]) * (1 + 2 * unit_roundoff);
      const double my = std::abs(fy[k]) * (1 + 2 * unit_roundoff);
      fx[k] = complex_mul(fx[k], fy[k]);
      spectral += wk * (mx * ay + (my + ay) * ax + 4 * unit_roundoff * mx * my);
      spectrum += wk * std::abs(fx[k]) * (1 + 2 * unit_roundoff);
    }
    fft.inverse(fx.data(), buf.data());
    std::copy(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n), out.begin());
    err = 1.01 * (spectral + fft.inverse_error() * spectrum);
    for (double& v : out) v = std::max(0.0, v);
  }
  const double inf =
      combined_infinity(a.finite_mass(), a.infinity_mass(), b.finite_mass(), b.infinity_mass());
  return truncate_tails(a.interval(), a.lowest_index() + b.lowest_index(), std::move(out),
                        std::min(1.0, inf + err), tau);
}

/// K(t) = log sum_i p_i e^{t l_i} over a pmf's finite part, from its first to
/// its last positive mass: an upper bound on K (for a Chernoff bound) and
/// K', K'' (for Newton's method only).
struct log_mgf_value {
  double upper, d1, d2;
};

/// A span's non-zero masses, for sums that skip the zeros: the blocks of
/// `size` points that hold more than `size / 8` non-zeros (summed as
/// blocks), and the steps of the non-zeros in the other blocks (summed one
/// by one), each counted in steps from the span's top (from_top) or bottom.
/// Blocks without mass add exactly 0 to any sum.
struct sparse_blocks {
  std::vector<std::uint32_t> blocks, singles;
};

/// log_mgf's for t >= 0 (counted from the top) and t < 0.
struct mgf_blocks {
  sparse_blocks from_top, from_bottom;
};

inline sparse_blocks split_blocks(const std::vector<double>& p, std::size_t first, std::size_t last,
                                  std::size_t size, bool from_top) {
  sparse_blocks out;
  const std::size_t count = last - first + 1;
  std::vector<std::uint32_t> here;
  for (std::size_t blk = 0; blk * size < count; ++blk) {
    const std::size_t end = std::min(count, (blk + 1) * size);
    here.clear();
    for (std::size_t step = blk * size; step < end; ++step) {
      if (p[from_top ? last - step : first + step] != 0) {
        here.push_back(static_cast<std::uint32_t>(step));
      }
    }
    if (here.size() > size / 8) {
      out.blocks.push_back(static_cast<std::uint32_t>(blk));
    } else {
      out.singles.insert(out.singles.end(), here.begin(), here.end());
    }
  }
  return out;
}

/// One pass without an exponential per point: e^{t (l_i - l_ref)} is exact
/// (one exp) at the start of each block of 64 points and a product by
/// e^{-|t| h} inside it, so each term is within (200 + 2 |t| (l_last -
/// l_first)) u of its value relative, the block sums within 64 u and their
/// sum within (n / 64) u; `upper` adds that relative error to the log.
/// Terms that underflow lose at most n * DBL_MIN, which is added too. With
/// `blocks` (a sparse pmf's, split_blocks) the blocks without mass are
/// skipped and the non-zeros of the sparse ones are terms of their own,
/// each by one exp (within (2 + |t| (l_last - l_first)) u) and counted
/// among the outer sum's terms.
inline log_mgf_value log_mgf(const pld_pmf& a, std::size_t first, std::size_t last, double t,
                             const mgf_blocks* blocks = nullptr) {
  const auto& p = a.probs();
  const double h = a.interval();
  const bool up = t >= 0;
  const std::size_t count = last - first + 1;
  const double ref = a.loss(up ? last : first);
  const double rho = std::exp(-std::fabs(t) * h);
  double s0 = 0, s1 = 0, s2 = 0;
  auto one_block = [&](std::size_t blk) {
    double v = 1;
    double b0 = 0, b1 = 0, b2 = 0;
    const std::size_t end = std::min(count, (blk + 1) * 64);
    for (std::size_t step = blk * 64; step < end; ++step) {
      const std::size_t j = up ? last - step : first + step;
      const double d = -h * static_cast<double>(step);  // l_j - ref, signed as t
      if (step % 64 == 0) {
        v = std::exp(std::fabs(t) * d);
      } else {
        v *= rho;
      }
      const double w = p[j] * v;
      const double dd = up ? d : -d;
      b0 += w;
      b1 += w * dd;
      b2 += w * dd * dd;
    }
    s0 += b0, s1 += b1, s2 += b2;
  };
  double singles = 0;
  if (blocks != nullptr) {
    const sparse_blocks& sb = up ? blocks->from_top : blocks->from_bottom;
    for (const std::uint32_t blk : sb.blocks) one_block(blk);
    for (const std::uint32_t step : sb.singles) {
      const double d = -h * static_cast<double>(step);
      const double w = p[up ? last - step : first + step] * std::exp(std::fabs(t) * d);
      const double dd = up ? d : -d;
      s0 += w, s1 += w * dd, s2 += w * dd * dd;
    }
    singles = static_cast<double>(sb.singles.size());
  } else {
    for (std::size_t blk = 0; blk * 64 < count; ++blk) one_block(blk);
  }
  const double span = a.loss(last) - a.loss(first);
  const double rel =
      (270 + static_cast<double>(count) / 64 + singles + 2 * std::fabs(t) * span) * unit_roundoff;
  const double lower_bound_sum =
      s0 + static_cast<double>(count) * std::numeric_limits<double>::min();
  const double mean = s1 / s0;
  return {t * ref + std::log(lower_bound_sum) + 1.01 * rel, ref + mean,
          std::max(0.0, s2 / s0 - mean * mean)};
}

/// The lowest upper (side = +1) or highest lower (side = -1) edge, in loss
/// units, that Chernoff's bound gives for a k-fold sum: the finite mass of
/// the sum beyond it is at most e^{-c}. The bound (k K(+-t) + c) / t holds at
/// every t > 0 and is unimodal in t (its derivative's numerator t K' - K -
/// c / k grows with t, as K is convex), so Newton's method on that numerator
/// finds its minimum; every evaluated t gives a valid edge and the best is
/// kept.
inline double chernoff_edge(const pld_pmf& a, std::size_t first, std::size_t last, double kd,
                            double c, double side) {
  const double var = log_mgf(a, first, last, 0).d2;
  double t = var > 0 ? std::sqrt(2 * c / (kd * var)) : 1.0;
  double best = std::numeric_limits<double>::infinity();
  for (int it = 0; it < 14; ++it) {
    const log_mgf_value v = log_mgf(a, first, last, side * t);
    best = std::min(best, (kd * v.upper + c) / t);
    // g(t) = t G'(t) - G(t) - c / k with G(t) = K(side t); g' = t K''.
    const double g = t * side * v.d1 - v.upper - c / kd;
    const double gp = t * v.d2;
    double next = gp > 0 ? t - g / gp : 8 * t;
    next = std::clamp(next, t / 8, 8 * t);
    if (!(std::fabs(next - t) > 1e-4 * t)) break;
    t = next;
  }
  return side * best;
}

inline std::complex<double> complex_power(std::complex<double> z, std::uint64_t k) {
  std::complex<double> r(1, 0);
  bool first = true;
  while (k > 0) {
    if (k & 1) r = first ? z : complex_mul(r, z), first = false;
    k >>= 1;
    if (k > 0) z = complex_mul(z, z);
  }
  return r;
}

/// The k-fold self-convolution by one FFT power, with its round-off bound
/// (see real_fft.hpp for the transforms'). Let X^ be the computed spectrum
/// (each entry within alpha = forward_error ||x||_1 of the exact X) and
/// c_j = |X^_j| + alpha >= |X_j|. Then |X^_j^k - X_j^k| <= k c_j^{k-1} alpha.
/// Summed over all n frequencies this is k alpha sum_j c_j^{k-1}, where the
/// sum is not n but about (window width) / (spread of the k-fold sum), a
/// few units, because |X_j|^k decays fast away from frequency 0. The
/// frequencies that carry most of that sum (the largest k c_j^{k-1}) are
/// recomputed directly, sum_i x_i w^{ij} with a compensated sum, within
/// 10 u ||x||_1 instead of alpha (about 40 log2 n u); the bound is then
/// about 10 u k sum_j c_j^{k-1} ||x||_1, a few 1e-15 k. The factor k is the
/// conditioning of the k-th power itself (the finite mass m of the result is
/// m^k, whose relative error k times the input's is genuine, not an
/// artefact of the bound). The power by squaring multiplies values, each
/// product within 4 u relative (Brent, Percival & Zimmermann 2007:
/// sqrt(5) u), a value used in d of the k factors counting d times, so
/// its relative error is at most (1 + 4 u)^{2k} - 1. Frequencies with c_j^k
/// below e^{-80} are set to 0 (error c_j^k each). The inverse transform
/// adds inverse_error times the 1-norm of the computed power spectrum, and
/// an error e in the spectrum moves the outputs by at most ||e||_1 in the
/// 1-norm. The total E bounds the 1-norm of the output's error; it is added
/// to the +infinity mass and only then are negative outputs set to 0.
inline pld_pmf self_convolve(const pld_pmf& a, std::uint64_t k, double tau) {
  const double h = a.interval();
  const double kd = static_cast<double>(k);
  const auto& x = a.probs();
  const double fa = a.finite_mass(), ia = a.infinity_mass();
  const double inf =
      fa > 0 ? std::pow(fa, kd) * std::expm1(kd * std::log1p(ia / fa)) : std::min(1.0, ia * kd);
  std::size_t first = 0, last = x.size();
  while (first < x.size() && !(x[first] > 0)) ++first;
  while (last > first && !(x[last - 1] > 0)) --last;
  if (first == last) {
    return pld_pmf(pmf_built_t{}, h, a.lowest_index(), {0.0}, std::min(1.0, inf));
  }
  --last;
  const std::size_t n1 = last - first + 1;
  const std::int64_t low1 = a.lowest_index() + static_cast<std::int64_t>(first);
  const double full_lo = kd * static_cast<double>(low1);
  const double full_hi =
      kd * static_cast<double>(a.lowest_index() + static_cast<std::int64_t>(last));
  double win_hi = full_hi, win_lo = full_lo;  // in grid units
  // A window pays only when the full range of the sum is long.
  const bool use_window = full_hi - full_lo > std::max(8.0 * static_cast<double>(n1), 1048576.0);
  if (use_window) {
    const double c = -std::log(tau);
    win_hi = std::min(win_hi, chernoff_edge(a, first, last, kd, c, 1) / h);
    win_lo = std::max(win_lo, chernoff_edge(a, first, last, kd, c, -1) / h);
  }
  check_index_range(win_lo * h, h);
  check_index_range(win_hi * h, h);
  const auto lo_idx = static_cast<std::int64_t>(std::floor(win_lo));
  const auto hi_idx = static_cast<std::int64_t>(std::ceil(win_hi));
  check_span(lo_idx, hi_idx, h);
  const auto width = static_cast<std::size_t>(hi_idx - lo_idx + 1);
  std::size_t big_n = 8;
  while (big_n < std::max(width, n1)) big_n *= 2;
  // Mass above the array's top wraps downwards in the cyclic convolution:
  // Chernoff bounds it by tau, which goes to +infinity. Mass below lo_idx
  // wraps upwards, which only raises its loss.
  const double above =
      static_cast<double>(lo_idx) + static_cast<double>(big_n) - 1 < full_hi ? tau : 0.0;
  const real_fft fft(big_n);
  const std::size_t half = big_n / 2;
  std::vector<double> y(big_n, 0.0);
  std::copy(x.begin() + static_cast<std::ptrdiff_t>(first),
            x.begin() + static_cast<std::ptrdiff_t>(last + 1), y.begin());
  std::vector<std::complex<double>> f(half + 1);
  fft.forward(y.data(), f.data());
  const double m = fa * (1 + 4 * unit_roundoff);
  const double alpha = fft.forward_error() * m;
  const double direct_err = 10 * unit_roundoff * m;
  const double log_cut = -80 / kd;  // c_j^k <= e^{-80} when log c_j <= log_cut
  const double pow_rel = std::expm1(2 * kd * std::log1p(4 * unit_roundoff));
  struct kept {
    std::size_t j;
    double weight;
  };
  std::vector<kept> live;
  double cut = 0, power_err = 0, spectrum = 0;
  // c_j <= e^{log_cut} when |X^_j|^2 <= cut2 (squares rounded within 3 u;
  // the 8 u margin covers them and hypot's ulp).
  const double c_max = std::exp(log_cut) * (1 - 4 * unit_roundoff) - alpha;
  const double cut2 = c_max > 0 ? c_max * c_max * (1 - 8 * unit_roundoff) : -1.0;
  double n_cut = 0;
  for (std::size_t j = 0; j <= half; ++j) {
    const double wj = (j == 0 || j == half) ? 1.0 : 2.0;
    if (std::norm(f[j]) <= cut2) {
      n_cut += wj;
      f[j] = 0;
      continue;
    }
    const double cj = std::abs(f[j]) * (1 + 2 * unit_roundoff) + alpha;
    live.push_back({j, wj * kd * std::pow(cj, kd - 1) * alpha});
  }
  cut = n_cut * std::exp(-80.0);
  // The largest forward errors' frequencies, recomputed directly (for
  // k >= 16, where the power magnifies the forward error), largest first,
  // until what is left is below the power's own round-off (or 1e-13): each
  // costs a pass over the input.
  const std::size_t redo = kd >= 16 ? std::min<std::size_t>(64, live.size()) : 0;
  auto larger = [](const kept& l, const kept& r) { return l.weight > r.weight; };
  std::partial_sort(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(redo), live.end(),
                    larger);
  double remaining = 0, power_estimate = 0;
  for (const kept& e : live) {
    remaining += e.weight;
    power_estimate += pow_rel * std::pow(std::abs(f[e.j]), kd) * (e.j == 0 ? 1 : 2);
  }
  const double enough = std::max(1e-13, power_estimate);
  double forward = 0;
  for (std::size_t r = 0; r < live.size(); ++r) {
    const std::size_t j = live[r].j;
    const double wj = (j == 0 || j == half) ? 1.0 : 2.0;
    if (r < redo && remaining > enough) {
      remaining -= live[r].weight;
      compensated_sum re, im;
      std::size_t ij = 0;  // i j mod big_n
      for (std::size_t i = 0; i < n1; ++i, ij = (ij + j) & (big_n - 1)) {
        const std::complex<double> w = fft.twiddle(ij);
        re.add(y[i] * w.real());
        im.add(y[i] * w.imag());
      }
      f[j] = {re.value(), im.value()};
      const double cj = std::abs(f[j]) * (1 + 2 * unit_roundoff) + direct_err;
      forward += wj * kd * std::pow(cj, kd - 1) * direct_err;
    } else {
      forward += live[r].weight;
    }
    const double aj = std::abs(f[j]) * (1 + 2 * unit_roundoff);
    f[j] = complex_power(f[j], k);
    power_err += wj * pow_rel * std::pow(aj, kd);
    spectrum += wj * std::abs(f[j]) * (1 + 2 * unit_roundoff);
  }
  std::vector<double> cyc(big_n);
  fft.inverse(f.data(), cyc.data());
  // The k-fold sum at grid index lo_idx + i sits at (lo_idx + i - k low1)
  // mod big_n; big_n divides 2^64, so unsigned wrap-around computes it.
  const std::uint64_t base =
      static_cast<std::uint64_t>(lo_idx) - k * static_cast<std::uint64_t>(low1);
  // Points past the window's top (the array is longer) go to +infinity.
  std::vector<double> out(width);
  double past = 0;
  for (std::size_t i = 0; i < big_n; ++i) {
    const double v = std::max(0.0, cyc[static_cast<std::size_t>((base + i) & (big_n - 1))]);
    if (i < width) {
      out[i] = v;
    } else {
      past += v;
    }
  }
  const double err = 1.01 * (forward + power_err + cut + fft.inverse_error() * spectrum);
  return truncate_tails(h, lo_idx, std::move(out), std::min(1.0, inf + above + past + err), tau);
}

/// One term of a heterogeneous composition: a pmf and how many times it
/// runs (>= 1).
struct pmf_runs {
  const pld_pmf* pmf;
  std::uint64_t count;
};

/// A term's finite part from its first to its last positive mass.
struct runs_span {
  const pld_pmf* pmf;
  std::size_t first, last;
  double k;
  mgf_blocks mgf;     // log_mgf's, blocks of 64
  sparse_blocks dft;  // the direct DFTs', blocks of 16 from first
};

/// chernoff_edge for the sum of independent terms, term i summed k_i times:
/// the cumulant generating functions add, K = sum_i k_i K_i, so the bound
/// (K(+-t) + c) / t and its Newton iteration are those of one term with the
/// sums in place of k K_i.
inline double chernoff_edge(const std::vector<runs_span>& terms, double c, double side) {
  double var = 0;
  for (const runs_span& s : terms) var += s.k * log_mgf(*s.pmf, s.first, s.last, 0, &s.mgf).d2;
  double t = var > 0 ? std::sqrt(2 * c / var) : 1.0;
  double best = std::numeric_limits<double>::infinity();
  for (int it = 0; it < 14; ++it) {
    double upper = 0, magnitude = 0, d1 = 0, d2 = 0;
    for (const runs_span& s : terms) {
      const log_mgf_value v = log_mgf(*s.pmf, s.first, s.last, side * t, &s.mgf);
      upper += s.k * v.upper;
      magnitude += std::fabs(s.k * v.upper);
      d1 += s.k * v.d1;
      d2 += s.k * v.d2;
    }
    // The products and the sum round within (n + 1) u of the terms'
    // magnitudes (recursive summation, Higham 2002, section 4.2).
    const double slack = magnitude * 2 * (static_cast<double>(terms.size()) + 2) * unit_roundoff;
    best = std::min(best, (upper + slack + c) / t);
    const double g = t * side * d1 - upper - c;
    const double gp = t * d2;
    double next = gp > 0 ? t - g / gp : 8 * t;
    next = std::clamp(next, t / 8, 8 * t);
    if (!(std::fabs(next - t) > 1e-4 * t)) break;
    t = next;
  }
  return side * best;
}

/// c^k by squaring; relative error at most (1 + u)^{2k} - 1 (a value used in
/// d of the k factors counting d times, as in complex_power).
inline double real_power(double c, std::uint64_t k) {
  double r = 1;
  bool first = true;
  while (k > 0) {
    if (k & 1) r = first ? c : r * c, first = false;
    k >>= 1;
    if (k > 0) c *= c;
  }
  return r;
}

/// direct_dft's error bound per output, in units of u ||x||_1.
inline constexpr double direct_dft_ulps = 12;

/// X_j = sum_l x_l e^{-2 pi i j l / n} for each j in `js` (n = fft.size(),
/// x of length len <= n), directly: each term x_l times the table's twiddle
/// w_{jl mod n} (within mu < 4 u of the exact one, real_fft.hpp; the two
/// real products within u each), four terms summed pairwise (within gamma_2
/// of their magnitudes, Higham 2002, section 4.2), and the blocks added by a
/// cascade of Knuth's TwoSum (within u of the total plus gamma_{n-1}^2 of
/// the magnitudes: Ogita, Rump & Oishi 2005, Proposition 4.5). Per component
/// that is (1 + 2) u of ||x||_1 besides the twiddles, so every output is
/// within (4 + sqrt(2) 3 + sqrt(2)) u ||x||_1 < 10 u ||x||_1 (plus terms of
/// order n u^2) of the exact one: direct_dft_ulps = 12, against about 40
/// log2 n u for a transform's outputs. About 1 ns per point and frequency.
/// With `sparse` (split_blocks of x in blocks of 16) the blocks without
/// mass are skipped and the sparse blocks' non-zeros are terms of their own
/// in the cascade, each within its product's error: the same bound.
inline void direct_dft(const real_fft& fft, const double* x, std::size_t len,
                       const std::vector<std::size_t>& js, std::vector<std::complex<double>>& out,
                       const sparse_blocks* sparse = nullptr) {
  const std::size_t mask = fft.size() - 1;
  // Knuth's TwoSum, branch-free, into a running sum and its compensation.
  auto add = [](double& sum, double& comp, double v) {
    const double t = sum + v, z = t - sum;
    comp += (sum - (t - z)) + (v - z);
    sum = t;
  };
  const std::size_t whole = len - len % 4;
  for (std::size_t r = 0; r < js.size(); ++r) {
    const std::size_t j = js[r] & mask;
    double sr = 0, er = 0, si = 0, ei = 0;
    std::size_t at = 0;  // j l mod n
    double pr[4], pi[4];
    auto term = [&](double v, std::size_t b) {
      const std::complex<double> w = fft.twiddle(at);
      pr[b] = v * w.real();
      pi[b] = v * w.imag();
      at = (at + j) & mask;
    };
    // Points [l, stop): groups of four up to `whole`, then one by one.
    auto span = [&](std::size_t l, std::size_t stop) {
      for (; l < std::min(stop, whole); l += 4) {
        for (std::size_t b = 0; b < 4; ++b) term(x[l + b], b);
        add(sr, er, (pr[0] + pr[1]) + (pr[2] + pr[3]));
        add(si, ei, (pi[0] + pi[1]) + (pi[2] + pi[3]));
      }
      for (; l < stop; ++l) {
        term(x[l], 0);
        add(sr, er, pr[0]);
        add(si, ei, pi[0]);
      }
    };
    if (sparse != nullptr) {
      for (const std::uint32_t blk : sparse->blocks) {
        const std::size_t l = std::size_t{blk} * 16;
        at = (l * j) & mask;
        span(l, std::min(len, l + 16));
      }
      for (const std::uint32_t l : sparse->singles) {
        at = (l * j) & mask;
        term(x[l], 0);
        add(sr, er, pr[0]);
        add(si, ei, pi[0]);
      }
    } else {
      span(0, len);
    }
    out[r] = {sr + er, si + ei};
  }
}

/// direct_dft_blocked's error bound per output, in units of u ||x||_1.
inline constexpr double direct_dft_blocked_ulps = 24;

/// direct_dft by blocks of 16 points against a table of each frequency's 16
/// twiddles, about twice as fast and half as accurate: each product within
/// u, a block's 16 summed pairwise (gamma_4 of the block's 1-norm), its sum
/// turned by the twiddle of the block's offset (a complex product, within
/// sqrt(2) gamma_2, Higham's Lemma 3.5) and the blocks added by the TwoSum
/// cascade. With both twiddles' mu < 4 u, every output is within (4 +
/// sqrt(2) 5 + 4 + 2.83 + 2.83) u ||x||_1 < 21 u ||x||_1 of the exact one.
/// With `sparse` (split_blocks of x in blocks of 16) only the blocks with
/// mass are summed, the sparse ones' non-zeros one by one (a product within
/// u and a twiddle within mu each, inside the bound), so a sparse pmf costs
/// its non-zeros.
inline void direct_dft_blocked(const real_fft& fft, const double* x, std::size_t len,
                               const std::vector<std::size_t>& js,
                               std::vector<std::complex<double>>& out,
                               const sparse_blocks* sparse = nullptr) {
  constexpr std::size_t block = 16;
  const std::size_t mask = fft.size() - 1;
  auto pairwise = [](const double* p) {
    const double a0 = (p[0] + p[1]) + (p[2] + p[3]), a1 = (p[4] + p[5]) + (p[6] + p[7]);
    const double a2 = (p[8] + p[9]) + (p[10] + p[11]), a3 = (p[12] + p[13]) + (p[14] + p[15]);
    return (a0 + a1) + (a2 + a3);
  };
  auto add = [](double& sum, double& comp, double v) {
    const double t = sum + v, z = t - sum;
    comp += (sum - (t - z)) + (v - z);
    sum = t;
  };
  const std::size_t whole = len - len % block;
  double tail[block] = {};
  std::copy(x + whole, x + len, tail);
  for (std::size_t r = 0; r < js.size(); ++r) {
    const std::size_t j = js[r] & mask;
    double cr[block], ci[block];
    for (std::size_t b = 0; b < block; ++b) {
      const std::complex<double> w = fft.twiddle((j * b) & mask);
      cr[b] = w.real();
      ci[b] = w.imag();
    }
    const std::size_t step = (j * block) & mask;  // the twiddle index of a block's offset
    double sr = 0, er = 0, si = 0, ei = 0;
    std::size_t at = 0;
    auto one_block = [&](const double* xb) {
      double pr[block], pi[block];
      for (std::size_t b = 0; b < block; ++b) {
        pr[b] = xb[b] * cr[b];
        pi[b] = xb[b] * ci[b];
      }
      const double yr = pairwise(pr), yi = pairwise(pi);
      const std::complex<double> w = fft.twiddle(at);
      add(sr, er, w.real() * yr - w.imag() * yi);
      add(si, ei, w.real() * yi + w.imag() * yr);
      at = (at + step) & mask;
    };
    if (sparse != nullptr) {
      for (const std::uint32_t blk : sparse->blocks) {
        const std::size_t start = std::size_t{blk} * block;
        at = (blk * step) & mask;
        one_block(start < whole ? x + start : tail);
      }
      for (const std::uint32_t l : sparse->singles) {
        const std::complex<double> w = fft.twiddle((l * j) & mask);
        add(sr, er, x[l] * w.real());
        add(si, ei, x[l] * w.imag());
      }
    } else {
      for (std::size_t start = 0; start < whole; start += block) one_block(x + start);
      if (whole < len) one_block(tail);
    }
    out[r] = {sr + er, si + ei};
  }
}

/// The composition of term i run k_i times, for every term, in one
/// frequency domain: one window for the whole sum (Chernoff bounds on the
/// sum of all the terms' losses), each term's pmf transformed once at that
/// size and raised to its count, the powers multiplied, one inverse
/// transform. The cost is one forward transform per term plus one inverse,
/// instead of a convolution per term on a grid that grows with each.
///
/// Round-off, per frequency j (real_fft.hpp's componentwise bounds): term i's
/// computed spectrum X^ is within alpha_i = forward_error ||x_i||_1 of the
/// exact X, and c = |X^| + alpha_i >= |X|. Its computed power Y^ and the
/// exact Y = X^k satisfy |Y^ - Y| <= e_i = k c^{k-1} alpha_i + rho_i |X^|^k
/// (rho_i = (1 + 4u)^{2k} - 1, complex_power's bound) and |Y|, |Y^| <= D_i =
/// c^k (1 + rho_i). With the running product Z^ (computed) and Z (exact)
/// bounded by B and |Z^ - Z| <= E, one more factor, multiplied within 4u
/// relative, gives |Z^ Y^ (1 + eps) - Z Y| <= B e_i + D_i E + 4u B D_i and
/// |Z Y|, |Z^ Y^ (1 + eps)| <= B' = B D_i (1 + 4u); so the relative error
/// r = E / B grows by at most e_i / D_i + 4u <= k_i alpha_i / c + rho_i + 4u
/// per factor: the bound is B r at the end, summed over all n frequencies
/// (twice for 0 < j < n / 2). A frequency whose B falls to e^-80 or below
/// is set to 0 and left out of later terms: its exact product is at most
/// e^-80 times the largest any later factor can grow it, prod max(1,
/// ||x_i||_1^{k_i}) (about 1 + 1e-10). The inverse transform adds
/// inverse_error times the 1-norm of the computed product spectrum; the
/// total bounds the 1-norm of the output's error and is added to the mass at
/// +infinity before the negative outputs are set to 0, as in self_convolve.
///
/// The mass at +infinity of the product measure is prod (f_i + i_i)^{k_i} -
/// prod f_i^{k_i} (finite masses f_i, infinite i_i; 1 - prod (1 -
/// i_i)^{k_i} when each total is 1), computed as prod f_i^{k_i} expm1(sum_i
/// k_i log1p(i_i / f_i)) and rounded up by a bound on its relative error.
inline pld_pmf compose_runs(const std::vector<pmf_runs>& terms, double tau) {
  const double h = terms.front().pmf->interval();
  // Masses and finite spans.
  std::vector<runs_span> spans;
  spans.reserve(terms.size());
  double log_finite = 0, log_ratio = 0, log_total = 0, k_total = 0, log_growth = 0;
  bool no_finite = false;
  std::size_t widest = 1;
  std::vector<double> fin(terms.size());
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const pld_pmf& a = *terms[i].pmf;
    const double kd = static_cast<double>(terms[i].count);
    const auto& x = a.probs();
    const double fa = a.finite_mass(), ia = a.infinity_mass();
    fin[i] = fa;
    k_total += kd;
    log_total += kd * std::log(fa + ia);
    std::size_t first = 0, last = x.size();
    while (first < x.size() && !(x[first] > 0)) ++first;
    while (last > first && !(x[last - 1] > 0)) --last;
    if (first == last || !(fa > 0)) {
      no_finite = true;
      continue;
    }
    log_finite += kd * std::log(fa);
    log_ratio += kd * std::log1p(ia / fa);
    log_growth += std::max(0.0, kd * std::log(fa * (1 + 4 * unit_roundoff)));
    // The pmfs of DP-SGD steps are mostly zeros (discretize_continuous's
    // blocks in their tails): the sums below skip the blocks without mass.
    mgf_blocks mb{split_blocks(x, first, last - 1, 64, true),
                  split_blocks(x, first, last - 1, 64, false)};
    spans.push_back(
        {&a, first, last - 1, kd, std::move(mb), split_blocks(x, first, last - 1, 16, false)});
    widest = std::max(widest, last - first);
  }
  const double n_terms = static_cast<double>(terms.size());
  if (no_finite) {
    // Some term has no finite mass: neither has the composition.
    const double all = std::exp(log_total) * (1 + (4 * k_total + 4 * n_terms + 16) * unit_roundoff);
    return pld_pmf(pmf_built_t{}, h, 0, {0.0}, std::min(1.0, all));
  }
  // Each log carries at most 3 u of its argument's relative error (the
  // compensated masses' few ulps) plus its own rounding, times k_i; exp and
  // expm1 add their own ulps and amplify an error in their argument y by at
  // most 1 + y.
  const double inf_rel = (4 * k_total + 8 * n_terms + 16) * unit_roundoff * (1 + log_ratio);
  const double inf = std::exp(log_finite) * std::expm1(log_ratio) * (1 + inf_rel);
  // The window, in grid units.
  double full_lo = 0, full_hi = 0;
  for (const runs_span& s : spans) {
    full_lo +=
        s.k * static_cast<double>(s.pmf->lowest_index() + static_cast<std::int64_t>(s.first));
    full_hi += s.k * static_cast<double>(s.pmf->lowest_index() + static_cast<std::int64_t>(s.last));
  }
  double win_hi = full_hi, win_lo = full_lo;
  const bool use_window =
      full_hi - full_lo > std::max(8.0 * static_cast<double>(widest), 1048576.0);
  if (use_window) {
    const double c = -std::log(tau);
    win_hi = std::min(win_hi, chernoff_edge(spans, c, 1) / h);
    win_lo = std::max(win_lo, chernoff_edge(spans, c, -1) / h);
  }
  check_index_range(win_lo * h, h);
  check_index_range(win_hi * h, h);
  const auto lo_idx = static_cast<std::int64_t>(std::floor(win_lo));
  const auto hi_idx = static_cast<std::int64_t>(std::ceil(win_hi));
  check_span(lo_idx, hi_idx, h);
  const auto width = static_cast<std::size_t>(hi_idx - lo_idx + 1);
  std::size_t big_n = 8;
  while (big_n < std::max(width, widest)) big_n *= 2;
  // Mass above the array's top wraps downwards: Chernoff bounds it by tau,
  // which goes to +infinity. Mass below lo_idx wraps upwards (pessimistic).
  const double above =
      static_cast<double>(lo_idx) + static_cast<double>(big_n) - 1 < full_hi ? tau : 0.0;
  const real_fft fft(big_n);
  const std::size_t half = big_n / 2;
  std::vector<std::complex<double>> prod(half + 1, {1.0, 0.0});
  // Per frequency: the bound B on the exact and computed products, and the
  // relative error r split into its forward-transform part (sum_i k_i
  // alpha_i / c) and the rest (the powers' and products' roundings).
  std::vector<double> bound(half + 1, 1.0), fwd(half + 1, 0.0), other(half + 1, 0.0);
  std::vector<std::size_t> live(half + 1);
  for (std::size_t j = 0; j <= half; ++j) live[j] = j;
  std::vector<double> y(big_n);
  std::vector<std::complex<double>> f(half + 1);
  const double cut_level = std::exp(-80.0);
  double n_cut = 0;
  auto weight = [half](std::size_t j) { return (j == 0 || j == half) ? 1.0 : 2.0; };
  // Multiplies frequency j's product by the computed spectrum value v (within
  // err of the exact one) raised to k; false (and the product set to 0) when
  // its bound falls to the cut level.
  struct factor {
    std::uint64_t k;
    double kd, err, d_factor, step_rel;
  };
  auto apply = [&](std::size_t j, std::complex<double> v, const factor& t) {
    const double re = v.real(), im = v.imag();
    // |v| within 1.5 u, or 1e-161 absolute where the squares underflow.
    const double c = std::sqrt(re * re + im * im) * (1 + 3 * unit_roundoff) + 1e-150 + t.err;
    // real_power rounds within (1 + u)^{2k} - 1 <= rho: (1 + rho) once for
    // that and once for D_i; the products here within 8 u.
    const double b = bound[j] * real_power(c, t.k) * t.d_factor;
    if (!(b > cut_level)) {
      prod[j] = 0;
      return false;
    }
    prod[j] = complex_mul(prod[j], complex_power(v, t.k));
    fwd[j] += t.kd * t.err / c;
    other[j] += t.step_rel;
    bound[j] = b;
    return true;
  };
  auto factor_of = [&](std::size_t i, double err) {
    const double kd = spans[i].k;
    const double rho = std::expm1(2 * kd * std::log1p(4 * unit_roundoff));
    return factor{terms[i].count, kd, err, (1 + rho) * (1 + rho) * (1 + 8 * unit_roundoff),
                  rho + 4 * unit_roundoff};
  };
  // The base of the cyclic index: the sum at grid index g sits at
  // (g - sum_i k_i low_i) mod big_n (big_n divides 2^64).
  std::uint64_t low_sum = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    low_sum +=
        terms[i].count * static_cast<std::uint64_t>(spans[i].pmf->lowest_index() +
                                                    static_cast<std::int64_t>(spans[i].first));
  }
  // The terms that spread the sum most (largest k_i Var_i) go first: they
  // cut the most frequencies, and once few are left a term's spectrum at
  // just those is cheaper by direct_dft_blocked (and about 20 times more
  // accurate) than a whole transform. The order changes only the roundings,
  // which are bounded either way.
  std::vector<std::size_t> order(terms.size());
  std::vector<double> spread(terms.size());
  for (std::size_t i = 0; i < terms.size(); ++i) {
    order[i] = i;
    const runs_span& s = spans[i];
    spread[i] = s.k * log_mgf(*s.pmf, s.first, s.last, 0, &s.mgf).d2;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return spread[a] > spread[b]; });
  // direct_dft_blocked is used while live frequencies times points stay below
  // 2 (n / 2) log2(n / 2), the transform's butterflies: on the 200-kind
  // DP-SGD job the two cost alike at a factor between 1 and 4.
  const double transform_cost =
      2 * static_cast<double>(half) * std::log2(static_cast<double>(half));
  std::vector<std::complex<double>> at_live;
  // A term computed directly keeps its values (for up to 1,024 live
  // frequencies, ascending, and 2^22 values in all: 96 MiB): the redo below
  // needs no second pass over it.
  std::vector<std::vector<std::size_t>> kept_at(terms.size());
  std::vector<std::vector<std::complex<double>>> kept_value(terms.size());
  std::size_t kept_total = 0;
  for (const std::size_t i : order) {
    const runs_span& s = spans[i];
    const auto& x = s.pmf->probs();
    const std::size_t len = s.last - s.first + 1;
    const std::complex<double>* value = nullptr;
    factor t{};
    const double points = 16 * static_cast<double>(s.dft.blocks.size()) +
                          2 * static_cast<double>(s.dft.singles.size());
    if (static_cast<double>(live.size()) * points <= transform_cost) {
      at_live.resize(live.size());
      direct_dft_blocked(fft, x.data() + s.first, len, live, at_live, &s.dft);
      t = factor_of(i, direct_dft_blocked_ulps * unit_roundoff * fin[i] * (1 + 4 * unit_roundoff));
      value = at_live.data();
      if (live.size() <= 1024 && kept_total + live.size() <= (std::size_t{1} << 22)) {
        kept_at[i] = live;
        kept_value[i] = at_live;
        kept_total += live.size();
      }
    } else {
      std::fill(y.begin(), y.end(), 0.0);
      std::copy(x.begin() + static_cast<std::ptrdiff_t>(s.first),
                x.begin() + static_cast<std::ptrdiff_t>(s.last + 1), y.begin());
      fft.forward(y.data(), f.data());
      t = factor_of(i, fft.forward_error() * fin[i] * (1 + 4 * unit_roundoff));
    }
    std::size_t kept = 0;
    for (std::size_t r = 0; r < live.size(); ++r) {
      const std::size_t j = live[r];
      if (apply(j, value ? value[r] : f[j], t)) {
        live[kept++] = j;
      } else {
        n_cut += weight(j);
      }
    }
    live.resize(kept);
  }
  // The powers magnify each transform's error k_i times: for the
  // frequencies that carry most of the forward-error bound (k_total >= 16,
  // as in self_convolve), largest first, every term's spectrum is recomputed
  // by direct_dft (within direct_dft_ulps u ||x||_1, against about 40 log2 n
  // u for the transform) until what is left is below the powers' own
  // round-off (or 1e-13), at most 64 frequencies: each costs a pass over
  // every term's pmf, except the terms already computed directly above.
  if (k_total >= 16) {
    std::vector<std::pair<double, std::size_t>> by_weight;
    by_weight.reserve(live.size());
    double remaining = 0, power_estimate = 0;
    for (const std::size_t j : live) {
      by_weight.emplace_back(weight(j) * bound[j] * fwd[j], j);
      remaining += by_weight.back().first;
      power_estimate += weight(j) * bound[j] * other[j];
    }
    const std::size_t most = std::min<std::size_t>(64, by_weight.size());
    std::partial_sort(by_weight.begin(), by_weight.begin() + static_cast<std::ptrdiff_t>(most),
                      by_weight.end(), std::greater<>());
    const double enough = std::max(1e-13, power_estimate);
    std::vector<std::size_t> redo;
    for (std::size_t r = 0; r < most && remaining > enough; ++r) {
      remaining -= by_weight[r].first;
      redo.push_back(by_weight[r].second);
    }
    if (!redo.empty()) {
      for (const std::size_t j : redo) {
        prod[j] = {1.0, 0.0};
        bound[j] = 1;
        fwd[j] = other[j] = 0;
      }
      std::vector<std::complex<double>> direct(redo.size());
      std::vector<bool> gone(redo.size(), false);
      for (std::size_t i = 0; i < terms.size(); ++i) {
        const runs_span& s = spans[i];
        double ulps = direct_dft_ulps;
        // A term kept from the first pass is reused unless it holds an eighth
        // of all runs or more (at most eight terms), whose error the power
        // magnifies most: those get the more accurate direct_dft.
        if (!kept_at[i].empty() && 8 * s.k < k_total) {
          // Every redone frequency was live when this term was computed.
          for (std::size_t r = 0; r < redo.size(); ++r) {
            const auto at = std::lower_bound(kept_at[i].begin(), kept_at[i].end(), redo[r]);
            direct[r] = kept_value[i][static_cast<std::size_t>(at - kept_at[i].begin())];
          }
          ulps = direct_dft_blocked_ulps;
        } else {
          direct_dft(fft, s.pmf->probs().data() + s.first, s.last - s.first + 1, redo, direct,
                     &s.dft);
        }
        const factor t = factor_of(i, ulps * unit_roundoff * fin[i] * (1 + 4 * unit_roundoff));
        for (std::size_t r = 0; r < redo.size(); ++r) {
          if (!gone[r] && !apply(redo[r], direct[r], t)) gone[r] = true;
        }
      }
      std::size_t kept = 0;
      for (const std::size_t j : live) {
        const auto at = std::find(redo.begin(), redo.end(), j);
        if (at != redo.end() && gone[static_cast<std::size_t>(at - redo.begin())]) {
          n_cut += weight(j);
        } else {
          live[kept++] = j;
        }
      }
      live.resize(kept);
    }
  }
  double forward = 0, spectrum = 0;
  for (const std::size_t j : live) {
    forward += weight(j) * bound[j] * (fwd[j] + other[j]);
    const double re = prod[j].real(), im = prod[j].imag();
    spectrum += weight(j) * (std::sqrt(re * re + im * im) * (1 + 3 * unit_roundoff) + 1e-150);
  }
  // A cut frequency's exact product is at most e^-80 times the growth of
  // the later factors (each |X_j|^k <= ||x||_1^k); 2 covers the roundings.
  const double cut = 2 * n_cut * cut_level * std::exp(log_growth) * (1 + 1e-10);
  std::vector<double> cyc(big_n);
  fft.inverse(prod.data(), cyc.data());
  const std::uint64_t base = static_cast<std::uint64_t>(lo_idx) - low_sum;
  std::vector<double> out(width);
  double past = 0;
  for (std::size_t i = 0; i < big_n; ++i) {
    const double v = std::max(0.0, cyc[static_cast<std::size_t>((base + i) & (big_n - 1))]);
    if (i < width) {
      out[i] = v;
    } else {
      past += v;
    }
  }
  const double err = 1.01 * (forward + cut + fft.inverse_error() * spectrum);
  return truncate_tails(h, lo_idx, std::move(out), std::min(1.0, inf + above + past + err), tau);
}

}  // namespace detail

class privacy_loss_distribution;

/// One kind of event in a heterogeneous composition
/// (privacy_loss_distribution::compose_all): its PLD and how many times it
/// runs.
struct pld_runs {
  /// The kind's PLD (referred to, not copied: a PLD at the default grid is
  /// tens of thousands of doubles).
  std::reference_wrapper<const privacy_loss_distribution> pld;
  /// How many times it runs, >= 1.
  std::uint64_t count;
};

/// A privacy loss distribution for both orders of a pair of neighbours.
class privacy_loss_distribution {
 public:
  /// From the two orders' PLDs on one grid (remove: P = M(D), Q = M(D minus a
  /// record); add: the reverse). Throws invalid_parameter if the grids
  /// differ, or naming `tail_mass_truncation` unless it is in (0, 1).
  privacy_loss_distribution(pld_pmf remove, pld_pmf add, double tail_mass_truncation = 1e-15)
      : remove_(std::move(remove)), add_(std::move(add)), tau_(validate_tau(tail_mass_truncation)) {
    same_grid(remove_, *add_);
  }
  /// A PLD whose two orders coincide. Throws invalid_parameter naming
  /// `tail_mass_truncation` unless it is in (0, 1).
  explicit privacy_loss_distribution(pld_pmf symmetric, double tail_mass_truncation = 1e-15)
      : remove_(std::move(symmetric)), tau_(validate_tau(tail_mass_truncation)) {}

  // ---- mechanisms --------------------------------------------------------------

  /// Laplace noise of scale b on a query of L1 sensitivity d.
  static privacy_loss_distribution laplace(double scale, double sensitivity = 1,
                                           const pld_options& o = {}) {
    validate_positive(scale, "scale");
    validate_positive(sensitivity, "sensitivity");
    validate(o);
    const double top = sensitivity / scale;
    return privacy_loss_distribution(detail::discretize_continuous(
                                         detail::laplace_loss{scale, sensitivity}, -top, top, o),
                                     o.tail_mass_truncation)
        .with_loss_bound(detail::div_up(sensitivity, scale));
  }

  /// Gaussian noise of standard deviation sigma on a query of L2 sensitivity
  /// d; the loss is N(mu^2 / 2, mu^2) with mu = d / sigma, kept within the
  /// quantiles that leave tail_mass_truncation / 2 on each side.
  static privacy_loss_distribution gaussian(double sigma, double sensitivity = 1,
                                            const pld_options& o = {}) {
    validate_positive(sigma, "sigma");
    validate_positive(sensitivity, "sensitivity");
    validate(o);
    const double mu = sensitivity / sigma;
    const double z = detail::normal_isf(o.tail_mass_truncation / 2);
    return privacy_loss_distribution(
               detail::discretize_continuous(detail::gaussian_loss{mu}, mu * mu / 2 - mu * z,
                                             mu * mu / 2 + mu * z, o),
               o.tail_mass_truncation)
        .with_loss_bound(unbounded);
  }

  /// Discrete Laplace noise, P[x] proportional to e^{-|x| / t}, on an integer
  /// query of sensitivity d (dp_accounting's parameter is 1 / t).
  static privacy_loss_distribution discrete_laplace(double scale, std::int64_t sensitivity = 1,
                                                    const pld_options& o = {}) {
    validate_positive(scale, "scale");
    validate_at_least<std::int64_t>(sensitivity, 1, "sensitivity");
    validate(o);
    const double a = std::exp(-1 / scale), d = static_cast<double>(sensitivity);
    std::vector<std::pair<double, double>> atoms;
    atoms.emplace_back(d / scale, 1 / (1 + a));  // x <= 0
    for (std::int64_t x = 1; x < sensitivity; ++x) {
      const double xd = static_cast<double>(x);
      atoms.emplace_back((d - 2 * xd) / scale, -std::expm1(-1 / scale) / (1 + a) * std::pow(a, xd));
    }
    atoms.emplace_back(-d / scale, std::pow(a, d) / (1 + a));  // x >= d
    return privacy_loss_distribution(detail::discretize_atoms(atoms, 0, o), o.tail_mass_truncation)
        .with_loss_bound(detail::div_up(d, scale));
  }

  /// Discrete Gaussian noise, P[x] proportional to e^{-x^2 / (2 sigma^2)}, on
  /// an integer query of sensitivity d. The pmf is summed over |x| <= m with
  /// tails below tail_mass_truncation / 2; normalising by the kept sum
  /// over-weights every kept atom by as much mass as the tails hold, at
  /// losses above the dropped lower tail's, and the upper tail's integral
  /// bound goes to +infinity.
  static privacy_loss_distribution discrete_gaussian(double sigma, std::int64_t sensitivity = 1,
                                                     const pld_options& o = {}) {
    validate_positive(sigma, "sigma");
    validate_at_least<std::int64_t>(sensitivity, 1, "sensitivity");
    validate(o);
    const double z = detail::normal_isf(o.tail_mass_truncation / 2);
    const auto m = static_cast<std::int64_t>(std::ceil(sigma * z)) + 1;
    const double d = static_cast<double>(sensitivity);
    std::vector<std::pair<double, double>> atoms;
    double kept = 0;
    for (std::int64_t x = -m; x <= m; ++x) {
      const double xd = static_cast<double>(x);
      const double w = std::exp(-xd * xd / (2 * sigma * sigma));
      kept += w;
      atoms.emplace_back((d * d - 2 * xd * d) / (2 * sigma * sigma), w);
    }
    for (auto& atom : atoms) atom.second /= kept;
    // sum_{x > m} e^{-x^2 / 2 s^2} <= integral from m: s sqrt(2 pi) Phi(-m / s).
    const double tail = sigma * std::sqrt(2 * std::numbers::pi) *
                        detail::normal_sf(static_cast<double>(m) / sigma) / kept;
    return privacy_loss_distribution(detail::discretize_atoms(atoms, tail, o),
                                     o.tail_mass_truncation)
        .with_loss_bound(unbounded);
  }

  /// k-ary randomised response with parameter epsilon (the true value kept
  /// with probability e^eps / (e^eps + k - 1)), for a change of one value.
  static privacy_loss_distribution randomized_response(double epsilon, std::uint64_t k = 2,
                                                       const pld_options& o = {}) {
    validate_epsilon(epsilon);
    validate_at_least<std::uint64_t>(k, 2, "k");
    validate(o);
    const double others = static_cast<double>(k - 1);
    const double p_true = 1 / (1 + others * std::exp(-epsilon));
    const double p_other = std::exp(-epsilon) * p_true;
    std::vector<std::pair<double, double>> atoms{{epsilon, p_true}, {-epsilon, p_other}};
    if (k > 2) atoms.emplace_back(0.0, (others - 1) * p_other);
    return privacy_loss_distribution(detail::discretize_atoms(atoms, 0, o), o.tail_mass_truncation)
        .with_loss_bound(epsilon);
  }

  /// The worst PLD an (eps, delta)-DP mechanism can have: randomised
  /// response that first reveals the input with probability delta (loss
  /// +infinity), and otherwise answers truthfully with probability
  /// e^eps / (1 + e^eps) (Kairouz, Oh & Viswanath 2015, Theorem 2.1: every
  /// (eps, delta)-DP pair is a post-processing of this one). delta = 0 is
  /// binary randomised response.
  static privacy_loss_distribution from_guarantee(const approx_dp& g, const pld_options& o = {}) {
    validate(o);
    const double eps = g.epsilon(), keep = 1 - g.delta();
    // e^eps / (1 + e^eps) and 1 / (1 + e^eps) without overflow at large eps.
    const double p_true = 1 / (1 + std::exp(-eps)), p_other = 1 / (1 + std::exp(eps));
    std::vector<std::pair<double, double>> atoms{{eps, keep * p_true}, {-eps, keep * p_other}};
    return privacy_loss_distribution(detail::discretize_atoms(atoms, g.delta(), o),
                                     o.tail_mass_truncation)
        .with_loss_bound(eps, eps, detail::survival::complement_of(g.delta()));
  }

  /// The Gaussian mechanism with noise multiplier sigma (L2 sensitivity 1) on
  /// a Poisson sample that includes each record with probability q, under
  /// add/remove neighbours; both orders are kept. q = 1 is the Gaussian.
  static privacy_loss_distribution subsampled_gaussian(double q, double noise_multiplier,
                                                       const pld_options& o = {}) {
    if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
    validate_positive(noise_multiplier, "noise_multiplier");
    validate(o);
    if (q == 1) return gaussian(noise_multiplier, 1, o);
    const double s = noise_multiplier;
    const double z = detail::normal_isf(o.tail_mass_truncation / 2);
    const detail::subsampled_gaussian_remove_loss rm{q, s};
    const detail::subsampled_gaussian_add_loss ad{q, s};
    // Under P the remove loss exceeds loss(1 + s z) with probability at most
    // Phi(-z) (both mixture components are below 1 + s z that often), and is
    // below loss(-s z) at most that often; the add loss likewise at -+ s z.
    return privacy_loss_distribution(
               detail::discretize_continuous(rm, rm.loss(-s * z), rm.loss(1 + s * z), o),
               detail::discretize_continuous(ad, ad.loss(s * z), ad.loss(-s * z), o),
               o.tail_mass_truncation)
        .with_loss_bound(unbounded);
  }

  /// Laplace noise of scale b (L1 sensitivity 1) on a Poisson sample that
  /// includes each record with probability q, under add/remove neighbours;
  /// both orders are kept (remove: P = q Lap(1, b) + (1 - q) Lap(0, b) against
  /// Q = Lap(0, b); add: the reverse, the dominating pairs of Poisson
  /// subsampling, Zhu, Dong & Wang 2022). The loss is bounded, within
  /// +-log(1 + q (e^{1/b} - 1)), so nothing is truncated. q = 1 is the
  /// Laplace mechanism.
  static privacy_loss_distribution subsampled_laplace(double q, double scale,
                                                      const pld_options& o = {}) {
    if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
    validate_positive(scale, "scale");
    validate(o);
    if (q == 1) return laplace(scale, 1, o);
    const detail::subsampled_laplace_remove_loss rm{q, scale, 1};
    const detail::subsampled_laplace_add_loss ad{q, scale, 1};
    return privacy_loss_distribution(detail::discretize_continuous(rm, rm.bottom(), rm.top(), o),
                                     detail::discretize_continuous(ad, ad.bottom(), ad.top(), o),
                                     o.tail_mass_truncation)
        .with_loss_bound(computed_up(rm.top()), computed_up(ad.top()));
  }

  /// The Gaussian mechanism with noise multiplier sigma on a Poisson sample
  /// (rate q) under replace-one neighbours (detail::subsampled_gaussian_replace_loss;
  /// one PLD serves both orders). Under P, x is outside [-s z, 1 + s z] with
  /// probability at most 2 Phi(-z), z leaving tail_mass_truncation / 2 on
  /// each side. q = 1 is the Gaussian at sensitivity 2.
  static privacy_loss_distribution subsampled_gaussian_replace_one(double q,
                                                                   double noise_multiplier,
                                                                   const pld_options& o = {}) {
    if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
    validate_positive(noise_multiplier, "noise_multiplier");
    validate(o);
    if (q == 1) return gaussian(noise_multiplier, 2, o);
    const double s = noise_multiplier;
    const double z = detail::normal_isf(o.tail_mass_truncation / 2);
    const detail::subsampled_gaussian_replace_loss m{q, s};
    return privacy_loss_distribution(
               detail::discretize_continuous(m, m.loss(-s * z), m.loss(1 + s * z), o),
               o.tail_mass_truncation)
        .with_loss_bound(unbounded);
  }

  /// k-ary randomised response with parameter epsilon (the true value kept
  /// with probability e^eps / (e^eps + k - 1)) under replace-special
  /// neighbours: a value against the special input whose output is uniform
  /// over the k values (dp_accounting's from_randomized_response,
  /// REPLACE_SPECIAL). With c = e^eps + k - 1, remove is
  /// P = RR(x) against Q = uniform: loss eps + log(k / c) with mass e^eps / c,
  /// loss log(k / c) with mass (k - 1) / c; add is the reverse: loss
  /// -eps - log(k / c) with mass 1 / k, -log(k / c) with mass (k - 1) / k.
  static privacy_loss_distribution randomized_response_replace_special(double epsilon,
                                                                       std::uint64_t k = 2,
                                                                       const pld_options& o = {}) {
    validate_epsilon(epsilon);
    validate_at_least<std::uint64_t>(k, 2, "k");
    validate(o);
    const double kd = static_cast<double>(k), others = kd - 1;
    // log(k / c) = -log((e^eps - 1) / k + 1), without overflow at large eps.
    const double log_k_over_c =
        epsilon < 700 ? -std::log1p(std::expm1(epsilon) / kd)
                      : std::log(kd) - epsilon - std::log1p(others * std::exp(-epsilon));
    const double p_true = 1 / (1 + others * std::exp(-epsilon));  // e^eps / c
    const double p_other = others * std::exp(-epsilon) * p_true;  // (k - 1) / c
    std::vector<std::pair<double, double>> rm{{epsilon + log_k_over_c, p_true},
                                              {log_k_over_c, p_other}};
    std::vector<std::pair<double, double>> ad{{-epsilon - log_k_over_c, 1 / kd},
                                              {-log_k_over_c, others / kd}};
    return privacy_loss_distribution(detail::discretize_atoms(rm, 0, o),
                                     detail::discretize_atoms(ad, 0, o), o.tail_mass_truncation)
        .with_loss_bound(computed_up(epsilon + log_k_over_c), computed_up(-log_k_over_c));
  }

  /// The mixture of Gaussians (detail::mixture_gaussian_loss): Gaussian
  /// noise of standard deviation sigma, sensitivity sensitivities[i] with
  /// probability probs[i], add/remove neighbours; both orders are kept.
  /// Entries of probability 0 are dropped. Under P the remove loss is outside
  /// [L(c_min - sigma z), L(c_max + sigma z)] with probability at most
  /// Phi(-z) on each side (every component is), the add loss likewise
  /// within -L(+-sigma z), z leaving tail_mass_truncation / 2 per side.
  /// Throws invalid_parameter naming `sigma`, `sensitivities` (empty, sizes
  /// differ, an entry negative or not finite, or no positive one with
  /// positive probability) or `probs` (an entry outside [0, 1], or a sum
  /// not within 1e-9 of 1).
  static privacy_loss_distribution mixture_of_gaussians(double sigma,
                                                        const std::vector<double>& sensitivities,
                                                        const std::vector<double>& probs,
                                                        const pld_options& o = {}) {
    validate_positive(sigma, "sigma");
    validate(o);
    detail::mixture_gaussian_loss m{sigma, {}, {}, -std::numeric_limits<double>::infinity()};
    check_mixture(sensitivities, probs, m.c, m.p, m.log_p0);
    const double cmin = *std::min_element(m.c.begin(), m.c.end());
    const double cmax = *std::max_element(m.c.begin(), m.c.end());
    const double z = detail::normal_isf(o.tail_mass_truncation / 2);
    const detail::mixture_gaussian_remove_loss rm{&m};
    const detail::mixture_gaussian_add_loss ad{&m};
    return privacy_loss_distribution(
               detail::discretize_continuous(rm, m.loss(cmin - sigma * z), m.loss(cmax + sigma * z),
                                             o),
               detail::discretize_continuous(ad, -m.loss(sigma * z), -m.loss(-sigma * z), o),
               o.tail_mass_truncation)
        .with_loss_bound(unbounded);
  }

  /// The truncated Poisson-subsampled Gaussian of dp_accounting
  /// (from_truncated_subsampled_gaussian_mechanism): each of n records is
  /// sampled with probability q, and a batch larger than `batch` is cut down
  /// to `batch` records. With probability t = P(Bin(n - 1, q) >= batch)
  /// (truncation happens given the record is sampled) the step is bounded by
  /// the replace-one subsampled Gaussian at noise multiplier sigma / 2 and
  /// rate P(Bin(n, q) > batch) batch / (t n); otherwise by the subsampled
  /// Gaussian (the neighbouring relation's) at sigma and q; the PLD is their
  /// mixture with weight t (mix_pmfs), dp_accounting's analysis.
  /// `replace_one` selects replace-one neighbours for the second part.
  /// Throws invalid_parameter naming `n` (< 1), `batch` (< 1), `q` (outside
  /// (0, 1]) or `noise_multiplier`.
  static privacy_loss_distribution truncated_subsampled_gaussian(std::uint64_t n, double q,
                                                                 std::uint64_t batch,
                                                                 double noise_multiplier,
                                                                 bool replace_one = false,
                                                                 const pld_options& o = {}) {
    validate_at_least<std::uint64_t>(n, 1, "n");
    validate_at_least<std::uint64_t>(batch, 1, "batch");
    if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
    validate_positive(noise_multiplier, "noise_multiplier");
    validate(o);
    const auto plain = replace_one ? subsampled_gaussian_replace_one(q, noise_multiplier, o)
                                   : subsampled_gaussian(q, noise_multiplier, o);
    const double t = binomial_at_least(n - 1, q, batch);
    if (t == 0) return plain;
    const double q2 = std::min(1.0, binomial_at_least(n, q, batch + 1) *
                                        static_cast<double>(batch) / t / static_cast<double>(n));
    const auto cut = subsampled_gaussian_replace_one(q2, noise_multiplier / 2, o);
    const double tau = o.tail_mass_truncation;
    if (plain.symmetric()) {
      return privacy_loss_distribution(detail::mix_pmfs(cut.remove(), plain.remove(), t), tau)
          .with_loss_bound(unbounded);
    }
    return privacy_loss_distribution(detail::mix_pmfs(cut.remove(), plain.remove(), t),
                                     detail::mix_pmfs(cut.add(), plain.add(), t), tau)
        .with_loss_bound(unbounded);
  }

  // ---- composition ---------------------------------------------------------------

  /// The PLD of running both mechanisms (on the same neighbours). Throws
  /// invalid_parameter unless both are on the same grid.
  [[nodiscard]] privacy_loss_distribution compose(const privacy_loss_distribution& other) const {
    same_grid(remove_, other.remove_);
    const double tau = std::min(tau_, other.tau_);
    pld_pmf r = detail::convolve(remove_, other.remove_, tau);
    const double rm = detail::add_up(max_remove_, other.max_remove_);
    const double ad = detail::add_up(max_add_, other.max_add_);
    const detail::survival kept = survival_.times(other.survival_);
    const bool known = known_ && other.known_;
    if (symmetric() && other.symmetric()) {
      return privacy_loss_distribution(std::move(r), tau).with_loss_bound(rm, ad, kept, known);
    }
    return privacy_loss_distribution(std::move(r), detail::convolve(add(), other.add(), tau), tau)
        .with_loss_bound(rm, ad, kept, known);
  }

  /// The PLD of k runs, by one FFT power. Throws invalid_parameter for k = 0.
  [[nodiscard]] privacy_loss_distribution self_compose(std::uint64_t k) const {
    validate_at_least<std::uint64_t>(k, 1, "k");
    if (k == 1) return *this;
    pld_pmf r = detail::self_convolve(remove_, k, tau_);
    const double rm = times_up(max_remove_, k), ad = times_up(max_add_, k);
    const detail::survival kept = survival_.power(k);
    if (symmetric()) {
      return privacy_loss_distribution(std::move(r), tau_).with_loss_bound(rm, ad, kept, known_);
    }
    return privacy_loss_distribution(std::move(r), detail::self_convolve(*add_, k, tau_), tau_)
        .with_loss_bound(rm, ad, kept, known_);
  }

  /// The PLD of running every kind in `kinds` its count times (on the same
  /// neighbours), in one frequency domain: one window sized for the whole
  /// composition, each kind's pmf transformed once and raised to its count,
  /// the powers multiplied and transformed back (detail::compose_runs), with
  /// the same pessimism as self_compose (every round-off bound, the tails'
  /// Chernoff bound and the mass at +infinity added). Its cost is one
  /// transform per kind at the final size, where composing kinds pair by pair
  /// costs one per kind on a grid that grows with each. One kind is
  /// self_compose(count). The truncation is the smallest of the kinds'.
  /// Throws invalid_parameter naming `kinds` if it is empty, `count` for a
  /// count of 0, and `value_discretization_interval` unless all kinds share
  /// one grid.
  [[nodiscard]] static privacy_loss_distribution compose_all(std::span<const pld_runs> kinds) {
    if (kinds.empty()) {
      throw invalid_parameter("kinds", "privet: kinds is empty; allowed: at least one element");
    }
    const privacy_loss_distribution& first = kinds.front().pld.get();
    double tau = first.tau_;
    bool symmetric_all = true;
    for (const pld_runs& k : kinds) {
      validate_at_least<std::uint64_t>(k.count, 1, "count");
      const privacy_loss_distribution& p = k.pld.get();
      same_grid(first.remove_, p.remove_);
      tau = std::min(tau, p.tau_);
      symmetric_all = symmetric_all && p.symmetric();
    }
    if (kinds.size() == 1) return first.self_compose(kinds.front().count);
    std::vector<detail::pmf_runs> rm, ad;
    rm.reserve(kinds.size());
    ad.reserve(kinds.size());
    double max_rm = 0, max_ad = 0;
    detail::survival kept;
    bool known = true;
    for (const pld_runs& k : kinds) {
      const privacy_loss_distribution& p = k.pld.get();
      rm.push_back({&p.remove_, k.count});
      ad.push_back({&p.add(), k.count});
      max_rm = detail::add_up(max_rm, times_up(p.max_remove_, k.count));
      max_ad = detail::add_up(max_ad, times_up(p.max_add_, k.count));
      kept = kept.times(p.survival_.power(k.count));
      known = known && p.known_;
    }
    pld_pmf r = detail::compose_runs(rm, tau);
    if (symmetric_all) {
      return privacy_loss_distribution(std::move(r), tau)
          .with_loss_bound(max_rm, max_ad, kept, known);
    }
    return privacy_loss_distribution(std::move(r), detail::compose_runs(ad, tau), tau)
        .with_loss_bound(max_rm, max_ad, kept, known);
  }

  // ---- privacy -------------------------------------------------------------------

  /// The smallest delta for `epsilon` (>= 0, finite) over both orders: the
  /// grid's, or, from epsilon = loss_bound() on, infinity_mass_bound() when
  /// that is smaller (basic composition: 0 for pure DP).
  [[nodiscard]] double delta(double epsilon) const {
    validate_non_negative(epsilon, "epsilon");
    const double d = std::max(remove_.delta(epsilon), add().delta(epsilon));
    return epsilon >= loss_bound() ? std::min(d, infinity_mass_bound()) : d;
  }

  /// The smallest epsilon (rounded up) with delta(epsilon) <= delta, delta in
  /// (0, 1): the grid's, or loss_bound() when that is smaller and delta is
  /// at least infinity_mass_bound(). Throws invalid_parameter when neither
  /// gives a finite epsilon (has_epsilon(delta) is false: delta is not
  /// above the grid's mass at +infinity and the loss is unbounded or delta is
  /// below infinity_mass_bound()).
  [[nodiscard]] approx_dp epsilon(double delta) const {
    validate_delta_positive(delta);
    const double eps =
        with_basic_bound(std::max(remove_.epsilon(delta), add().epsilon(delta)), delta);
    if (!std::isfinite(eps)) {
      throw_invalid(
          "delta", delta,
          "> the mass at +infinity = " +
              detail::format_value(std::max(remove_.infinity_mass(), add().infinity_mass())));
    }
    return approx_dp(eps, delta);
  }

  /// epsilon for each delta in `deltas` (each in [0, 1]) over both orders,
  /// by one sweep of each order's grid (pld_pmf::epsilons): 0 where delta(0)
  /// is at most the delta, +infinity where no finite epsilon reaches it (a
  /// delta at or below the mass at +infinity), otherwise the value
  /// epsilon(delta) gives. Throws invalid_parameter naming `deltas` for a
  /// NaN or a value outside [0, 1].
  [[nodiscard]] std::vector<double> epsilons(std::span<const double> deltas,
                                             const parallel_options& parallel = {}) const {
    check_unit_interval(deltas, "deltas");
    std::vector<double> out = remove_.epsilons(deltas, parallel);
    if (add_) {
      const std::vector<double> other = add_->epsilons(deltas, parallel);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::max(out[i], other[i]);
    }
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = with_basic_bound(out[i], deltas[i]);
    return out;
  }

  /// Whether epsilon(delta) has a finite answer: delta above the grid's mass
  /// at +infinity (the larger of the two orders'), or the basic bound
  /// applies (a finite loss_bound() and delta >= infinity_mass_bound()).
  [[nodiscard]] bool has_epsilon(double delta) const {
    return delta > std::max(remove_.infinity_mass(), add().infinity_mass()) ||
           (std::isfinite(loss_bound()) && delta >= infinity_mass_bound());
  }

  /// An upper bound on every finite privacy loss of the mechanism's pair of
  /// distributions, in either order (+infinity when the loss is unbounded:
  /// Gaussian noise), carried through composition by addition (basic
  /// composition, Dwork, McSherry, Nissim & Smith 2006): Laplace noise of
  /// scale b on sensitivity d has d / b, an (eps, delta) guarantee eps, a
  /// composition the sum. It does not depend on the grid, so the answers
  /// at epsilon >= loss_bound() are exact where the grid's carry its
  /// discretisation and round-off allowances.
  [[nodiscard]] double loss_bound() const noexcept { return std::max(max_remove_, max_add_); }

  /// An upper bound on the mechanism's own mass at +infinity (1 -
  /// prod (1 - delta_i) for a composition of (eps_i, delta_i) guarantees,
  /// 0 for pure DP and for Gaussian noise; 1 for a PLD made from pmfs, whose
  /// mechanism is unknown), without the grid's truncation and round-off
  /// allowances.
  [[nodiscard]] double infinity_mass_bound() const noexcept { return survival_.complement_up(); }

  /// For each false positive rate alpha in `false_positive_rates`, an upper
  /// bound on the true positive rate of any test telling the two neighbours
  /// apart (a membership inference attack) at that rate. Each (eps, delta)
  /// the PLD certifies bounds it by min(e^eps alpha + delta,
  /// 1 - e^-eps (1 - alpha - delta)) (Kairouz, Oh & Viswanath 2015,
  /// Theorem 2.1, the hypothesis-testing form of (eps, delta)-DP); the
  /// bound is the smallest over the epsilons of `deltas` (epsilons()),
  /// rounded up, and at most 1. dp_accounting's
  /// PrivacyLossDistribution.get_true_positive_rates with the same deltas
  /// (its default: 0 and 3,000 log-spaced from 1e-13 to 1). Like it, the
  /// curve is symmetric about alpha + TPR = 1 (one epsilon for both
  /// orders), so for a PLD whose orders differ it is valid but may be
  /// loose. Throws invalid_parameter naming `false_positive_rates` or
  /// `deltas` for a NaN or a value outside [0, 1].
  [[nodiscard]] std::vector<double> true_positive_rates(
      std::span<const double> false_positive_rates, std::span<const double> deltas,
      const parallel_options& parallel = {}) const {
    check_unit_interval(false_positive_rates, "false_positive_rates");
    const std::vector<double> eps = epsilons(deltas, parallel);
    // e^eps rounded up and e^-eps rounded down (exp is within an ulp).
    constexpr double u = detail::unit_roundoff;
    std::vector<double> up(eps.size()), down(eps.size());
    for (std::size_t d = 0; d < eps.size(); ++d) {
      up[d] = std::exp(eps[d]) * (1 + 4 * u);
      down[d] = std::exp(-eps[d]) * (1 - 4 * u);
    }
    std::vector<double> out(false_positive_rates.size(), 1.0);
    parallel_for_index(out.size(), parallel, [&](std::size_t f) {
      const double alpha = false_positive_rates[f];
      // The smallest of each kind of bound as computed, then rounded up once:
      // e^eps alpha + delta is one fma of non-negative terms (within an ulp,
      // relative); 1 - x, with x = e^-eps (1 - alpha - delta) rounded down
      // (the subtraction 1 - alpha - delta by 2u of 1, the product by 2u
      // relative), is within half an ulp of 1.
      double first = std::numeric_limits<double>::infinity(), second = first;
      for (std::size_t d = 0; d < eps.size(); ++d) {
        if (std::isfinite(up[d])) first = std::min(first, std::fma(up[d], alpha, deltas[d]));
        const double rest = (1 - alpha - deltas[d]) - 2 * u;
        if (rest > 0) second = std::min(second, 1 - down[d] * rest * (1 - 2 * u));
      }
      out[f] = std::min({1.0, detail::next_up(first * (1 + 2 * u)), detail::next_up(second + u)});
    });
    return out;
  }

  /// An estimate of the smallest mu such that the PLD is mu-GDP (Dong, Roth
  /// & Su 2022): the largest Phi^-1(TPR) - Phi^-1(alpha) over the false
  /// positive rates alpha in (m, 1/2] of `false_positive_rates`, with TPR
  /// the bound of true_positive_rates() and m the mass at +infinity (the
  /// larger of the two orders'). It is an estimate, neither an upper nor a
  /// lower bound: the TPRs are upper bounds, but mu is only checked at the
  /// rates given. Rates at or below m are skipped because there the bound
  /// is at least m whatever the mechanism, and privet's m includes the
  /// certified truncation and round-off of every step (1e-11 to 1e-9, where
  /// dp_accounting's holds the truncation alone); dp_accounting instead
  /// answers +infinity when m exceeds the smallest rate. +infinity when no
  /// rate is left or a TPR bound is 1, and when the mechanism's own mass at
  /// +infinity (infinity_mass_bound(), an (eps, delta) guarantee's delta,
  /// not the grid's allowances) is above the smallest rate: such a
  /// mechanism is mu-GDP for no mu. Throws invalid_parameter as
  /// true_positive_rates() does.
  [[nodiscard]] double gdp_parameter_estimate(std::span<const double> false_positive_rates,
                                              std::span<const double> deltas,
                                              const parallel_options& parallel = {}) const {
    check_unit_interval(false_positive_rates, "false_positive_rates");
    if (known_ && infinity_mass_bound() > 0 && !false_positive_rates.empty() &&
        *std::min_element(false_positive_rates.begin(), false_positive_rates.end()) <
            infinity_mass_bound()) {
      // The mechanism itself reveals its input with that probability (an
      // (eps, delta) guarantee's worst case): its true positive rate is at
      // least that mass at every rate, so it is mu-GDP for no mu, and the
      // rates below the mass show it (dp_accounting's answer).
      return std::numeric_limits<double>::infinity();
    }
    const double m = std::max(remove_.infinity_mass(), add().infinity_mass());
    std::vector<double> kept;
    for (double a : false_positive_rates) {
      if (a > m && a <= 0.5) kept.push_back(a);
    }
    if (kept.empty()) return std::numeric_limits<double>::infinity();
    const std::vector<double> tpr = true_positive_rates(kept, deltas, parallel);
    double mu = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < kept.size(); ++i) {
      if (!(tpr[i] < 1)) return std::numeric_limits<double>::infinity();
      // Phi^-1(p) = -normal_isf(p).
      mu = std::max(mu, detail::normal_isf(kept[i]) - detail::normal_isf(tpr[i]));
    }
    return mu;
  }

  /// Whether both orders share one pmf (then add() is remove()).
  [[nodiscard]] bool symmetric() const noexcept { return !add_.has_value(); }
  /// The loss of P = M(D) against Q = M(D minus a record).
  [[nodiscard]] const pld_pmf& remove() const noexcept { return remove_; }
  /// The loss of the reverse order (add a record).
  [[nodiscard]] const pld_pmf& add() const noexcept { return add_ ? *add_ : remove_; }
  /// The grid step h of both orders.
  [[nodiscard]] double value_discretization_interval() const noexcept { return remove_.interval(); }
  /// The tail mass each composition may move pessimistically, in (0, 1).
  [[nodiscard]] double tail_mass_truncation() const noexcept { return tau_; }

 private:
  static double validate_tau(double tau) {
    if (!(tau > 0 && tau < 1)) throw_invalid("tail_mass_truncation", tau, "(0, 1)");
    return tau;
  }
  static void validate(const pld_options& o) {
    validate_positive(o.value_discretization_interval, "value_discretization_interval");
    validate_tau(o.tail_mass_truncation);
  }
  static void check_unit_interval(std::span<const double> v, const char* name) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!(v[i] >= 0 && v[i] <= 1)) {
        throw invalid_parameter(
            name, std::string("privet: ") + name + "[" + detail::format_value(i) +
                      "] = " + detail::format_value(v[i]) + " is invalid; allowed: [0, 1]");
      }
    }
  }
  /// P(Bin(n, q) >= k), by the regularised incomplete beta function.
  static double binomial_at_least(std::uint64_t n, double q, std::uint64_t k) {
    if (k == 0) return 1;
    if (k > n) return 0;
    if (q >= 1) return 1;
    return boost::math::ibeta(static_cast<double>(k), static_cast<double>(n - k + 1), q);
  }

  static void check_mixture(const std::vector<double>& c, const std::vector<double>& p,
                            std::vector<double>& c_out, std::vector<double>& p_out,
                            double& log_p0) {
    validate_non_empty(c, "sensitivities");
    if (c.size() != p.size()) {
      throw_invalid("probs.size()", p.size(),
                    "sensitivities.size() = " + detail::format_value(c.size()));
    }
    double total = 0, p0 = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (!(std::isfinite(c[i]) && c[i] >= 0)) {
        throw invalid_parameter("sensitivities", "privet: sensitivities[" +
                                                     detail::format_value(i) +
                                                     "] = " + detail::format_value(c[i]) +
                                                     " is invalid; allowed: finite and >= 0");
      }
      if (!(p[i] >= 0 && p[i] <= 1)) {
        throw invalid_parameter("probs", "privet: probs[" + detail::format_value(i) +
                                             "] = " + detail::format_value(p[i]) +
                                             " is invalid; allowed: [0, 1]");
      }
      total += p[i];
      if (p[i] == 0) continue;
      if (c[i] == 0) {
        p0 += p[i];
        continue;
      }
      c_out.push_back(c[i]);
      p_out.push_back(p[i]);
    }
    if (!(std::fabs(total - 1) <= 1e-9)) {
      throw invalid_parameter("probs", "privet: sum(probs) = " + detail::format_value(total) +
                                           " is invalid; allowed: 1 within 1e-9");
    }
    if (c_out.empty()) {
      throw invalid_parameter("sensitivities",
                              "privet: sensitivities has no positive entry of positive "
                              "probability; allowed: at least one (otherwise nothing is released)");
    }
    if (p0 > 0) {
      c_out.push_back(0);
      p_out.push_back(p0);
      log_p0 = std::log(p0);
    }
  }

  static void same_grid(const pld_pmf& a, const pld_pmf& b) {
    if (a.interval() != b.interval()) {
      throw_invalid("value_discretization_interval", b.interval(),
                    "the same as the other PLD's, " + detail::format_value(a.interval()));
    }
  }

  /// Attaches the basic-composition bounds (the largest finite loss of
  /// each order and a lower bound on 1 - the mass at +infinity); a PLD made
  /// from pmfs alone has none (+infinity, 0).
  privacy_loss_distribution&& with_loss_bound(double max_remove, double max_add,
                                              detail::survival kept = {}, bool known = true) && {
    max_remove_ = std::max(0.0, max_remove);
    max_add_ = std::max(0.0, max_add);
    survival_ = known ? kept : detail::survival::zero();
    known_ = known;
    return std::move(*this);
  }
  privacy_loss_distribution&& with_loss_bound(double max_both) && {
    return std::move(*this).with_loss_bound(max_both, max_both);
  }

  /// min(eps, loss_bound()) where the basic bound applies at `delta`.
  [[nodiscard]] double with_basic_bound(double eps, double delta) const {
    if (std::isfinite(loss_bound()) && delta >= infinity_mass_bound()) {
      return std::min(eps, loss_bound());
    }
    return eps;
  }

  /// A double >= l, for l computed by a few correctly rounded operations
  /// and library logarithms (within a few ulps): 64 ulps above it.
  static double computed_up(double l) {
    return l + std::fabs(l) * 64 * detail::unit_roundoff +
           std::numeric_limits<double>::denorm_min();
  }

  /// A double >= l k.
  static double times_up(double l, std::uint64_t k) {
    double kd = static_cast<double>(k);
    if (kd < 0x1p63 && static_cast<std::uint64_t>(kd) < k) kd = detail::next_up(kd);
    return detail::mul_up(l, kd);
  }

  pld_pmf remove_;
  std::optional<pld_pmf> add_;
  double tau_;
  double max_remove_ = std::numeric_limits<double>::infinity();
  double max_add_ = std::numeric_limits<double>::infinity();
  detail::survival survival_ = detail::survival::zero();
  bool known_ = false;  // survival_ set by a mechanism, not the 0 of "unknown"

  static constexpr double unbounded = std::numeric_limits<double>::infinity();
};

}  // namespace privet
