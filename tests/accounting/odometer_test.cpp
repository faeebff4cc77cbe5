// The privacy odometer over mixed events, and the events' maps to RDP
// curves and PLDs. Second methods: the named RDP/PLD constructors, the exact
// optimal composition of (eps, delta)-DP (Kairouz, Oh & Viswanath 2015, via
// accounting/composition.hpp) and mu-GDP's exact delta (Dong, Roth & Su).
#include <privet/accounting/calibration.hpp>
#include <privet/accounting/composition.hpp>
#include <privet/accounting/odometer.hpp>
#include <privet/core/analytic_gaussian.hpp>

#include <doctest/doctest.h>
#include <support/errors.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace user {
// A user's own event: a Gaussian on a query of L2 sensitivity 2, joined
// through argument-dependent lookup only.
struct doubled_gaussian {
  double sigma;
};
inline std::optional<privet::rdp> rdp_of(const doubled_gaussian& e,
                                         const std::vector<double>& orders) {
  return privet::rdp_gaussian(e.sigma / 2, orders);
}
inline privet::optional_pld pld_of(const doubled_gaussian& e, const privet::pld_options& o) {
  return privet::privacy_loss_distribution::gaussian(e.sigma, 2, o);
}
inline std::string describe(const doubled_gaussian& e) {
  return "doubled_gaussian(" + std::to_string(e.sigma) + ")";
}
}  // namespace user

namespace {
using privet::approx_dp;
using privet::privacy_odometer;
}  // namespace

TEST_CASE("repeated events merge into one entry and compose by both accountants") {
  privacy_odometer odo;
  for (int i = 0; i < 1000; ++i) odo.record(privet::subsampled_gaussian_event{0.01, 1.1});
  REQUIRE(odo.entries().size() == 1);
  CHECK(odo.entries()[0].count == 1000);
  CHECK(odo.entries()[0].description == "subsampled_gaussian(q = 0.01, noise_multiplier = 1.1)");
  CHECK(odo.releases() == 1000);

  const auto r = odo.report(1e-5);
  REQUIRE(r.rdp);
  REQUIRE(r.pld);
  const double rdp_eps =
      privet::to_approx_dp(privet::rdp_subsampled_gaussian(0.01, 1.1).composed(1000), 1e-5)
          .epsilon();
  CHECK(r.rdp->epsilon() == doctest::Approx(rdp_eps).epsilon(1e-12));
  const double pld_eps =
      privet::privacy_loss_distribution::subsampled_gaussian(0.01, 1.1, odo.options().pld)
          .self_compose(1000)
          .epsilon(1e-5)
          .epsilon();
  CHECK(r.pld->epsilon() == pld_eps);
  CHECK(r.method == privet::accountant_kind::pld);
  CHECK(r.tightest == *r.pld);
  CHECK(r.pld->epsilon() < r.rdp->epsilon());
  CHECK(odo.epsilon(1e-5) == r.tightest);
  // delta is the other way round: the tightest delta at that eps meets 1e-5.
  CHECK(odo.delta(r.tightest.epsilon()) <= 1e-5);
  CHECK(odo.delta(r.tightest.epsilon() * 0.99) > 1e-5);

  // Different parameters are different entries.
  odo.record(privet::subsampled_gaussian_event{0.01, 1.2}, 10);
  odo.record(privet::subsampled_gaussian_event{0.01, 1.1});
  CHECK(odo.entries().size() == 3);
  CHECK(odo.releases() == 1011);
}

TEST_CASE("k-fold (eps, delta) and eps-DP events reach the optimal composition by PLD") {
  // eps = 0.5 is a grid point of h = 1e-3, so the PLD is exact up to
  // truncation and round-off; RDP composes the events' randomised-response
  // curves and their deltas multiplicatively, and is looser.
  for (double each_delta : {0.0, 1e-7}) {
    privacy_odometer odo;
    const approx_dp each(0.5, each_delta);
    odo.record(each, 20);
    const double target = 1e-5;
    const auto r = odo.report(target);
    const double optimal = privet::compose_optimal(each, 20, target).epsilon();
    CAPTURE(each_delta);
    REQUIRE(r.pld);
    CHECK(r.pld->epsilon() >= optimal * (1 - 1e-9));
    CHECK(r.pld->epsilon() <= optimal + 2e-3);
    CHECK(privet::compose_optimal_delta(each, 20, r.pld->epsilon()) <= target);
    REQUIRE(r.rdp);
    CAPTURE(r.rdp->epsilon());
    CAPTURE(r.pld->epsilon());
    CAPTURE(optimal);
    CHECK(r.rdp->epsilon() >= optimal * (1 - 1e-9));  // nothing beats the optimum
    // Near pure DP the RDP curve's order +inf can edge out the PLD's grid.
    CHECK(r.tightest.epsilon() == std::min(r.rdp->epsilon(), r.pld->epsilon()));
    if (each_delta > 0) {
      // Second method: the curve of 20 binary randomised responses,
      // converted at 1 - (1 - target) / (1 - each_delta)^20.
      const double rest = 1 - (1 - target) / std::pow(1 - each_delta, 20);
      const double by_curve =
          privet::to_approx_dp(privet::rdp_randomized_response(0.5, 2).composed(20), rest)
              .epsilon();
      CHECK(r.rdp->epsilon() == doctest::Approx(by_curve).epsilon(1e-9));
      CHECK(r.rdp->epsilon() < 10);  // below basic composition's 20 * 0.5
    }
  }
  // The same through pure_dp.
  privacy_odometer odo;
  odo.record(privet::pure_dp(0.5), 20);
  CHECK(odo.epsilon(1e-5).epsilon() <=
        privet::compose_optimal(approx_dp(0.5, 0), 20, 1e-5).epsilon() + 2e-3);
}

TEST_CASE("the (eps, delta) PLD is the extremal pair's") {
  // delta(eps') of the pair = delta + (1 - delta) e^eps / (1 + e^eps) (1 - e^{eps' - eps}).
  const approx_dp g(1.0, 1e-6);
  const auto p = privet::privacy_loss_distribution::from_guarantee(g, {1e-4});
  CHECK(p.symmetric());
  for (double e : {0.0, 0.3, 0.9999, 1.0, 2.0}) {
    const double exact =
        e >= 1.0 ? 1e-6 : 1e-6 + (1 - 1e-6) / (1 + std::exp(-1.0)) * -std::expm1(e - 1.0);
    CAPTURE(e);
    CHECK(p.delta(e) >= exact);
    CHECK(p.delta(e) <= exact * (1 + 1e-9) + 1e-14);
  }
}

TEST_CASE("GDP and Gaussian events compose to the exact Gaussian") {
  // k mu-GDP releases are (mu sqrt k)-GDP exactly; the PLD's delta lies
  // between the exact delta at eps and at eps - k h.
  privacy_odometer odo({privet::default_rdp_orders(), {1e-4}, true});
  odo.record(privet::gdp(0.2), 10);
  odo.record(privet::gaussian_event{5.0}, 15);  // also 0.2-GDP
  const double mu = 0.2 * std::sqrt(25.0);
  const auto pld = odo.composed_pld();
  REQUIRE(pld);
  for (double eps : {0.25, 0.5, 1.5}) {
    CAPTURE(eps);
    const double exact = privet::gdp_delta(privet::gdp(mu), eps);
    CHECK(odo.delta(eps) >= exact);
    CHECK(odo.delta(eps) <= privet::gdp_delta(privet::gdp(mu), eps - 25e-4) + 1e-12);
  }
}

TEST_CASE("an odometer over many kinds composes them in one transform, above the exact GDP") {
  // Twelve kinds of Gaussian release, sigma_i = 4 + i / 2 run i + 1 times,
  // then a thirteenth entry that repeats the first kind:
  // exactly mu-GDP with mu^2 = sum_i k_i / sigma_i^2 (Dong, Roth & Su 2022,
  // Corollary 3.3). The odometer's PLD is compose_all over its entries;
  // never below the exact delta, above it by at most connect-the-dots'
  // second-order error (1e-6 here) and the mass at +infinity.
  privacy_odometer odo;
  double mu2 = 0;
  for (int i = 0; i < 12; ++i) {
    const double sigma = 4 + i / 2.0;
    const auto k = static_cast<std::uint64_t>(i + 1);
    odo.record(privet::gaussian_event{sigma}, k);
    mu2 += static_cast<double>(k) / (sigma * sigma);
  }
  odo.record(privet::gaussian_event{4.0}, 5);
  mu2 += 5 / 16.0;
  REQUIRE(odo.entries().size() == 13);
  const auto p = odo.composed_pld();
  REQUIRE(p);
  const double mu = std::sqrt(mu2);
  for (double eps : {0.0, 0.5, 1.0, 3.0, 6.0}) {
    CAPTURE(eps);
    const double exact = privet::gdp_delta(privet::gdp(mu), eps);
    CHECK(p->delta(eps) >= exact);
    CHECK(p->delta(eps) <= exact + 1e-6 + p->remove().infinity_mass());
    CHECK(odo.delta(eps) <= p->delta(eps));
  }
  const auto r = odo.report(1e-5);
  REQUIRE(r.pld);
  CHECK(r.pld->epsilon() >= privet::to_approx_dp(privet::gdp(mu), 1e-5).epsilon());
  CHECK(r.pld->epsilon() <= privet::to_approx_dp(privet::gdp(mu), 1e-5).epsilon() + 1e-3);
}

TEST_CASE("events without a PLD leave the RDP accountant alone") {
  privacy_odometer odo;
  odo.record(privet::gaussian_event{2.0}, 3);
  odo.record(privet::zcdp(0.05));
  CHECK_FALSE(odo.composed_pld());
  const auto r = odo.report(1e-6);
  CHECK_FALSE(r.pld);
  REQUIRE(r.rdp);
  CHECK(r.method == privet::accountant_kind::rdp);
  const auto curve =
      privet::rdp_gaussian(2.0).composed(3) +
      privet::detail::rdp_curve(privet::default_rdp_orders(), [](double a) { return 0.05 * a; });
  CHECK(r.tightest.epsilon() ==
        doctest::Approx(privet::to_approx_dp(curve, 1e-6).epsilon()).epsilon(1e-12));

  // With (eps, delta) events the RDP accountant adds their randomised-
  // response curves and converts at delta' = 1 - (1 - delta) / (1 - d)^2,
  // the delta left once the reveals (probability 1 - (1 - d)^2) are paid.
  odo.record(approx_dp(0.1, 1e-7), 2);
  const auto r2 = odo.report(1e-6);
  const double rest = 1 - (1 - 1e-6) / ((1 - 1e-7) * (1 - 1e-7));
  const auto with_rr = curve + privet::rdp_randomized_response(0.1, 2).composed(2);
  CHECK(r2.tightest.epsilon() ==
        doctest::Approx(privet::to_approx_dp(with_rr, rest).epsilon()).epsilon(1e-9));
  // Tighter than basic composition (the curve at 1e-6 - 2e-7, plus 0.2).
  CHECK(r2.tightest.epsilon() < privet::to_approx_dp(curve, 1e-6 - 2e-7).epsilon() + 0.2);
  // delta(eps) = 1 - (1 - d)^2 (1 - delta_curve(eps)).
  const double d_curve = privet::rdp_delta(with_rr, 3.0);
  CHECK(odo.delta(3.0) ==
        doctest::Approx(1 - (1 - 1e-7) * (1 - 1e-7) * (1 - d_curve)).epsilon(1e-9));
  CHECK(odo.delta(3.0) >= 1 - (1 - 1e-7) * (1 - 1e-7) * (1 - d_curve));
  CHECK_THROWS_WITH_AS(
      (void)odo.report(1.9e-7),
      "privet: delta = 1.9e-07 is invalid; allowed: > 1.999999900000007e-07, the recorded (eps, "
      "delta) events' "
      "total delta; PLD: no PLD for zcdp(rho = 0.05)",
      privet::invalid_parameter);
}

TEST_CASE("the odometer takes a user's own event and answers for nothing recorded") {
  privacy_odometer empty;
  CHECK(empty.epsilon(1e-6).epsilon() == 0);
  CHECK(empty.delta(0) == 0);

  privacy_odometer odo;
  odo.record(user::doubled_gaussian{4.0}, 4);  // (2 / 4) sqrt 4 = 1-GDP
  const auto r = odo.report(1e-5);
  const double exact = privet::to_approx_dp(privet::gdp(1.0), 1e-5).epsilon();
  CHECK(r.tightest.epsilon() >= exact);
  CHECK(r.tightest.epsilon() <= exact + 4e-3);
}

TEST_CASE("bad odometer inputs throw and leave it unchanged") {
  using privet::invalid_parameter;
  privacy_odometer odo;
  odo.record(privet::laplace_event{1.0});
  CHECK_THROWS_WITH_AS(odo.record(privet::laplace_event{1.0}, 0),
                       "privet: count = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_AS(odo.record(privet::gaussian_event{-1.0}), invalid_parameter);
  CHECK_THROWS_AS(odo.record(privet::subsampled_gaussian_event{0.0, 1.0}), invalid_parameter);
  CHECK_THROWS_AS(odo.record(privet::rdp_gaussian(1.0, {2.0, 3.0})), invalid_parameter);
  CHECK(odo.releases() == 1);
  CHECK(odo.entries().size() == 1);
  CHECK_THROWS_AS((void)odo.report(0), invalid_parameter);
  CHECK_THROWS_AS((void)odo.report(1), invalid_parameter);
  CHECK_THROWS_AS((void)odo.delta(-1), invalid_parameter);
  CHECK_THROWS_WITH_AS(
      privacy_odometer({{2.0, 4.0}, {0.0}, true}),
      "privet: pld.value_discretization_interval = 0 is invalid; allowed: finite and > 0",
      invalid_parameter);
  CHECK_THROWS_AS(privacy_odometer({{0.5}, {}, true}), invalid_parameter);
  // Laplace(1) is 1-DP: both accountants agree it is at most 1 at any delta.
  CHECK(odo.epsilon(1e-9).epsilon() <= 1.0 + 1e-3);
}

TEST_CASE("an event with no PLD or PRV to build is refused by record, not by every query") {
  using privet::invalid_parameter;
  // gdp(0) is a valid guarantee with a zero RDP curve, but its PLD would be
  // a Gaussian of infinite noise: pld_of refuses it, and so must record.
  privacy_odometer odo;
  odo.record(privet::gaussian_event{2.0}, 3);
  const auto before = odo.report(1e-6);
  const auto entries_before = odo.entries();
  CHECK_THROWS_WITH_AS(odo.record(privet::gdp(0)),
                       "privet: mu = 0 is invalid; allowed: finite and > 0", invalid_parameter);
  CHECK(odo.releases() == 3);
  CHECK(odo.entries().size() == entries_before.size());
  CHECK(odo.entries().front().count == 3);
  const auto after = odo.report(1e-6);
  REQUIRE(after.pld);
  CHECK(after.pld->epsilon() == before.pld->epsilon());
  CHECK(after.rdp->epsilon() == before.rdp->epsilon());
  CHECK(odo.delta(1.0) > 0);
  // Without the PLD accountant nothing needs that PLD: the zero curve joins.
  privet::odometer_options rdp_only;
  rdp_only.use_pld = false;
  privacy_odometer r(rdp_only);
  r.record(privet::gaussian_event{2.0}, 3);
  r.record(privet::gdp(0));
  CHECK(r.releases() == 4);
  CHECK(r.epsilon(1e-6).epsilon() == before.rdp->epsilon());
  // With the PRV accountant on, an event whose PRV cannot be built is refused
  // the same way (pure_dp(0) has a PLD and a curve, but no PRV here).
  privet::odometer_options with_prv;
  with_prv.use_prv = true;
  privacy_odometer p(with_prv);
  p.record(privet::laplace_event{1.0});
  CHECK_THROWS_WITH_AS(p.record(privet::pure_dp(0)),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK(p.releases() == 1);
  CHECK(p.prv_accounting().has_value());
}

TEST_CASE("the PRV accountant joins the odometer when asked") {
  privet::odometer_options o;
  o.use_prv = true;
  o.prv = {0.05, 1e-10};
  privacy_odometer odo(o);
  odo.record(privet::subsampled_gaussian_event{0.01, 1.1}, 1000);
  const auto r = odo.report(1e-5);
  REQUIRE(r.prv);
  REQUIRE(r.pld);
  REQUIRE(r.rdp);
  // The PRV upper bound is privet's PRV guarantee, and sits near the PLD's.
  privet::prv_accountant acc(o.prv);
  acc.add(privet::prv::subsampled_gaussian(0.01, 1.1), 1000);
  CHECK(r.prv->epsilon() == privet::to_approx_dp(acc, 1e-5).epsilon());
  CHECK(r.prv->epsilon() == doctest::Approx(r.pld->epsilon()).epsilon(0.05));
  CHECK(r.prv->epsilon() < r.rdp->epsilon());
  CHECK(r.tightest.epsilon() == std::min({r.rdp->epsilon(), r.pld->epsilon(), r.prv->epsilon()}));
  // zCDP has no PRV: the PRV route is off, the others answer.
  odo.record(privet::zcdp(0.01));
  CHECK_FALSE(odo.report(1e-5).prv);
  // Below the PRV's error floor only the other accountants answer.
  privacy_odometer tiny(o);
  tiny.record(privet::gaussian_event{3.0}, 10);
  const auto t = tiny.report(1e-12);
  CHECK_FALSE(t.prv);
  CHECK(t.rdp);
}

namespace user {
// An event no accountant here can use: no RDP curve, no PLD, not an (eps, delta).
struct opaque_release {
  int id;
};
inline std::optional<privet::rdp> rdp_of(const opaque_release&, const std::vector<double>&) {
  return std::nullopt;
}
inline privet::optional_pld pld_of(const opaque_release&, const privet::pld_options&) {
  return std::nullopt;
}
inline std::string describe(const opaque_release&) {
  return "opaque_release";
}
}  // namespace user

TEST_CASE("odometer and event messages name the parameter, value and range") {
  using privet::invalid_parameter;
  privacy_odometer odo;
  odo.record(privet::laplace_event{1.0});
  CHECK_THROWS_WITH_AS(odo.record(privet::gaussian_event{-1.0}),
                       "privet: noise_multiplier = -1 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(odo.record(privet::subsampled_gaussian_event{0.0, 1.0}),
                       "privet: q = 0 is invalid; allowed: (0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS(
      odo.record(privet::rdp_gaussian(1.0, {2.0, 3.0})),
      "privet: curve.orders() = a different set is invalid; allowed: the accountant's orders",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(odo.record(user::opaque_release{1}),
                       "privet: event = opaque_release is invalid; allowed: an event with an RDP "
                       "curve or an (eps, delta)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(odo.record(privet::laplace_event{1.0}, UINT64_MAX),
                       "privet: count = 18446744073709551615 is invalid; allowed: <= "
                       "18446744073709551614 (the odometer's release counter would overflow)",
                       invalid_parameter);
  CHECK(odo.releases() == 1);
  CHECK_THROWS_WITH_AS((void)odo.report(0), "privet: delta = 0 is invalid; allowed: (0, 1)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)odo.epsilon(1), "privet: delta = 1 is invalid; allowed: (0, 1)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)odo.delta(-1),
                       "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      privacy_odometer({{0.5}, {}, true}),
      "privet: orders[0] = 0.5 is invalid; allowed: >= 1 (1: KL divergence; +inf: max "
      "divergence)",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(privacy_odometer({{2.0}, {1e-3, 1.0}, true}),
                       "privet: pld.tail_mass_truncation = 1 is invalid; allowed: (0, 1)",
                       invalid_parameter);

  const std::vector<double> orders{2.0, 3.0};
  CHECK_THROWS_WITH_AS((void)privet::rdp_of(privet::discrete_gaussian_event{0.0}, orders),
                       "privet: sigma = 0 is invalid; allowed: finite and > 0", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::rdp_of(privet::discrete_gaussian_event{1.0, 0}, orders),
                       "privet: sensitivity = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::rdp_of(privet::discrete_laplace_event{-1.0}, orders),
                       "privet: scale = -1 is invalid; allowed: finite and > 0", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::rdp_of(privet::discrete_laplace_event{1.0, -2}, orders),
                       "privet: sensitivity = -2 is invalid; allowed: >= 1", invalid_parameter);
  // The event's own field, not rdp_subsampled_wor's internal gamma.
  CHECK_THROWS_WITH_AS(
      (void)privet::rdp_of(privet::fixed_size_subsampled_gaussian_event{1.5, 1.0}, orders),
      "privet: sampling_fraction = 1.5 is invalid; allowed: (0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::pld_of(privet::gdp(0), privet::pld_options{}),
                       "privet: mu = 0 is invalid; allowed: finite and > 0", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::prv_of(privet::gdp(0)),
                       "privet: mu = 0 is invalid; allowed: finite and > 0", invalid_parameter);
}

TEST_CASE("an odometer whose PLD cannot answer says so and why") {
  // No silent fall-back to RDP: 100 DP-SGD steps leave about 1e-11 at
  // +infinity (truncation and round-off allowances), so no PLD epsilon
  // exists for delta = 1e-300; RDP answers and the report names the cause.
  privacy_odometer odo;
  odo.record(privet::subsampled_gaussian_event{0.01, 1.1}, 100);
  const auto r = odo.report(1e-300);
  CHECK_FALSE(r.pld);
  REQUIRE(r.rdp);
  CHECK(r.method == privet::accountant_kind::rdp);
  CHECK(r.pld_unavailable.rfind(
            "delta = 1e-300 is not above the composed PLD's mass at +infinity, ", 0) == 0);
  CHECK(r.prv_unavailable.empty());  // the PRV accountant is off
  // Where the PLD answers, the note is empty.
  const auto fine = odo.report(1e-5);
  CHECK(fine.pld);
  CHECK(fine.pld_unavailable.empty());
  // An entry without a PLD is named.
  odo.record(privet::zcdp(0.05));
  CHECK(odo.report(1e-5).pld_unavailable == "no PLD for zcdp(rho = 0.05)");
}

TEST_CASE("the odometer's PLD grid is pld_options' default, as calibration's") {
  // One set of PLD defaults (issue 23): the same grid everywhere.
  CHECK(privet::odometer_options{}.pld.value_discretization_interval ==
        privet::pld_options{}.value_discretization_interval);
  CHECK(privet::odometer_options{}.pld.tail_mass_truncation ==
        privet::pld_options{}.tail_mass_truncation);
  CHECK(privet::calibration_options{}.pld.value_discretization_interval ==
        privet::pld_options{}.value_discretization_interval);
  CHECK(privet::pld_options{}.value_discretization_interval == 1e-4);
}

TEST_CASE("with a total variation, an accountant whose epsilon no share covers is unavailable") {
  // 200 runs of 0.5-DP: RDP's epsilon at 1e-5 is 54.6, the PLD's 52.3. At a
  // TV where (1 + e^54.6) TV exceeds delta, RDP cannot answer at any share,
  // but the PLD can (its (1 + e^eps) TV is about an eighth of delta). The
  // report used to fail every accountant then.
  const double delta = 1e-5;
  privacy_odometer exact;
  exact.record(privet::pure_dp(0.5), 200);
  const auto e = exact.report(delta);
  REQUIRE(e.rdp);
  REQUIRE(e.pld);
  const double tv = 1.2 * delta / std::exp(e.rdp->epsilon()) / 200;
  privacy_odometer approx;
  approx.record(privet::pure_dp(0.5), 200, tv);
  const double total = approx.total_variation();
  CHECK((1 + std::exp(e.rdp->epsilon())) * total > delta);
  const auto r = approx.report(delta);
  CHECK_FALSE(r.rdp);
  CHECK(r.rdp_unavailable.find("did not fit") != std::string::npos);
  REQUIRE(r.pld);
  CHECK(r.pld_unavailable.empty());
  CHECK(r.method == privet::accountant_kind::pld);
  CHECK(r.tightest.epsilon() == r.pld->epsilon());
  CHECK(r.tightest.delta() == delta);
  // The second method: the exact runs' delta at that epsilon plus (1 +
  // e^eps) TV stays within delta.
  const double eps = r.pld->epsilon();
  CHECK(eps > e.pld->epsilon());
  CHECK(exact.delta(eps) + (1 + std::exp(eps)) * total <= delta);
  // With no accountant able to answer, the report still names delta.
  privacy_odometer hopeless;
  hopeless.record(privet::pure_dp(0.5), 200, 1e-15);
  CHECK(privet::test::rejected_parameter([&] { (void)hopeless.report(delta); }) == "delta");
}

TEST_CASE("runs within a total variation: the report keeps delta and pays (1 + e^eps) TV") {
  // 25 runs of 0.2-GDP (1-GDP together, Dong, Roth & Su 2022), each within
  // total variation tv of the exact mechanism (a constant-time sampler's).
  // The exact 1-GDP delta is the second method: every answer must satisfy
  // gdp_delta(eps) + (1 + e^eps) TV <= delta (add_total_variation).
  const double tv = 1e-10, delta = 1e-5;
  privacy_odometer exact, approx;
  exact.record(privet::gdp(0.2), 25);
  approx.record(privet::gdp(0.2), 20, tv);
  approx.record(privet::gdp(0.2), 5, tv);
  CHECK(approx.entries().size() == 1);
  CHECK(exact.total_variation() == 0);
  const double total = approx.total_variation();
  CHECK(total >= 25 * tv);
  CHECK(total <= 25 * tv * (1 + 1e-14));
  const auto r = approx.report(delta);
  const auto e = exact.report(delta);
  REQUIRE(r.rdp);
  REQUIRE(r.pld);
  CHECK(r.tightest.delta() == delta);
  for (const auto& [answer, plain] : {std::pair{*r.rdp, *e.rdp}, std::pair{*r.pld, *e.pld}}) {
    const double eps = answer.epsilon();
    CAPTURE(eps);
    CHECK(answer.delta() == delta);
    CHECK(privet::gdp_delta(privet::gdp(1), eps) + (1 + std::exp(eps)) * total <= delta);
    // Dearer than the exact runs' (the share is about 2.5 % of delta).
    CHECK(eps > plain.epsilon());
  }
  // The bracket: the accountant at delta - (1 + e^eps) TV (the least share)
  // and at four times that (the most the odometer takes, a doubling past
  // twice what the answers need) enclose the epsilon reported.
  {
    const double share = (1 + std::exp(r.pld->epsilon())) * total;
    CHECK(r.pld->epsilon() <= exact.report(delta - 4 * share).pld->epsilon());
    CHECK(r.pld->epsilon() >= exact.report(delta - share).pld->epsilon());
  }
  CHECK(r.tightest.epsilon() == std::min(r.rdp->epsilon(), r.pld->epsilon()));
  // delta(eps) adds (1 + e^eps) TV to the exact runs' delta.
  for (double eps : {1.0, 3.0}) {
    CAPTURE(eps);
    CHECK(approx.delta(eps) ==
          privet::add_total_variation(approx_dp(eps, exact.delta(eps)), total).delta());
    CHECK(approx.delta(eps) > exact.delta(eps) + (1 + std::exp(eps)) * total * (1 - 1e-12));
  }
  // A delta that cannot hold the share is refused, naming delta.
  CHECK_THROWS_AS((void)approx.report(1e-9), privet::invalid_parameter);
  // Zero total variation changes nothing.
  privacy_odometer zero;
  zero.record(privet::gdp(0.2), 25, 0.0);
  CHECK(zero.report(delta).pld->epsilon() == e.pld->epsilon());
  CHECK(zero.report(delta).rdp->epsilon() == e.rdp->epsilon());
  CHECK(zero.delta(2.0) == exact.delta(2.0));
  // A total variation outside [0, 1] is refused and records nothing.
  CHECK_THROWS_WITH_AS(approx.record(privet::gdp(0.2), 1, -1e-3),
                       "privet: total_variation = -0.001 is invalid; allowed: [0, 1]",
                       privet::invalid_parameter);
  CHECK_THROWS_AS(approx.record(privet::gdp(0.2), 1, 2.0), privet::invalid_parameter);
  CHECK(approx.releases() == 25);
  CHECK(approx.total_variation() == total);
}
