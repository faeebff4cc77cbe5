// privet/accounting/zcdp.hpp — zero-concentrated DP (Bun & Steinke 2016):
// composition (rhos add, Lemma 2.3), the Gaussian mechanism's rho
// (D^2 / (2 sigma^2), Proposition 1.6), and the conversion to (eps, delta)
// of Canonne, Kamath & Steinke (2020, Corollary 13):
//
//   rho-zCDP implies (eps, delta)-DP with
//   delta = exp((alpha - 1)(alpha rho - eps)) / (alpha - 1) (1 - 1/alpha)^alpha
//   for every alpha > 1,
//
// which is tighter than Bun & Steinke's eps = rho + 2 sqrt(rho log(1/delta))
// (core/guarantee.hpp keeps that one) at every delta. Every alpha gives a
// valid bound, so the search over alpha below only decides how tight the
// answer is, never whether it is sound.
#pragma once

#include <privet/accounting/detail/log_math.hpp>
#include <privet/core/analytic_gaussian.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/detail/zcdp_conversion.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <limits>
#include <vector>

namespace privet {

/// rho-zCDP of the Gaussian mechanism with standard deviation sigma on
/// inputs `l2_sensitivity` apart: D^2 / (2 sigma^2).
inline zcdp zcdp_gaussian(double sigma, double l2_sensitivity = 1) {
  validate_positive(sigma, "sigma");
  validate_non_negative(l2_sensitivity, "l2_sensitivity");
  return zcdp(l2_sensitivity * l2_sensitivity / (2 * sigma * sigma));
}

/// Sequential composition: the sum of the rhos, each addition rounded up
/// (as every composer here), so the result is never below the exact sum.
inline zcdp compose(const std::vector<zcdp>& parts) {
  if (parts.empty()) throw_empty("parts");
  double rho = 0;
  for (const auto& p : parts) rho = detail::add_up(rho, p.rho());
  return zcdp(rho);
}

/// Sequential composition of zCDP guarantees up to total variation: the
/// rhos add and so do the distances (see within_tv), each rounded up. A
/// template (Base is zcdp, deduced) so that compose({...}) of zcdp values
/// still means the zcdp overload.
template <std::same_as<zcdp> Base>
within_tv<Base> compose(const std::vector<within_tv<Base>>& parts) {
  if (parts.empty()) throw_empty("parts");
  double rho = 0, tau = 0;
  for (const auto& p : parts) {
    rho = detail::add_up(rho, p.base().rho());
    tau = detail::add_up(tau, p.total_variation());
  }
  return within_tv<zcdp>(zcdp(rho), tau < 1 ? tau : 1.0);
}

/// The smallest delta at `epsilon` for rho-zCDP (Canonne, Kamath & Steinke
/// 2020, Corollary 13), rounded up, capped at 1.
inline double zcdp_delta(const zcdp& g, double epsilon) {
  validate_non_negative(epsilon, "epsilon");
  if (g.rho() == 0) return 0;
  return detail::zcdp_delta_upper(epsilon, g.rho());
}

/// (eps, delta) from rho-zCDP by Canonne, Kamath & Steinke (2020,
/// Corollary 13): the eps minimised over the order alpha, then raised until
/// the rounded-up delta at it is at most `delta`. delta in (0, 1).
inline approx_dp to_approx_dp(const zcdp& g, double delta) {
  validate_delta_positive(delta);
  if (g.rho() == 0) return approx_dp(0, delta);
  return approx_dp(detail::zcdp_epsilon_upper(g.rho(), delta), delta);
}

/// (eps, delta) from rho-zCDP up to total variation tau: eps is the
/// base's (Corollary 13 above) at delta minus a share set aside for the
/// sampler, the share (at least 4 tau and 2^-48 delta) doubled until
/// add_total_variation of the base's guarantee fits within delta. Throws
/// invalid_parameter (`delta`) when delta is not in (0, 1) or leaves no
/// room for the share.
inline approx_dp to_approx_dp(const within_tv<zcdp>& g, double delta) {
  validate_delta_positive(delta);
  const double tau = g.total_variation();
  if (tau == 0) return to_approx_dp(g.base(), delta);
  for (double share = std::max(4 * tau, std::ldexp(delta, -48)); share < delta; share *= 2) {
    const approx_dp exact = to_approx_dp(g.base(), delta - share);
    if (add_total_variation(exact, tau).delta() <= delta) return approx_dp(exact.epsilon(), delta);
  }
  throw_invalid(
      "delta", delta,
      "(0, 1) and above the sampler's share (1 + e^eps) tau, tau = " + detail::format_value(tau));
}

/// The largest rho (a double, rounded down) such that rho-zCDP implies
/// `target` by Canonne, Kamath & Steinke (2020, Corollary 13) as zcdp_delta
/// evaluates it: the inverse of zcdp_delta, for spending a zCDP budget
/// against an (eps, delta) promise. The delta of Corollary 13 increases with
/// rho (at each alpha the bound exp((alpha - 1)(alpha rho - eps)) ... does,
/// and so does their infimum), so the rhos that meet the target form an
/// interval [0, rho*] and bisection on the doubles finds its end; the rho
/// returned is one at which zcdp_delta was evaluated and found <= delta, so
/// it never overshoots. It is at least Bun & Steinke's (2016, Proposition
/// 1.3) rho, the root of rho + 2 sqrt(rho log(1/delta)) = eps, which is
/// looser. target.delta = 0 gives rho = 0: a Gaussian mechanism is rho-zCDP
/// and (eps, 0)-DP for no finite eps. Throws invalid_parameter naming
/// target.delta unless it is in [0, 1).
inline zcdp zcdp_rho_for(const approx_dp& target) {
  validate_delta(target.delta(), "target.delta");
  const double eps = target.epsilon(), delta = target.delta();
  if (delta == 0) return zcdp(0);
  auto meets = [&](double rho) { return rho == 0 || detail::zcdp_delta_upper(eps, rho) <= delta; };
  // Bun & Steinke's rho, sqrt(rho) = sqrt(L + eps) - sqrt(L), L = log(1/delta),
  // written without cancellation, brackets from below.
  const double log_inv = -std::log(delta);
  const double root = eps / (std::sqrt(log_inv + eps) + std::sqrt(log_inv));
  const double start = root > 0 ? root * root : 1.0;
  return zcdp(detail::largest_double_where(meets, start));
}

}  // namespace privet
