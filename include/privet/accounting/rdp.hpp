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
#include <numbers>
#include <string>
#include <utility>
#include <vector>

namespace privet {

/// The default orders, 159 of them: 1.01, 1.02 and 1.05, then exactly
/// dp_accounting's DEFAULT_RDP_ORDERS (google/differential-privacy,
/// python/dp_accounting/dp_accounting/rdp/rdp_privacy_accountant.py):
/// 1 + x / 10 for x = 1, ..., 99 (1.1, 1.2, ..., 10.9, computed as there),
/// the integers 11, ..., 63, and 128, 256, 512, 1024. The three orders near
/// 1 serve compositions with a large privacy loss, whose best order is
/// close to 1 (140 Gaussian steps at noise multiplier 0.1 are best at 1.05);
/// extra orders can only lower the (eps, delta) answer, a minimum over orders.
inline std::vector<double> default_rdp_orders() {
  std::vector<double> orders{1.01, 1.02, 1.05};
  for (int x = 1; x < 100; ++x) orders.push_back(1 + x / 10.0);
  for (int a = 11; a < 64; ++a) orders.push_back(a);
  for (double a : {128.0, 256.0, 512.0, 1024.0}) orders.push_back(a);
  return orders;
}

/// An RDP curve: eps(alpha) at each of a fixed, increasing set of orders
/// alpha >= 1. Order 1 holds the Kullback-Leibler divergence (the limit of
/// D_alpha as alpha falls to 1) and order +inf the max divergence, i.e. the
/// pure-DP epsilon (Mironov 2017, Definition 3 and Proposition 2).
class rdp {
 public:
  /// Throws invalid_parameter unless the orders are >= 1 (+inf allowed) and
  /// strictly increasing, there is one epsilon per order, and each epsilon is >= 0
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

  /// The orders alpha, increasing.
  [[nodiscard]] const std::vector<double>& orders() const noexcept { return orders_; }
  /// eps(alpha) at each of orders(), in nats.
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

  /// Throws invalid_parameter naming `orders` if empty, or `orders[i]` for
  /// the first order that is not >= 1 (1 is the Kullback-Leibler divergence,
  /// +inf the max divergence) or not above its predecessor.
  static void validate_orders(const std::vector<double>& orders) {
    if (orders.empty()) throw_empty("orders");
    for (std::size_t i = 0; i < orders.size(); ++i) {
      const std::string name = "orders[" + std::to_string(i) + "]";
      if (!(orders[i] >= 1)) {
        throw_invalid(name, orders[i], ">= 1 (1: KL divergence; +inf: max divergence)");
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

/// An RDP curve is a guarantee: it can be recorded like any other.
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
// (or k-point) randomised-response pair, from log probabilities (P = (p, r,
// r, ...), Q = (r, p, r, ...), others = k - 2). Order 1: the KL divergence
// (p - r)(log p - log r); order +inf: log p - log r.
inline double rr_divergence(double alpha, double log_p, double log_r, double others) {
  if (alpha == 1) return (std::exp(log_p) - std::exp(log_r)) * (log_p - log_r);
  if (std::isinf(alpha)) return log_p - log_r;
  double s = log_add(alpha * log_p + (1 - alpha) * log_r, alpha * log_r + (1 - alpha) * log_p);
  if (others > 0) s = log_add(s, std::log(others) + log_r);
  return s / (alpha - 1);
}

// max(D_alpha(P || U), D_alpha(U || P)) for k-ary randomised response P =
// (p, r, ..., r) against the uniform U, from log(k p) and log(k r):
//   D_alpha(P || U) = log((k p)^alpha / k + (k - 1) (k r)^alpha / k) / (alpha - 1),
//   D_alpha(U || P) = log((k p)^{1 - alpha} / k + (k - 1) (k r)^{1 - alpha} / k) / (alpha - 1);
// order 1: p log(k p) + (k - 1) r log(k r) and -(log(k p) + (k - 1) log(k r)) / k;
// order +inf: log(k p) and -log(k r).
inline double rr_special_divergence(double alpha, double lkp, double lkr, double k) {
  if (alpha == 1) {
    const double to_u = std::exp(lkp) / k * lkp + (k - 1) * std::exp(lkr) / k * lkr;
    const double from_u = -(lkp + (k - 1) * lkr) / k;
    return std::max(to_u, from_u);
  }
  if (std::isinf(alpha)) return std::max(lkp, -lkr);
  const double lk = std::log(k), lkm1 = std::log(k - 1);
  const double to_u = log_add(alpha * lkp - lk, alpha * lkr + lkm1 - lk);
  const double from_u = log_add((1 - alpha) * lkp - lk, (1 - alpha) * lkr + lkm1 - lk);
  return std::max(to_u, from_u) / (alpha - 1);
}

// i (i - 1) / (2 sigma^2), the exponent of the i-th binomial term; 0 at
// i = 0 and 1 even when 2 sigma^2 underflows (where 0 / 0 would be NaN).
inline double gaussian_moment_exponent(double i, double sigma) {
  const double ii = i * i - i;
  return ii == 0 ? 0.0 : ii / (2 * sigma * sigma);
}

// The most terms a subsampled-Gaussian series may take (about 0.1 s).
inline constexpr double max_rdp_series_terms = 1e6;

// log k for k = 0, 1, ..., n (entry 0 is -inf), shared by the integer
// orders of one curve so that their binomial coefficients cost no logarithm.
inline std::vector<double> log_integers(std::size_t n) {
  std::vector<double> t(n + 1);
  t[0] = neg_inf;
  for (std::size_t k = 1; k <= n; ++k) t[k] = std::log(static_cast<double>(k));
  return t;
}

// log sum_i e^{l_i} + e^{extra}, for a sum A = 1 + (something small) whose
// "1" sits in l_0 (l_0 = log of (1 - q)^alpha times a factor near 1). Where
// every term is below e^600 the sum is taken as A - 1 = expm1(l_0) + the
// rest and returned as log1p(A - 1): log A ~ alpha q^2 is then as precise as
// its largest terms (~ ulps of q), where summing A ~ 1 directly would leave
// it an absolute error of an ulp of 1 (1e-11 relative at q = 0.01, worse as
// q falls). Larger sums: max + log sum e^{l_i - max}. NaN and +inf
// propagate.
inline double log_sum_near_one(const std::vector<double>& l, double extra) {
  double top = extra;
  for (double v : l) {
    if (std::isnan(v)) return v;
    top = std::max(top, v);
  }
  if (top == std::numeric_limits<double>::infinity()) return top;
  if (top < 600) {
    double am1 = std::expm1(l[0]);
    for (std::size_t i = 1; i < l.size(); ++i) am1 += std::exp(l[i]);
    am1 += std::exp(extra);
    return std::log1p(am1);
  }
  double s = std::exp(extra - top);
  for (double v : l) s += std::exp(v - top);
  return top + std::log(s);
}

// log A_alpha of the Poisson-subsampled Gaussian, 0 < q < 1, integer alpha
// up to max_rdp_series_terms: the alpha + 1 terms C(alpha, i) q^i (1 -
// q)^{alpha - i} e^{i (i - 1) / (2 sigma^2)} of the binomial expansion
// (Mironov, Talwar & Zhang 2019, Section 3.2). log C(alpha, i) comes from the
// recurrence log C(alpha, i + 1) = log C(alpha, i) + log(alpha - i) - log(i +
// 1) on a table of logs, with no lgamma: its rounding adds up to i ulps of
// log C (about 1e-10 at alpha = 1024, where log A is ~ 10^5).
inline double log_a_integer(double q, double sigma, double alpha,
                            const std::vector<double>& log_k) {
  const auto n = static_cast<std::size_t>(alpha);
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
  std::vector<double> l(n + 1);
  double log_c = 0;
  for (std::size_t i = 0; i <= n; ++i) {
    const auto id = static_cast<double>(i);
    l[i] = log_c + id * log_q + (alpha - id) * log_1mq + gaussian_moment_exponent(id, sigma);
    if (i < n) log_c += log_k[n - i] - log_k[i + 1];
  }
  return log_sum_near_one(l, neg_inf);
}

inline double log_a_integer(double q, double sigma, double alpha) {
  return log_a_integer(q, sigma, alpha, log_integers(static_cast<std::size_t>(alpha)));
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

// log(erfc(x) / 2); for x < 0 as log1p(-erfc(-x) / 2), which keeps the
// relative precision of a log near 0.
inline double log_half_erfc(double x) {
  if (x < 0) return std::log1p(-0.5 * std::erfc(-x));
  return log_erfc(x) - std::numbers::ln2;
}

// An upper bound on erfcx(x) = e^{x^2} erfc(x) for x >= 10: the asymptotic
// series (DLMF 7.12.1) cut after its 5th term, positive; for real x the
// remainder has the sign of the first omitted term, here negative, and is
// below it in size (DLMF 7.12(ii)): 945 / (32 x^10) < 3e-9 relative at x = 10.
inline double erfcx_upper(double x) {
  const double inv = 1 / x, r = inv * inv;
  return (1 - r / 2 + 3 * r * r / 4 - 15 * r * r * r / 8 + 105 * r * r * r * r / 16) * inv *
         std::numbers::inv_sqrtpi;
}

// log A_alpha for fractional alpha: A_alpha splits at z0 = sigma^2
// log(1/q - 1) + 1/2 into two series (Mironov, Talwar & Zhang 2019, Section
// 3.3), here with the absolute values of the coefficients:
//   A = sum_i |C(alpha, i)| (s0_i + s1_i), j = alpha - i,
//   s0_i = q^i (1 - q)^j e^{i (i - 1) / (2 sigma^2)} erfc((i - z0) / (sqrt 2 sigma)) / 2,
//   s1_i = q^j (1 - q)^i e^{j (j - 1) / (2 sigma^2)} erfc((z0 - j) / (sqrt 2 sigma)) / 2.
// Completing the square with (2 z0 - 1) / (2 sigma^2) = log(1/q - 1) gives,
// for every i, with P = (1 - q)^alpha e^{-z0^2 / (2 sigma^2)} / 2,
//   |C(alpha, i)| (s0_i + s1_i) = P |C(alpha, i)| (erfcx(x0_i) + erfcx(x1_i)),
//   x0_i = (i - z0) / (sqrt 2 sigma), x1_i = (i - (alpha - z0)) / (sqrt 2 sigma).
// The head (i below the first M >= ceil(alpha) with x0_M, x1_M >= 10) is
// summed term by term in log space. The tail i >= M costs no transcendental
// function: |C(alpha, i)| by its ratio (i - alpha) / (i + 1) and erfcx by
// erfcx_upper. It decays only polynomially (as i^{-alpha - 2}: some 10^4
// terms at alpha = 1.1 for a double's precision), so it is cut at the first
// m where this proven bound on everything from m on is small enough, and
// the bound is added, so the truncation never lowers the value:
//   sum_{i >= m} |C(alpha, i)| erfcx(x_i) <= |C(alpha, m)| sigma sqrt(2 / pi) / r
//                                            (1 / (m + 1) + 1 / (alpha + 1)),
//   x_i = (i - z) / (sqrt 2 sigma), r = min(1, (m - z) / (m + 1)) > 0,
// for each of the two series (z = z0, alpha - z0), because for i >= m >=
// ceil(alpha): |C(alpha, i)| <= |C(alpha, m)| ((m + 1) / (i + 1))^{alpha + 1}
// (each ratio 1 - (alpha + 1) / (k + 1) <= e^{-(alpha + 1) / (k + 1)}, and
// the harmonic sum exceeds the log), erfcx(x) <= 1 / (x sqrt pi) for x > 0,
// x_i >= r (i + 1) / (sqrt 2 sigma), and sum_{n > m} n^{-p} <= (m + 1)^{-p} +
// (m + 1)^{1 - p} / (p - 1) at p = alpha + 2. The bound exceeds the true
// tail by a relative O((alpha^2 + z) / m), so the cut waits until that
// excess is below 1e-12 of A - 1 (or 1e-20 of A).
//
// Where z0 or the head is beyond max_rdp_series_terms (huge sigma, or q
// near the smallest double or near 1), or the tail has not met its bound
// within that many terms, the order is rounded up: a Renyi divergence does
// not decrease with its order (van Erven & Harremoes 2014, Theorem 3), so
// the integer order ceil(alpha)'s exact value bounds it.
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
  const double z0 = sigma * sigma * (log_1mq - log_q) + 0.5, z1 = alpha - z0;
  const double scale = std::sqrt(2.0) * sigma;
  constexpr double tail_x = 10;
  const double head_end =
      std::ceil(std::max({ceil_alpha, z0 + tail_x * scale, z1 + tail_x * scale}));
  // z0 is NaN at sigma^2 = inf and q = 1/2 (inf * 0), which the max above
  // would drop: it is tested on its own.
  if (!(std::fabs(z0) < max_rdp_series_terms) || !(head_end < max_rdp_series_terms) ||
      !(alpha < max_rdp_series_terms)) {
    return rounded_up();
  }

  const auto n_head = static_cast<std::size_t>(head_end);
  // s0_0 first: it carries the 1 of A (log_sum_near_one).
  std::vector<double> l(2 * n_head);
  double log_c = 0;  // log |C(alpha, i)|
  for (std::size_t k = 0; k < n_head; ++k) {
    const auto i = static_cast<double>(k);
    const double j = alpha - i;
    l[2 * k] = log_c + i * log_q + j * log_1mq + gaussian_moment_exponent(i, sigma) +
               log_half_erfc((i - z0) / scale);
    l[2 * k + 1] = log_c + j * log_q + i * log_1mq + gaussian_moment_exponent(j, sigma) +
                   log_half_erfc((z0 - j) / scale);
    log_c += std::log(std::fabs(alpha - i) / (i + 1));
  }
  const double log_a_head = log_sum_near_one(l, neg_inf);
  // A sum past double range (or NaN, read as +inf by rdp_curve) is final.
  if (!(log_a_head < std::numeric_limits<double>::infinity())) return log_a_head;

  // The tail, in units of P |C(alpha, M)|.
  const double log_p = std::log(0.5) + alpha * log_1mq - z0 * z0 / (2 * sigma * sigma);
  const double log_unit = log_c + log_p;
  const double log_target = log_a_head < 1
                                ? std::log(std::max(1e-12 * std::expm1(log_a_head), 1e-20))
                                : log_a_head + std::log(1e-20);
  const double threshold = std::exp(log_target - log_unit);
  const double bound_scale = scale / std::sqrt(std::numbers::pi);
  const double excess = (alpha + 1) * (alpha + 1) + 2 * (std::max(z0, z1) + 1) + alpha + 2;
  const double inv_scale = 1 / scale;
  double c = 1, tail = 0;  // c = |C(alpha, m)| / |C(alpha, M)|
  for (double m = head_end; m < max_rdp_series_terms; ++m) {
    // The cut is tried every 8th term: its 5 divisions would otherwise
    // double the cost of a tail term.
    if (static_cast<std::uint64_t>(m - head_end) % 8 == 0) {
      const double r0 = std::min(1.0, (m - z0) / (m + 1)), r1 = std::min(1.0, (m - z1) / (m + 1));
      const double rest = c * bound_scale * (1 / r0 + 1 / r1) * (1 / (m + 1) + 1 / (alpha + 1));
      if (rest * (excess / m) <= threshold) {
        return log_sum_near_one(l, log_unit + std::log(tail + rest));
      }
    }
    tail += c * (erfcx_upper((m - z0) * inv_scale) + erfcx_upper((m - z1) * inv_scale));
    c *= (m - alpha) / (m + 1);
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

/// The Laplace mechanism with scale b per unit of L1 sensitivity, e = 1 / b
/// (Mironov 2017, Table II): eps(alpha) = log(alpha / (2 alpha - 1) e^{(alpha
/// - 1) e} + (alpha - 1) / (2 alpha - 1) e^{-alpha e}) / (alpha - 1), at order
/// 1 its limit e + e^{-e} - 1 (the KL divergence, same table) and at +inf e.
/// Evaluated as e + log1p(x) / (alpha - 1) with x = (alpha - 1)
/// expm1((1 - 2 alpha) e) / (2 alpha - 1) in (-1/2, 0] (the same sum with
/// e^{(alpha - 1) e} taken out), and log1p(x) / (alpha - 1) as (log1p(x) /
/// x) expm1((1 - 2 alpha) e) / (2 alpha - 1): no cancellation near alpha = 1,
/// and exactly e - 0 at orders where the correction is below an ulp.
inline rdp rdp_laplace(double scale, const std::vector<double>& orders = default_rdp_orders()) {
  validate_positive(scale, "scale");
  const double e = 1 / scale;
  return detail::rdp_curve(orders, [&](double a) {
    if (a == 1) return e + std::expm1(-e);
    if (std::isinf(a)) return e;
    const double m = std::expm1((1 - 2 * a) * e) / (2 * a - 1);
    const double x = (a - 1) * m;
    return e + (x == 0 ? m : std::log1p(x) / x * m);
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

/// k-ary randomised response with parameter epsilon under replace-special
/// neighbours, where the special record's report is uniform over the k
/// values (dp_accounting's REPLACE_SPECIAL): the larger of the two
/// divergences between randomised response on a value and the uniform
/// distribution (rr_special_divergence). Never above the replace-one curve:
/// the uniform is the average of randomised response over all k inputs, and
/// D_alpha is jointly convex (alpha > 1) or the max divergence is a maximum.
inline rdp rdp_randomized_response_special(
    double epsilon, std::uint64_t k, const std::vector<double>& orders = default_rdp_orders()) {
  validate_epsilon(epsilon);
  validate_at_least<std::uint64_t>(k, 2, "k");
  const double kd = static_cast<double>(k);
  // log(k p) and log(k r), p = e^eps / (e^eps + k - 1), r = 1 / (e^eps + k - 1).
  const double log_norm = detail::log_add(epsilon, std::log(kd - 1)) - std::log(kd);
  return detail::rdp_curve(orders, [&](double a) {
    return detail::rr_special_divergence(a, epsilon - log_norm, -log_norm, kd);
  });
}

/// An eps-bounded-range mechanism: one whose privacy loss, for every pair
/// of neighbours, lies in some interval of width eps (Durfee & Rogers 2019),
/// such as the exponential mechanism run as an eps-DP one. Its KL divergence
/// is at most kl = t - 1 - log t with t = eps / (e^eps - 1) (Cesar & Rogers
/// 2021, Lemma 3.3), and its privacy loss minus its mean, bounded in an
/// interval of width eps, is (eps^2 / 8)-sub-Gaussian (Hoeffding's lemma),
/// so D_alpha <= kl + (alpha - 1) eps^2 / 8 (Cesar & Rogers 2021, Section 3);
/// it is also eps-DP, D_alpha <= eps. The curve is the smaller of the two.
inline rdp rdp_bounded_range(double epsilon,
                             const std::vector<double>& orders = default_rdp_orders()) {
  validate_non_negative(epsilon, "epsilon");
  if (!std::isfinite(epsilon)) throw_invalid("epsilon", epsilon, "finite and >= 0");
  // u = t - 1 = (eps - expm1(eps)) / expm1(eps); kl = u - log1p(u) >= 0.
  const double t = epsilon == 0 ? 1.0 : epsilon / std::expm1(epsilon);
  const double u = t - 1, kl = u - std::log1p(u);
  return detail::rdp_curve(orders, [&](double a) {
    if (std::isinf(a)) return epsilon;
    return std::min(epsilon, kl + (a - 1) * epsilon * epsilon / 8);
  });
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
/// log_a_convex_bound). Order +inf: +inf for q > 0 (the privacy loss is
/// unbounded), as in dp_accounting. Order 1: the KL divergence is bounded by
/// the divergence of order 1 + 2^-10 (a Renyi divergence does not decrease
/// with its order; van Erven & Harremoes 2014, Theorem 3), as the
/// fractional-order series bounds it (absolute coefficients): a few percent
/// above the KL divergence (6.4 % at q = 0.01, sigma = 2.5).
inline rdp rdp_subsampled_gaussian(double q, double noise_multiplier,
                                   const std::vector<double>& orders = default_rdp_orders()) {
  validate_closed_range(q, 0, 1, "q");
  validate_positive(noise_multiplier, "noise_multiplier");
  if (q == 0) return detail::rdp_curve(orders, [](double) { return 0.0; });
  if (q == 1) return rdp_gaussian(noise_multiplier, orders);
  // One table of logs serves every integer order's binomial coefficients.
  double top_integer = 1;
  for (double a : orders) {
    if (a == std::floor(a) && a <= detail::max_rdp_series_terms) {
      top_integer = std::max(top_integer, a);
    }
  }
  const std::vector<double> log_k = detail::log_integers(static_cast<std::size_t>(top_integer));
  return detail::rdp_curve(orders, [&](double a) {
    if (std::isinf(a)) return a;
    if (a == 1) a = 1 + 0x1p-10;
    double log_a = 0;
    if (a != std::floor(a)) {
      log_a = detail::log_a_fractional(q, noise_multiplier, a);
    } else if (a <= detail::max_rdp_series_terms) {
      log_a = detail::log_a_integer(q, noise_multiplier, a, log_k);
    } else {
      log_a = detail::log_a_convex_bound(q, noise_multiplier, a);
    }
    return log_a / (a - 1);
  });
}

namespace detail {

// Whether eps(alpha) alone certifies (0, delta): the total variation
// distance is at most sqrt(1 - e^{-KL}) (Bretagnolle & Huber 1979) and KL <=
// D_alpha at every order alpha >= 1, so delta >= sqrt(1 - e^{-eps(alpha)})
// suffices. The comparison is of delta^2 against 1 - e^{-eps} with a margin
// of 8 ulps for the rounding of both sides.
inline bool tv_certifies(double eps_alpha, double delta) {
  constexpr double u = std::numeric_limits<double>::epsilon();
  return delta * delta * (1 - 8 * u) >= -std::expm1(-eps_alpha) * (1 + 8 * u);
}

// The epsilon order alpha of a curve certifies at `delta`: at alpha = +inf
// eps(inf) itself (pure DP); at 1 none (beyond tv_certifies); otherwise the
// improved conversion (Balle et al. 2020, Theorem 21).
inline double epsilon_at_order(double a, double eps_a, double delta) {
  if (tv_certifies(eps_a, delta)) return 0;
  if (std::isinf(a)) return eps_a;
  if (a == 1) return std::numeric_limits<double>::infinity();
  return eps_a + std::log1p(-1 / a) - (std::log(delta) + std::log(a)) / (a - 1);
}

// log delta order alpha certifies at `epsilon` >= 0 (0 = no bound): at +inf,
// delta = 0 once epsilon >= eps(inf); at every order the total-variation
// bound delta <= sqrt(1 - e^{-eps(alpha)}); at alpha in (1, inf) the
// improved conversion log delta = (alpha - 1)(eps(alpha) - eps + log(1 -
// 1/alpha)) - log alpha.
inline double log_delta_at_order(double a, double eps_a, double epsilon) {
  double best = 0;
  if (eps_a < std::numeric_limits<double>::infinity()) {
    // The margin covers the rounding of expm1 and log (a few ulps).
    best = std::min(best, 0.5 * std::log(-std::expm1(-eps_a)) + 1e-15);
  }
  if (std::isinf(a)) return epsilon >= eps_a ? neg_inf : best;
  if (a == 1) return best;
  return std::min(best, (a - 1) * (eps_a - epsilon + std::log1p(-1 / a)) - std::log(a));
}

}  // namespace detail

/// The depth of online tree aggregation over `steps` leaves: the most tree
/// nodes (completed dyadic intervals of [0, steps)) that contain one leaf,
/// ceil(log2(steps + 1)), the bit width of steps (0 for no steps).
inline std::uint64_t tree_aggregation_depth(std::uint64_t steps) noexcept {
  std::uint64_t d = 0;
  for (; steps != 0; steps >>= 1) ++d;
  return d;
}

/// Tree aggregation (the DP-FTRL of Kairouz et al. 2021, "Practical and
/// Private (Deep) Learning without Sampling or Shuffling", Appendix D) for
/// one epoch over one or more trees, restarted between them, each record in
/// at most one leaf of all of them; Gaussian noise of standard deviation
/// noise_multiplier times the L2 sensitivity per node; replace-special
/// neighbours (the record's contribution replaced by zero). A record reaches
/// at most depth = max_i tree_aggregation_depth(step_counts[i]) nodes, each
/// by at most one sensitivity, so the adaptive composition of the node
/// releases has the Gaussian curve alpha depth / (2 sigma^2) (Mironov 2017,
/// Proposition 1, with the curves added over the nodes it reaches). Throws
/// invalid_parameter naming `step_counts` if empty and `noise_multiplier`
/// unless finite and > 0.
inline rdp rdp_tree_aggregation(double noise_multiplier,
                                const std::vector<std::uint64_t>& step_counts,
                                const std::vector<double>& orders = default_rdp_orders()) {
  validate_positive(noise_multiplier, "noise_multiplier");
  if (step_counts.empty()) throw_empty("step_counts");
  std::uint64_t depth = 0;
  for (auto t : step_counts) depth = std::max(depth, tree_aggregation_depth(t));
  const double d = static_cast<double>(depth);
  return detail::rdp_curve(orders, [&](double a) {
    return d == 0 ? 0.0 : a * d / (2 * noise_multiplier * noise_multiplier);
  });
}

/// The smallest eps for `delta` over the curve's orders, with the order
/// that attains it: at each finite order alpha > 1 the improved conversion
/// (Balle et al. 2020, Theorem 21), at +inf eps(inf) itself, and eps = 0 at
/// any order where delta >= sqrt(1 - e^{-eps(alpha)}) (the total variation
/// bound; detail::tv_certifies). eps is +inf if no order gives a bound.
inline std::pair<approx_dp, double> to_approx_dp_with_order(const rdp& g, double delta) {
  validate_delta_positive(delta);
  double best = std::numeric_limits<double>::infinity(), best_order = g.orders().front();
  for (std::size_t i = 0; i < g.orders().size(); ++i) {
    const double a = g.orders()[i];
    const double e = detail::epsilon_at_order(a, g.epsilons()[i], delta);
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
    if (a == 1) continue;  // no bound from the KL divergence here
    best = std::min(best, g.epsilons()[i] - (std::isinf(a) ? 0 : std::log(delta) / (a - 1)));
  }
  if (best == std::numeric_limits<double>::infinity()) {
    throw_invalid("rdp", "+inf at every order", "a curve finite at some order");
  }
  return approx_dp(std::max(0.0, best), delta);
}

/// The smallest delta at `epsilon` over the curve's orders, capped at 1: at
/// finite orders alpha > 1 the improved conversion, log delta = (alpha -
/// 1)(eps(alpha) - eps + log(1 - 1/alpha)) - log alpha; at +inf delta = 0
/// once epsilon >= eps(inf); at every order the total-variation bound
/// sqrt(1 - e^{-eps(alpha)}) (detail::log_delta_at_order).
inline double rdp_delta(const rdp& g, double epsilon) {
  validate_non_negative(epsilon, "epsilon");
  double best = 0;  // log 1
  for (std::size_t i = 0; i < g.orders().size(); ++i) {
    best = std::min(best, detail::log_delta_at_order(g.orders()[i], g.epsilons()[i], epsilon));
  }
  return std::min(1.0, std::exp(best));
}

}  // namespace privet
