// privet/accounting/rdp_accountant.hpp — an RDP odometer: it records each
// release as an RDP curve on one fixed set of orders (pure-DP and zCDP
// releases through their exact RDP curves) and answers the tightest
// (eps, delta) the composed curve justifies. privacy_odometer
// (accounting/odometer.hpp) runs this and the PLD accountant side by side;
// noise calibration is in accounting/calibration.hpp.
#pragma once

#include <privet/accounting/rdp.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace privet {

/// An RDP odometer on one fixed set of orders: composes recorded curves
/// by addition and converts the total to (eps, delta) on demand.
class rdp_accountant {
 public:
  /// Nothing spent, on `orders`. Throws invalid_parameter unless the orders
  /// are >= 1 (+inf allowed) and strictly increasing (rdp::validate_orders).
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

  /// The composed curve of everything recorded.
  [[nodiscard]] const rdp& spent() const noexcept { return spent_; }
  /// The total number of runs recorded.
  [[nodiscard]] std::uint64_t releases() const noexcept { return releases_; }
  /// The (eps, delta) of the composed curve for `delta` in (0, 1), by the
  /// improved conversion (to_approx_dp). Throws invalid_parameter naming
  /// `delta` outside (0, 1), or `rdp` if the curve is +inf at every order.
  [[nodiscard]] approx_dp epsilon(double delta) const { return to_approx_dp(spent_, delta); }
  /// The smallest delta the composed curve gives at `epsilon` >= 0
  /// (rdp_delta); throws invalid_parameter naming `epsilon` if negative.
  [[nodiscard]] double delta(double epsilon) const { return rdp_delta(spent_, epsilon); }

 private:
  rdp spent_;
  std::uint64_t releases_ = 0;
};

}  // namespace privet
