// The RDP odometer.
#include <privet/accounting/rdp_accountant.hpp>

#include <doctest/doctest.h>

#include <cmath>
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
