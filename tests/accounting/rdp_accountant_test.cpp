// The RDP odometer.
#include <privet/accounting/calibration.hpp>
#include <privet/accounting/rdp_accountant.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

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

TEST_CASE("the RDP accountant names a curve on other orders") {
  privet::rdp_accountant acc;
  CHECK_THROWS_WITH_AS(
      acc.compose(privet::rdp_gaussian(1.0, {2.0, 4.0})),
      "privet: orders = two different sets is invalid; allowed: the same orders for both curves",
      privet::invalid_parameter);
  CHECK(acc.releases() == 0);
  CHECK_THROWS_WITH_AS(privet::rdp_accountant(std::vector<double>{}),
                       "privet: orders is empty; allowed: at least one element",
                       privet::invalid_parameter);
}

TEST_CASE("RDP calibration on the default orders lands on dp_accounting's sigma") {
  // dp_accounting (google/differential-privacy at b5b0286e, python/
  // dp_accounting, numpy 1.24 / scipy 1.10): the smallest sigma with
  // RdpAccountant() (DEFAULT_RDP_ORDERS) composing PoissonSampledDpEvent(q,
  // GaussianDpEvent(sigma)) `steps` times within (eps, delta), by 60
  // bisection steps on [0.3, 50]. privet's orders add 1.01, 1.02 and 1.05,
  // which these jobs never use, so the sigmas agree to the bisection's width.
  struct job {
    double q;
    std::uint64_t steps;
    double eps, delta, sigma;
  };
  privet::calibration_options rdp_only;
  rdp_only.accountant = privet::accountant_kind::rdp;
  rdp_only.relative_tolerance = 1e-9;
  for (const job& j : {job{0.01, 10'000, 8.0, 1e-5, 0.9168808165994161},
                       job{0.01, 10'000, 2.0, 1e-5, 2.2780578941459186},
                       job{0.001, 100'000, 1.0, 1e-7, 1.725221723759649}}) {
    const double sigma =
        privet::dpsgd_noise_multiplier(j.q, j.steps, privet::approx_dp(j.eps, j.delta), rdp_only);
    const double expected = j.sigma;
    CAPTURE(expected);
    CHECK(sigma == doctest::Approx(j.sigma).epsilon(1e-4));
    CHECK(std::fabs(sigma / j.sigma - 1) < 1e-7);
  }
}
