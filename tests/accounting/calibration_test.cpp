// Noise calibration by any accountant. Second methods: the RDP and PLD
// accountants evaluated directly, and the analytic Gaussian (Balle & Wang
// 2018) for one Gaussian release, where the exact sigma is known.
#include <privet/accounting/calibration.hpp>
#include <privet/core/analytic_gaussian.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

namespace {
using privet::accountant_kind;
using privet::approx_dp;
using privet::calibration_options;
using privet::invalid_parameter;
using privet::pld_options;

calibration_options by(accountant_kind k) {
  calibration_options c;
  c.accountant = k;
  return c;
}
}  // namespace

TEST_CASE("RDP calibration returns the smallest sigma that meets the target") {
  // 10^4 steps at q = 0.01: the sigma found meets (eps, 1e-5), and sigma
  // lowered by twice the bracket's width does not.
  for (double eps : {1.0, 3.0, 8.0}) {
    const approx_dp target(eps, 1e-5);
    const double sigma =
        privet::dpsgd_noise_multiplier(0.01, 10'000, target, by(accountant_kind::rdp));
    auto eps_at = [&](double s) {
      return privet::to_approx_dp(privet::rdp_subsampled_gaussian(0.01, s).composed(10'000), 1e-5)
          .epsilon();
    };
    CAPTURE(eps);
    CAPTURE(sigma);
    CHECK(eps_at(sigma) <= eps);
    CHECK(eps_at(sigma * (1 - 2e-6)) > eps);
  }
  // The reference point (sigma = 1.1, eps = 5.64 by RDP) lies between
  // the targets 3 and 8.
  const auto rdp = by(accountant_kind::rdp);
  CHECK(privet::dpsgd_noise_multiplier(0.01, 10'000, approx_dp(8, 1e-5), rdp) < 1.1);
  CHECK(privet::dpsgd_noise_multiplier(0.01, 10'000, approx_dp(3, 1e-5), rdp) > 1.1);
}

TEST_CASE("PLD calibration is tighter than RDP and meets the target by the PLD") {
  const approx_dp target(2.0, 1e-5);
  // The coarser grid h = 1e-3 keeps the test fast (the default is 1e-4).
  auto c = by(accountant_kind::pld);
  c.pld.value_discretization_interval = 1e-3;
  const double by_pld = privet::dpsgd_noise_multiplier(0.02, 1000, target, c);
  const double by_rdp =
      privet::dpsgd_noise_multiplier(0.02, 1000, target, by(accountant_kind::rdp));
  CAPTURE(by_pld);
  CAPTURE(by_rdp);
  CHECK(by_pld < by_rdp);
  auto eps_at = [&](double s) {
    return privet::privacy_loss_distribution::subsampled_gaussian(0.02, s, c.pld)
        .self_compose(1000)
        .epsilon(1e-5)
        .epsilon();
  };
  CHECK(eps_at(by_pld) <= 2.0);
  CHECK(eps_at(by_pld * (1 - 2e-6)) > 2.0);
}

TEST_CASE("one Gaussian calibrated by the PLD is the analytic Gaussian's sigma") {
  // The analytic Gaussian sigma is exact for one release; the PLD's is
  // pessimistic by its grid, so slightly larger and within 1e-3 relative
  // (at h = 1e-3, coarser than the default, to keep the test fast).
  auto c = by(accountant_kind::pld);
  c.pld.value_discretization_interval = 1e-3;
  for (double eps : {0.5, 1.0, 3.0}) {
    const approx_dp target(eps, 1e-6);
    const double exact = privet::analytic_gaussian_sigma(target, 1.0);
    const double got = privet::smallest_noise_multiplier(
        [](double s) { return privet::gaussian_event{s}; }, 1, target, c);
    CAPTURE(eps);
    CHECK(got >= exact * (1 - 2e-6));
    CHECK(got <= exact * (1 + 1e-3));
  }
}

TEST_CASE("bad calibration inputs throw, naming the parameter") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(privet::dpsgd_noise_multiplier(0, 10, approx_dp(1, 1e-5)),
                       "privet: q = 0 is invalid; allowed: (0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::dpsgd_noise_multiplier(0.1, 0, approx_dp(1, 1e-5)),
                       "privet: steps = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_AS(privet::dpsgd_noise_multiplier(0.1, 10, approx_dp(1, 0)), invalid_parameter);
  // zCDP has no PLD: calibrating it by the PLD is refused by name.
  CHECK_THROWS_WITH_AS(
      privet::smallest_noise_multiplier([](double s) { return privet::zcdp(1 / (2 * s * s)); }, 1,
                                        approx_dp(1, 1e-5), by(accountant_kind::pld)),
      "privet: accountant = PLD is invalid; allowed: an accountant that supports zcdp(rho = 0.5)",
      invalid_parameter);
  auto c = by(accountant_kind::rdp);
  c.relative_tolerance = 0;
  CHECK_THROWS_AS(privet::dpsgd_noise_multiplier(0.1, 10, approx_dp(1, 1e-5), c),
                  invalid_parameter);
  // Unreachable: eps = 0 needs infinite noise.
  CHECK_THROWS_AS(privet::dpsgd_noise_multiplier(0.1, 10, approx_dp(0, 1e-5), c),
                  invalid_parameter);
}

TEST_CASE("PRV calibration meets the target by the PRV upper bound") {
  auto c = by(accountant_kind::prv);
  c.prv = {0.02, 1e-10};
  c.relative_tolerance = 1e-4;
  const approx_dp target(2.0, 1e-5);
  const double sigma = privet::dpsgd_noise_multiplier(0.02, 500, target, c);
  auto upper = [&](double s) {
    privet::prv_accountant acc(c.prv);
    acc.add(privet::prv::subsampled_gaussian(0.02, s), 500);
    return privet::to_approx_dp(acc, 1e-5).epsilon();
  };
  CHECK(upper(sigma) <= 2.0);
  CHECK(upper(sigma * (1 - 2e-4)) > 2.0);
  // Close to the PLD's answer (both within their discretisation).
  const double by_pld = privet::dpsgd_noise_multiplier(0.02, 500, target, by(accountant_kind::pld));
  CHECK(sigma == doctest::Approx(by_pld).epsilon(0.03));
}

TEST_CASE("calibration messages name the parameter, value and range") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(privet::dpsgd_noise_multiplier(0.1, 10, approx_dp(1, 0)),
                       "privet: target.delta = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(
      privet::smallest_noise_multiplier([](double s) { return privet::gaussian_event{s}; }, 0,
                                        approx_dp(1, 1e-5)),
      "privet: count = 0 is invalid; allowed: >= 1", invalid_parameter);
  // A PLD that cannot reach the target delta names the cause, not the
  // accountant: 100 steps leave about 1e-11 at +infinity.
  try {
    (void)privet::dpsgd_noise_multiplier(0.01, 100, approx_dp(1, 1e-300), by(accountant_kind::pld));
    FAIL("no exception");
  } catch (const invalid_parameter& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.rfind("privet: accountant = PLD cannot certify 100 runs of subsampled_gaussian(q = "
                     "0.01, ",
                     0) == 0);
    CHECK(what.find("at delta = 1e-300: delta = 1e-300 is not above the composed PLD's mass at "
                    "+infinity, ") != std::string::npos);
    CHECK(e.parameter() == "accountant");
  }
  auto c = by(accountant_kind::rdp);
  c.relative_tolerance = 0;
  CHECK_THROWS_WITH_AS(privet::dpsgd_noise_multiplier(0.1, 10, approx_dp(1, 1e-5), c),
                       "privet: relative_tolerance = 0 is invalid; allowed: (0, 1)",
                       invalid_parameter);
  // A target of eps = 0 is refused as such, before any search.
  CHECK_THROWS_WITH_AS(privet::dpsgd_noise_multiplier(0.1, 10, approx_dp(0, 1e-5)),
                       "privet: target_epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  // An epsilon that no noise up to 1e6 brings down to the target.
  CHECK_THROWS_WITH_AS(
      privet::smallest_noise_multiplier([](double) { return 10.0; }, 1.0),
      "privet: target_epsilon = 1 is invalid; allowed: reachable with sigma <= 1e6",
      invalid_parameter);
}

TEST_CASE("calibration at a target past ln(DBL_MAX) returns the smallest sigma") {
  // Issue 22, finding 7: dpsgd_noise_multiplier(0.5, 10, (800, 1e-5)) did not
  // return in 200 s (PLD epsilon past 709.78 scanned its grid quadratically).
  // A coarser grid keeps the test short; the path is the same. Second method:
  // the PLD evaluated directly, and RDP (looser, so a larger sigma).
  auto c = by(accountant_kind::pld);
  c.pld.value_discretization_interval = 1e-2;
  c.relative_tolerance = 1e-4;
  c.coarsen_above = std::numeric_limits<double>::infinity();  // exactly this grid
  const approx_dp target(800, 1e-5);
  const double sigma = privet::dpsgd_noise_multiplier(0.5, 10, target, c);
  auto eps_at = [&](double s) {
    return privet::privacy_loss_distribution::subsampled_gaussian(0.5, s, c.pld)
        .self_compose(10)
        .epsilon(1e-5)
        .epsilon();
  };
  CAPTURE(sigma);
  CHECK(eps_at(sigma) <= 800);
  CHECK(eps_at(sigma * (1 - 2e-4)) > 800);
  const double by_rdp = privet::dpsgd_noise_multiplier(0.5, 10, target, by(accountant_kind::rdp));
  CHECK(sigma < by_rdp);
  CHECK(by_rdp < 1.2 * sigma);
}

TEST_CASE("calibration at a large target coarsens the grid with the target and stays certified") {
  // Issue 34, item 3: dpsgd_noise_multiplier(0.5, 10, (800, 1e-5)) with the
  // defaults took 89 s (2^24-point transforms at h = 1e-4). Above
  // coarsen_above = 10 the grid step grows with the target: here
  // 1e-4 * 800 / 10 = 8e-3. The sigma returned must meet the target on that
  // grid, and a sigma below the final bracket must not; the default grid
  // (finer, tighter) must report at most the target, checked at a smaller
  // target where it is cheap.
  const approx_dp target(800, 1e-5);
  const double sigma = privet::dpsgd_noise_multiplier(0.5, 10, target);
  pld_options used;
  used.value_discretization_interval = 8e-3;
  auto eps_at = [](double s, const pld_options& o) {
    return privet::privacy_loss_distribution::subsampled_gaussian(0.5, s, o)
        .self_compose(10)
        .epsilon(1e-5)
        .epsilon();
  };
  CAPTURE(sigma);
  CHECK(eps_at(sigma, used) <= 800);
  CHECK(eps_at(sigma * (1 - 2e-6), used) > 800);
  const double by_rdp = privet::dpsgd_noise_multiplier(0.5, 10, target, by(accountant_kind::rdp));
  CHECK(sigma < by_rdp);
  CHECK(by_rdp < 1.2 * sigma);

  // At 20 (twice coarsen_above: h = 2e-4), the grid calibration_grid names
  // reports at most the target; the default grid (not always tighter: at
  // 40, 40.0001) within 1e-4 of it.
  const approx_dp target_20(20, 1e-5);
  const double sigma_20 = privet::dpsgd_noise_multiplier(0.5, 10, target_20);
  const auto [grid_20, mesh_20] = privet::calibration_grid(target_20, calibration_options{});
  CHECK(grid_20.value_discretization_interval == doctest::Approx(2e-4).epsilon(1e-12));
  CHECK(mesh_20.eps_error == doctest::Approx(0.02).epsilon(1e-12));
  CHECK(eps_at(sigma_20, grid_20) <= 20);
  CHECK(eps_at(sigma_20, pld_options{}) == doctest::Approx(20).epsilon(1e-4));

  // Up to coarsen_above nothing changes: the same sigma as with coarsening off.
  calibration_options off;
  off.coarsen_above = std::numeric_limits<double>::infinity();
  CHECK(privet::dpsgd_noise_multiplier(1, 1, approx_dp(10, 1e-5)) ==
        privet::dpsgd_noise_multiplier(1, 1, approx_dp(10, 1e-5), off));
  calibration_options zero;
  zero.coarsen_above = 0;
  CHECK_THROWS_WITH_AS(privet::dpsgd_noise_multiplier(0.5, 10, target, zero),
                       "privet: coarsen_above = 0 is invalid; allowed: (0, inf]",
                       invalid_parameter);
}

TEST_CASE("calibration's search interpolates: far fewer evaluations than bisection") {
  // eps = 2 / sigma^2 (a power law, as the Gaussian's large-eps regime):
  // bisection from the bracket [0.5, 1] to a relative 1e-9 needs 30
  // evaluations after the bracket's two; regula falsi on log-log with the
  // Illinois step needs a handful. The count is the search's, not a timing.
  int evaluations = 0;
  const double s = privet::smallest_noise_multiplier(
      [&](double sigma) {
        ++evaluations;
        return 2 / (sigma * sigma);
      },
      3.0, 1e-9);
  CHECK(2 / (s * s) <= 3.0);
  CHECK(s == doctest::Approx(std::sqrt(2.0 / 3)).epsilon(2e-9));
  CHECK(evaluations <= 10);
  // A function no line fits (a step in the slope) still converges, within
  // bisection's count plus the bracket's and two per halving.
  evaluations = 0;
  const double kinked = privet::smallest_noise_multiplier(
      [&](double sigma) {
        ++evaluations;
        return sigma < 7 ? 100 / sigma : 700 / (sigma * sigma);
      },
      5.0, 1e-9);
  CHECK(700 / (kinked * kinked) <= 5.0);
  CHECK(kinked == doctest::Approx(std::sqrt(140.0)).epsilon(2e-9));
  CHECK(evaluations <= 3 * 31 + 10);
}

TEST_CASE("calibration's search is bounded for any tolerance and any epsilon function") {
  // relative_tolerance = 1e-300 cannot be met by a double bracket: the
  // bisection stops when its midpoint rounds to an end. The answer is the
  // certified end.
  const double s =
      privet::smallest_noise_multiplier([](double sigma) { return 1 / sigma; }, 3.0, 1e-300);
  CHECK(1 / s <= 3.0);
  CHECK(s == doctest::Approx(1.0 / 3).epsilon(1e-15));
  // An epsilon that is NaN below some sigma, or that throws there (an
  // accountant that cannot represent so little noise), counts as not meeting
  // the target: the search returns a certified sigma.
  const double nan_below = privet::smallest_noise_multiplier(
      [](double sigma) { return sigma < 0.4 ? std::nan("") : 0.1 / sigma; }, 1.0, 1e-9);
  CHECK(nan_below >= 0.4);
  CHECK(nan_below <= 0.4 * (1 + 1e-8));
  const double throws_below = privet::smallest_noise_multiplier(
      [](double sigma) {
        if (sigma < 0.3) privet::throw_invalid("sigma", sigma, ">= 0.3");
        return 0.01 / sigma;
      },
      1.0, 1e-9);
  CHECK(throws_below >= 0.3);
  CHECK(throws_below <= 0.3 * (1 + 1e-8));
  // Unreachable targets name target_epsilon.
  CHECK_THROWS_WITH_AS(
      privet::smallest_noise_multiplier([](double) { return 1.0; }, 0.5),
      "privet: target_epsilon = 0.5 is invalid; allowed: reachable with sigma <= 1e6",
      privet::invalid_parameter);
}
