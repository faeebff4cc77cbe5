// privet/accounting/rdp.hpp — Rényi differential privacy (Mironov 2017):
// a mechanism is (alpha, eps(alpha))-RDP when the Rényi divergence of order
// alpha between its outputs on neighbours is at most eps(alpha). privet keeps
// the whole curve on a fixed set of orders; composition adds curves order by
// order (Mironov 2017, Proposition 1), and the (eps, delta) conversion
// minimises over the orders.
//
// Curves: the Gaussian mechanism, alpha / (2 sigma^2); the Laplace mechanism
// and randomised response (Mironov 2017, Table II); any eps-DP mechanism, by
// binary randomised response with the same eps, which simulates every eps-DP
// mechanism (Kairouz, Oh & Viswanath 2015, Theorem 2.1) so that Rényi
// divergence's data processing inequality bounds it; and the Poisson-
// subsampled Gaussian under add/remove neighbours (Mironov, Talwar & Zhang
// 2019): A_alpha = E_{z ~ N(0, sigma^2)} [((1 - q) + q e^{(2z - 1) / (2 sigma^2)})^alpha]
// and eps(alpha) = log(A_alpha) / (alpha - 1), by the binomial expansion for
// integer alpha (Section 3.2) and the two-sided series of Section 3.3 for
// fractional alpha.
//
// For fractional alpha the series' generalised binomial coefficients change
// sign once i > alpha. privet sums their absolute values, as dp_accounting
// does since 2024 (Opacus keeps the signs): the sum is then an upper bound
// on A_alpha, never below it, which is the safe side for a privacy claim.
// The two conventions differ in about the 4th significant digit at small q.
//
// (eps, delta) conversion: the improved bound of Balle, Barthe, Gaboardi,
// Hsu & Sato (2020, Theorem 21), eps = eps(alpha) + log((alpha - 1) / alpha)
// - (log delta + log alpha) / (alpha - 1), which is below Mironov's classic
// eps(alpha) + log(1 / delta) / (alpha - 1) at every order; both are given.
// Everything is computed in log space, so orders in the thousands work.
#pragma once

#include <privet/accounting/detail/log_math.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace privet {

/// The orders dp_accounting uses by default: 1.25 ... 4.5, 5 ... 63, 128, 256, 512.
inline std::vector<double> default_rdp_orders() {
  std::vector<double> orders{1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5};
  for (int a = 5; a < 64; ++a) orders.push_back(a);
  for (double a : {128.0, 256.0, 512.0}) orders.push_back(a);
  return orders;
}

/// An RDP curve: eps(alpha) at each of a fixed, increasing set of orders > 1.
class rdp {
 public:
  /// Throws invalid_parameter unless the orders are finite, > 1 and strictly
  /// increasing, there is one epsilon per order, and each epsilon is >= 0
  /// (+infinity allowed: no guarantee at that order).
  rdp(std::vector<double> orders, std::vector<double> epsilons)
      : orders_(std::move(orders)), epsilons_(std::move(epsilons)) {
    validate_orders(orders_);
    if (epsilons_.size() != orders_.size()) {
      throw_invalid("epsilons.size()", epsilons_.size(),
                    "== orders.size() = " + detail::format_value(orders_.size()));
    }
    for (std::size_t i = 0; i < epsilons_.size(); ++i) {
      if (!(epsilons_[i] >= 0)) {
        throw_invalid("epsilons[" + std::to_string(i) + "]", epsilons_[i], ">= 0 (or +inf)");
      }
    }
  }

  [[nodiscard]] const std::vector<double>& orders() const noexcept { return orders_; }
  [[nodiscard]] const std::vector<double>& epsilons() const noexcept { return epsilons_; }

  /// Sequential composition: curves add order by order. Throws
  /// invalid_parameter if the two curves are on different orders.
  friend rdp operator+(const rdp& a, const rdp& b) {
    if (a.orders_ != b.orders_) {
      throw_invalid("orders", "two different sets", "the same orders for both curves");
    }
    std::vector<double> sum(a.epsilons_.size());
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = a.epsilons_[i] + b.epsilons_[i];
    return rdp(a.orders_, std::move(sum));
  }

  /// The composition of `count` runs of the same mechanism.
  [[nodiscard]] rdp composed(std::uint64_t count) const {
    std::vector<double> out(epsilons_.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = count == 0 ? 0 : epsilons_[i] * static_cast<double>(count);
    }
    return rdp(orders_, std::move(out));
  }

  static void validate_orders(const std::vector<double>& orders) {
    if (orders.empty()) throw_empty("orders");
    for (std::size_t i = 0; i < orders.size(); ++i) {
      const std::string name = "orders[" + std::to_string(i) + "]";
      if (!std::isfinite(orders[i]) || !(orders[i] > 1)) {
        throw_invalid(name, orders[i], "finite and > 1");
      }
      if (i > 0 && !(orders[i] > orders[i - 1])) {
        throw_invalid(name, orders[i],
                      "> orders[" + std::to_string(i - 1) + "] (strictly increasing)");
      }
    }
  }

 private:
  std::vector<double> orders_;
  std::vector<double> epsilons_;
};

template <>
inline constexpr bool is_guarantee_v<rdp> = true;

namespace detail {

template <class F>
rdp rdp_curve(const std::vector<double>& orders, F&& eps_at) {
  rdp::validate_orders(orders);
  std::vector<double> eps;
  eps.reserve(orders.size());
  // A Rényi divergence is >= 0; a formula that lands a rounding error below
  // 0 (at eps(alpha) ~ 1e-17) is read as 0. A NaN is no bound at all and is
  // read as +inf: std::max(0.0, NaN) would have read it as 0, a false claim.
  for (double a : orders) {
    const double e = eps_at(a);
    eps.push_back(std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(0.0, e));
  }
  return rdp(orders, std::move(eps));
}

// (1 / (alpha - 1)) log sum_x P(x)^alpha Q(x)^(1 - alpha) for the two-point
// (or k-point) randomised-response pair, from log probabilities.
inline double rr_divergence(double alpha, double log_p, double log_r, double others) {
  double s = log_add(alpha * log_p + (1 - alpha) * log_r, alpha * log_r + (1 - alpha) * log_p);
  if (others > 0) s = log_add(s, std::log(others) + log_r);
  return s / (alpha - 1);
}

// i (i - 1) / (2 sigma^2), the exponent of the i-th binomial term; 0 at
// i = 0 and 1 even when 2 sigma^2 underflows (where 0 / 0 would be NaN).
inline double gaussian_moment_exponent(double i, double sigma) {
  const double ii = i * i - i;
  return ii == 0 ? 0.0 : ii / (2 * sigma * sigma);
}

// The most terms a subsampled-Gaussian series may take (about 0.1 s).
inline constexpr double max_rdp_series_terms = 1e6;

// log A_alpha of the Poisson-subsampled Gaussian, 0 < q < 1, integer alpha
// up to max_rdp_series_terms (alpha + 1 terms).
inline double log_a_integer(double q, double sigma, double alpha) {
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
  double log_a = neg_inf;
  for (double i = 0; i <= alpha; ++i) {
    log_a = log_add(log_a, log_abs_binomial(alpha, i) + i * log_q + (alpha - i) * log_1mq +
                               gaussian_moment_exponent(i, sigma));
  }
  return log_a;
}

// An upper bound on log A_alpha at any order: A_alpha = integral of
// p^alpha r^{1 - alpha} is jointly convex in (p, r) for alpha > 1 (the
// perspective of the convex t^alpha), so for the mixture against N(0, s^2)
// A_alpha <= (1 - q) 1 + q A_alpha(N(1, s^2) || N(0, s^2)) = 1 - q + q
// e^{alpha (alpha - 1) / (2 s^2)}. Linear in q where the exact value is quadratic, so only the last
// resort, for orders past max_rdp_series_terms.
inline double log_a_convex_bound(double q, double sigma, double alpha) {
  const double y = alpha * (alpha - 1) / (2 * sigma * sigma);
  if (y < 700) return std::log1p(q * std::expm1(y));
  return y + log_add(std::log(q), std::log1p(-q) - y);  // y + log(q + (1 - q) e^{-y})
}

// log A_alpha for fractional alpha: A_alpha splits at z0 = sigma^2
// log(1/q - 1) + 1/2 into two series (Mironov, Talwar & Zhang 2019,
// Section 3.3), here with the absolute values of the coefficients. The terms
// decay only once i passes z0, so where z0 is beyond max_rdp_series_terms
// (huge sigma, or q near the smallest double), or the series has not
// converged within that many terms, the order is rounded up: a Renyi
// divergence does not decrease with its order (van Erven & Harremoes 2014,
// Theorem 3), so the integer order ceil(alpha)'s exact value bounds it.
inline double log_a_fractional(double q, double sigma, double alpha) {
  const double ceil_alpha = std::ceil(alpha);
  // log(A_ceil) / (ceil - 1) bounds log(A_alpha) / (alpha - 1).
  auto rounded_up = [&] {
    const double log_a_ceil = ceil_alpha <= max_rdp_series_terms
                                  ? log_a_integer(q, sigma, ceil_alpha)
                                  : log_a_convex_bound(q, sigma, ceil_alpha);
    return log_a_ceil / (ceil_alpha - 1) * (alpha - 1);
  };
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
  // log(1/q - 1) as log(1 - q) - log q: 1/q overflows for subnormal q.
  const double z0 = sigma * sigma * (log_1mq - log_q) + 0.5;
  if (!(z0 < max_rdp_series_terms) || !(alpha < max_rdp_series_terms)) return rounded_up();
  const double scale = std::sqrt(2.0) * sigma;
  double a0 = neg_inf, a1 = neg_inf;
  double prev0 = neg_inf, prev1 = neg_inf;
  // The terms decay geometrically once i passes alpha and z0; stop when both
  // fall and the larger is below e^-40 of the sum (under a double's
  // resolution). A sum that reaches +inf stays there (A_alpha past double
  // range: the order gives no finite guarantee); NaN is read as +inf by
  // rdp_curve.
  for (double i = 0; i < max_rdp_series_terms; ++i) {
    const double j = alpha - i;
    const double log_c = log_abs_binomial(alpha, i);
    const double s0 = log_c + i * log_q + j * log_1mq + gaussian_moment_exponent(i, sigma) +
                      std::log(0.5) + log_erfc((i - z0) / scale);
    const double s1 = log_c + j * log_q + i * log_1mq + gaussian_moment_exponent(j, sigma) +
                      std::log(0.5) + log_erfc((z0 - j) / scale);
    a0 = log_add(a0, s0);
    a1 = log_add(a1, s1);
    const double total = log_add(a0, a1);
    if (!(total < std::numeric_limits<double>::infinity())) return total;
    if (i > alpha && i > z0 && s0 < prev0 && s1 < prev1 && std::max(s0, s1) < total - 40) {
      return total;
    }
    prev0 = s0;
    prev1 = s1;
  }
  return rounded_up();
}

}  // namespace detail

/// The Gaussian mechanism with noise multiplier sigma (noise standard
/// deviation over L2 sensitivity): eps(alpha) = alpha / (2 sigma^2).
inline rdp rdp_gaussian(double noise_multiplier,
                        const std::vector<double>& orders = default_rdp_orders()) {
  validate_positive(noise_multiplier, "noise_multiplier");
  return detail::rdp_curve(orders,
                           [&](double a) { return a / (2 * noise_multiplier * noise_multiplier); });
}

/// The Laplace mechanism with scale b per unit of L1 sensitivity (Mironov
/// 2017, Table II): eps(alpha) = log(alpha / (2 alpha - 1) e^{(alpha - 1) / b}
/// + (alpha - 1) / (2 alpha - 1) e^{-alpha / b}) / (alpha - 1).
inline rdp rdp_laplace(double scale, const std::vector<double>& orders = default_rdp_orders()) {
  validate_positive(scale, "scale");
  return detail::rdp_curve(orders, [&](double a) {
    const double s = detail::log_add(std::log(a / (2 * a - 1)) + (a - 1) / scale,
                                     std::log((a - 1) / (2 * a - 1)) - a / scale);
    return s / (a - 1);
  });
}

/// k-ary randomised response with parameter epsilon (the true value kept
/// with probability e^eps / (e^eps + k - 1)), for a change of one user's value.
inline rdp rdp_randomized_response(double epsilon, std::uint64_t k,
                                   const std::vector<double>& orders = default_rdp_orders()) {
  validate_epsilon(epsilon);
  validate_at_least<std::uint64_t>(k, 2, "k");
  const double others = static_cast<double>(k - 2);
  // log p and log r with p = e^eps / (e^eps + k - 1), r = 1 / (e^eps + k - 1).
  const double log_norm = detail::log_add(epsilon, std::log(static_cast<double>(k - 1)));
  const double log_p = epsilon - log_norm, log_r = -log_norm;
  return detail::rdp_curve(
      orders, [&](double a) { return detail::rr_divergence(a, log_p, log_r, others); });
}

/// Any eps-DP mechanism: bounded by binary randomised response with the same
/// eps (Kairouz, Oh & Viswanath 2015, Theorem 2.1, and data processing).
inline rdp rdp_pure_dp(const pure_dp& g, const std::vector<double>& orders = default_rdp_orders()) {
  if (g.epsilon() == 0) return detail::rdp_curve(orders, [](double) { return 0.0; });
  return rdp_randomized_response(g.epsilon(), 2, orders);
}

/// The Gaussian mechanism with noise multiplier sigma applied to a Poisson
/// sample that includes each record with probability q, under add/remove
/// neighbours (Mironov, Talwar & Zhang 2019). q = 0 gives 0; q = 1 the
/// Gaussian curve. Never fails for valid parameters: where a series cannot be
/// summed (orders past 10^6, fractional orders at huge sigma or at q near the
/// smallest double), a proven upper bound is used (see log_a_fractional and
/// log_a_convex_bound).
inline rdp rdp_subsampled_gaussian(double q, double noise_multiplier,
                                   const std::vector<double>& orders = default_rdp_orders()) {
  validate_closed_range(q, 0, 1, "q");
  validate_positive(noise_multiplier, "noise_multiplier");
  if (q == 0) return detail::rdp_curve(orders, [](double) { return 0.0; });
  if (q == 1) return rdp_gaussian(noise_multiplier, orders);
  return detail::rdp_curve(orders, [&](double a) {
    double log_a = 0;
    if (a != std::floor(a)) {
      log_a = detail::log_a_fractional(q, noise_multiplier, a);
    } else if (a <= detail::max_rdp_series_terms) {
      log_a = detail::log_a_integer(q, noise_multiplier, a);
    } else {
      log_a = detail::log_a_convex_bound(q, noise_multiplier, a);
    }
    return log_a / (a - 1);
  });
}

/// The smallest eps for `delta` over the curve's orders by the improved
/// conversion (Balle et al. 2020, Theorem 21), with the order that attains
/// it; eps is +inf if every order's eps(alpha) is.
inline std::pair<approx_dp, double> to_approx_dp_with_order(const rdp& g, double delta) {
  validate_delta_positive(delta);
  double best = std::numeric_limits<double>::infinity(), best_order = g.orders().front();
  for (std::size_t i = 0; i < g.orders().size(); ++i) {
    const double a = g.orders()[i];
    const double e =
        g.epsilons()[i] + std::log1p(-1 / a) - (std::log(delta) + std::log(a)) / (a - 1);
    if (e < best) {
      best = e;
      best_order = a;
    }
  }
  if (best == std::numeric_limits<double>::infinity()) {
    throw_invalid("rdp", "+inf at every order", "a curve finite at some order");
  }
  return {approx_dp(std::max(0.0, best), delta), best_order};
}

/// (eps, delta) from an RDP curve by the improved conversion.
inline approx_dp to_approx_dp(const rdp& g, double delta) {
  return to_approx_dp_with_order(g, delta).first;
}

/// (eps, delta) by Mironov's classic conversion eps(alpha) + log(1/delta) /
/// (alpha - 1) (Mironov 2017, Proposition 3); looser, for comparison.
inline approx_dp to_approx_dp_classic(const rdp& g, double delta) {
  validate_delta_positive(delta);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < g.orders().size(); ++i) {
    const double a = g.orders()[i];
    best = std::min(best, g.epsilons()[i] - std::log(delta) / (a - 1));
  }
  if (best == std::numeric_limits<double>::infinity()) {
    throw_invalid("rdp", "+inf at every order", "a curve finite at some order");
  }
  return approx_dp(std::max(0.0, best), delta);
}

/// The smallest delta at `epsilon` over the curve's orders by the improved
/// conversion: log delta = (alpha - 1)(eps(alpha) - eps + log(1 - 1/alpha))
/// - log alpha, capped at 1.
inline double rdp_delta(const rdp& g, double epsilon) {
  validate_non_negative(epsilon, "epsilon");
  double best = 0;  // log 1
  for (std::size_t i = 0; i < g.orders().size(); ++i) {
    const double a = g.orders()[i];
    const double log_delta =
        (a - 1) * (g.epsilons()[i] - epsilon + std::log1p(-1 / a)) - std::log(a);
    best = std::min(best, log_delta);
  }
  return std::exp(best);
}

}  // namespace privet
