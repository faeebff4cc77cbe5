// The PRV accountant: known answers from microsoft/prv_accountant (through
// Opacus's table of its DP-SGD epsilons, and its own tests in
// tests/test_accountant.py) and from dp_accounting's PLD accountant tests;
// the bracket lower <= truth <= upper where the truth is exact (k Gaussians
// via GDP, k randomised responses via Kairouz, Oh & Viswanath's optimal
// composition, Laplace in closed form); the ordering against RDP and the
// agreement with privet's PLD accountant for DP-SGD; monotonicity; and the
// documented errors.
#include <privet/accounting/composition.hpp>
#include <privet/accounting/pld.hpp>
#include <privet/accounting/prv.hpp>
#include <privet/accounting/rdp.hpp>
#include <privet/core/analytic_gaussian.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace {

using privet::prv;
using privet::prv_accountant;
using privet::prv_bounds;
using privet::prv_options;

// lower <= estimate <= upper, the ordering every answer must have.
void check_ordered(const prv_bounds& b) {
  CHECK(b.lower <= b.estimate);
  CHECK(b.estimate <= b.upper);
}

// A composition of Gaussians against their exact GDP (Dong, Roth & Su 2022,
// Corollary 3.3; core/analytic_gaussian.hpp): at each delta the bracket holds
// the exact epsilon, the estimate is within eps_error / 10, and the bracket
// is no wider than 2 eps_error plus what the delta slack (delta_error + the
// numerical allowance) moves the exact epsilon; at each epsilon the delta
// bracket holds the exact delta.
void check_against_gdp(const auto& c, const privet::gdp& total, double eps_error,
                       std::initializer_list<double> deltas,
                       std::initializer_list<double> epsilons) {
  for (double delta : deltas) {
    CAPTURE(delta);
    const prv_bounds b = c.epsilon(delta);
    const double exact = privet::to_approx_dp(total, delta).epsilon();
    check_ordered(b);
    CHECK(b.lower <= exact);
    CHECK(exact <= b.upper);
    CHECK(std::fabs(b.estimate - exact) <= eps_error / 10);
    const double slack = c.delta_error() + c.numerical_error();
    const double moved = privet::to_approx_dp(total, delta - slack).epsilon() -
                         privet::to_approx_dp(total, delta + slack).epsilon();
    CHECK(b.upper - b.lower <= 2 * eps_error + moved + eps_error / 5);
  }
  for (double eps : epsilons) {
    CAPTURE(eps);
    const prv_bounds d = c.delta(eps);
    const double exact = privet::gdp_delta(total, eps);
    check_ordered(d);
    CHECK(d.lower <= exact);
    CHECK(exact <= d.upper);
  }
}

// The parameter named by the invalid_parameter that f throws ("" if none).
template <std::invocable F>
std::string thrown_parameter(F&& f) {
  try {
    f();
  } catch (const privet::invalid_parameter& e) {
    return e.parameter();
  }
  return "";
}

}  // namespace

TEST_CASE("PRV reproduces prv_accountant's DP-SGD epsilons") {
  // opacus/tests/prv_accountant.py, msr_values, "Computed from
  // https://github.com/microsoft/prv_accountant": (noise multiplier, q,
  // steps) -> epsilon at delta = 1e-6 with eps_error = 0.01 and delta_error
  // = delta / 1000 (Opacus's defaults). That epsilon is prv_accountant's own
  // upper bound eps_Z(delta - delta_error) + eps_error, which privet's
  // estimate at delta - delta_error reproduces; Opacus's test compares its
  // port to 5 places (5e-6). privet's independent discretisation (clamped
  // tails instead of conditioning, closed-form and Gauss-Kronrod means
  // instead of quadrature of the CDF) agrees to 6.6e-6 at worst (sigma =
  // 0.8, q = 0.2), so the tolerance here is 1e-5.
  struct row {
    double sigma, q;
    std::uint64_t steps;
    double epsilon;
  };
  const std::vector<row> rows{
      {0.8, 0.001, 100, 0.270403364058018680360362395731},
      {1.5, 0.001, 100, 0.0393694193095203287535710501288},
      {2.0, 0.001, 100, 0.0291045369484074882560076247273},
      {3.0, 0.001, 100, 0.0215200934390882663016508757892},
      {0.8, 0.05, 100, 6.74105193941409996938318727189},
      {1.5, 0.05, 100, 1.95385313568420015961635272106},
      {2.0, 0.05, 100, 1.28363737962406521120328761754},
      {3.0, 0.05, 100, 0.767933789666825572517439013609},
      {0.8, 0.2, 100, 24.3336641779225644199868838768},
      {1.5, 0.2, 100, 8.49897785912163072907787864096},
      {2.0, 0.2, 100, 5.67205560882372950004537415225},
      {3.0, 0.2, 100, 3.38122051022184422208738396876},
      {0.8, 0.001, 1000, 0.477771266184522591657923840103},
      {1.5, 0.001, 1000, 0.0998206602308474855167474970585},
      {2.0, 0.001, 1000, 0.0712187825381152272985474382949},
      {3.0, 0.001, 1000, 0.0476159308713589302097801692071},
      {1.5, 0.05, 1000, 6.20996924657726712126759593957},
      {3.0, 0.05, 1000, 2.52757432605973830774814814504},
      {1.5, 0.001, 20000, 0.437005108654860807693154356457},
      {2.0, 0.001, 20000, 0.305837939762453436820521801565},
      {3.0, 0.001, 20000, 0.194031030686054706269061398416},
  };
  const double delta = 1e-6, delta_error = delta / 1000, eps_error = 0.01;
  for (const auto& r : rows) {
    CAPTURE(r.sigma);
    CAPTURE(r.q);
    CAPTURE(r.steps);
    prv_accountant acc({.eps_error = eps_error, .delta_error = delta_error});
    acc.add(prv::subsampled_gaussian(r.q, r.sigma), r.steps);
    const auto c = acc.compose();
    const double theirs = c.epsilon(delta - delta_error).estimate + eps_error;
    CHECK(theirs == doctest::Approx(r.epsilon).epsilon(0).scale(1).epsilon(1e-5));
    // privet's own upper bound also subtracts its floating-point allowance
    // from delta, so it is at least theirs, and not by much.
    const prv_bounds b = c.epsilon(delta);
    check_ordered(b);
    CHECK(b.upper >= r.epsilon - 1e-5);
    CHECK(b.upper <= r.epsilon + 1e-3);
    // lower = eps_Z(delta + slack) - eps_error <= eps_Z(delta - delta_error)
    // - eps_error, i.e. at most theirs - 2 eps_error.
    CHECK(b.lower <= r.epsilon - 2 * eps_error + 1e-5);
  }
}

TEST_CASE("PRV passes prv_accountant's analytic Gaussian tests") {
  // microsoft/prv_accountant tests/test_accountant.py: the Gaussian
  // mechanism (their PoissonSubsampledGaussianMechanism with q = 1) composed
  // k times is the Gaussian with mu = sqrt(k) / sigma, and delta_lower <=
  // exact delta(4) <= delta_upper for eps_error in {1, 0.1, 0.01} and
  // delta_error in {1e-9, 1e-10, 1e-11}.
  // test_gaussian_mechanism_analytic_homogeneous (sigma = 100; three of
  // their 27 settings, one per compositions value):
  struct setting {
    double eps_error, delta_error;
    std::uint64_t steps;
  };
  for (const auto& s :
       {setting{1, 1e-9, 10'000}, setting{0.1, 1e-10, 10'001}, setting{0.01, 1e-11, 10'002}}) {
    CAPTURE(s.steps);
    prv_accountant acc({.eps_error = s.eps_error, .delta_error = s.delta_error});
    acc.add(prv::subsampled_gaussian(1.0, 100.0), s.steps);
    const prv_bounds d = acc.delta(4);
    const double exact =
        privet::gdp_delta(privet::gdp(std::sqrt(static_cast<double>(s.steps)) / 100), 4);
    check_ordered(d);
    CHECK(d.lower <= exact);
    CHECK(exact <= d.upper);
  }
  // test_gaussian_mechanism_analytic_heterogeneous: sigma = 10 and 5, 50
  // steps each, all nine settings.
  const double exact = privet::gdp_delta(privet::gdp(std::sqrt(50 / 100.0 + 50 / 25.0)), 4);
  for (double eps_error : {1.0, 0.1, 0.01}) {
    for (double delta_error : {1e-9, 1e-10, 1e-11}) {
      CAPTURE(eps_error);
      CAPTURE(delta_error);
      prv_accountant acc({.eps_error = eps_error, .delta_error = delta_error});
      acc.add(prv::subsampled_gaussian(1.0, 10.0), 50).add(prv::subsampled_gaussian(1.0, 5.0), 50);
      const prv_bounds d = acc.delta(4);
      check_ordered(d);
      CHECK(d.lower <= exact);
      CHECK(exact <= d.upper);
    }
  }
}

TEST_CASE("PRV refuses deltas where its error terms dominate") {
  // microsoft/prv_accountant tests/test_accountant.py
  // test_throw_error_small_delta: q = 0.00038, sigma = 4, eps_error = 0.01,
  // delta_error = 1e-21, delta = 1.13e-18 must raise. privet refuses every
  // delta up to delta_error plus its floating-point allowance and names the
  // parameter.
  prv_accountant acc({.eps_error = 0.01, .delta_error = 1e-21});
  acc.add(prv::subsampled_gaussian(0.00038, 4), 1000);
  const auto c = acc.compose();
  CHECK_THROWS_WITH_AS(static_cast<void>(c.epsilon(1.13e-18)),
                       doctest::Contains("privet: delta = 1.13e-18 is invalid; allowed: ("),
                       privet::invalid_parameter);
  const double floor = c.delta_error() + c.numerical_error();
  CHECK(thrown_parameter([&] { static_cast<void>(c.epsilon(floor)); }) == "delta");
  // Just above the floor the answer exists and is ordered.
  check_ordered(c.epsilon(1e-8));
  // And delta <= delta_error is refused whatever the numerical error.
  prv_accountant loose({.eps_error = 0.1, .delta_error = 1e-5});
  loose.add(prv::gaussian(5), 10);
  CHECK(thrown_parameter([&] { static_cast<void>(loose.epsilon(1e-5)); }) == "delta");
  CHECK(thrown_parameter([&] { static_cast<void>(loose.epsilon(1e-6)); }) == "delta");
}

TEST_CASE("PRV matches dp_accounting's accountant tests") {
  // google/differential-privacy python/dp_accounting/dp_accounting/pld/
  // pld_privacy_accountant_test.py (as cited by pld_test.cpp), compared to
  // 1e-3 there: test_gaussian_basic (sigma = sqrt(3), composed 3 times:
  // delta(1) = 0.126936) and test_poisson_subsampled_gaussian (q = 0.2,
  // sigma = 0.5, 3 times: delta(1) = 0.15594, and epsilon(0.15594) = 1).
  prv_accountant g({.eps_error = 0.01, .delta_error = 1e-10});
  g.add(prv::gaussian(std::sqrt(3.0)), 3);
  const prv_bounds dg = g.delta(1);
  check_ordered(dg);
  CHECK(dg.estimate == doctest::Approx(0.126936).epsilon(0).scale(1).epsilon(1e-3));
  CHECK(dg.lower <= 0.126936);
  CHECK(0.126936 <= dg.upper);
  prv_accountant s({.eps_error = 0.01, .delta_error = 1e-10});
  s.add(prv::subsampled_gaussian(0.2, 0.5), 3);
  const auto c = s.compose();
  const prv_bounds ds = c.delta(1);
  check_ordered(ds);
  CHECK(ds.estimate == doctest::Approx(0.15594).epsilon(0).scale(1).epsilon(1e-3));
  CHECK(ds.lower <= 0.15594);
  CHECK(0.15594 <= ds.upper);
  const prv_bounds es = c.epsilon(0.15594);
  check_ordered(es);
  CHECK(es.estimate == doctest::Approx(1).epsilon(1e-3));
  CHECK(es.lower <= 1);
  CHECK(1 <= es.upper);
}

TEST_CASE("PRV brackets the exact k-fold Gaussian") {
  // k Gaussians of noise sigma are exactly (sqrt(k) / sigma)-GDP: every
  // bound must hold, the estimate be close, the bracket narrow
  // (check_against_gdp; the slack matters at delta = 1e-9).
  struct setting {
    double sigma;
    std::uint64_t steps;
  };
  const double eps_error = 0.05;
  for (const auto& s : {setting{1, 1}, setting{4, 30}, setting{20, 2000}}) {
    CAPTURE(s.sigma);
    CAPTURE(s.steps);
    prv_accountant acc({.eps_error = eps_error, .delta_error = 1e-12});
    acc.add(prv::gaussian(s.sigma), s.steps);
    const auto c = acc.compose();
    const privet::gdp total(std::sqrt(static_cast<double>(s.steps)) / s.sigma);
    check_against_gdp(c, total, eps_error, {1e-3, 1e-6, 1e-9}, {0.0, 0.5, 2.0});
  }
  // The guarantee is the upper bound.
  prv_accountant acc;
  acc.add(prv::gaussian(2), 10);
  const auto g = privet::to_approx_dp(acc, 1e-5);
  CHECK(g.delta() == 1e-5);
  CHECK(g.epsilon() == acc.epsilon(1e-5).upper);
}

TEST_CASE("PRV brackets k-fold randomised response, the optimal composition") {
  // Binary randomised response is the extremal eps-DP pair, so k runs have
  // exactly Kairouz, Oh & Viswanath's optimal composition (2015, Theorem 3.3;
  // accounting/composition.hpp). pure_dp(eps) is the same PRV.
  const double eps = 0.5;
  for (std::uint64_t k : {3u, 20u, 100u}) {
    CAPTURE(k);
    prv_accountant rr({.eps_error = 0.01, .delta_error = 1e-10});
    rr.add(prv::randomized_response(eps), k);
    prv_accountant pure({.eps_error = 0.01, .delta_error = 1e-10});
    pure.add(prv::pure_dp(eps), k);
    const auto c = rr.compose();
    const privet::approx_dp each(eps, 0);
    for (double delta : {1e-2, 1e-4, 1e-7}) {
      CAPTURE(delta);
      const prv_bounds b = c.epsilon(delta);
      const double exact = privet::compose_optimal(each, k, delta).epsilon();
      check_ordered(b);
      CHECK(b.lower <= exact);
      CHECK(exact <= b.upper);
      const prv_bounds p = pure.epsilon(delta);
      CHECK(p.upper == b.upper);
      CHECK(p.lower == b.lower);
    }
    for (double e : {0.0, 1.0, 2.5}) {
      CAPTURE(e);
      const prv_bounds d = c.delta(e);
      const double exact = privet::compose_optimal_delta(each, k, e);
      check_ordered(d);
      CHECK(d.lower <= exact);
      CHECK(exact <= d.upper);
    }
  }
  // One k-ary response: delta(e) = p_true (1 - e^{e - eps}) below eps.
  for (std::uint64_t k : {2u, 5u}) {
    const double p_true = std::exp(1.3) / (std::exp(1.3) + static_cast<double>(k - 1));
    prv_accountant acc({.eps_error = 0.01, .delta_error = 1e-10});
    acc.add(prv::randomized_response(1.3, k), 1);
    const auto c = acc.compose();
    for (double e : {0.0, 0.5, 1.2}) {
      const prv_bounds d = c.delta(e);
      const double exact = p_true * -std::expm1(e - 1.3);
      CHECK(d.lower <= exact);
      CHECK(exact <= d.upper);
    }
  }
}

TEST_CASE("PRV brackets the Laplace mechanism") {
  // Laplace(b) on sensitivity d has delta(eps) = 1 - e^{(eps - eps0) / 2}
  // for eps <= eps0 = d / b (integrating its loss's tails). 3 runs of
  // Laplace(1) and 2 of Laplace(2) are 4-DP (dp_accounting's
  // test_laplace_basic, pld_privacy_accountant_test.py), and their loss is
  // exactly 4 with probability 1/32, so the true epsilon at delta = 1e-6 is
  // 4 - 3.2e-5: the bracket holds it, and the upper bound is at most
  // eps_error (the coupling's blur) plus 5 h / 2 (each step's top atom
  // rounded by at most h / 2) above 4.
  prv_accountant one({.eps_error = 0.01, .delta_error = 1e-10});
  one.add(prv::laplace(2), 1);
  const auto c = one.compose();
  for (double eps : {0.0, 0.1, 0.25, 0.4}) {
    CAPTURE(eps);
    const prv_bounds d = c.delta(eps);
    const double exact = -std::expm1((eps - 0.5) / 2);
    check_ordered(d);
    CHECK(d.lower <= exact);
    CHECK(exact <= d.upper);
  }
  prv_accountant many({.eps_error = 0.01, .delta_error = 1e-10});
  many.add(prv::laplace(1), 3).add(prv::laplace(2), 2);
  const auto m = many.compose();
  const prv_bounds e = m.epsilon(1e-6);
  check_ordered(e);
  CHECK(e.lower <= 4 - 3.2e-5);
  CHECK(4 - 3.2e-5 <= e.upper);
  CHECK(e.upper <= 4 + 0.01 + 2.5 * m.mesh() + 1e-9);
  CHECK(m.delta(4).lower == 0);
}

TEST_CASE("PRV's DP-SGD epsilon is below RDP's and agrees with the PLD's") {
  // q = 0.01, sigma = 1.1, 1000 steps, delta = 1e-5: privet's PLD (h = 1e-3,
  // within 1e-3 relative of its converged value, pld_test.cpp) and RDP on
  // dp_accounting's orders.
  const double delta = 1e-5;
  prv_accountant acc({.eps_error = 0.01, .delta_error = 1e-10});
  acc.add(prv::subsampled_gaussian(0.01, 1.1), 1000);
  const prv_bounds b = acc.epsilon(delta);
  check_ordered(b);
  const double via_rdp =
      privet::to_approx_dp(privet::rdp_subsampled_gaussian(0.01, 1.1).composed(1000), delta)
          .epsilon();
  const double via_pld = privet::privacy_loss_distribution::subsampled_gaussian(0.01, 1.1, {1e-3})
                             .self_compose(1000)
                             .epsilon(delta)
                             .epsilon();
  CHECK(b.upper < via_rdp);
  CHECK(b.estimate == doctest::Approx(via_pld).epsilon(2e-3));
  CHECK(b.upper <= 1.01 * via_pld);
  // The PLD is an upper bound on the truth, which the lower bound is under.
  CHECK(b.lower <= via_pld);
  // Its delta at the PRV's upper epsilon holds, and at the lower fails.
  const auto c = acc.compose();
  CHECK(c.delta(b.upper).estimate <= delta);
  CHECK(c.delta(b.lower).estimate >= delta);
}

TEST_CASE("PRV at 10^3 to 10^5 DP-SGD steps: prv_accountant's brackets and the old path's") {
  // Issue 34's job: q = 1e-3, sigma = 1, eps_error = 0.01, delta_error =
  // 1e-10, delta = 1e-5. theirs: microsoft/prv_accountant (github a844f72)
  // PRVAccountant(PoissonSubsampledGaussianMechanism(1e-3, 1), eps_error,
  // delta_error).compute_epsilon(1e-5, k), run by bench/compare_prv.py
  // (lower, estimate, upper). old: privet before issue 34 (3da5b25's parent:
  // one complex KISS FFT at 2^a 3^b 5^c points per order, every frequency
  // kept), whose bracket held the truth as this one must.
  struct row {
    std::uint64_t steps;
    double their_lower, their_estimate, their_upper, old_lower, old_upper;
  };
  const std::vector<row> rows{
      {1'000, 0.13892416423, 0.14892431948, 0.15892447473, 0.138924, 0.158925},
      {10'000, 0.46576958261, 0.47576994624, 0.48577030986, 0.465764, 0.485775},
      {100'000, 1.62717798400, 1.63717901120, 1.64718003840, 1.627024, 1.647330},
  };
  for (const auto& r : rows) {
    CAPTURE(r.steps);
    prv_accountant acc({.eps_error = 0.01, .delta_error = 1e-10});
    acc.add(prv::subsampled_gaussian(1e-3, 1), r.steps);
    const auto c = acc.compose();
    const prv_bounds b = c.epsilon(1e-5);
    check_ordered(b);
    // The estimate is prv_accountant's (the same composition).
    CHECK(b.estimate == doctest::Approx(r.their_estimate).epsilon(0).scale(1).epsilon(1e-5));
    // The upper bound is at least theirs (privet also subtracts its
    // floating-point allowance) and no wider than the old path's: the two
    // old values are printed to 6 places, hence 1e-6.
    CHECK(b.upper >= r.their_upper - 1e-5);
    CHECK(b.upper <= r.old_upper + 1e-6);
    CHECK(b.lower >= r.old_lower - 1e-6);
    CHECK(b.lower <= r.their_lower + 1e-5);
    // The floating-point allowance is what the direct spectra buy: at most
    // 2e-14 per step (the old path's was about 1.5e-13 per step, 1.46e-8 at
    // 10^5).
    CHECK(c.numerical_error() <= 2e-14 * static_cast<double>(r.steps));
  }
  // Never above the truth: privet's PLD (pessimistic, h = 1e-4) bounds the
  // true epsilon from above, so the lower bound must be under it.
  prv_accountant acc({.eps_error = 0.01, .delta_error = 1e-10});
  acc.add(prv::subsampled_gaussian(1e-3, 1), 100'000);
  const prv_bounds b = acc.epsilon(1e-5);
  const double via_pld = privet::privacy_loss_distribution::subsampled_gaussian(1e-3, 1, {1e-4})
                             .self_compose(100'000)
                             .epsilon(1e-5)
                             .epsilon();
  CHECK(b.lower <= via_pld);
  CHECK(b.estimate == doctest::Approx(via_pld).epsilon(2e-3));
}

TEST_CASE("PRV brackets exact compositions of many steps") {
  // The spectra computed at the few live frequencies alone (many steps, a
  // window much wider than one step) and the full transform (a lattice sum
  // whose spectrum stays wide): k Gaussians are exactly sqrt(k) / sigma-GDP
  // (Dong, Roth & Su 2022, Corollary 3.3), k randomised responses have
  // Kairouz, Oh & Viswanath's optimal composition (2015, Theorem 3.3).
  const double eps_error = 0.01;
  for (const auto& job :
       {std::pair{100.0, std::uint64_t{100'000}}, std::pair{20.0, std::uint64_t{5'000}}}) {
    const double sigma = job.first;  // named copies: clang 14 cannot capture a binding
    const std::uint64_t steps = job.second;
    CAPTURE(steps);
    prv_accountant acc({.eps_error = eps_error, .delta_error = 1e-10});
    acc.add(prv::gaussian(sigma), steps);
    const auto c = acc.compose();
    const privet::gdp total(std::sqrt(static_cast<double>(steps)) / sigma);
    check_against_gdp(c, total, eps_error, {1e-3, 1e-5, 1e-8}, {0.0, 1.0, 3.0});
  }
  const double eps = 0.05;
  const std::uint64_t k = 2'000;
  prv_accountant rr({.eps_error = eps_error, .delta_error = 1e-10});
  rr.add(prv::randomized_response(eps), k);
  const auto c = rr.compose();
  const privet::approx_dp each(eps, 0);
  for (double delta : {1e-3, 1e-6}) {
    CAPTURE(delta);
    const prv_bounds b = c.epsilon(delta);
    const double exact = privet::compose_optimal(each, k, delta).epsilon();
    CHECK(b.lower <= exact);
    CHECK(exact <= b.upper);
  }
}

TEST_CASE("PRV composes heterogeneous mechanisms (prv_accountant's README example)") {
  // microsoft/prv_accountant README.md (and tests/test_readme.py): a
  // subsampled Gaussian (sigma 0.8, q 5e-3) 100 times, a Gaussian (sigma 8)
  // 200 times and a Laplace (their mu = 0.1, i.e. eps0 = 0.1) 100 times,
  // eps_error 0.1, delta_error 1e-10, delta 1e-6. The README prints no
  // values. privet's PLD of the same composition (h = 1e-3: 11.1505, and
  // 11.1508 at h = 1e-4) is an upper bound on the truth, so the lower bound
  // must be below it, and close to the truth, so it must also be below the
  // upper bound (the bracket is 0.2 wide).
  prv_accountant acc({.eps_error = 0.1, .delta_error = 1e-10});
  acc.add(prv::subsampled_gaussian(5e-3, 0.8), 100)
      .add(prv::gaussian(8.0), 200)
      .add(prv::laplace(1, 0.1), 100);
  CHECK(acc.steps() == 400);
  const auto [lo, est, hi] = acc.epsilon(1e-6);
  using pld = privet::privacy_loss_distribution;
  const auto p = pld::subsampled_gaussian(5e-3, 0.8, {1e-3})
                     .self_compose(100)
                     .compose(pld::gaussian(8.0, 1, {1e-3}).self_compose(200))
                     .compose(pld::laplace(1, 0.1, {1e-3}).self_compose(100));
  const double via_pld = p.epsilon(1e-6).epsilon();
  CHECK(lo <= est);
  CHECK(est <= hi);
  CHECK(lo <= via_pld);
  CHECK(via_pld <= hi);
  CHECK(hi - lo <= 0.21);
}

TEST_CASE("PRV epsilons grow with the steps and shrink with the noise") {
  // DP-SGD, q = 0.01, delta = 1e-5: more steps or less noise never helps;
  // the settings are far enough apart that the bounds' own widths (0.02)
  // cannot blur the order.
  auto eps = [](double sigma, std::uint64_t steps) {
    prv_accountant acc({.eps_error = 0.01, .delta_error = 1e-10});
    acc.add(prv::subsampled_gaussian(0.01, sigma), steps);
    return acc.epsilon(1e-5);
  };
  prv_bounds prev = eps(1.1, 250);
  for (std::uint64_t steps : {500u, 1000u, 2000u}) {
    CAPTURE(steps);
    const prv_bounds b = eps(1.1, steps);
    CHECK(b.lower > prev.lower);
    CHECK(b.estimate > prev.estimate);
    CHECK(b.upper > prev.upper);
    CHECK(b.lower > prev.estimate);
    prev = b;
  }
  prev = eps(0.8, 500);
  for (double sigma : {1.1, 1.5, 2.0}) {
    CAPTURE(sigma);
    const prv_bounds b = eps(sigma, 500);
    CHECK(b.lower < prev.lower);
    CHECK(b.estimate < prev.estimate);
    CHECK(b.upper < prev.upper);
    prev = b;
  }
}

TEST_CASE("PRV mechanisms: orders and identities") {
  CHECK_FALSE(prv::subsampled_gaussian(0.1, 1).symmetric());
  CHECK(prv::subsampled_gaussian(1, 1).symmetric());
  CHECK(prv::gaussian(1).symmetric());
  CHECK(prv::laplace(1).symmetric());
  // q = 1 is the Gaussian; sensitivity d / sigma is all that matters.
  prv_accountant a, b, c;
  a.add(prv::subsampled_gaussian(1, 2), 5);
  b.add(prv::gaussian(2), 5);
  c.add(prv::gaussian(4, 2), 5);
  CHECK(a.epsilon(1e-6).upper == b.epsilon(1e-6).upper);
  CHECK(b.epsilon(1e-6).upper == doctest::Approx(c.epsilon(1e-6).upper).epsilon(1e-12));
  // Splitting the steps of one mechanism over two entries changes nothing
  // but the composition's order of products.
  prv_accountant whole, split;
  whole.add(prv::subsampled_gaussian(0.05, 1), 60);
  split.add(prv::subsampled_gaussian(0.05, 1), 20).add(prv::subsampled_gaussian(0.05, 1), 40);
  CHECK(whole.epsilon(1e-5).estimate ==
        doctest::Approx(split.epsilon(1e-5).estimate).epsilon(1e-9));
  // A composition answers any number of queries; the accountant's
  // shortcuts agree with it.
  const auto comp = whole.compose();
  CHECK(whole.compose(1e-5).epsilon(1e-5).upper == whole.epsilon(1e-5).upper);
  CHECK(comp.delta(1).upper == whole.delta(1).upper);
  CHECK(comp.failure_probability() <= comp.delta_error());
  CHECK(comp.mesh() > 0);
  CHECK(comp.size() > 0);
}

TEST_CASE("bad PRV inputs throw, naming the parameter") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(prv::subsampled_gaussian(0, 1), "privet: q = 0 is invalid; allowed: (0, 1]",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv::subsampled_gaussian(1.5, 1),
                       "privet: q = 1.5 is invalid; allowed: (0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS(prv::subsampled_gaussian(0.1, 0),
                       "privet: noise_multiplier = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv::subsampled_gaussian(0.1, -1.1),
                       "privet: noise_multiplier = -1.1 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  // So little noise that the loss would overflow a double.
  CHECK(thrown_parameter([] { prv::subsampled_gaussian(0.1, 0.01); }) == "noise_multiplier");
  CHECK_THROWS_WITH_AS(prv::gaussian(0), "privet: sigma = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv::gaussian(1, -1),
                       "privet: sensitivity = -1 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv::laplace(0), "privet: scale = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv::randomized_response(0),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv::randomized_response(1, 1), "privet: k = 1 is invalid; allowed: >= 2",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv::pure_dp(-1), "privet: epsilon = -1 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv_accountant({.eps_error = 0}),
                       "privet: eps_error = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv_accountant({.eps_error = -0.1}),
                       "privet: eps_error = -0.1 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(prv_accountant({.eps_error = 0.1, .delta_error = 0}),
                       "privet: delta_error = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(prv_accountant({.eps_error = 0.1, .delta_error = 1}),
                       "privet: delta_error = 1 is invalid; allowed: (0, 1)", invalid_parameter);
  prv_accountant acc;
  CHECK_THROWS_WITH_AS(acc.add(prv::gaussian(1), 0), "privet: steps = 0 is invalid; allowed: >= 1",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(static_cast<void>(acc.compose()),
                       "privet: mechanisms is empty; allowed: at least one element",
                       invalid_parameter);
  CHECK_THROWS_AS(static_cast<void>(acc.epsilon(1e-5)), invalid_parameter);
  acc.add(prv::gaussian(1), 10);
  CHECK_THROWS_WITH_AS(static_cast<void>(acc.epsilon(0)),
                       "privet: delta = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(static_cast<void>(acc.epsilon(1)),
                       "privet: delta = 1 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(static_cast<void>(acc.delta(-1)),
                       "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  // A mesh too fine for the loss range is refused rather than allocated.
  prv_accountant fine({.eps_error = 1e-7, .delta_error = 1e-10});
  fine.add(prv::subsampled_gaussian(0.01, 1.1), 10'000);
  CHECK(thrown_parameter([&] { static_cast<void>(fine.compose()); }) == "eps_error");
}

TEST_CASE("PRV accountant messages for nothing recorded and too many steps") {
  prv_accountant acc;
  CHECK_THROWS_WITH_AS(static_cast<void>(acc.epsilon(1e-5)),
                       "privet: mechanisms is empty; allowed: at least one element",
                       privet::invalid_parameter);
  acc.add(prv::gaussian(1), std::uint64_t{1} << 40);  // exactly the limit: accepted
  CHECK_THROWS_WITH_AS(acc.add(prv::gaussian(1), 1),
                       "privet: more than 2^40 steps in one prv_accountant",
                       privet::overflow_error);
  CHECK(acc.steps() == std::uint64_t{1} << 40);
}

TEST_CASE("PRV's default delta_error is delta / 1000, as Opacus's") {
  // Opacus's PRVAccountant.get_epsilon(delta) uses delta_error = delta /
  // 1000 unless told otherwise; so does privet when prv_options leaves it
  // unset, bit for bit the same as setting it by hand.
  prv_accountant relative;
  relative.add(prv::subsampled_gaussian(0.001, 3.0), 1000);
  prv_accountant by_hand({.eps_error = 0.01, .delta_error = 1e-6 / 1000});
  by_hand.add(prv::subsampled_gaussian(0.001, 3.0), 1000);
  CHECK(relative.compose(1e-6).delta_error() == 1e-6 * privet::prv_relative_delta_error);
  CHECK(relative.epsilon(1e-6).upper == by_hand.epsilon(1e-6).upper);
  CHECK(privet::to_approx_dp(relative, 1e-6).epsilon() == by_hand.epsilon(1e-6).upper);
  // With no delta to scale by, compose() and delta(epsilon) use 1e-10.
  CHECK(relative.compose().delta_error() == privet::prv_untargeted_delta_error);
  // The old absolute default 1e-10 refused delta = 1e-10; the relative one
  // answers it, with bounds around the exact Gaussian epsilon (10 runs of
  // sigma = 2: mu = sqrt(10) / 2 GDP, Dong, Roth & Su 2022).
  prv_accountant gauss;
  gauss.add(prv::gaussian(2), 10);
  prv_accountant absolute({.eps_error = 0.01, .delta_error = 1e-10});
  absolute.add(prv::gaussian(2), 10);
  CHECK(thrown_parameter([&] { static_cast<void>(absolute.epsilon(1e-10)); }) == "delta");
  const prv_bounds b = gauss.epsilon(1e-10);
  check_ordered(b);
  const double exact = privet::to_approx_dp(privet::gdp(std::sqrt(10.0) / 2), 1e-10).epsilon();
  CHECK(b.lower <= exact);
  CHECK(exact <= b.upper);
  CHECK(b.upper - exact < 0.05);
}
