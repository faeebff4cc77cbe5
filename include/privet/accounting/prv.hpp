// privet/accounting/prv.hpp — the privacy random variable (PRV) accountant of
// Gopi, Lee & Wutschitz, "Numerical Composition of Differential Privacy"
// (NeurIPS 2021, arXiv:2106.02848; reference implementation
// microsoft/prv_accountant, also in Opacus).
//
// A mechanism's privacy random variable is its privacy loss L = log(P(o) /
// Q(o)), o ~ P, for the output distributions P and Q on two neighbours
// (pld.hpp's convention; the paper's Y for the curve delta(Q || P)). It
// determines the whole privacy curve,
//
//   delta(eps) = E[(1 - e^{eps - L})_+],
//
// and the PRV of a composition is the sum of the independent PRVs. The paper
// approximates that sum numerically: each PRV is truncated to a range, rounded
// to a mesh of width h and shifted so that its mean is kept, and the sum of
// the rounded variables is computed by FFT on a finite, cyclic domain (one
// transform per mechanism, raised to its number of steps, multiplied, and
// transformed back: heterogeneous composition). What makes this an
// accountant is the error analysis, which privet follows step by step and
// completes with bounds for the floating-point arithmetic.
//
// 1. Coupling (the paper's Section 5; the proof is one line). If Y and Z are
//    any random variables with P[|Y - Z| >= eps_error] <= eta, then for every
//    real eps
//      delta_Z(eps + eps_error) - eta <= delta_Y(eps) <= delta_Z(eps - eps_error) + eta,
//    with delta_Z(eps) = E[(1 - e^{eps - Z})_+] for any Z: off the failure
//    event the weight (1 - e^{eps - Y})_+ lies between Z's weights at eps +-
//    eps_error, and on it every weight is in [0, 1).
// 2. Rounding (the mesh of the paper's Theorem 5.5, as prv_accountant cites
//    it). Each step's loss is clamped to grid points [a, b], rounded to the
//    nearest grid point and shifted by mu, the mean of the clamped loss minus
//    that of the rounded one. The differences D_i (shifted rounded minus
//    clamped) are independent, have mean 0 and each lies in an interval of
//    length h, so by Hoeffding's inequality
//      P[|sum_i D_i| >= eps_error] <= 2 exp(-2 eps_error^2 / (k h^2)),
//    which the paper's mesh h = eps_error / sqrt(k / 2 log(12 / delta_error))
//    makes delta_error / 6 (k the total number of steps).
// 3. Truncation. The clamp changes a step's loss only when it leaves [a, b];
//    privet takes a and b from each loss's exact tails (or its support, when
//    bounded) so that the k steps are clamped with probability at most
//    delta_error / 4 in all.
// 4. The cyclic domain. An FFT of size N computes the sum modulo N h, which
//    differs from the sum only when the sum leaves the window of N grid
//    points. The paper sizes its domain by moment (RDP) tail bounds (Remark
//    5.6, as prv_accountant cites it); privet applies the same Chernoff
//    bound P[S >= w] <= exp(sum_j n_j log E[e^{lambda Z_j}] - lambda w) to the
//    exact moment generating functions of the discretised steps Z_j,
//    optimised over lambda, for at most delta_error / 8 on each side.
//
// The accountant computes the failure probability eta of steps 2 to 4 from
// the quantities it actually used and checks eta <= delta_error, so the true
// sum and the computed one are coupled as step 1 needs. To that privet adds,
// as an additive delta error e_num, what the paper leaves to floating point
// (in pld.hpp's manner):
// - the masses: each is a difference of two tail probabilities computed to
//   tail_error_ulps ulps of themselves, so the discrete distribution privet
//   holds has a CDF within 2 tail_error_ulps + 2 ulps of the exact one. delta
//   is the integral of a weight that grows from 0 to below 1, so a CDF error
//   c changes it by at most 2 c, and CDF errors add under convolution: k
//   steps cost 2 k c (times the steps' masses' growth, 1 + O(k ulps));
// - the spectra: the transforms are real_fft's (detail/real_fft.hpp, power-
//   of-two sizes N), whose every output is within forward_error(N) times
//   the input's 1-norm of the exact one, or direct sums at chosen
//   frequencies (direct_dft: 12 ulps of the 1-norm; direct_dft_blocked: 24).
//   Powers and products carry the error frequency by frequency through
//   |prod a_t - prod b_t| <= sum_t |a_t - b_t| prod_{s != t} max(|a_s|,
//   |b_s|), so frequencies at which the characteristic function has decayed
//   contribute nothing, plus 4 ulps per complex multiplication (a product of
//   k factors has k - 1). A frequency whose bound falls below e^-80 is set to
//   0, its bound added. At many steps that leaves a few dozen frequencies of
//   millions (37 of 4 M at 10^6 DP-SGD steps); when the steps' grids are at
//   most a quarter of N, the frequencies that can stay above e^-80 are found
//   from transforms at the steps' own length and a Taylor bound between the
//   samples (prv_sampled_candidates), and only those are computed, directly;
//   otherwise every step is transformed at N and the frequencies that carry
//   most of the error bound are recomputed directly;
// - the inverse: real_fft's 1-norm bound; with every live frequency below M
//   / 2 it is N / M interleaved transforms of M points (exact in exact
//   arithmetic, N log M work). A spectrum error d costs at most ||d||_2 in
//   the 1-norm of the result (Parseval and Cauchy-Schwarz); negative
//   round-off left in the result is then set to 0, which only moves it
//   towards the exact (non-negative) masses;
// - the mean shift enters Hoeffding's bound as a bias, bounded from the
//   masses' errors and, for the subsampled Gaussian, the error estimate of
//   the Gauss-Kronrod quadrature of its mean (times 100). That estimate is
//   the one input of the bounds that is not proved; the allowance is 1e-17
//   to 3e-15 per step for DP-SGD's parameters, so even 10^6 steps shift
//   eps_error in Hoeffding's bound by under 1e-9.
// - grid positions: each is i h + shift, whose rounding (a few ulps of the
//   largest loss) is added to eps_error in every bound.
//
// The three answers, with eps_Z(d) the exact epsilon of the computed
// distribution at delta d (the smallest eps with delta_Z(eps) <= d):
//   upper    = eps_Z(delta - delta_error - e_num) + eps_error   (step 1, right)
//   lower    = eps_Z(delta + delta_error + e_num) - eps_error   (step 1, left)
//   estimate = eps_Z(delta), the paper's point estimate: no bound holds for
//              it (it typically sits well inside [lower, upper], but nothing
//              says by how much).
// Likewise for delta at a given eps: delta_Z(eps -+ eps_error) +- (delta_error
// + e_num), and delta_Z(eps). Every bound is rounded outwards; the upper
// bound is privet's guarantee (to_approx_dp). As in prv_accountant (whose
// composition equals this up to the truncation rule and the floating-point
// allowances), the estimate is eps_Z(delta) and prv_accountant's own upper
// bound is eps_Z(delta - delta_error) + eps_error.
//
// delta_error by default. Left unset in prv_options, it is relative to the
// question: delta / 1000 when the accountant composes for a target delta
// (epsilon(delta), to_approx_dp, compose(delta)), as Opacus's PRVAccountant
// does, so that one default fits delta = 1e-5 and delta = 1e-12 alike (an
// absolute 1e-10 is above the latter). A composition made with no target
// (compose(), delta(epsilon)) uses 1e-10.
//
// Refusals. epsilon(delta) needs delta > delta_error + e_num: below it the
// bounds say nothing (prv_accountant refuses delta - delta_error below the
// float epsilon times the domain size; its test refuses delta = 1.13e-18),
// and privet throws invalid_parameter naming delta and that range.
//
// Orders. The Poisson-subsampled Gaussian has two: remove (P the mixture
// (1 - q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2); prv_accountant's
// PoissonSubsampledGaussianMechanism, its delta(N(0, s^2) || mixture)) and
// add (the reverse). As dp_accounting and pld.hpp do, privet composes each
// order with its own kind (the neighbours are the same pair in every step)
// and reports the worse: the max over orders of each bound is a bound on the
// max. The other mechanisms' two orders coincide.
#pragma once

#include <privet/accounting/pld.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <boost/math/quadrature/gauss_kronrod.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace privet {

/// delta_error as a fraction of the target delta when prv_options leaves it
/// unset: delta / 1000, Opacus's PRVAccountant default.
inline constexpr double prv_relative_delta_error = 1e-3;

/// delta_error for a composition made with no target delta in view
/// (prv_accountant::compose() and delta(epsilon)) when prv_options leaves
/// it unset: good for queries at any delta well above 1e-10.
inline constexpr double prv_untargeted_delta_error = 1e-10;

/// The accuracy of a prv_accountant (the paper's eps_error and delta_error).
struct prv_options {
  /// Half-width of the eps bracket due to rounding, > 0; it sets the mesh.
  double eps_error = 0.01;
  /// Failure probability of the approximation, in (0, 1); epsilon(delta)
  /// needs delta above it. Unset (the default): relative to the query,
  /// delta * prv_relative_delta_error for epsilon(delta) and to_approx_dp,
  /// which compose for their delta, and prv_untargeted_delta_error for
  /// compose() and delta(epsilon), which have no delta to scale by.
  std::optional<double> delta_error = std::nullopt;
};

/// lower <= the true value <= upper; estimate is the paper's point estimate
/// (no guarantee).
struct prv_bounds {
  double lower;     ///< A lower bound on the true value.
  double estimate;  ///< The point estimate (no guarantee).
  double upper;     ///< An upper bound on the true value; the one to certify with.
};

namespace detail {

inline double prv_normal_pdf(double z) {
  return std::exp(-z * z / 2) / std::sqrt(2 * std::numbers::pi);
}

/// A point so far into the normal tail (Phi(-40) ~ 1e-350) that no double
/// mass lies beyond it.
inline constexpr double prv_normal_cut = 40;

/// One ordered pair's privacy loss, as the discretisation needs it: its CDF
/// from both sides (each to a few ulps of its own value), the ends of its
/// support (+-infinity when unbounded), the points beyond which an unbounded
/// side leaves at most `tail`, and its partial means E[L; a < L <= b].
template <class M>
concept prv_model = requires(const M& m, double x, double& err) {
  { m.p_le(x) } -> std::convertible_to<double>;
  { m.p_gt(x) } -> std::convertible_to<double>;
  { m.support_lo() } -> std::convertible_to<double>;
  { m.support_hi() } -> std::convertible_to<double>;
  { m.lowest(x) } -> std::convertible_to<double>;
  { m.highest(x) } -> std::convertible_to<double>;
  { m.partial_mean(x, x, err) } -> std::convertible_to<double>;
};

/// Gaussian mechanism, L ~ N(mu^2 / 2, mu^2) with mu = sensitivity / sigma.
struct prv_gaussian_model {
  double mu;
  [[nodiscard]] double p_le(double l) const { return gaussian_loss{mu}.p_le(l); }
  [[nodiscard]] double p_gt(double l) const { return gaussian_loss{mu}.p_gt(l); }
  [[nodiscard]] double support_lo() const { return -std::numeric_limits<double>::infinity(); }
  [[nodiscard]] double support_hi() const { return std::numeric_limits<double>::infinity(); }
  [[nodiscard]] double lowest(double tail) const { return mu * mu / 2 - mu * normal_isf(tail); }
  [[nodiscard]] double highest(double tail) const { return mu * mu / 2 + mu * normal_isf(tail); }
  // m P[a < L <= b] + mu (phi(alpha) - phi(beta)), the truncated normal mean.
  [[nodiscard]] double partial_mean(double a, double b, double& err) const {
    const double m = mu * mu / 2;
    const double inside = 1 - p_le(a) - p_gt(b);
    err = 16 * unit_roundoff * (m + mu);
    return m * inside + mu * (prv_normal_pdf((a - m) / mu) - prv_normal_pdf((b - m) / mu));
  }
};

/// Laplace mechanism with eps0 = sensitivity / scale: L is +eps0 with
/// probability 1/2, -eps0 with probability e^{-eps0} / 2, and in between has
/// CDF e^{(l - eps0) / 2} / 2.
struct prv_laplace_model {
  double scale, sensitivity;
  [[nodiscard]] double eps0() const { return sensitivity / scale; }
  [[nodiscard]] double p_le(double l) const { return laplace_loss{scale, sensitivity}.p_le(l); }
  [[nodiscard]] double p_gt(double l) const { return laplace_loss{scale, sensitivity}.p_gt(l); }
  [[nodiscard]] double support_lo() const { return -eps0(); }
  [[nodiscard]] double support_hi() const { return eps0(); }
  [[nodiscard]] double lowest(double) const { return -eps0(); }
  [[nodiscard]] double highest(double) const { return eps0(); }
  [[nodiscard]] double partial_mean(double a, double b, double& err) const {
    const double e0 = eps0();
    err = 16 * unit_roundoff * (e0 + 2);
    // The whole support: KL(Lap(0) || Lap(eps0)) = eps0 + e^{-eps0} - 1.
    if (a < -e0 && b >= e0) return e0 + std::expm1(-e0);
    double s = 0;
    if (a < -e0 && -e0 <= b) s -= e0 * 0.5 * std::exp(-e0);
    if (a < e0 && e0 <= b) s += e0 * 0.5;
    // The density e^{(l - eps0) / 2} / 4 has l-moment primitive
    // e^{(l - eps0) / 2} (l - 2) / 2.
    const double lo = std::max(a, -e0), hi = std::min(b, e0);
    auto primitive = [&](double l) { return 0.5 * std::exp((l - e0) / 2) * (l - 2); };
    if (lo < hi) s += primitive(hi) - primitive(lo);
    return s;
  }
};

/// A loss with finitely many values: (loss, P-mass), sorted by loss.
struct prv_atoms_model {
  std::vector<std::pair<double, double>> atoms;
  [[nodiscard]] double p_le(double l) const {
    double s = 0;
    for (const auto& [v, p] : atoms)
      if (v <= l) s += p;
    return s;
  }
  [[nodiscard]] double p_gt(double l) const {
    double s = 0;
    for (const auto& [v, p] : atoms)
      if (v > l) s += p;
    return s;
  }
  [[nodiscard]] double support_lo() const { return atoms.front().first; }
  [[nodiscard]] double support_hi() const { return atoms.back().first; }
  [[nodiscard]] double lowest(double) const { return support_lo(); }
  [[nodiscard]] double highest(double) const { return support_hi(); }
  [[nodiscard]] double partial_mean(double a, double b, double& err) const {
    double s = 0, abs_sum = 0;
    for (const auto& [v, p] : atoms) {
      if (a < v && v <= b) s += v * p;
      abs_sum += std::fabs(v) * p;
    }
    err = 8 * unit_roundoff * abs_sum;
    return s;
  }
};

/// The quadrature of a partial mean over x in [xa, xb] with its error
/// allowance: 100 times Gauss-Kronrod's own estimate plus a few ulps of the
/// integral of |f|.
template <std::regular_invocable<double> F>
double prv_quadrature(F&& f, double xa, double xb, double& err) {
  if (!(xa < xb)) {
    err = 0;
    return 0;
  }
  double estimate = 0, l1 = 0;
  const double v = boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
      f, xa, xb, 15, 1e-13, &estimate, &l1);
  err = 100 * estimate + 64 * unit_roundoff * l1;
  return v;
}

/// Poisson-subsampled Gaussian, remove order: x ~ (1 - q) N(0, s^2) + q N(1, s^2),
/// L = log(1 - q + q e^{(2x - 1) / (2 s^2)}) > log(1 - q), increasing in x.
struct prv_sg_remove_model {
  subsampled_gaussian_remove_loss loss;
  [[nodiscard]] double p_le(double l) const { return loss.p_le(l); }
  [[nodiscard]] double p_gt(double l) const { return loss.p_gt(l); }
  [[nodiscard]] double support_lo() const { return std::log1p(-loss.q); }
  [[nodiscard]] double support_hi() const { return std::numeric_limits<double>::infinity(); }
  [[nodiscard]] double lowest(double) const { return support_lo(); }
  // Both mixture components exceed 1 + s z with probability at most Phi(-z).
  [[nodiscard]] double highest(double tail) const {
    return loss.loss(1 + loss.s * normal_isf(tail));
  }
  [[nodiscard]] double partial_mean(double a, double b, double& err) const {
    const double q = loss.q, s = loss.s;
    const double cut = -prv_normal_cut * s;
    const double xa = loss.below_range(a) ? cut : std::max(cut, loss.x_at(a));
    const double xb = loss.x_at(b);
    return prv_quadrature(
        [&](double x) {
          return loss.loss(x) *
                 ((1 - q) * prv_normal_pdf(x / s) + q * prv_normal_pdf((x - 1) / s)) / s;
        },
        xa, xb, err);
  }
};

/// The add order: x ~ N(0, s^2), L = -log(1 - q + q e^{(2x - 1) / (2 s^2)}) <
/// -log(1 - q), decreasing in x.
struct prv_sg_add_model {
  subsampled_gaussian_add_loss loss;
  [[nodiscard]] double p_le(double l) const { return loss.p_le(l); }
  [[nodiscard]] double p_gt(double l) const { return loss.p_gt(l); }
  [[nodiscard]] double support_lo() const { return -std::numeric_limits<double>::infinity(); }
  [[nodiscard]] double support_hi() const { return -std::log1p(-loss.q); }
  // L < loss(s z) exactly when x > s z, with probability Phi(-z).
  [[nodiscard]] double lowest(double tail) const { return loss.loss(loss.s * normal_isf(tail)); }
  [[nodiscard]] double highest(double) const { return support_hi(); }
  [[nodiscard]] double partial_mean(double a, double b, double& err) const {
    const double s = loss.s;
    const double cut = -prv_normal_cut * s;
    // a < L <= b exactly when x_at(b) <= x < x_at(a).
    const double xa = loss.above_range(b) ? cut : std::max(cut, loss.x_at(b));
    const double xb = loss.x_at(a);
    return prv_quadrature([&](double x) { return loss.loss(x) * prv_normal_pdf(x / s) / s; }, xa,
                          xb, err);
  }
};

using prv_model_variant = std::variant<prv_gaussian_model, prv_laplace_model, prv_atoms_model,
                                       prv_sg_remove_model, prv_sg_add_model>;

// ---- one step, discretised -------------------------------------------------------

/// One step's loss clamped to [lo h, (lo + size - 1) h], rounded to the
/// nearest grid point (cells (i h - h/2, i h + h/2], the end cells reaching
/// to -+infinity) and shifted: its value i h + shift has mass probs[i - lo].
struct prv_step {
  std::int64_t lo = 0;
  std::vector<double> probs;
  double shift = 0;
  /// P[the clamp changes the loss], rounded up.
  double clamped = 0;
  /// A bound on |E[rounded + shift - clamped]| (0 in exact arithmetic).
  double bias = 0;
  /// A bound on the CDF error of probs against the exact rounded loss.
  double cdf_error = 0;
  /// sum probs (1 in exact arithmetic).
  double mass = 1;
  /// The largest |cell boundary|, for the rounding of the boundaries.
  double span = 0;
  [[nodiscard]] std::int64_t hi() const { return lo + static_cast<std::int64_t>(probs.size()) - 1; }
};

inline void check_prv_points(double points, double eps_error) {
  if (!(points <= static_cast<double>(max_pld_points))) {
    throw_invalid("eps_error", eps_error,
                  "coarse enough for the loss range (at most 2^27 grid points; this composition "
                  "needs " +
                      format_value(points) + ")");
  }
}

/// Clamps, rounds and shifts one step's loss on the mesh h; an unbounded
/// side is clamped where at most `tail` lies beyond it.
template <prv_model Model>
prv_step discretize_step(const Model& m, double h, double tail, double eps_error) {
  const bool open_lo = !std::isfinite(m.support_lo());
  const bool open_hi = !std::isfinite(m.support_hi());
  const double a = open_lo ? m.lowest(tail) : m.support_lo();
  const double b = open_hi ? m.highest(tail) : m.support_hi();
  if (!std::isfinite(a) || !std::isfinite(b)) {
    throw overflow_error("privet: a privacy loss's truncation points overflow (" + format_value(a) +
                         ", " + format_value(b) + ")");
  }
  check_prv_points((b - a) / h + 3, eps_error);
  prv_step s;
  s.lo = floor_index(a, h);
  const std::int64_t top = ceil_index(b, h);
  const auto n = static_cast<std::size_t>(top - s.lo + 1);
  s.probs.assign(n, 0.0);
  const double tol = tail_error_ulps * unit_roundoff;
  const double g_lo = static_cast<double>(s.lo) * h, g_hi = static_cast<double>(top) * h;
  s.span = std::max(std::fabs(g_lo), std::fabs(g_hi)) + h;
  // The masses' 1-norm error, for the mean's.
  double l1 = 0;
  if (n == 1) {
    s.probs[0] = 1;
  } else {
    // A cell's mass is the difference of the smaller tail (at most 1/2) at
    // its lower boundary: the lower tail below the first boundary c whose
    // upper tail is at most 1/2 (found by bisection), the upper tail from c
    // on. The computed masses are then the exact ones of a CDF within
    // 2 tail_error_ulps ulps of the true one (see the header).
    auto boundary = [&](std::size_t j) {
      return (static_cast<double>(s.lo + static_cast<std::int64_t>(j)) + 0.5) * h;
    };
    std::size_t c_lo = 0, c_hi = n - 1;  // c in [c_lo, c_hi]; n - 1: none
    while (c_lo < c_hi) {
      const std::size_t mid = c_lo + (c_hi - c_lo) / 2;
      if (m.p_gt(boundary(mid)) <= 0.5) {
        c_hi = mid;
      } else {
        c_lo = mid + 1;
      }
    }
    const std::size_t c = c_lo;
    std::vector<double> le(n - 1, 0.0), gt(n - 1, 0.0);
    for (std::size_t j = 0; j + 1 < n; ++j) {
      if (j <= c) le[j] = m.p_le(boundary(j));
      if (j >= c) gt[j] = m.p_gt(boundary(j));
    }
    s.probs[0] = c == 0 ? 1 - gt[0] : le[0];
    l1 += tol * (c == 0 ? gt[0] : le[0]) + unit_roundoff;
    for (std::size_t j = 1; j + 1 < n; ++j) {
      if (j - 1 >= c) {
        s.probs[j] = gt[j - 1] - gt[j];
        l1 += tol * (gt[j - 1] + gt[j]);
      } else {
        s.probs[j] = le[j] - le[j - 1];
        l1 += tol * (le[j] + le[j - 1]);
      }
    }
    s.probs[n - 1] = c == n - 1 ? 1 - le[n - 2] : gt[n - 2];
    l1 += tol * (c == n - 1 ? le[n - 2] : gt[n - 2]) + unit_roundoff;
  }
  // Negative round-off is set to 0: that moves the CDF by at most its size.
  double clipped = 0;
  compensated_sum mass, rounded_mean, abs_mean;
  for (std::size_t j = 0; j < n; ++j) {
    if (s.probs[j] < 0) {
      clipped -= s.probs[j];
      s.probs[j] = 0;
    }
    const double g = static_cast<double>(s.lo + static_cast<std::int64_t>(j)) * h;
    mass.add(s.probs[j]);
    rounded_mean.add(g * s.probs[j]);
    abs_mean.add(std::fabs(g) * s.probs[j]);
  }
  s.mass = mass.value();
  s.cdf_error = (2 * tail_error_ulps + 2) * unit_roundoff + clipped;
  // E[clamped] = g_lo P[L <= g_lo] + E[L; g_lo < L <= g_hi] + g_hi P[L > g_hi].
  const double below = m.p_le(g_lo), above = m.p_gt(g_hi);
  double mean_err = 0;
  const double clamped_mean = g_lo * below + m.partial_mean(g_lo, g_hi, mean_err) + g_hi * above;
  if (!std::isfinite(clamped_mean)) {
    throw overflow_error("privet: a privacy loss's mean is not finite in double precision");
  }
  s.shift = clamped_mean - rounded_mean.value();
  s.bias = mean_err + tol * (std::fabs(g_lo) * below + std::fabs(g_hi) * above) +
           (s.span + h) * (l1 + clipped) +
           4 * unit_roundoff * (abs_mean.value() + std::fabs(clamped_mean) + std::fabs(s.shift));
  // A bounded side is never clamped (the grid point is at or beyond it).
  s.clamped = ((open_lo ? below : 0.0) + (open_hi ? above : 0.0)) * (1 + 2 * tol);
  return s;
}

// ---- the composed distribution ---------------------------------------------------

/// The composed (cyclic) distribution of one order: mass probs[j] at loss
/// (lowest + j) h + shift, with its error terms.
class prv_curve {
 public:
  prv_curve(double h, std::int64_t lowest, double shift, std::vector<double> probs,
            double numerical_error, double failure, double pad)
      : h_(h),
        lowest_(lowest),
        shift_(shift),
        probs_(std::move(probs)),
        numerical_error_(numerical_error),
        failure_(failure),
        pad_(pad) {
    for (std::size_t r = 0; r < block; ++r) steps_[r] = std::expm1(-static_cast<double>(r) * h_);
  }

  [[nodiscard]] double loss(std::size_t j) const {
    return static_cast<double>(lowest_ + static_cast<std::int64_t>(j)) * h_ + shift_;
  }
  [[nodiscard]] std::size_t size() const noexcept { return probs_.size(); }
  [[nodiscard]] double numerical_error() const noexcept { return numerical_error_; }
  [[nodiscard]] double failure() const noexcept { return failure_; }
  [[nodiscard]] double pad() const noexcept { return pad_; }
  [[nodiscard]] const std::vector<double>& probs() const noexcept { return probs_; }

  /// delta_Z(eps) of the held distribution within 16 ulps: each weight 1 -
  /// e^{-x} (x = l - eps > 0) within 6 ulps, its product with the mass 1
  /// more, the (non-negative) terms summed pairwise by blocks of 64 (6) and
  /// the blocks compensated (a few).
  /// With E(x) = e^{-x} - 1, E(a + b) = E(a) (1 + E(b)) + E(b), a sum of two
  /// terms of one sign: one expm1 per block of 64 points (a, the block's
  /// lowest x) and a table of E(r h) (b) give every weight within 1 ulp of
  /// each E, 3 of the products and sums, from the computed arguments (whose
  /// rounding, a few ulps of the largest loss, is in pad()).
  [[nodiscard]] double delta(double eps) const {
    const std::size_t n = probs_.size();
    // The lowest point above eps (loss is increasing in j).
    double guess = std::ceil((eps - shift_) / h_) - static_cast<double>(lowest_);
    guess = std::clamp(guess, 0.0, static_cast<double>(n));
    auto j0 = static_cast<std::size_t>(guess);
    while (j0 > 0 && loss(j0 - 1) > eps) --j0;
    while (j0 < n && !(loss(j0) > eps)) ++j0;
    compensated_sum s;
    std::array<double, block> terms{};
    for (std::size_t b = j0; b < n; b += block) {
      const double ea = std::expm1(-(loss(b) - eps));
      const std::size_t end = std::min(n, b + block);
      for (std::size_t j = b; j < end; ++j) {
        const double eb = steps_[j - b];
        terms[j - b] = probs_[j] * -(ea * (1 + eb) + eb);
      }
      std::fill(terms.begin() + static_cast<std::ptrdiff_t>(end - b), terms.end(), 0.0);
      // Pairwise: within 6 u of the block's (non-negative) sum.
      for (std::size_t w = block / 2; w > 0; w /= 2) {
        for (std::size_t r = 0; r < w; ++r) terms[r] += terms[r + w];
      }
      s.add(terms[0]);
    }
    return s.value();
  }

  /// A point e >= floor with delta(e) <= target (checked by delta itself),
  /// within a few ulps above the smallest one: the floor if delta(floor) is
  /// already small enough.
  [[nodiscard]] double crossing_above(double target, double floor) const {
    const auto [e, j] = crossing(target);
    if (!clearly_above(e, floor) && delta(floor) <= target) return floor;
    double x = std::max(floor, e);
    x += nudge(x);
    if (delta(x) <= target) return x;
    // The closed form carries rounding; the grid points above are safe.
    for (std::size_t i = j; i < probs_.size(); ++i) {
      if (loss(i) >= floor && delta(loss(i)) <= target) return loss(i);
    }
    return std::max(floor, loss(probs_.size() - 1));
  }

  /// A point e with delta(e) > target (checked), within a few ulps below the
  /// smallest e' with delta(e') <= target, or -infinity when delta(floor)
  /// <= target already (no point above the floor is needed).
  [[nodiscard]] double crossing_below(double target, double floor) const {
    const auto [e, j] = crossing(target);
    if (!clearly_above(e, floor) && delta(floor) <= target) {
      return -std::numeric_limits<double>::infinity();
    }
    double x = std::max(floor, e);
    x -= nudge(x);
    if (x >= floor && delta(x) > target) return x;
    for (std::size_t i = j + 1; i-- > 0;) {
      if (loss(i) <= floor) break;
      if (delta(loss(i)) > target) return loss(i);
    }
    return delta(floor) <= target ? -std::numeric_limits<double>::infinity() : floor;
  }

 private:
  // The closed form's crossing is within about 1e-11 (1 + |e|) of the true
  // one (its recurrence's relative error, about u / h, for h >= 1e-5):
  // moved outwards by 1e-10 (1 + |e|), delta() confirms it at once, and the
  // scan over grid points (a delta() each) is a fallback.
  [[nodiscard]] static double nudge(double x) { return 1e-10 * (1 + std::fabs(x)); }

  // Whether a crossing e found by crossing() is so far above floor that
  // delta(floor) > target needs no check (a speed-up only: the answers are
  // checked by delta() either way). The closed form is within about 1e-10
  // of the crossing (its recurrence's relative error, about u / h), and
  // delta falls by at least a factor 1 + (e - floor) / 2 from floor to e
  // (the weight of the mass above e grows by that), far above delta()'s
  // few ulps.
  [[nodiscard]] static bool clearly_above(double e, double floor) {
    return e > floor + 1e-8 * (1 + std::fabs(floor) + std::fabs(e));
  }

  // The closed-form crossing of delta with the target and the grid index of
  // its segment's top: scanning down, with suffix sums S = sum_{i >= j} p_i
  // and T = sum_{i >= j} p_i e^{l_j - l_i} (kept relative to l_j so that
  // nothing overflows), delta = S - e^{eps - l_j} T on (l_{j-1}, l_j].
  [[nodiscard]] std::pair<double, std::size_t> crossing(double target) const {
    compensated_sum sp;
    double t = 0;
    const double step_down = std::exp(-h_);
    for (std::size_t j = probs_.size(); j-- > 0;) {
      t = t * step_down + probs_[j];
      sp.add(probs_[j]);
      if (t <= 0) continue;
      const double at_lower = j == 0 ? sp.value() : sp.value() - step_down * t;
      if (at_lower > target) {
        const double lj = loss(j);
        double e = lj + std::log((sp.value() - target) / t);
        if (j > 0) e = std::max(e, loss(j - 1));
        return {std::min(e, lj), j};
      }
    }
    return {loss(0), 0};
  }

  double h_;
  std::int64_t lowest_;
  double shift_;
  std::vector<double> probs_;
  double numerical_error_;
  double failure_;
  double pad_;
  static constexpr std::size_t block = 64;
  std::array<double, block> steps_{};  // E(r h) = e^{-r h} - 1
};

/// A step and how many times it is composed.
struct prv_part {
  const prv_step* step;
  std::uint64_t count;
};

/// log sum_i p_i e^{lambda (lo + i) h} of a step, rounded up by its error.
/// The factors e^{lambda (g_i - g_top)} (g_top the mass-bearing grid point
/// where lambda g is largest) fall geometrically away from g_top; they are
/// recomputed by exp every 32 points and multiplied by e^{-|lambda| h} in
/// between, and once a factor times the remaining mass is below 1e-17 of
/// the sum, that product (an upper bound on the rest) ends the sum.
inline double step_log_mgf(const prv_step& s, double h, double lambda) {
  const std::size_t n = s.probs.size();
  std::size_t first = 0, last = n;
  while (first < n && !(s.probs[first] > 0)) ++first;
  while (last > first && !(s.probs[last - 1] > 0)) --last;
  if (first == last) return -std::numeric_limits<double>::infinity();
  auto grid = [&](std::size_t i) {
    return static_cast<double>(s.lo + static_cast<std::int64_t>(i)) * h;
  };
  const bool up = lambda > 0;
  const double top = lambda * grid(up ? last - 1 : first);
  const double ratio = std::exp(-std::fabs(lambda) * h);
  compensated_sum acc;
  double remaining = s.mass, factor = 1;
  for (std::size_t k = 0; k < last - first; ++k) {
    const std::size_t i = up ? last - 1 - k : first + k;
    factor = k % 32 == 0 ? std::exp(lambda * grid(i) - top) : factor * ratio;
    if (factor * remaining < 1e-17 * acc.value()) {
      acc.add(factor * remaining);
      break;
    }
    acc.add(s.probs[i] * factor);
    remaining -= s.probs[i];
    if (remaining < 0) remaining = 0;
  }
  // Each factor is within 36 + 4 |lambda| span ulps (the exponent's
  // rounding, exp, up to 31 products), the sum within 4 more; factors that
  // underflow are below the smallest normal each.
  const double sum = acc.value() + static_cast<double>(n) * std::numeric_limits<double>::min();
  return top + std::log(sum) + unit_roundoff * (48 + 8 * std::fabs(lambda) * s.span);
}

/// The best Chernoff window edge: minimises bound(lambda) over lambda > 0
/// (bound is quasi-convex: (K(lambda) + c) / lambda with K convex), first on
/// a geometric grid, then by golden section on log lambda. Returns the best
/// (value, lambda) found; any lambda gives a valid bound.
template <std::regular_invocable<double> Bound>
std::pair<double, double> minimise_chernoff(Bound&& bound) {
  std::vector<double> grid;
  for (double l = 1e-3; l <= 1e7; l *= 8) grid.push_back(l);
  double best_lambda = grid[0], best = bound(best_lambda);
  std::size_t at = 0;
  for (std::size_t i = 1; i < grid.size(); ++i) {
    const double v = bound(grid[i]);
    if (v < best) {
      best = v;
      best_lambda = grid[i];
      at = i;
    }
  }
  double lo = std::log(grid[at == 0 ? 0 : at - 1]);
  double hi = std::log(grid[std::min(at + 1, grid.size() - 1)]);
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
  double f1 = bound(std::exp(x1)), f2 = bound(std::exp(x2));
  for (int it = 0; it < 10; ++it) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - phi * (hi - lo);
      f1 = bound(std::exp(x1));
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + phi * (hi - lo);
      f2 = bound(std::exp(x2));
    }
  }
  if (f1 < best) {
    best = f1;
    best_lambda = std::exp(x1);
  }
  if (f2 < best) {
    best = f2;
    best_lambda = std::exp(x2);
  }
  return {best, best_lambda};
}

/// The frequencies j in [0, N / 2] at which the composed spectrum can reach
/// e^log_cut, from each part's transform at N' (< N) samples theta_v = 2 pi
/// v / N' and its derivative there. With a0 an index near the mean, Y(theta)
/// = e^{i theta a0} X(theta) has |Y| = |X|, Y' = -i e^{i theta a0} D(theta)
/// (D the transform of (a - a0) x_a) and |Y''| <= M2 = sum (a - a0)^2 x_a,
/// so for |d| <= Delta = pi / N' Taylor's theorem gives
///   |X(theta_v + d)| <= max(|X_v - i Delta D_v|, |X_v + i Delta D_v|) + Delta^2 M2 / 2
/// (|X_v - i d D_v| is convex in d: its largest value is at an end). Every
/// frequency of the N-point transform is within Delta of a sample. The
/// computed transforms add their real_fft bounds e_X + Delta e_D (and (a -
/// a0) x_a is within u of itself), the moduli and sums a few ulps. Returns
/// the frequencies whose nearest sample's bound, raised to the counts and
/// multiplied over the parts, is at least e^log_cut, ascending, and adds the
/// others' bounds (each below e^log_cut) to `cut` as a 1-norm over all N
/// frequencies; nothing when sampling would not save a transform (N' > N / 4).
inline std::optional<std::vector<std::size_t>> prv_sampled_candidates(
    const std::vector<prv_part>& parts, std::size_t big_n, double log_cut, double& cut) {
  std::size_t n_s = 8;
  for (const auto& [s, n] : parts) {
    while (n_s < s->probs.size()) n_s *= 2;
  }
  if (n_s > big_n / 4) return std::nullopt;
  const real_fft fft(n_s);
  const std::size_t half_s = n_s / 2;
  const double big_delta = std::numbers::pi / static_cast<double>(n_s) * (1 + 4 * unit_roundoff);
  std::vector<double> log_bound(half_s + 1, 0.0), y(n_s);
  std::vector<std::complex<double>> fx(half_s + 1), fd(half_s + 1);
  double k = 0;
  for (const auto& [s, n] : parts) {
    const auto& x = s->probs;
    k += static_cast<double>(n);
    compensated_sum m1;
    for (std::size_t a = 0; a < x.size(); ++a) m1.add(static_cast<double>(a) * x[a]);
    const double a0 = std::round(m1.value() / s->mass);
    std::fill(y.begin(), y.end(), 0.0);
    std::copy(x.begin(), x.end(), y.begin());
    fft.forward(y.data(), fx.data());
    // The offsets a - a0 are integers below 2^27: exact, and so are their squares.
    double l1_d = 0, m2 = 0;
    for (std::size_t a = 0; a < x.size(); ++a) {
      const double d = static_cast<double>(a) - a0;
      y[a] = d * x[a];
      l1_d += std::fabs(y[a]);
      m2 += d * d * x[a];
    }
    fft.forward(y.data(), fd.data());
    const double sum_ulps = 1 + (static_cast<double>(x.size()) + 4) * unit_roundoff;
    l1_d *= sum_ulps;
    m2 *= sum_ulps * sum_ulps;
    const double e_x = 1.01 * fft.forward_error() * s->mass;
    const double e_d = 1.01 * (fft.forward_error() + unit_roundoff) * l1_d;
    const double extra = e_x + big_delta * e_d + big_delta * big_delta * m2 / 2;
    const double nd = static_cast<double>(n);
    for (std::size_t v = 0; v <= half_s; ++v) {
      const std::complex<double> step(-fd[v].imag() * big_delta, fd[v].real() * big_delta);
      const double b =
          std::max(std::abs(fx[v] - step), std::abs(fx[v] + step)) * (1 + 4 * unit_roundoff) +
          4 * unit_roundoff * (std::abs(fx[v]) + std::abs(step)) + extra;
      log_bound[v] += nd * std::log(b);
    }
  }
  // The sums of n log b within a few ulps of each term (k u relative at most).
  const double margin = 8 * unit_roundoff * (k + static_cast<double>(parts.size()));
  const std::size_t ratio = big_n / n_s, half = big_n / 2;
  std::vector<std::size_t> out;
  double dead = 0;
  for (std::size_t v = 0; v <= half_s; ++v) {
    const std::size_t lo = v == 0 ? 0 : v * ratio - ratio / 2;
    const std::size_t hi = v == half_s ? half : v * ratio + ratio / 2 - 1;
    if (log_bound[v] + margin * (std::fabs(log_bound[v]) + 1) < log_cut) {
      for (std::size_t j = lo; j <= hi; ++j) dead += (j == 0 || j == half) ? 1.0 : 2.0;
    } else {
      for (std::size_t j = lo; j <= hi; ++j) out.push_back(j);
    }
  }
  cut += dead * std::exp(log_cut) * (1 + 1e-12);
  return out;
}

/// Composes the parts (all on mesh h) by one FFT per part, powers, a product
/// and one inverse FFT, with the error analysis of the header.
inline prv_curve compose_steps(const std::vector<prv_part>& parts, double h, const prv_options& o) {
  double k = 0, bias = 0, clamped = 0, span = 0, full_lo = 0, full_hi = 0, shift = 0;
  double cdf_error = 0, log_growth = 0;
  std::size_t widest = 1;
  for (const auto& [s, n] : parts) {
    const double nd = static_cast<double>(n);
    k += nd;
    bias += nd * s->bias;
    clamped += nd * s->clamped;
    span = std::max(span, s->span);
    full_lo += nd * static_cast<double>(s->lo);
    full_hi += nd * static_cast<double>(s->hi());
    shift += nd * s->shift;
    cdf_error += nd * s->cdf_error;
    log_growth += nd * std::log(std::max(1.0, s->mass));
    widest = std::max(widest, s->probs.size());
  }
  // Rounding of the shifts' sum and of the positions i h + shift.
  double shift_abs = 0;
  for (const auto& [s, n] : parts) shift_abs += static_cast<double>(n) * std::fabs(s->shift);
  const double shift_err = 2 * k * unit_roundoff * shift_abs;
  if (!(std::fabs(full_lo) < 4e15 && std::fabs(full_hi) < 4e15)) {
    throw overflow_error("privet: the composed loss range exceeds the grid's index range");
  }
  const double eps_error = o.eps_error, delta_error = o.delta_error.value();
  // Step 2: each difference lies in an interval of length h plus the
  // boundaries' rounding.
  const double range = h + 4 * unit_roundoff * span;
  if (!(bias < eps_error / 2)) {
    throw overflow_error("privet: the PRV mean shifts' error bound " + format_value(bias) +
                         " is not small against eps_error");
  }
  const double hoeffding =
      2 * std::exp(-2 * (eps_error - bias) * (eps_error - bias) / (k * range * range));

  // Step 4: the window, by Chernoff bounds on the discretised steps.
  auto log_mgf = [&](double lambda) {
    double sum = 0;
    for (const auto& [s, n] : parts) {
      sum += static_cast<double>(n) * (step_log_mgf(*s, h, lambda) + lambda * s->shift);
    }
    return sum + 1e-12 * (std::fabs(sum) + 1);
  };
  const double side = delta_error / 8;
  const auto lo_full = static_cast<std::int64_t>(full_lo);
  const auto hi_full = static_cast<std::int64_t>(full_hi);
  std::int64_t win_lo = lo_full, win_hi = hi_full;
  double wrap = 0;
  if (hi_full - lo_full + 1 > static_cast<std::int64_t>(widest)) {
    const auto [w_hi, l_hi] =
        minimise_chernoff([&](double l) { return (log_mgf(l) - std::log(side)) / l; });
    const auto [w_lo_neg, l_lo] =
        minimise_chernoff([&](double l) { return (log_mgf(-l) - std::log(side)) / l; });
    const double w_lo = -w_lo_neg;
    if (w_hi < full_hi * h + shift) {
      win_hi = std::min(hi_full, static_cast<std::int64_t>(std::ceil((w_hi - shift) / h)));
    }
    if (w_lo > full_lo * h + shift) {
      win_lo = std::max(lo_full, static_cast<std::int64_t>(std::floor((w_lo - shift) / h)));
    }
    // The mass beyond the window's integer edges: S >= (win_hi + 1) h + shift
    // and S <= (win_lo - 1) h + shift, each edge moved outwards by its own
    // and the shifts' rounding.
    if (win_hi < hi_full) {
      double edge = static_cast<double>(win_hi + 1) * h + shift;
      edge -= shift_err + 4 * unit_roundoff * (std::fabs(edge) + std::fabs(shift));
      wrap += std::exp(log_mgf(l_hi) - l_hi * edge);
    }
    if (win_lo > lo_full) {
      double edge = static_cast<double>(win_lo - 1) * h + shift;
      edge += shift_err + 4 * unit_roundoff * (std::fabs(edge) + std::fabs(shift));
      wrap += std::exp(log_mgf(-l_lo) + l_lo * edge);
    }
  }
  const double failure = (clamped + hoeffding + wrap) * (1 + 1e-12);
  if (!(failure <= delta_error)) {
    throw overflow_error("privet: the PRV approximation's failure probability " +
                         format_value(failure) +
                         " exceeds delta_error = " + format_value(delta_error));
  }

  const double width = static_cast<double>(win_hi - win_lo + 1);
  check_prv_points(std::max(width, static_cast<double>(widest)), eps_error);
  std::size_t big_n = 8;
  while (big_n < std::max(static_cast<std::size_t>(win_hi - win_lo + 1), widest)) big_n *= 2;
  check_prv_points(static_cast<double>(big_n), eps_error);

  // The spectra. Per candidate frequency j in [0, N / 2] (the rest are
  // conjugates): sum_i n_i log m_ij and sum_i n_i c_i / m_ij, with m_ij >=
  // both the exact and the computed modulus of part i's transform (c_i its
  // error bound). Once the bound on the exact product, times the most the
  // later factors can grow it, falls below e^-80, the frequency is set to 0
  // and dropped: its error is that bound. At k steps |phi|^k is that small
  // at all but a few frequencies (37 of 4 M at 10^6 DP-SGD steps), so the
  // powers, products and error terms cost nothing elsewhere; when the parts
  // are much shorter than N, prv_sampled_candidates finds those few from
  // transforms at the parts' own length, and only they are computed (by
  // direct_dft_blocked), without a transform at N.
  const real_fft fft(big_n);
  const std::size_t half = big_n / 2;
  auto weight = [half](std::size_t j) { return (j == 0 || j == half) ? 1.0 : 2.0; };
  // growth[i]: sum over the parts after i of n log max(1, 1.01 mass), what
  // they can multiply a bound by.
  std::vector<double> growth(parts.size() + 1, 0.0);
  for (std::size_t i = parts.size(); i-- > 0;) {
    growth[i] = growth[i + 1] + static_cast<double>(parts[i].count) *
                                    std::log(std::max(1.0, 1.01 * parts[i].step->mass));
  }
  const double log_cut = -80, exponent_ulps = 4 * unit_roundoff * (k + 1);
  const double transform_cost =
      2 * static_cast<double>(half) * std::log2(static_cast<double>(half));
  double total_len = 0;
  for (const auto& [s, n] : parts) total_len += static_cast<double>(s->probs.size());
  double cut_error = 0;
  std::vector<std::size_t> freq;
  bool sampled = false;
  if (auto c = prv_sampled_candidates(parts, big_n, log_cut, cut_error);
      c && static_cast<double>(c->size()) * total_len <=
               static_cast<double>(parts.size()) * transform_cost) {
    freq = std::move(*c);
    sampled = true;
  } else {
    cut_error = 0;
    freq.resize(half + 1);
    for (std::size_t j = 0; j <= half; ++j) freq[j] = j;
  }
  // Accumulators by position in freq; live lists the positions still in.
  const std::size_t n_freq = freq.size();
  std::vector<std::complex<double>> acc(n_freq, {1, 0});
  std::vector<double> log_m(n_freq, 0.0), rel(n_freq, 0.0), log_abs(n_freq, 0.0);
  std::vector<std::size_t> live(n_freq);
  for (std::size_t r = 0; r < n_freq; ++r) live[r] = r;
  // Part i's value at position r, within c of the exact one, folded into
  // the accumulators; false when the frequency is dropped.
  auto fold = [&](std::size_t i, std::size_t r, std::complex<double> v, double c) {
    const std::uint64_t n = parts[i].count;
    const double nd = static_cast<double>(n);
    const double m = std::sqrt(std::norm(v)) * (1 + 3 * unit_roundoff) + c + 1e-300;
    const double lm = std::log(m);
    log_m[r] += nd * lm;
    log_abs[r] += nd * std::fabs(lm);
    rel[r] += nd * c / m;
    const double bound = log_m[r] + exponent_ulps * (log_abs[r] + 1) + growth[i + 1];
    if (bound < log_cut) {
      cut_error += weight(freq[r]) * std::exp(bound) * (1 + 1e-12);
      acc[r] = 0;
      return false;
    }
    acc[r] = complex_mul(acc[r], complex_power(v, n));
    return true;
  };
  auto fold_all = [&](std::size_t i, const std::vector<std::complex<double>>& at_live, double c) {
    std::size_t kept = 0;
    for (std::size_t q = 0; q < live.size(); ++q) {
      if (fold(i, live[q], at_live[q], c)) live[kept++] = live[q];
    }
    live.resize(kept);
  };
  auto live_freqs = [&] {
    std::vector<std::size_t> js(live.size());
    for (std::size_t q = 0; q < live.size(); ++q) js[q] = freq[live[q]];
    return js;
  };
  std::vector<std::complex<double>> at_live;
  if (sampled) {
    for (std::size_t i = 0; i < parts.size() && !live.empty(); ++i) {
      const prv_step& s = *parts[i].step;
      at_live.resize(live.size());
      direct_dft_blocked(fft, s.probs.data(), s.probs.size(), live_freqs(), at_live);
      fold_all(i, at_live, 1.01 * direct_dft_blocked_ulps * unit_roundoff * s.mass);
    }
  } else {
    // A part's spectrum at the live frequencies alone, by
    // direct_dft_blocked, once that costs less than a transform.
    std::vector<double> y(big_n);
    std::vector<std::complex<double>> f(half + 1);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const prv_step& s = *parts[i].step;
      const std::size_t len = s.probs.size();
      at_live.resize(live.size());
      double c = 0;
      if (static_cast<double>(live.size()) * static_cast<double>(len) <= transform_cost) {
        direct_dft_blocked(fft, s.probs.data(), len, live_freqs(), at_live);
        c = 1.01 * direct_dft_blocked_ulps * unit_roundoff * s.mass;
      } else {
        std::fill(y.begin(), y.end(), 0.0);
        std::copy(s.probs.begin(), s.probs.end(), y.begin());
        fft.forward(y.data(), f.data());
        for (std::size_t q = 0; q < live.size(); ++q) at_live[q] = f[freq[live[q]]];
        c = 1.01 * fft.forward_error() * s.mass;
      }
      fold_all(i, at_live, c);
    }
  }
  const double mult = 1.01 * 4 * unit_roundoff * k;
  auto exponent = [&](std::size_t r) { return log_m[r] + exponent_ulps * (log_abs[r] + 1); };
  if (!sampled) {
    // The k-th power magnifies a transform's error (about 40 log2 N ulps of
    // the mass) k times: at the frequencies that carry most of that bound,
    // largest first, every part's spectrum is recomputed by direct_dft
    // (within direct_dft_ulps of the mass) until what is left is below the
    // powers' own round-off (or 1e-13), for as long as that costs less than
    // a transform.
    std::vector<std::pair<double, std::size_t>> by_weight;
    double remaining = 0, power_estimate = 0;
    for (const std::size_t r : live) {
      const double b = weight(freq[r]) * std::exp(exponent(r));
      by_weight.emplace_back(b * rel[r], r);
      remaining += b * rel[r];
      power_estimate += b * mult;
    }
    std::sort(by_weight.begin(), by_weight.end(), std::greater<>());
    const double enough = std::max(1e-13, power_estimate);
    std::vector<std::size_t> redo, redo_j;
    for (const auto& [w, r] : by_weight) {
      if (!(remaining > enough) ||
          static_cast<double>(redo.size() + 1) * total_len > transform_cost) {
        break;
      }
      remaining -= w;
      redo.push_back(r);
      redo_j.push_back(freq[r]);
    }
    if (!redo.empty()) {
      for (const std::size_t r : redo) {
        acc[r] = {1, 0};
        log_m[r] = rel[r] = log_abs[r] = 0;
      }
      std::vector<std::complex<double>> direct(redo.size());
      std::vector<bool> gone(redo.size(), false);
      for (std::size_t i = 0; i < parts.size(); ++i) {
        const prv_step& s = *parts[i].step;
        direct_dft(fft, s.probs.data(), s.probs.size(), redo_j, direct);
        const double c = 1.01 * direct_dft_ulps * unit_roundoff * s.mass;
        for (std::size_t q = 0; q < redo.size(); ++q) {
          if (!gone[q] && !fold(i, redo[q], direct[q], c)) gone[q] = true;
        }
      }
      std::vector<bool> dropped(n_freq, false);
      for (std::size_t q = 0; q < redo.size(); ++q) dropped[redo[q]] = gone[q];
      std::erase_if(live, [&](std::size_t r) { return dropped[r]; });
    }
  }
  // |exact - computed| per live frequency, in the 2-norm over all N
  // frequencies; the dropped ones add their bounds (a 1-norm, which bounds
  // their 2-norm).
  double d2 = 0, spectrum = 0;
  std::size_t top = 0;
  for (const std::size_t r : live) {
    const double d = std::exp(exponent(r)) * (rel[r] + mult) * (1 + 1e-12);
    d2 += weight(freq[r]) * d * d;
    spectrum += weight(freq[r]) * std::sqrt(std::norm(acc[r])) * (1 + 2 * unit_roundoff);
    top = std::max(top, freq[r]);
  }
  const double d_norm = 1.01 * std::sqrt(d2) + cut_error;
  // The inverse. An error d in the spectrum moves the outputs by at most
  // ||d||_2 in the 1-norm (Parseval and Cauchy-Schwarz). When every live
  // frequency is below M / 2 for an M < N, output t s + r (s = N / M) is
  // (1 / s) times the M-point inverse of the spectrum turned by e^{2 pi i j
  // r / N} (the frequencies above N / 2 fold onto M - j, conjugates as
  // before): s transforms of M points (N log M instead of N log N), each
  // within real_fft's inverse_error(M) of its spectrum's 1-norm, the turn
  // within 8 u (twiddle and product); 1 / s is exact.
  std::vector<double> cyc(big_n);
  std::size_t m_inv = 16;
  while (m_inv <= 2 * top) m_inv *= 2;
  double inverse_error = 0;
  if (m_inv >= big_n) {
    std::vector<std::complex<double>> spec(half + 1, {0, 0});
    for (const std::size_t r : live) spec[freq[r]] = acc[r];
    fft.inverse(spec.data(), cyc.data());
    inverse_error = fft.inverse_error();
  } else {
    const real_fft small(m_inv);
    const std::size_t s = big_n / m_inv;
    const double inv_s = 1 / static_cast<double>(s);
    std::vector<std::complex<double>> q(m_inv / 2 + 1, {0, 0});
    std::vector<double> xr(m_inv);
    for (std::size_t r = 0; r < s; ++r) {
      for (const std::size_t p : live) {
        const std::size_t j = freq[p];
        q[j] = complex_mul(acc[p], std::conj(fft.twiddle((j * r) & (big_n - 1))));
      }
      small.inverse(q.data(), xr.data());
      for (std::size_t t = 0; t < m_inv; ++t) cyc[t * s + r] = xr[t] * inv_s;
    }
    inverse_error = small.inverse_error() * (1 + 8 * unit_roundoff) + 8 * unit_roundoff;
  }
  std::vector<double> out(big_n);
  // Index s of the sum sits at (s - full_lo) mod N; the window starts at win_lo.
  const auto offset = static_cast<std::size_t>(win_lo - lo_full) % big_n;
  for (std::size_t t = 0; t < big_n; ++t) out[t] = std::max(0.0, cyc[(offset + t) & (big_n - 1)]);
  const double fft_error = 1.01 * (d_norm + inverse_error * spectrum);
  const double pmf_error = 2.02 * std::exp(log_growth) * cdf_error;
  // Positions: i h + shift within a few ulps of the largest |loss| of the
  // window, plus the shifts' own sum.
  const double biggest = std::max(
      std::fabs(static_cast<double>(win_lo) * h + shift),
      std::fabs(static_cast<double>(win_lo + static_cast<std::int64_t>(big_n)) * h + shift));
  const double pad = 8 * unit_roundoff * (biggest + std::fabs(shift)) + shift_err;
  return prv_curve(h, win_lo, shift, std::move(out), fft_error + pmf_error, failure, pad);
}

}  // namespace detail

/// A mechanism's privacy random variable (both orders of a pair of
/// neighbours; one when they coincide).
class prv {
 public:
  /// Gaussian noise of standard deviation sigma on a query of L2 sensitivity
  /// d (prv_accountant's GaussianMechanism(sigma) for d = 1).
  static prv gaussian(double sigma, double sensitivity = 1) {
    validate_positive(sigma, "sigma");
    validate_positive(sensitivity, "sensitivity");
    return prv(detail::prv_gaussian_model{sensitivity / sigma});
  }

  /// Laplace noise of scale b on a query of L1 sensitivity d
  /// (prv_accountant's LaplaceMechanism(mu) is d / b = mu).
  static prv laplace(double scale, double sensitivity = 1) {
    validate_positive(scale, "scale");
    validate_positive(sensitivity, "sensitivity");
    return prv(detail::prv_laplace_model{scale, sensitivity});
  }

  /// k-ary randomised response with parameter epsilon (the true value kept
  /// with probability e^eps / (e^eps + k - 1)), for a change of one value.
  static prv randomized_response(double epsilon, std::uint64_t k = 2) {
    validate_epsilon(epsilon);
    validate_at_least<std::uint64_t>(k, 2, "k");
    const double others = static_cast<double>(k - 1);
    const double p_true = 1 / (1 + others * std::exp(-epsilon));
    const double p_other = 1 / (std::exp(epsilon) + others);
    std::vector<std::pair<double, double>> atoms{{-epsilon, p_other}};
    if (k > 2) atoms.emplace_back(0.0, (others - 1) * p_other);
    atoms.emplace_back(epsilon, p_true);
    return prv(detail::prv_atoms_model{std::move(atoms)});
  }

  /// Any epsilon-DP mechanism: binary randomised response with the same
  /// epsilon, which every epsilon-DP pair is a post-processing of (Kairouz,
  /// Oh & Viswanath 2015, Theorem 2.1); prv_accountant's PureDPMechanism.
  static prv pure_dp(double epsilon) { return randomized_response(epsilon, 2); }

  /// The Gaussian mechanism with noise multiplier sigma (L2 sensitivity 1)
  /// on a Poisson sample that includes each record with probability q, under
  /// add/remove neighbours: DP-SGD's step. q = 1 is the Gaussian. Throws for
  /// q outside (0, 1] and for noise multipliers so small (below about 0.07)
  /// that the loss overflows a double.
  static prv subsampled_gaussian(double q, double noise_multiplier) {
    if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
    validate_positive(noise_multiplier, "noise_multiplier");
    if (q == 1) return gaussian(noise_multiplier);
    const double s = noise_multiplier;
    // The loss is log(1 - q + q e^u), u = (2x - 1) / (2 s^2); the
    // discretisation reaches x = 1 + 40 s at most.
    const double u_max = (2 * (1 + detail::prv_normal_cut * s) - 1) / (2 * s * s);
    if (!(u_max < 700)) {
      throw_invalid("noise_multiplier", noise_multiplier,
                    "large enough that the privacy loss stays within double range "
                    "((1 + 80 sigma) / (2 sigma^2) < 700, i.e. sigma above about 0.07)");
    }
    return prv(detail::prv_sg_remove_model{{q, s}}, detail::prv_sg_add_model{{q, s}});
  }

  /// Whether the remove and add orders share one privacy random variable.
  [[nodiscard]] bool symmetric() const noexcept { return !add_.has_value(); }

 private:
  explicit prv(detail::prv_model_variant m) : remove_(std::move(m)) {}
  prv(detail::prv_model_variant remove, detail::prv_model_variant add)
      : remove_(std::move(remove)), add_(std::move(add)) {}

  detail::prv_model_variant remove_;
  std::optional<detail::prv_model_variant> add_;

  friend class prv_accountant;
};

/// The composed PRVs of a prv_accountant, ready for any number of queries.
class prv_composition {
 public:
  /// Bounds on the smallest epsilon >= 0 at which the composition is
  /// (epsilon, delta)-DP. Throws invalid_parameter unless delta is in (0, 1)
  /// and above delta_error plus the numerical error bound.
  [[nodiscard]] prv_bounds epsilon(double delta) const {
    validate_delta_positive(delta);
    const double floor = smallest_delta();
    if (!(delta > floor)) {
      throw_invalid("delta", delta,
                    "(" + detail::format_value(floor) +
                        ", 1): above delta_error = " + detail::format_value(delta_error()) +
                        " plus the numerical error bound; the PRV bounds say nothing below it");
    }
    prv_bounds b = epsilon_of(remove_, delta);
    if (add_) {
      const prv_bounds a = epsilon_of(*add_, delta);
      b = {std::max(b.lower, a.lower), std::max(b.estimate, a.estimate),
           std::max(b.upper, a.upper)};
    }
    return b;
  }

  /// epsilon(delta) needs delta above this: delta_error plus the numerical
  /// error bound.
  [[nodiscard]] double smallest_delta() const noexcept {
    return detail::next_up((delta_error() + numerical_error()) * (1 + 1e-12));
  }

  /// Bounds on the smallest delta at `epsilon` (finite, >= 0).
  [[nodiscard]] prv_bounds delta(double epsilon) const {
    validate_non_negative(epsilon, "epsilon");
    prv_bounds b = delta_of(remove_, epsilon);
    if (add_) {
      const prv_bounds a = delta_of(*add_, epsilon);
      b = {std::max(b.lower, a.lower), std::max(b.estimate, a.estimate),
           std::max(b.upper, a.upper)};
    }
    return b;
  }

  /// The options it was composed with, delta_error always set (to the value
  /// used when the accountant's was unset).
  [[nodiscard]] const prv_options& options() const noexcept { return o_; }
  /// The delta_error it was composed with.
  [[nodiscard]] double delta_error() const noexcept { return o_.delta_error.value_or(0); }
  /// The mesh h.
  [[nodiscard]] double mesh() const noexcept { return h_; }
  /// Grid points of the FFT (per order).
  [[nodiscard]] std::size_t size() const noexcept {
    return std::max(remove_.size(), add_ ? add_->size() : 0);
  }
  /// e_num: the floating-point allowance added to delta_error in every bound.
  [[nodiscard]] double numerical_error() const noexcept {
    return std::max(remove_.numerical_error(), add_ ? add_->numerical_error() : 0.0);
  }
  /// eta <= delta_error: the failure probability of truncation, rounding
  /// and the cyclic window, as computed.
  [[nodiscard]] double failure_probability() const noexcept {
    return std::max(remove_.failure(), add_ ? add_->failure() : 0.0);
  }

 private:
  prv_composition(const prv_options& o, double h, detail::prv_curve remove,
                  std::optional<detail::prv_curve> add)
      : o_(o), h_(h), remove_(std::move(remove)), add_(std::move(add)) {}

  [[nodiscard]] prv_bounds epsilon_of(const detail::prv_curve& c, double delta) const {
    const double ee = o_.eps_error, slack = delta_error() + c.numerical_error();
    const double reach = ee + c.pad();
    // Upper: delta_Y(e + reach) <= delta_Z(e) + slack <= delta.
    const double e_up = c.crossing_above((delta - slack) * (1 - 1e-12), -reach);
    double upper = e_up + reach;
    upper = detail::next_up(upper + 2 * detail::unit_roundoff * (std::fabs(e_up) + reach));
    // Lower: below e - reach, delta_Y >= delta_Z(e) - slack > delta.
    const double e_lo = c.crossing_below((delta + slack) * (1 + 1e-12), reach);
    double lower = 0;
    if (std::isfinite(e_lo)) {
      lower = e_lo - reach - 2 * detail::unit_roundoff * (std::fabs(e_lo) + reach);
      lower = std::nextafter(lower, -std::numeric_limits<double>::infinity());
    }
    const double estimate = c.crossing_above(delta, 0);
    return {std::max(0.0, lower), estimate, std::max(0.0, upper)};
  }

  [[nodiscard]] prv_bounds delta_of(const detail::prv_curve& c, double eps) const {
    const double slack = delta_error() + c.numerical_error();
    const double reach = o_.eps_error + c.pad();
    const double upper = c.delta(eps - reach) * (1 + 1e-12) + slack * (1 + 1e-15);
    const double lower = c.delta(eps + reach) * (1 - 1e-12) - slack * (1 + 1e-15);
    return {std::max(0.0, lower), c.delta(eps), std::min(1.0, detail::next_up(upper))};
  }

  prv_options o_;
  double h_;
  detail::prv_curve remove_;
  std::optional<detail::prv_curve> add_;

  friend class prv_accountant;
};

/// The PRV accountant: mechanisms and their numbers of steps, composed on
/// demand by FFT to within the options' eps_error and delta_error.
class prv_accountant {
 public:
  /// Throws invalid_parameter unless eps_error is finite and > 0 and
  /// delta_error, if set, is in (0, 1).
  explicit prv_accountant(const prv_options& o = {}) : o_(o) {
    validate_positive(o.eps_error, "eps_error");
    if (o.delta_error && !(*o.delta_error > 0 && *o.delta_error < 1)) {
      throw_invalid("delta_error", *o.delta_error, "(0, 1)");
    }
  }

  /// Records `steps` runs (>= 1) of the mechanism.
  prv_accountant& add(const prv& mechanism, std::uint64_t steps) {
    validate_at_least<std::uint64_t>(steps, 1, "steps");
    if (steps > (std::uint64_t{1} << 40) - total_) {
      throw overflow_error("privet: more than 2^40 steps in one prv_accountant");
    }
    total_ += steps;
    parts_.emplace_back(mechanism, steps);
    return *this;
  }

  /// The composition of everything recorded, for queries at any delta well
  /// above its delta_error (the options' or, unset, prv_untargeted_delta_error).
  /// Its grid grows with the total number of steps k as about sqrt(k) /
  /// eps_error points (the paper's O~(sqrt k)); call it once for several
  /// queries. Throws invalid_parameter when nothing was recorded or the grid
  /// would exceed 2^27 points.
  [[nodiscard]] prv_composition compose() const {
    return compose_with(o_.delta_error.value_or(prv_untargeted_delta_error));
  }

  /// The composition for queries at `delta` (in (0, 1)): delta_error is the
  /// options' or, unset, delta * prv_relative_delta_error.
  [[nodiscard]] prv_composition compose(double delta) const {
    validate_delta_positive(delta);
    return compose_with(o_.delta_error.value_or(delta * prv_relative_delta_error));
  }

  /// compose(delta).epsilon(delta), with delta checked for (0, 1) first.
  [[nodiscard]] prv_bounds epsilon(double delta) const {
    validate_delta_positive(delta);
    return compose(delta).epsilon(delta);
  }
  /// compose().delta(epsilon), with epsilon checked first.
  [[nodiscard]] prv_bounds delta(double epsilon) const {
    validate_non_negative(epsilon, "epsilon");
    return compose().delta(epsilon);
  }

  /// The options the accountant was built with.
  [[nodiscard]] const prv_options& options() const noexcept { return o_; }
  /// The total number of steps recorded.
  [[nodiscard]] std::uint64_t steps() const noexcept { return total_; }

 private:
  [[nodiscard]] prv_composition compose_with(double delta_error) const {
    if (parts_.empty()) throw_empty("mechanisms");
    prv_options resolved = o_;
    resolved.delta_error = delta_error;
    const double k = static_cast<double>(total_);
    const double h = resolved.eps_error / std::sqrt(k / 2 * std::log(12 / delta_error));
    const double tail = delta_error / (8 * k);
    std::vector<detail::prv_step> removes, adds;
    removes.reserve(parts_.size());
    adds.reserve(parts_.size());
    bool asymmetric = false;
    auto discretize = [&](const detail::prv_model_variant& m) {
      return std::visit(
          [&](const detail::prv_model auto& model) {
            return detail::discretize_step(model, h, tail, resolved.eps_error);
          },
          m);
    };
    for (const auto& [mechanism, steps] : parts_) {
      removes.push_back(discretize(mechanism.remove_));
      if (mechanism.add_) {
        asymmetric = true;
        adds.push_back(discretize(*mechanism.add_));
      } else {
        adds.emplace_back();
      }
    }
    std::vector<detail::prv_part> rm, ad;
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      rm.push_back({&removes[i], parts_[i].second});
      ad.push_back({parts_[i].first.add_ ? &adds[i] : &removes[i], parts_[i].second});
    }
    detail::prv_curve remove = detail::compose_steps(rm, h, resolved);
    std::optional<detail::prv_curve> add;
    if (asymmetric) add = detail::compose_steps(ad, h, resolved);
    return prv_composition(resolved, h, std::move(remove), std::move(add));
  }

  prv_options o_;
  std::vector<std::pair<prv, std::uint64_t>> parts_;
  std::uint64_t total_ = 0;
};

/// The guarantee: (upper bound on epsilon, delta)-DP.
inline approx_dp to_approx_dp(const prv_composition& c, double delta) {
  return approx_dp(c.epsilon(delta).upper, delta);
}

/// The guarantee of everything recorded: (upper bound on epsilon, delta)-DP,
/// composed for this delta (compose(delta)).
inline approx_dp to_approx_dp(const prv_accountant& a, double delta) {
  return to_approx_dp(a.compose(delta), delta);
}

}  // namespace privet
