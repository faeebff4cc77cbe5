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
//   any eps', in log space, in O(sqrt(k)) terms with every rounding and
//   every dropped tail bounded and added, for k up to compose_optimal_max_k.
#pragma once

#include <privet/accounting/detail/log_math.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
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

/// Basic composition of pure-DP guarantees up to total variation (see
/// within_tv): epsilons add and so do the distances, each rounded up. A
/// template (Base is pure_dp, deduced) so that compose_basic({}) still
/// means the approx_dp overload.
template <std::same_as<pure_dp> Base>
within_tv<Base> compose_basic(const std::vector<within_tv<Base>>& parts) {
  if (parts.empty()) throw_empty("parts");
  double eps = 0, tau = 0;
  for (const auto& p : parts) {
    eps = detail::add_up(eps, p.base().epsilon());
    tau = detail::add_up(tau, p.total_variation());
  }
  return within_tv<pure_dp>(pure_dp(eps), tau < 1 ? tau : 1.0);
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

/// The largest k that compose_optimal and compose_optimal_delta accept. The
/// sum is evaluated on a window of about 30 standard deviations of the
/// binomial around its bulk, O(sqrt(k)) terms, and each term's log is a
/// difference of log-factorials of size k log k whose rounding (inflated into
/// the result, below 1e-6 relative at this k) grows with k; beyond it use
/// compose_advanced, which holds for any k.
inline constexpr std::uint64_t compose_optimal_max_k = std::uint64_t{1} << 24;

namespace detail {

inline void validate_optimal_k(std::uint64_t k) {
  if (k < 1 || k > compose_optimal_max_k) {
    throw_invalid("k", k,
                  "[1, 2^24 = 16777216] (optimal composition's cost and rounding grow with k; "
                  "for more runs use compose_advanced)");
  }
}

}  // namespace detail

/// delta of the optimal k-fold composition of (eps, delta)-DP at eps_prime
/// (Kairouz, Oh & Viswanath 2015, Theorem 3.3, for any eps_prime >= 0),
/// rounded up. Throws invalid_parameter naming k outside [1,
/// compose_optimal_max_k] or eps_prime unless it is finite and >= 0.
///
/// With p = e^eps / (1 + e^eps) the sum is over l of b_l (1 - e^{eps' - (k -
/// 2l) eps}) for (k - 2l) eps > eps', where b_l = C(k, l) p^{k - l} (1 - p)^l
/// is the binomial pmf. Terms are summed on a window [a, b] around the mode
/// of b (or around the last positive term when that lies below the mode);
/// outside it each term is at most b_l, and b_l falls at least geometrically
/// away from the mode (the ratio b_{l+1} / b_l = (k - l) (1 - p) / ((l + 1) p)
/// decreases in l), so each dropped tail is at most its edge term times
/// r / (1 - r) with r the ratio at the edge: that bound is added.
/// Every term is computed in log space with its rounding bounded and added
/// (16 ulps of each log piece), so the result is never below the exact sum.
inline double compose_optimal_delta(const approx_dp& each, std::uint64_t k, double eps_prime) {
  detail::validate_optimal_k(k);
  validate_non_negative(eps_prime, "eps_prime");
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  const double eps = each.epsilon();
  const double kd = static_cast<double>(k);  // exact: k <= 2^24
  double rr_delta = 0;
  // Positive terms need (k - 2l) eps > eps', so l <= l_max; none if even
  // l = 0 fails (k eps <= eps').
  if (eps > 0 && kd * eps > eps_prime) {
    // log p and log(1 - p), without overflow for any eps.
    const double log_p = -std::log1p(std::exp(-eps));
    const double log_q = -eps + log_p;
    auto positive = [&](double l) { return (kd - 2 * l) * eps > eps_prime; };
    // k / 2 - eps' / (2 eps) rather than (k eps - eps') / (2 eps): k eps
    // may overflow.
    double l_max = std::floor(kd / 2 - eps_prime / (2 * eps));
    l_max = std::clamp(l_max, 0.0, kd);
    // The division rounds: step to the exact last positive index (a few
    // steps at most; bounded so that no rounding can make it loop).
    for (int s = 0; s < 64 && l_max < kd && positive(l_max + 1); ++s) ++l_max;
    for (int s = 0; s < 64 && l_max > 0 && !positive(l_max); ++s) --l_max;
    if (positive(l_max)) {
      const double q_prob = std::exp(log_q);  // 1 - p
      const double mode = std::min(kd, std::floor((kd + 1) * q_prob));
      const double centre = std::min(mode, l_max);
      const double sd = std::sqrt(kd * q_prob * std::exp(log_p));
      const double width = std::ceil(15 * sd) + 16;
      const double a = std::max(0.0, centre - width), b = std::min(l_max, centre + width);
      const double lg_k = boost::math::lgamma(kd + 1);
      // Upper bound on log b_l.
      auto log_pmf_up = [&](double l) {
        const double g1 = boost::math::lgamma(l + 1), g2 = boost::math::lgamma(kd - l + 1);
        const double t1 = (kd - l) * log_p, t2 = l * log_q;
        const double v = lg_k - g1 - g2 + t1 + t2;
        return v + 16 * u * (lg_k + g1 + g2 + std::fabs(t1) + std::fabs(t2) + std::fabs(v) + 1);
      };
      // l_max + 1 too when it ends the window: its term is 0 in exact
      // arithmetic unless the comparison above rounded, and is then counted.
      const double last = b == l_max ? std::min(kd, l_max + 1) : b;
      double sum = 0;
      for (double l = a; l <= last; ++l) {
        // 1 - e^x at x = eps' - (k - 2l) eps < 0, evaluated at x minus its
        // rounding bound, which can only enlarge it.
        const double big = (kd - 2 * l) * eps;
        const double x = eps_prime - big - 4 * u * (eps_prime + std::fabs(big));
        if (!(x < 0)) continue;
        const double log_factor = std::log(-std::expm1(x)) + 8 * u;
        sum += std::exp(log_pmf_up(l) + log_factor + 4 * u);
      }
      // Dropped tails, bounded by their binomial mass times the largest
      // factor, 1 - e^{eps' - k eps} (l = 0); should rounding put a ratio at
      // 1 or more, every dropped term is bounded by 1 instead.
      const double top_factor =
          std::min(1.0, -std::expm1(eps_prime - kd * eps * (1 + 4 * u)) * (1 + 8 * u));
      if (b < l_max) {
        const double r = (kd - b) / (b + 1) * q_prob / std::exp(log_p) * (1 + 16 * u);
        sum +=
            r < 1 ? std::exp(log_pmf_up(b)) * r / (1 - r) * (1 + 16 * u) * top_factor : l_max - b;
      }
      if (a > 0) {
        const double r = a / (kd - a + 1) * std::exp(log_p) / q_prob * (1 + 16 * u);
        sum += r < 1 ? std::exp(log_pmf_up(a)) * r / (1 - r) * (1 + 16 * u) * top_factor : a;
      }
      // The sum of (last - a + 3) positive terms rounds by at most that many
      // ulps; each exp that lands among the subnormals may also lose up to
      // half of the smallest one.
      const double terms = last - a + 3;
      rr_delta = std::min(
          1.0, sum * (1 + (terms + 8) * u) + terms * std::numeric_limits<double>::denorm_min());
    }
  }
  // 1 - (1 - delta)^k (1 - rr_delta), without cancellation for tiny deltas.
  const double log_keep = kd * std::log1p(-each.delta()) + std::log1p(-rr_delta);
  return std::min(1.0, -std::expm1(log_keep) * (1 + 8 * u));
}

/// The smallest eps' with compose_optimal_delta(each, k, eps') <= delta
/// (bisection to 1e-12 relative, rounded up). delta = 0 is pure DP: with
/// each.delta = 0 the optimal k-fold composition is k * each.epsilon exactly
/// (Kairouz, Oh & Viswanath 2015, Theorem 3.3: below eps' = k eps the l = 0
/// term p^k (1 - e^{eps' - k eps}) of delta_k is positive), i.e. basic
/// composition, rounded up. Throws invalid_parameter naming delta when it is
/// outside [0, 1) or below k runs' own failure probability 1 - (1 -
/// each.delta)^k (so delta = 0 needs each.delta = 0), k outside [1,
/// compose_optimal_max_k], and each.epsilon when k * each.epsilon overflows
/// (no finite eps' can then be certified).
inline approx_dp compose_optimal(const approx_dp& each, std::uint64_t k, double delta) {
  detail::validate_optimal_k(k);
  validate_delta(delta);
  const double floor_delta = -std::expm1(static_cast<double>(k) * std::log1p(-each.delta()));
  if (delta == 0 && each.delta() == 0) {
    const double total = detail::mul_up(static_cast<double>(k), each.epsilon());
    if (!std::isfinite(total)) {
      throw_invalid("each.epsilon", each.epsilon(),
                    "<= DBL_MAX / k with k = " + detail::format_value(k) +
                        " (the composed epsilon must be finite)");
    }
    return approx_dp(total, 0);
  }
  if (compose_optimal_delta(each, k, 0) <= delta) return approx_dp(0, delta);
  if (!(delta > floor_delta)) {
    throw_invalid("delta", delta,
                  "> 1 - (1 - each.delta)^k = " + detail::format_value(floor_delta));
  }
  // k eps is always enough (delta_k(k eps) = 0).
  double lo = 0, hi = static_cast<double>(k) * each.epsilon();
  if (!std::isfinite(hi)) {
    throw_invalid("each.epsilon", each.epsilon(),
                  "<= DBL_MAX / k with k = " + detail::format_value(k) +
                      " (the composed epsilon must be finite)");
  }
  // Each halving either narrows [lo, hi] or stops when mid rounds to an end
  // (subnormal brackets); a double bracket halves at most ~2100 times.
  for (int it = 0; it < 2200 && hi - lo > 1e-12 * hi; ++it) {
    const double mid = lo + (hi - lo) / 2;
    if (!(mid > lo && mid < hi)) break;
    (compose_optimal_delta(each, k, mid) <= delta ? hi : lo) = mid;
  }
  return approx_dp(hi, delta);
}

}  // namespace privet
