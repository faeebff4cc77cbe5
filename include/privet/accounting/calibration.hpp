// privet/accounting/calibration.hpp — the smallest noise that meets a target
// (eps, delta), by any accountant.
//
// Calibration inverts an accountant: given a family of events indexed by a
// noise multiplier sigma (DP-SGD's subsampled Gaussian, a Gaussian, ...),
// the number of times it runs and a target, find the smallest sigma whose
// composition the accountant certifies within the target. Every accountant
// in privet is pessimistic, so the answer never under-noises; a tighter
// accountant (PLD rather than RDP) gives a smaller sigma for the same
// guarantee, which is utility for free.
//
// The search brackets sigma by doubling and halving, then bisects, keeping
// the invariant epsilon(hi) <= target: the returned sigma always meets the
// target, and sigma * (1 - relative_tolerance) (roughly) does not. Every
// loop of the search has a fixed cap (see smallest_noise_multiplier).
#pragma once

#include <privet/accounting/events.hpp>
#include <privet/accounting/odometer.hpp>
#include <privet/accounting/pld.hpp>
#include <privet/accounting/rdp.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet {

/// The smallest noise multiplier sigma (to `relative_tolerance`, rounded up)
/// for which `epsilon_of(sigma)` is at most `target_epsilon`, for an epsilon
/// that does not increase with sigma. Throws invalid_parameter naming
/// target_epsilon if no sigma up to 1e6 reaches the target, and passes on
/// what epsilon_of throws at sigma >= 1.
///
/// The search brackets sigma by steps from 1 that a power law in sigma
/// predicts (at least a doubling or a halving each), then narrows
/// the bracket by regula falsi on log epsilon against log sigma (nearly a
/// line for the usual mechanisms, so that a few evaluations reach 1e-6
/// where bisection needs twenty), with the Illinois modification so that
/// both ends close in, and a bisection step whenever interpolation fails
/// to halve the bracket in two steps or an end's epsilon is not finite:
/// never more evaluations than bisection needs, plus two per halving.
///
/// Every loop is bounded: at most 21 steps up (each at least doubles, to
/// 1e6), at most 21 down (each at least halves, to 1e-6), and a narrowing that stops when the
/// bracket is within the tolerance, when its next point rounds to an end, or after 2200 steps (a
/// double bracket cannot be halved more often). A sigma whose epsilon is NaN, or for which
/// epsilon_of throws privet::error below a sigma already certified (an accountant that cannot
/// represent so small a noise, e.g. a loss past double range or a grid past 2^27 points), counts as
/// not meeting the target, so the sigma returned is always one that epsilon_of certified.
template <class EpsilonOf>
requires std::is_invocable_r_v<double, EpsilonOf&, double>
double smallest_noise_multiplier(EpsilonOf&& epsilon_of, double target_epsilon,
                                 double relative_tolerance = 1e-9) {
  validate_epsilon(target_epsilon, "target_epsilon");
  if (!(relative_tolerance > 0 && relative_tolerance < 1)) {
    throw_invalid("relative_tolerance", relative_tolerance, "(0, 1)");
  }
  // f(sigma) = log(epsilon / target): <= 0 meets the target. NaN (an
  // epsilon that is NaN, or an accountant that refused below a certified
  // sigma) counts as not meeting it.
  const double log_target = std::log(target_epsilon);
  auto f = [&](double sigma) {
    return std::log(static_cast<double>(epsilon_of(sigma))) - log_target;
  };
  auto f_below = [&](double sigma) {
    try {
      return f(sigma);
    } catch (const error&) {
      return std::numeric_limits<double>::quiet_NaN();
    }
  };
  auto meets = [](double value) { return value <= 0; };  // false for NaN
  // Bracket: from sigma = 1, step in log sigma by the distance a power law
  // eps ~ sigma^-p would need, overshooting. Upwards p = 1 (the small-eps
  // regime, eps ~ 1/sigma) and 10 % more, so that one step usually
  // brackets; downwards p = 2 (the large-eps regime, eps ~ 1/sigma^2), so
  // that the search approaches small sigmas, whose losses span wide grids
  // and cost the most, from above. Every step at least doubles or halves,
  // and at most multiplies or divides by 2^10.
  double hi = 1;
  double f_hi = f(hi);
  double lo = 0;
  double f_lo = std::numeric_limits<double>::quiet_NaN();
  if (!meets(f_hi)) {
    lo = hi;
    f_lo = f_hi;
    while (true) {
      if (lo >= 1e6) throw_invalid("target_epsilon", target_epsilon, "reachable with sigma <= 1e6");
      const double factor = std::isfinite(f_lo) ? std::clamp(std::exp(1.1 * f_lo), 2.0, 1024.0) : 2;
      hi = std::min(lo * factor, 1e6);
      f_hi = f(hi);
      if (meets(f_hi)) break;
      lo = hi;
      f_lo = f_hi;
    }
  } else {
    while (true) {
      const double factor = std::clamp(std::exp(-f_hi / 2), 2.0, 1024.0);
      lo = hi / factor;
      if (lo < 1e-6) {
        lo = 1e-6;
        if (!(lo < hi)) break;
      }
      f_lo = f_below(lo);
      if (!meets(f_lo)) break;
      hi = lo;
      f_hi = f_lo;
      if (lo <= 1e-6) break;
    }
  }
  // Narrow [lo, hi] keeping f(hi) <= 0 < f(lo). The Illinois weights halve
  // the f value kept at an end that survives two steps running.
  double w_lo = 1;
  double w_hi = 1;
  int same_side = 0;  // > 0: lo moved last this many times; < 0: hi did
  double width_two_steps_ago = hi - lo;
  double width_one_step_ago = hi - lo;
  for (int step = 0; step < 2200 && hi - lo > relative_tolerance * hi; ++step) {
    const double x_lo = std::log(lo);
    const double x_hi = std::log(hi);
    double next = lo + (hi - lo) / 2;
    const double a = w_lo * f_lo;
    const double b = w_hi * f_hi;
    const bool bisect = step >= 2 && hi - lo > width_two_steps_ago / 2;
    if (!bisect && std::isfinite(a) && std::isfinite(b) && a > b) {
      // The root of the line through (x_lo, a) and (x_hi, b), kept off the
      // ends by a hundredth of the bracket so that a flat end cannot stall.
      const double x = x_hi - b * (x_hi - x_lo) / (b - a);
      const double t = std::clamp((x - x_lo) / (x_hi - x_lo), 0.01, 0.99);
      const double interpolated = std::exp(x_lo + t * (x_hi - x_lo));
      // Within a few ulps, exp(log) may round onto an end: bisect instead.
      if (interpolated > lo && interpolated < hi) next = interpolated;
    }
    if (!(next > lo && next < hi)) break;
    width_two_steps_ago = width_one_step_ago;
    width_one_step_ago = hi - lo;
    const double f_next = f_below(next);
    if (meets(f_next)) {
      hi = next;
      f_hi = f_next;
      w_hi = 1;
      same_side = same_side < 0 ? same_side - 1 : -1;
      if (same_side <= -2) w_lo /= 2;
    } else {
      lo = next;
      f_lo = f_next;
      w_lo = 1;
      same_side = same_side > 0 ? same_side + 1 : 1;
      if (same_side >= 2) w_hi /= 2;
    }
  }
  return hi;
}

/// How smallest_noise_multiplier and dpsgd_noise_multiplier search: the
/// accountant that must certify the target, its parameters, and when the
/// bisection stops.
struct calibration_options {
  /// Which accountant certifies the target.
  accountant_kind accountant = accountant_kind::pld;
  /// The RDP accountant's orders.
  std::vector<double> orders = default_rdp_orders();
  /// The PLD accountant's grid: pld_options' defaults, the odometer's too
  /// (a sigma calibrated here gives the odometer's epsilon back).
  pld_options pld = {};
  /// The PRV accountant's errors (its upper bound certifies the target).
  prv_options prv = {};
  /// Relative width of the final bracket.
  double relative_tolerance = 1e-6;
  /// Above this target epsilon, calibration coarsens the PLD grid and the
  /// PRV mesh in proportion to the target: it uses grid step
  /// pld.value_discretization_interval * max(1, target / coarsen_above) and
  /// eps_error prv.eps_error * max(1, target / coarsen_above), so that both
  /// keep the relative accuracy they have at this target (1e-5 and 1e-3 of
  /// it at the defaults). A composition's losses span a range about
  /// proportional to its epsilon, so the grid's size, and each
  /// evaluation's time, stop growing with the target: (800, 1e-5) over 10
  /// steps of q = 0.5 needed 2^24-point transforms at h = 1e-4 (89 s in
  /// all); at h = 8e-3 it takes about a second. Any grid certifies: a
  /// coarser one only adds pessimism, a few grid steps of epsilon in
  /// practice (DP-SGD, 10^4 steps: 3.5e-3 from h = 1e-4 to 1e-3). Up to
  /// this target nothing changes, and a sigma calibrated here is the
  /// default odometer's smallest. Above it, an odometer on the default grid
  /// reports the calibrated sigma within about the same share of the target,
  /// but on either side (a finer grid is not always tighter: at a target of
  /// 40, 40.0001): to report exactly the target back, give the odometer
  /// calibration_grid(target, options). Must be > 0; infinity never
  /// coarsens.
  double coarsen_above = 10;
};

/// The epsilon one accountant certifies for `count` runs of `event` at
/// `delta`. Throws invalid_parameter naming `accountant` when it cannot
/// answer, with the cause: no such accountant for the event, or (PLD, PRV)
/// a delta at or below what the composition leaves at +infinity, or a grid
/// too fine for the composition.
template <privacy_event E>
double accountant_epsilon(const E& event, std::uint64_t count, double delta,
                          accountant_kind accountant, const std::vector<double>& orders,
                          const pld_options& pld, const prv_options& prv = {}) {
  odometer_options o;
  o.orders = orders;
  o.pld = pld;
  o.prv = prv;
  o.use_pld = accountant == accountant_kind::pld;
  o.use_prv = accountant == accountant_kind::prv;
  privacy_odometer odometer(std::move(o));
  odometer.record(event, count);
  const auto r = odometer.report(delta);
  const auto& answer = accountant == accountant_kind::pld   ? r.pld
                       : accountant == accountant_kind::prv ? r.prv
                                                            : r.rdp;
  if (!answer) {
    const std::string& why = accountant == accountant_kind::pld   ? r.pld_unavailable
                             : accountant == accountant_kind::prv ? r.prv_unavailable
                                                                  : std::string();
    if (why.empty() || why.rfind("no P", 0) == 0) {
      throw_invalid("accountant", to_string(accountant),
                    "an accountant that supports " + describe(event));
    }
    throw invalid_parameter(
        "accountant", "privet: accountant = " + std::string(to_string(accountant)) +
                          " cannot certify " + detail::format_value(count) + " runs of " +
                          describe(event) + " at delta = " + detail::format_value(delta) + ": " +
                          why);
  }
  return answer->epsilon();
}

/// The PLD grid and PRV mesh calibration uses for `target` (`options`'
/// grids, coarsened above options.coarsen_above; see there): an odometer
/// given these reports a sigma calibrated with `options` at most at the
/// target. Throws invalid_parameter naming coarsen_above if it is not > 0.
inline std::pair<pld_options, prv_options> calibration_grid(const approx_dp& target,
                                                            const calibration_options& options) {
  if (!(options.coarsen_above > 0)) {
    throw_invalid("coarsen_above", options.coarsen_above, "(0, inf]");
  }
  // What this scales is the grid's cost, not a privacy claim: any grid
  // certifies, so its rounding needs no direction.
  const double coarsening = std::max(1.0, target.epsilon() / options.coarsen_above);
  std::pair<pld_options, prv_options> grid{options.pld, options.prv};
  grid.first.value_discretization_interval *= coarsening;
  grid.second.eps_error *= coarsening;
  return grid;
}

/// The smallest sigma such that `count` runs of make_event(sigma) meet
/// `target` by the chosen accountant, on the grid calibration_options'
/// coarsen_above allows. make_event maps a noise multiplier to a privacy event,
/// e.g. [](double s) { return gaussian_event{s}; }. Throws invalid_parameter
/// naming count (0), target.delta (0), coarsen_above (not positive) or
/// what the accountant refuses.
template <class MakeEvent>
requires privacy_event<std::invoke_result_t<MakeEvent&, double>>
double smallest_noise_multiplier(MakeEvent&& make_event, std::uint64_t count,
                                 const approx_dp& target, const calibration_options& c = {}) {
  validate_at_least<std::uint64_t>(count, 1, "count");
  validate_delta_positive(target.delta(), "target.delta");
  // Not a structured binding: clang before 16 cannot capture one in a lambda.
  const std::pair<pld_options, prv_options> grid = calibration_grid(target, c);
  return smallest_noise_multiplier(
      [&](double sigma) {
        return accountant_epsilon(make_event(sigma), count, target.delta(), c.accountant, c.orders,
                                  grid.first, grid.second);
      },
      target.epsilon(), c.relative_tolerance);
}

/// The smallest DP-SGD noise multiplier for Poisson sampling rate q and
/// `steps` steps (an explicit count: ceil or floor of epochs n / b changes the
/// 4th digit, so privet does not guess) to reach `target`.
inline double dpsgd_noise_multiplier(double q, std::uint64_t steps, const approx_dp& target,
                                     const calibration_options& c = {}) {
  if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
  validate_at_least<std::uint64_t>(steps, 1, "steps");
  return smallest_noise_multiplier(
      [q](double sigma) {
        return subsampled_gaussian_event{q, sigma};
      },
      steps, target, c);
}

}  // namespace privet
