#include <privet/accounting/privacy_filter.hpp>

#include <doctest/doctest.h>

TEST_CASE("a pure-DP filter adds epsilons and refuses to overspend") {
  privet::privacy_filter<privet::pure_dp> filter(privet::pure_dp(1.0));
  filter.spend(privet::pure_dp(0.25));
  filter.spend(privet::pure_dp(0.5));
  CHECK(filter.spent().epsilon() == 0.75);
  CHECK(filter.can_spend(privet::pure_dp(0.25)));
  CHECK_FALSE(filter.can_spend(privet::pure_dp(0.3)));
  CHECK_THROWS_WITH_AS(
      filter.spend(privet::pure_dp(0.3)),
      "privet: spending epsilon = 0.3 would exceed the budget: 0.75 of 1 already spent",
      privet::budget_exhausted);
  CHECK(filter.spent().epsilon() == 0.75);  // a refused spend changes nothing
  filter.spend(privet::pure_dp(0.25));
  CHECK(filter.spent().epsilon() == 1.0);
}

TEST_CASE("a zCDP filter adds rhos exactly, never rounding in the spender's favour") {
  privet::privacy_filter<privet::zcdp> filter(privet::zcdp(0.75));
  for (int day = 0; day < 3; ++day) filter.spend(privet::zcdp(0.25));
  CHECK_THROWS_AS(filter.spend(privet::zcdp(1e-9)), privet::budget_exhausted);
  // In binary, 0.005 is slightly above 1/200 and 0.015 slightly below 3/200,
  // so three spends of 0.005 do exceed a budget of 0.015 and are refused.
  privet::privacy_filter<privet::zcdp> decimal(privet::zcdp(0.015));
  decimal.spend(privet::zcdp(0.005));
  decimal.spend(privet::zcdp(0.005));
  CHECK_THROWS_AS(decimal.spend(privet::zcdp(0.005)), privet::budget_exhausted);
}

TEST_CASE("a zCDP filter's refusal names rho, the spend and what is left") {
  privet::privacy_filter<privet::zcdp> filter(privet::zcdp(1));
  filter.spend(privet::zcdp(0.5));
  CHECK_THROWS_WITH_AS(
      filter.spend(privet::zcdp(0.75)),
      "privet: spending rho = 0.75 would exceed the budget: 0.5 of 1 already spent",
      privet::budget_exhausted);
  CHECK(filter.spent().rho() == 0.5);  // unchanged by the refusal
}
