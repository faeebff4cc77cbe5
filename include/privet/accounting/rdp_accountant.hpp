// privet/accounting/rdp_accountant.hpp — an RDP odometer: it records each
// release as an RDP curve on one fixed set of orders (pure-DP and zCDP
// releases through their exact RDP curves) and answers the tightest
// (eps, delta) the composed curve justifies.
#pragma once

#include <privet/accounting/rdp.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace privet {

class rdp_accountant {
 public:
  explicit rdp_accountant(std::vector<double> orders = default_rdp_orders())
      : spent_(orders, std::vector<double>(orders.size(), 0.0)) {}

  /// Records `count` runs of a mechanism with this curve (on the
  /// accountant's orders; throws invalid_parameter otherwise).
  void compose(const rdp& curve, std::uint64_t count = 1) {
    spent_ = spent_ + curve.composed(count);
    releases_ += count;
  }
  /// rho-zCDP is the curve alpha rho.
  void compose(const zcdp& g, std::uint64_t count = 1) {
    compose(detail::rdp_curve(spent_.orders(), [&](double a) { return a * g.rho(); }), count);
  }
  /// eps-DP through binary randomised response's curve (see rdp_pure_dp).
  void compose(const pure_dp& g, std::uint64_t count = 1) {
    compose(rdp_pure_dp(g, spent_.orders()), count);
  }

  [[nodiscard]] const rdp& spent() const noexcept { return spent_; }
  [[nodiscard]] std::uint64_t releases() const noexcept { return releases_; }
  [[nodiscard]] approx_dp epsilon(double delta) const { return to_approx_dp(spent_, delta); }
  [[nodiscard]] double delta(double epsilon) const { return rdp_delta(spent_, epsilon); }

 private:
  rdp spent_;
  std::uint64_t releases_ = 0;
};

/// The smallest noise multiplier sigma (to `relative_tolerance`, rounded up)
/// for which `epsilon_of(sigma)` is at most `target_epsilon`, for any
/// accountant's epsilon as a non-increasing function of sigma. Throws
/// invalid_parameter if no sigma up to 1e6 reaches the target.
template <class EpsilonOf>
double smallest_noise_multiplier(EpsilonOf&& epsilon_of, double target_epsilon,
                                 double relative_tolerance = 1e-9) {
  validate_epsilon(target_epsilon, "target_epsilon");
  validate_positive(relative_tolerance, "relative_tolerance");
  double hi = 1;
  while (epsilon_of(hi) > target_epsilon) {
    hi *= 2;
    if (hi > 1e6) throw_invalid("target_epsilon", target_epsilon, "reachable with sigma <= 1e6");
  }
  double lo = hi / 2;
  while (lo > 1e-6 && epsilon_of(lo) <= target_epsilon) {
    hi = lo;
    lo /= 2;
  }
  // epsilon_of(hi) <= target throughout: the answer is never optimistic.
  while (hi - lo > relative_tolerance * hi) {
    const double mid = (lo + hi) / 2;
    (epsilon_of(mid) <= target_epsilon ? hi : lo) = mid;
  }
  return hi;
}

/// The smallest DP-SGD noise multiplier for Poisson sampling rate q and
/// `steps` steps (an explicit count: ceil or floor of epochs n / b changes the
/// 4th digit, so privet does not guess) to reach `target` by the RDP accountant.
inline double dpsgd_noise_multiplier(double q, std::uint64_t steps, const approx_dp& target,
                                     const std::vector<double>& orders = default_rdp_orders()) {
  validate_closed_range(q, 0, 1, "q");
  if (q == 0) throw_invalid("q", q, "(0, 1]");
  validate_at_least<std::uint64_t>(steps, 1, "steps");
  validate_delta_positive(target.delta(), "target.delta");
  return smallest_noise_multiplier(
      [&](double sigma) {
        return to_approx_dp(rdp_subsampled_gaussian(q, sigma, orders).composed(steps),
                            target.delta())
            .epsilon();
      },
      target.epsilon());
}

}  // namespace privet
