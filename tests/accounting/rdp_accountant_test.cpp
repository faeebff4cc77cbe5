// The RDP odometer and the DP-SGD noise calibration.
#include <privet/accounting/rdp_accountant.hpp>

#include <doctest/doctest.h>

#include <cmath>

TEST_CASE("the odometer composes mixed releases into one curve") {
  privet::rdp_accountant acc;
  acc.compose(privet::rdp_subsampled_gaussian(0.01, 1.1), 1000);
  acc.compose(privet::zcdp(0.01));
  acc.compose(privet::pure_dp(0.1), 2);
  CHECK(acc.releases() == 1003);
  const auto expected =
      privet::rdp_subsampled_gaussian(0.01, 1.1).composed(1000) +
      privet::detail::rdp_curve(privet::default_rdp_orders(), [](double a) { return 0.01 * a; }) +
      privet::rdp_pure_dp(privet::pure_dp(0.1)).composed(2);
  for (std::size_t i = 0; i < expected.orders().size(); ++i) {
    CHECK(acc.spent().epsilons()[i] == doctest::Approx(expected.epsilons()[i]).epsilon(1e-14));
  }
  const double eps = acc.epsilon(1e-5).epsilon();
  CHECK(eps == privet::to_approx_dp(expected, 1e-5).epsilon());
  CHECK(acc.delta(eps) == doctest::Approx(1e-5).epsilon(1e-9));
  CHECK_THROWS_AS(acc.compose(privet::rdp_gaussian(1.0, {2.0, 4.0})), privet::invalid_parameter);
}

TEST_CASE("DP-SGD calibration returns the smallest sigma that meets the target") {
  // 10^4 steps at q = 0.01: the sigma found meets (eps, 1e-5) and sigma
  // lowered by 1e-6 relative does not.
  for (double eps : {1.0, 3.0, 8.0}) {
    const privet::approx_dp target(eps, 1e-5);
    const double sigma = privet::dpsgd_noise_multiplier(0.01, 10'000, target);
    auto eps_at = [&](double s) {
      return privet::to_approx_dp(privet::rdp_subsampled_gaussian(0.01, s).composed(10'000), 1e-5)
          .epsilon();
    };
    CAPTURE(eps);
    CAPTURE(sigma);
    CHECK(eps_at(sigma) <= eps);
    CHECK(eps_at(sigma * (1 - 1e-6)) > eps);
  }
  // The reference point (sigma = 1.1) lies between the targets 3 and 8.
  const double sigma3 = privet::dpsgd_noise_multiplier(0.01, 10'000, privet::approx_dp(3, 1e-5));
  const double sigma8 = privet::dpsgd_noise_multiplier(0.01, 10'000, privet::approx_dp(8, 1e-5));
  CHECK(sigma8 < 1.1);
  CHECK(sigma3 > 1.1);
  CHECK_THROWS_WITH_AS(privet::dpsgd_noise_multiplier(0, 10, privet::approx_dp(1, 1e-5)),
                       "privet: q = 0 is invalid; allowed: (0, 1]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::dpsgd_noise_multiplier(0.1, 0, privet::approx_dp(1, 1e-5)),
                       "privet: steps = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  CHECK_THROWS_AS(privet::dpsgd_noise_multiplier(0.1, 10, privet::approx_dp(1, 0)),
                  privet::invalid_parameter);
}
