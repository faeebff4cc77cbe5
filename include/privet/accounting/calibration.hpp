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

#include <concepts>
#include <cstdint>
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
/// Every loop is bounded: at most 21 doublings (1 to 2^20 > 1e6), at most
/// 20 halvings (down to 1e-6), and a bisection that stops when the bracket
/// is within the tolerance, when its midpoint rounds to an end, or after
/// 2200 steps (a double bracket cannot be halved more often). A sigma whose
/// epsilon is NaN, or for which epsilon_of throws privet::error below a
/// sigma already certified (an accountant that cannot represent so small a
/// noise, e.g. a loss past double range or a grid past 2^27 points), counts
/// as not meeting the target, so the sigma returned is always one that
/// epsilon_of certified.
template <class EpsilonOf>
requires std::is_invocable_r_v<double, EpsilonOf&, double>
double smallest_noise_multiplier(EpsilonOf&& epsilon_of, double target_epsilon,
                                 double relative_tolerance = 1e-9) {
  validate_epsilon(target_epsilon, "target_epsilon");
  if (!(relative_tolerance > 0 && relative_tolerance < 1)) {
    throw_invalid("relative_tolerance", relative_tolerance, "(0, 1)");
  }
  auto meets = [&](double sigma) { return epsilon_of(sigma) <= target_epsilon; };
  auto meets_below = [&](double sigma) {
    try {
      return meets(sigma);
    } catch (const error&) {
      return false;
    }
  };
  double hi = 1;
  while (!meets(hi)) {
    hi *= 2;
    if (hi > 1e6) throw_invalid("target_epsilon", target_epsilon, "reachable with sigma <= 1e6");
  }
  double lo = hi / 2;
  while (lo > 1e-6 && meets_below(lo)) {
    hi = lo;
    lo /= 2;
  }
  for (int step = 0; step < 2200 && hi - lo > relative_tolerance * hi; ++step) {
    const double mid = lo + (hi - lo) / 2;
    if (!(mid > lo && mid < hi)) break;
    (meets_below(mid) ? hi : lo) = mid;
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
  /// Relative width of the final bisection bracket.
  double relative_tolerance = 1e-6;
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

/// The smallest sigma such that `count` runs of make_event(sigma) meet
/// `target` by the chosen accountant. make_event maps a noise multiplier to
/// a privacy event, e.g. [](double s) { return gaussian_event{s}; }.
template <class MakeEvent>
requires privacy_event<std::invoke_result_t<MakeEvent&, double>>
double smallest_noise_multiplier(MakeEvent&& make_event, std::uint64_t count,
                                 const approx_dp& target, const calibration_options& c = {}) {
  validate_at_least<std::uint64_t>(count, 1, "count");
  validate_delta_positive(target.delta(), "target.delta");
  return smallest_noise_multiplier(
      [&](double sigma) {
        return accountant_epsilon(make_event(sigma), count, target.delta(), c.accountant, c.orders,
                                  c.pld, c.prv);
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
