// privet/accounting/composition.hpp — composition theorems for pure and
// approximate DP, from loosest to exact:
//
// - basic: epsilons and deltas add (Dwork, McSherry, Nissim & Smith 2006;
//   Dwork & Lei 2009);
// - advanced (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Theorem
//   3.20): k runs of (eps, delta)-DP are (sqrt(2k ln(1/d')) eps +
//   k eps (e^eps - 1), k delta + d')-DP for any d' > 0;
// - optimal homogeneous (Kairouz, Oh & Viswanath 2015, Theorem 3.3): k
//   runs of (eps, delta)-DP are (eps', 1 - (1 - delta)^k (1 - delta_k(eps')))
//   -DP, where delta_k(eps') is the hockey-stick divergence of k independent
//   eps-randomised responses,
//     delta_k(eps') = sum_l C(k, l) max(0, e^{(k - l) eps} - e^{eps'} e^{l eps}) / (1 + e^eps)^k,
//   and no smaller delta holds for every (eps, delta)-DP mechanism. At
//   eps' = (k - 2i) eps this is the paper's formula; privet evaluates it for
//   any eps', in log space, in O(k).
#pragma once

#include <privet/accounting/detail/log_math.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace privet {

/// Basic composition of heterogeneous releases: epsilons and deltas add
/// (rounded up). Throws invalid_parameter for an empty list or a total delta >= 1.
inline approx_dp compose_basic(const std::vector<approx_dp>& parts) {
  if (parts.empty()) throw_empty("parts");
  double eps = 0, delta = 0;
  for (const auto& p : parts) {
    eps = detail::add_up(eps, p.epsilon());
    delta = detail::add_up(delta, p.delta());
  }
  if (!(delta < 1))
    throw_invalid("total delta", delta, "< 1 (too many parts for basic composition)");
  return approx_dp(eps, delta);
}

/// Advanced composition of k runs of (eps, delta)-DP with slack delta_prime
/// in (0, 1) (Dwork, Rothblum & Vadhan 2010).
inline approx_dp compose_advanced(const approx_dp& each, std::uint64_t k, double delta_prime) {
  validate_at_least<std::uint64_t>(k, 1, "k");
  validate_delta_positive(delta_prime, "delta_prime");
  const double kd = static_cast<double>(k);
  const double eps = each.epsilon();
  const double total_eps =
      std::sqrt(2 * kd * std::log(1 / delta_prime)) * eps + kd * eps * std::expm1(eps);
  const double total_delta = kd * each.delta() + delta_prime;
  if (!(total_delta < 1)) throw_invalid("total delta", total_delta, "< 1");
  return approx_dp(total_eps, total_delta);
}

/// delta of the optimal k-fold composition of (eps, delta)-DP at eps_prime
/// (Kairouz, Oh & Viswanath 2015, Theorem 3.3, for any eps_prime >= 0).
inline double compose_optimal_delta(const approx_dp& each, std::uint64_t k, double eps_prime) {
  validate_at_least<std::uint64_t>(k, 1, "k");
  validate_non_negative(eps_prime, "eps_prime");
  const double eps = each.epsilon();
  const double kd = static_cast<double>(k);
  double log_sum = detail::neg_inf;
  if (eps > 0) {
    const double log_norm = kd * detail::log_add(0, eps);  // log (1 + e^eps)^k
    // Terms are positive while (k - l) eps > eps' + l eps, i.e. l < (k eps - eps') / (2 eps).
    for (std::uint64_t l = 0; l < k + 1; ++l) {
      const double ld = static_cast<double>(l);
      const double hi = (kd - ld) * eps, lo = eps_prime + ld * eps;
      if (!(hi > lo)) break;
      const double log_term = detail::log_abs_binomial(kd, ld) + detail::log_sub(hi, lo) - log_norm;
      log_sum = detail::log_add(log_sum, log_term);
    }
  }
  const double rr_delta = std::exp(log_sum);
  // 1 - (1 - delta)^k (1 - rr_delta), without cancellation for tiny deltas.
  const double log_keep = kd * std::log1p(-each.delta()) + std::log1p(-rr_delta);
  return -std::expm1(log_keep);
}

/// The smallest eps' with compose_optimal_delta(each, k, eps') <= delta
/// (bisection to 1e-12 relative, rounded up). Throws invalid_parameter when
/// delta is below k runs' own failure probability 1 - (1 - each.delta)^k.
inline approx_dp compose_optimal(const approx_dp& each, std::uint64_t k, double delta) {
  validate_delta_positive(delta);
  if (compose_optimal_delta(each, k, 0) <= delta) return approx_dp(0, delta);
  const double floor_delta = -std::expm1(static_cast<double>(k) * std::log1p(-each.delta()));
  if (!(delta > floor_delta)) {
    throw_invalid("delta", delta,
                  "> 1 - (1 - each.delta)^k = " + detail::format_value(floor_delta));
  }
  // k eps is always enough (delta_k(k eps) = 0).
  double lo = 0, hi = static_cast<double>(k) * each.epsilon();
  while (hi - lo > 1e-12 * hi) {
    const double mid = (lo + hi) / 2;
    (compose_optimal_delta(each, k, mid) <= delta ? hi : lo) = mid;
  }
  return approx_dp(hi, delta);
}

}  // namespace privet
