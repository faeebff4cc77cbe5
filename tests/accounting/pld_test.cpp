// Privacy loss distributions: known answers from dp_accounting's test suite
// (google/differential-privacy, python/dp_accounting/dp_accounting/pld/
// privacy_loss_distribution_test.py and pld_privacy_accountant_test.py),
// exact hockey-stick divergences where they exist (Gaussian via GDP,
// Laplace, randomised response and its optimal composition, the discrete
// Gaussian by direct summation), pessimism against each of them, the
// ordering PLD <= RDP for DP-SGD, and the documented errors.
#include <privet/accounting/composition.hpp>
#include <privet/accounting/detail/real_fft.hpp>
#include <privet/accounting/pld.hpp>
#include <privet/accounting/rdp.hpp>
#include <privet/core/analytic_gaussian.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <map>
#include <numbers>
#include <utility>
#include <vector>

namespace {

using privet::pld_discretization;
using privet::pld_options;
using pld = privet::privacy_loss_distribution;

constexpr auto round_up = pld_discretization::round_up;
constexpr auto connect_dots = pld_discretization::connect_dots;

// dp_accounting's truncation in its Gaussian tests: log_mass_truncation_bound
// = log(2) + log Phi(-0.9), i.e. Phi(-0.9) on each side.
const double phi_minus_09 = 0.5 * std::erfc(0.9 / std::numbers::sqrt2);

// Their dictionaries are compared with assertAlmostEqual (7 places).
void check_pmf(const privet::pld_pmf& p, const std::map<std::int64_t, double>& expected) {
  double listed = 0;
  for (const auto& entry : expected) {
    const std::int64_t i = entry.first;
    const double mass = entry.second;
    CAPTURE(i);
    CHECK(p.mass_at(i) == doctest::Approx(mass).epsilon(0).scale(1).epsilon(5e-8));
    listed += p.mass_at(i);
  }
  CHECK(p.finite_mass() == doctest::Approx(listed).epsilon(1e-12));
}

// mu-GDP's exact delta (Dong, Roth & Su 2022, Corollary 2.13) through
// privet's implementation for eps >= 0; for the bracket's eps - h < 0 the
// formula Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) directly (no
// cancellation there: delta is near its maximum).
double gaussian_delta(double mu, double eps) {
  if (eps >= 0) return privet::gdp_delta(privet::gdp(mu), eps);
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); };
  return phi(-eps / mu + mu / 2) - std::exp(eps) * phi(-eps / mu - mu / 2);
}

// Laplace(b) on sensitivity d is eps0 = d / b DP with delta(eps) =
// 1 - e^{(eps - eps0) / 2} for |eps| <= eps0 (integrating the loss's tails).
double laplace_delta(double eps0, double eps) {
  return eps >= eps0 ? 0 : -std::expm1((eps - eps0) / 2);
}

// An upper bracket for a PLD's delta: `bound` plus what the PLD carries at
// +infinity (truncated tails and round-off allowances), with 1e-12 relative
// for the PLD's 1e-14 inflation and the reference formulas' own rounding.
double up_to(double bound, const pld& p) {
  return (bound + std::max(p.remove().infinity_mass(), p.add().infinity_mass())) * (1 + 1e-12);
}

}  // namespace

TEST_CASE("Laplace PLDs match dp_accounting's pmfs") {
  // test_laplace_varying_parameter_and_sensitivity (sampling_prob = 1).
  const pld_options ru{1, 1e-15, round_up};
  check_pmf(pld::laplace(1, 1, ru).remove(), {{1, 0.69673467}, {0, 0.11932561}, {-1, 0.18393972}});
  check_pmf(pld::laplace(3, 3, ru).remove(), {{1, 0.69673467}, {0, 0.11932561}, {-1, 0.18393972}});
  check_pmf(
      pld::laplace(1, 2, ru).remove(),
      {{2, 0.69673467}, {1, 0.11932561}, {0, 0.07237464}, {-1, 0.04389744}, {-2, 0.06766764}});
  // test_laplace_discretization, interval 0.5.
  check_pmf(
      pld::laplace(1, 1, {0.5, 1e-15, round_up}).remove(),
      {{2, 0.61059961}, {1, 0.08613506}, {0, 0.06708205}, {-1, 0.05224356}, {-2, 0.18393972}});
  // test_laplace_varying_parameter_and_sensitivity_connect_dots.
  const pld_options cd{1, 1e-15, connect_dots};
  check_pmf(pld::laplace(1, 1, cd).remove(), {{1, 0.62245933}, {0, 0.14855068}, {-1, 0.22898999}});
  check_pmf(
      pld::laplace(1, 2, cd).remove(),
      {{2, 0.62245933}, {1, 0.14855068}, {0, 0.09010054}, {-1, 0.05464874}, {-2, 0.08424071}});
  // test_laplace_discretization_connect_dots, interval 0.5.
  check_pmf(
      pld::laplace(1, 1, {0.5, 1e-15, connect_dots}).remove(),
      {{2, 0.56217650}, {1, 0.09684622}, {0, 0.07542391}, {-1, 0.05874020}, {-2, 0.20681318}});
  CHECK(pld::laplace(1).symmetric());
}

TEST_CASE("Gaussian PLDs match dp_accounting's pmfs") {
  // test_gaussian_varying_standard_deviation_and_sensitivity and
  // test_gaussian_discretization: their +infinity mass is asserted >= Phi(-0.9).
  const pld_options ru{1, 2 * phi_minus_09, round_up};
  const auto g11 = pld::gaussian(1, 1, ru).remove();
  check_pmf(g11, {{2, 0.12447741}, {1, 0.38292492}, {0, 0.24173034}, {-1, 0.0668072}});
  CHECK(g11.infinity_mass() >= phi_minus_09);
  // (3, 6) and interval 0.5: dp_accounting truncates the low-loss side at
  // Q's quantile, privet at P's (a shorter range): the points above agree,
  // and privet's lowest point holds the sum of theirs at and below it.
  const auto g36 = pld::gaussian(3, 6, ru).remove();
  check_pmf(g36, {{1, 0.14988228},
                  {2, 0.19146246},
                  {3, 0.19146246},
                  {4, 0.12447741},
                  {0, 0.09184805 + 0.04405707 + 0.01654047 + 0.00620967}});
  CHECK(g36.lowest_index() == 0);
  check_pmf(pld::gaussian(1, 1, {0.5, 2 * phi_minus_09, round_up}).remove(),
            {{3, 0.12447741},
             {2, 0.19146246},
             {1, 0.19146246},
             {0, 0.14988228},
             {-1, 0.09184805 + 0.06680720}});
  // test_gaussian_varying_standard_deviation_and_sensitivity_connect_dots,
  // (1, 1): the grid points above the truncation's lower end and the
  // +infinity mass delta(2) agree; below it dp_accounting keeps one more
  // point than privet, which moves that mass up onto l = -1 instead.
  const auto c11 = pld::gaussian(1, 1, {1, 2 * phi_minus_09, connect_dots}).remove();
  CHECK(c11.mass_at(2) == doctest::Approx(0.167710257).epsilon(1e-8));
  CHECK(c11.mass_at(1) == doctest::Approx(0.343270190).epsilon(1e-8));
  CHECK(c11.mass_at(0) == doctest::Approx(0.319116756).epsilon(1e-8));
  CHECK(c11.infinity_mass() == doctest::Approx(0.020923636).epsilon(1e-7));
  CHECK(c11.mass_at(-1) == doctest::Approx(0.126282046 + 0.022697115).epsilon(1e-7));
}

TEST_CASE("discrete Laplace and randomised response PLDs match dp_accounting's pmfs") {
  // test_discrete_laplace_varying_parameter_and_sensitivity: their parameter
  // is 1 / t.
  const pld_options ru{1, 1e-15, round_up};
  check_pmf(pld::discrete_laplace(1, 1, ru).remove(), {{1, 0.73105858}, {-1, 0.26894142}});
  check_pmf(pld::discrete_laplace(1, 2, ru).remove(),
            {{2, 0.73105858}, {0, 0.17000340}, {-2, 0.09893802}});
  check_pmf(pld::discrete_laplace(1 / 0.8, 2, ru).remove(),
            {{2, 0.68997448}, {0, 0.17072207}, {-1, 0.13930345}});
  check_pmf(pld::discrete_laplace(1 / 0.8, 3, ru).remove(),
            {{3, 0.68997448}, {1, 0.17072207}, {0, 0.07671037}, {-2, 0.06259307}});
  // ..._connect_dots and test_discrete_laplace_discretization(_connect_dots).
  const pld_options cd{1, 1e-15, connect_dots};
  check_pmf(
      pld::discrete_laplace(1 / 0.8, 2, cd).remove(),
      {{2, 0.492482728}, {1, 0.197491753}, {0, 0.170722074}, {-1, 0.072653156}, {-2, 0.066650289}});
  check_pmf(pld::discrete_laplace(1, 1, {0.03, 1e-15, round_up}).remove(),
            {{34, 0.73105858}, {-33, 0.26894142}});
  check_pmf(pld::discrete_laplace(1, 1, {0.03, 1e-15, connect_dots}).remove(),
            {{34, 0.246127076}, {33, 0.484931503}, {-33, 0.180189243}, {-34, 0.088752178}});
  // test_randomized_response_basic / _discretization: their noise parameter
  // p and k buckets keep the value with probability 1 - p + p / k, i.e.
  // epsilon = log((1 - p + p / k) / (p / k)): log 3 for (0.5, 2), log 17
  // for (0.2, 4).
  check_pmf(pld::randomized_response(std::log(3.0), 2, ru).remove(), {{2, 0.75}, {-1, 0.25}});
  check_pmf(pld::randomized_response(std::log(17.0), 4, ru).remove(),
            {{3, 0.85}, {-2, 0.05}, {0, 0.1}});
  check_pmf(pld::randomized_response(std::log(17.0), 4, {0.7, 1e-15, round_up}).remove(),
            {{5, 0.85}, {-4, 0.05}, {0, 0.1}});
  check_pmf(pld::randomized_response(std::log(17.0), 4, {2, 1e-15, round_up}).remove(),
            {{2, 0.85}, {-1, 0.05}, {0, 0.1}});
}

TEST_CASE("composed PLDs match dp_accounting's accountant tests") {
  // pld_privacy_accountant_test.py, default interval 1e-4 and tolerances.
  // test_gaussian_basic: sigma = sqrt(3), composed 1 + 2 times.
  const auto g = pld::gaussian(std::sqrt(3.0));
  const auto g3 = g.compose(g.self_compose(2));
  CHECK(g3.delta(1) == doctest::Approx(0.126936).epsilon(0).scale(1).epsilon(1e-3));
  CHECK(g3.epsilon(0.126936).epsilon() == doctest::Approx(1).epsilon(1e-3));
  // test_poisson_subsampled_gaussian: q = 0.2, sigma = 0.5, 1 + 2 times.
  const auto s = pld::subsampled_gaussian(0.2, 0.5);
  CHECK_FALSE(s.symmetric());
  const auto s3 = s.compose(s.self_compose(2));
  CHECK(s3.delta(1) == doctest::Approx(0.15594).epsilon(0).scale(1).epsilon(1e-3));
  CHECK(s3.epsilon(0.15594).epsilon() == doctest::Approx(1).epsilon(1e-3));
  // test_self_composed_subsampled_gaussian: the same as one 3-fold event.
  CHECK(s.self_compose(3).delta(1) == doctest::Approx(0.15594).epsilon(0).scale(1).epsilon(1e-3));
  // test_laplace_basic: Laplace(1) x 3 and Laplace(2) x 2 is 4-DP.
  const auto l = pld::laplace(1).self_compose(3).compose(pld::laplace(2).self_compose(2));
  CHECK(l.delta(4) <= 1e-6);
  // test_discrete_laplace_basic: parameters 1 (x 3) and 0.5 (x 2), 4-DP.
  const auto dl =
      pld::discrete_laplace(1).self_compose(3).compose(pld::discrete_laplace(2).self_compose(2));
  CHECK(dl.delta(4) <= 1e-6);
}

TEST_CASE("the Gaussian PLD brackets the exact delta") {
  // L_PLD <= L + h pointwise (rounding up, or splitting onto the two
  // neighbouring grid points), so delta(eps) <= exact delta(eps - h); and
  // never below the exact value. Connect-the-dots is exact at grid points,
  // and between them below the exact delta at the grid point below.
  for (double mu : {0.25, 1.0, 3.0}) {
    for (auto d : {round_up, connect_dots}) {
      const pld_options o{1e-4, 1e-15, d};
      const auto p = pld::gaussian(1 / mu, 1, o);
      for (double eps : {0.0, 0.1, 0.50005, 1.0, 2.345678, 5.0}) {
        CAPTURE(mu);
        CAPTURE(eps);
        const double exact = gaussian_delta(mu, eps);
        const double got = p.delta(eps);
        CHECK(got >= exact);
        CHECK(got <= up_to(gaussian_delta(mu, eps - 1e-4), p));
        if (d == connect_dots) {
          const double grid = std::floor(eps / 1e-4 + 1e-9) * 1e-4;
          CHECK(got <= up_to(gaussian_delta(mu, grid), p));
        }
      }
    }
  }
}

TEST_CASE("k Gaussians compose to the Gaussian with mu sqrt(k)") {
  // Exact: the composition of k mu-GDP Gaussians is (mu sqrt k)-GDP. Each
  // step's loss moves up by less than h, so the k-fold PLD is between the
  // exact delta at eps and at eps - k h; connect-the-dots' error is of
  // second order and its delta is within 1e-6 of the exact one here.
  const double mu = 0.3;
  const std::uint64_t k = 50;
  const double big_mu = mu * std::sqrt(static_cast<double>(k));
  for (auto d : {round_up, connect_dots}) {
    const auto p = pld::gaussian(1 / mu, 1, {1e-4, 1e-15, d}).self_compose(k);
    for (double eps : {0.0, 0.5, 1.0, 2.0, 4.0}) {
      CAPTURE(eps);
      const double exact = gaussian_delta(big_mu, eps);
      const double got = p.delta(eps);
      CHECK(got >= exact);
      CHECK(got <= up_to(gaussian_delta(big_mu, eps - 50e-4), p));
      if (d == connect_dots) CHECK(got - exact <= 1e-6);
    }
  }
  // Pairwise composition agrees with the FFT power.
  const auto one = pld::gaussian(1 / mu);
  auto acc = one;
  for (int i = 1; i < 8; ++i) acc = acc.compose(one);
  const auto pow8 = one.self_compose(8);
  for (double eps : {0.0, 0.5, 1.5}) {
    CHECK(acc.delta(eps) == doctest::Approx(pow8.delta(eps)).epsilon(1e-9));
  }
}

TEST_CASE("Laplace, randomised response and discrete Gaussian PLDs are pessimistic and tight") {
  // Laplace: the closed form 1 - e^{(eps - eps0) / 2}.
  for (auto d : {round_up, connect_dots}) {
    const auto p = pld::laplace(2, 1, {1e-4, 1e-15, d});
    for (double eps : {0.0, 0.1, 0.25, 0.4, 0.5, 0.7}) {
      CAPTURE(eps);
      CHECK(p.delta(eps) >= laplace_delta(0.5, eps));
      CHECK(p.delta(eps) <= up_to(laplace_delta(0.5, eps - 1e-4), p));
    }
  }
  // Randomised response: delta(eps') = p_true (1 - e^{eps' - eps}) below eps.
  for (std::uint64_t k : {2u, 5u}) {
    const double eps = 1.3;
    const double p_true = std::exp(eps) / (std::exp(eps) + static_cast<double>(k - 1));
    const auto p = pld::randomized_response(eps, k);
    for (double e : {0.0, 0.5, 1.2999, 1.3, 2.0}) {
      CAPTURE(e);
      const double exact = e >= eps ? 0 : p_true * -std::expm1(e - eps);
      CHECK(p.delta(e) >= exact);
      CHECK(p.delta(e) <= up_to(exact, p));
    }
  }
  // Discrete Gaussian (sigma = 0.8, sensitivity 2) against the divergence
  // summed over the integers directly.
  const double sigma = 0.8;
  double z = 0;
  for (int x = -60; x <= 60; ++x) z += std::exp(-x * x / (2 * sigma * sigma));
  const auto p = pld::discrete_gaussian(sigma, 2);
  for (double eps : {0.0, 1.0, 3.0, 6.0}) {
    double exact = 0;
    for (int x = -60; x <= 60; ++x) {
      const double px = std::exp(-x * x / (2 * sigma * sigma)) / z;
      const double qx = std::exp(-(x - 2) * (x - 2) / (2 * sigma * sigma)) / z;
      exact += std::max(0.0, px - std::exp(eps) * qx);
    }
    CAPTURE(eps);
    CHECK(p.delta(eps) >= exact);
    CHECK(p.delta(eps) <= up_to(exact, p));
  }
}

TEST_CASE("k-fold randomised response equals the optimal composition") {
  // Binary randomised response is the extremal eps-DP mechanism, so its
  // k-fold PLD gives exactly Kairouz, Oh & Viswanath's optimal composition
  // (compose_optimal_delta). eps = 0.5 is a grid point of h = 1e-4, so the
  // PLD is exact up to round-off and truncation (h = 1e-3 keeps the 100-fold
  // loss range, +-50, at 10^5 points).
  const double eps = 0.5;
  for (std::uint64_t k : {3u, 20u, 100u}) {
    const auto p = pld::randomized_response(eps, 2, {1e-3}).self_compose(k);
    for (double e : {0.0, 0.3, 1.0, 2.5}) {
      CAPTURE(k);
      CAPTURE(e);
      const double exact = privet::compose_optimal_delta(privet::approx_dp(eps, 0), k, e);
      CHECK(p.delta(e) >= exact);
      CHECK(p.delta(e) <= up_to(exact, p));
    }
    const double target = 1e-4;
    const double optimal = privet::compose_optimal(privet::approx_dp(eps, 0), k, target).epsilon();
    const double got = p.epsilon(target).epsilon();
    CHECK(got >= optimal * (1 - 1e-9));
    CHECK(privet::compose_optimal_delta(privet::approx_dp(eps, 0), k, got) <= target);
    CHECK(got <= optimal + 1e-3);
  }
}

TEST_CASE("the PLD's DP-SGD epsilon is below RDP's and its delta holds") {
  struct setting {
    double q, sigma;
    std::uint64_t steps;
  };
  for (const auto& s : {setting{0.01, 1.1, 1000}, setting{0.05, 2.0, 300}}) {
    const double delta = 1e-5;
    const auto p = pld::subsampled_gaussian(s.q, s.sigma, {1e-3}).self_compose(s.steps);
    const auto g = p.epsilon(delta);
    const double via_rdp =
        privet::to_approx_dp(privet::rdp_subsampled_gaussian(s.q, s.sigma).composed(s.steps), delta)
            .epsilon();
    CAPTURE(s.q);
    CHECK(g.epsilon() < via_rdp);
    CHECK(p.delta(g.epsilon()) <= delta);
    CHECK(p.delta(g.epsilon() * (1 - 1e-3)) > delta);
    // A finer grid moves epsilon by less than 1e-3 relative.
    const auto fine = pld::subsampled_gaussian(s.q, s.sigma, {2e-4}).self_compose(s.steps);
    CHECK(fine.epsilon(delta).epsilon() == doctest::Approx(g.epsilon()).epsilon(1e-3));
  }
  // The remove order is the worse one for the subsampled Gaussian at eps > 0.
  const auto p = pld::subsampled_gaussian(0.1, 1.0);
  CHECK(p.remove().delta(1.0) >= p.add().delta(1.0));
  CHECK(p.delta(1.0) == p.remove().delta(1.0));
}

TEST_CASE("bad PLD inputs throw, naming the parameter") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(pld::laplace(0), "privet: scale = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::gaussian(-1), "privet: sigma = -1 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::gaussian(1, 0),
                       "privet: sensitivity = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::subsampled_gaussian(0, 1), "privet: q = 0 is invalid; allowed: (0, 1]",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::subsampled_gaussian(1.5, 1),
                       "privet: q = 1.5 is invalid; allowed: (0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::subsampled_gaussian(0.1, 0),
                       "privet: noise_multiplier = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      pld::gaussian(1, 1, {0}),
      "privet: value_discretization_interval = 0 is invalid; allowed: finite and > 0",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::gaussian(1, 1, {1e-4, 1}),
                       "privet: tail_mass_truncation = 1 is invalid; allowed: (0, 1)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::randomized_response(0),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::randomized_response(1, 1), "privet: k = 1 is invalid; allowed: >= 2",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::discrete_laplace(1, 0),
                       "privet: sensitivity = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::discrete_gaussian(0),
                       "privet: sigma = 0 is invalid; allowed: finite and > 0", invalid_parameter);
  const auto g = pld::gaussian(1);
  CHECK_THROWS_WITH_AS(static_cast<void>(g.self_compose(0)),
                       "privet: k = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(static_cast<void>(g.delta(-1)),
                       "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(static_cast<void>(g.epsilon(0)),
                       "privet: delta = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(static_cast<void>(g.epsilon(1)),
                       "privet: delta = 1 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(
      static_cast<void>(g.compose(pld::gaussian(1, 1, {1e-3}))),
      "privet: value_discretization_interval = 0.001 is invalid; allowed: the same "
      "as the other PLD's, 1e-04",
      invalid_parameter);
  // A truncation of 0.1 leaves 0.05 at +infinity: no eps reaches delta = 1e-3.
  CHECK_THROWS_AS(static_cast<void>(pld::gaussian(1, 1, {1e-4, 0.1}).epsilon(1e-3)),
                  invalid_parameter);
  // A grid too fine for the loss range is refused rather than allocated.
  CHECK_THROWS_AS(pld::randomized_response(50, 2, {1e-7}), invalid_parameter);
}

TEST_CASE("PLD messages name the rest of the parameters") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(pld::laplace(1, -1),
                       "privet: sensitivity = -1 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::discrete_laplace(0),
                       "privet: scale = 0 is invalid; allowed: finite and > 0", invalid_parameter);
  CHECK_THROWS_WITH_AS(pld::discrete_gaussian(1, 0),
                       "privet: sensitivity = 0 is invalid; allowed: >= 1", invalid_parameter);
  // A grid too fine for the loss range: refused before allocating.
  CHECK_THROWS_WITH_AS(pld::randomized_response(50, 2, {1e-7}),
                       doctest::Contains("privet: value_discretization_interval = 1e-07 is "
                                         "invalid; allowed: coarse enough for the loss range (at "
                                         "most 2^27 grid points; this range needs "),
                       invalid_parameter);
  // (1, 1e-3)-DP puts mass 1e-3 at +infinity: no finite epsilon below it.
  CHECK_THROWS_WITH_AS(
      static_cast<void>(pld::from_guarantee(privet::approx_dp(1, 1e-3)).epsilon(1e-4)),
      doctest::Contains(
          "privet: delta = 1e-04 is invalid; allowed: > the mass at +infinity = 0.001"),
      invalid_parameter);
  // The two orders of one PLD must share a grid.
  CHECK_THROWS_WITH_AS(pld(privet::pld_pmf(1e-3, 0, {1.0}, 0), privet::pld_pmf(1e-4, 0, {1.0}, 0)),
                       "privet: value_discretization_interval = 1e-04 is invalid; allowed: the "
                       "same as the other PLD's, 0.001",
                       invalid_parameter);
}

TEST_CASE("a pmf given by its parts is checked: grid, masses, total and truncation") {
  using privet::invalid_parameter;
  using privet::pld_pmf;
  const double nan = std::nan("");
  CHECK_THROWS_WITH_AS(pld_pmf(0, 0, {1.0}, 0),
                       "privet: interval = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld_pmf(-1e-3, 0, {1.0}, 0),
                       "privet: interval = -0.001 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld_pmf(nan, 0, {1.0}, 0),
                       "privet: interval = nan is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld_pmf(1e-3, 0, {}, 1.0),
                       "privet: probs is empty; allowed: at least one element", invalid_parameter);
  CHECK_THROWS_WITH_AS(pld_pmf(1e-3, std::numeric_limits<std::int64_t>::max(), {0.5, 0.5}, 0),
                       "privet: probs.size() = 2 is invalid; allowed: <= 2^63 - lowest_index = "
                       "2^63 - 9223372036854775807 (the highest grid index must fit 64 bits)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld_pmf(1e-3, -1, {0.5, -0.25, 0.75}, 0),
                       "privet: probs[1] = -0.25 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld_pmf(1e-3, -1, {0.5, nan}, 0),
                       "privet: probs[1] = nan is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld_pmf(1e-3, 0, {1.0}, -0.0625),
                       "privet: infinity_mass = -0.0625 is invalid; allowed: [0, 1]",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld_pmf(1e-3, 0, {0.0}, 1.5),
                       "privet: infinity_mass = 1.5 is invalid; allowed: [0, 1]",
                       invalid_parameter);
  // Too much mass is no distribution; too little would understate delta.
  CHECK_THROWS_WITH_AS(pld_pmf(1e-3, 0, {0.75, 0.5}, 0),
                       "privet: sum(probs) + infinity_mass = 1.25 is invalid; allowed: 1 within "
                       "mass_tolerance = 1e-06 (a pmf of the privacy loss under P)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld_pmf(1e-3, 0, {0.25, 0.25}, 0.25),
                       "privet: sum(probs) + infinity_mass = 0.75 is invalid; allowed: 1 within "
                       "mass_tolerance = 1e-06 (a pmf of the privacy loss under P)",
                       invalid_parameter);
  // Within the tolerance either way, and all the mass at +infinity, are fine.
  CHECK(pld_pmf(1e-3, -2, {0.25, 0.5, 0.25 + 5e-7}, 0).finite_mass() > 1);
  CHECK(pld_pmf(1e-3, -2, {0.25, 0.5, 0.25 - 5e-7}, 0).finite_mass() < 1);
  CHECK(pld_pmf(1e-3, 0, {0.0}, 1.0).delta(3) == 1);
  // The truncation of a PLD built from parts.
  const pld_pmf ok(1e-3, 0, {1.0}, 0);
  CHECK_THROWS_WITH_AS(pld(ok, 0.0), "privet: tail_mass_truncation = 0 is invalid; allowed: (0, 1)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld(ok, ok, 1.0),
                       "privet: tail_mass_truncation = 1 is invalid; allowed: (0, 1)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pld(ok, nan),
                       "privet: tail_mass_truncation = nan is invalid; allowed: (0, 1)",
                       invalid_parameter);
}

TEST_CASE("privet's own pmfs pass the checks of a pmf given by its parts") {
  // Rebuilding each of them from its parts must succeed at the default
  // truncation (their pessimistic extra mass stays far below mass_tolerance).
  auto rebuild = [](const privet::pld_pmf& p) {
    return privet::pld_pmf(p.interval(), p.lowest_index(), p.probs(), p.infinity_mass());
  };
  const pld_options o{1e-3};
  for (const pld& p :
       {pld::gaussian(1.0, 1, o), pld::laplace(2.0, 1, o), pld::discrete_gaussian(3.0, 2, o),
        pld::discrete_laplace(1.5, 3, o), pld::randomized_response(1.0, 4, o),
        pld::from_guarantee(privet::approx_dp(1, 1e-3), o),
        pld::from_guarantee(privet::approx_dp(0, 0), o),
        pld::subsampled_gaussian(0.01, 1.1, o).self_compose(1000),
        pld::gaussian(2.0, 1, o).compose(pld::laplace(1.0, 1, o))}) {
    const auto r = rebuild(p.remove());
    const auto a = rebuild(p.add());
    CHECK(r.probs() == p.remove().probs());
    CHECK(a.infinity_mass() == p.add().infinity_mass());
  }
}

namespace {

// The subsampled Gaussian's remove-order delta in closed form, in long double
// (whose exponent reaches e^11356, so e^eps does not overflow at eps ~ 700):
// L > eps iff x > x* = s^2 log(1 + (e^eps - 1) / q) + 1/2, and delta =
// P(X > x*) - e^eps Q(X > x*) with P = (1 - q) N(0, s^2) + q N(1, s^2),
// Q = N(0, s^2). q = 1 is the Gaussian.
long double sg_remove_delta(long double q, long double s, long double eps) {
  auto sf = [](long double z) { return 0.5L * std::erfc(z / std::sqrt(2.0L)); };
  const long double x = s * s * std::log1p(std::expm1(eps) / q) + 0.5L;
  return (1 - q) * sf(x / s) + q * sf((x - 1) / s) - std::exp(eps) * sf(x / s);
}

// The eps where sg_remove_delta crosses `delta`, by 200 bisection steps.
double sg_remove_epsilon(double q, double s, double delta, double lo, double hi) {
  long double a = lo, b = hi;
  for (int i = 0; i < 200; ++i) {
    const long double m = (a + b) / 2;
    (sg_remove_delta(q, s, m) <= delta ? b : a) = m;
  }
  return static_cast<double>(b);
}

}  // namespace

TEST_CASE("PLD epsilon past ln(DBL_MAX) = 709.78 needs no quadratic scan and stays sound") {
  // Issue 22, finding 7: 1150 Gaussian steps at sigma = 1 took 27.6 s (1200:
  // over 120 s) because e^eps overflowed in the closed-form solve and a
  // linear scan of delta over the grid followed. The composition is the
  // Gaussian with mu = sqrt(k), whose epsilon is known in closed form (Balle
  // & Wang 2018), computed here in long double; 718.687757154037 and
  // 746.797285523662 also agree with mpmath at 60 digits.
  privet::pld_options o;
  o.value_discretization_interval = 1e-3;
  const auto step = privet::privacy_loss_distribution::gaussian(1, 1, o);
  for (std::uint64_t k : {1000u, 1150u, 1200u}) {
    const double got = step.self_compose(k).epsilon(1e-5).epsilon();
    const double mu = std::sqrt(static_cast<double>(k));
    // The Gaussian is sg_remove_delta at q = 1 with s = 1 / mu.
    const double exact = sg_remove_epsilon(1, 1 / mu, 1e-5, 300, 900);
    CAPTURE(k);
    CAPTURE(exact);
    CHECK(got >= exact);
    CHECK(got <= exact + 0.01);
  }
  CHECK(sg_remove_epsilon(1, 1 / std::sqrt(1150.0), 1e-5, 300, 900) ==
        doctest::Approx(718.687757154037).epsilon(1e-12));
}

TEST_CASE("PLDs whose losses pass 709.78 discretise without overflow and stay sound") {
  // One Gaussian at mu = sqrt(1150) and mu = 50, the Laplace mechanism at
  // eps0 = 800 and the subsampled Gaussian at q = 0.5, sigma = 0.03: e^l
  // overflowed in the connect-the-dots split (NaN masses) and the subsampled
  // Gaussian's loss range reached +inf (a hang in the grid index search).
  privet::pld_options o;
  o.value_discretization_interval = 1e-3;
  using privet::privacy_loss_distribution;
  for (double mu : {std::sqrt(1150.0), 50.0}) {
    const double got = privacy_loss_distribution::gaussian(1 / mu, 1, o).epsilon(1e-5).epsilon();
    const double exact = sg_remove_epsilon(1, 1 / mu, 1e-5, 300, 2000);
    CAPTURE(mu);
    CHECK(got >= exact);
    CHECK(got <= exact + 0.01);
  }
  // Laplace: delta(eps) = 1 - e^{(eps - eps0) / 2} for eps <= eps0.
  const auto lap = privacy_loss_distribution::laplace(1.0 / 800, 1, o);
  CHECK(lap.delta(799) >= 1 - std::exp(-0.5));
  CHECK(lap.delta(799) <= 1 - std::exp(-0.5) + 1e-3);
  const double lap_exact = 800 + 2 * std::log1p(-1e-5);
  CHECK(lap.epsilon(1e-5).epsilon() >= lap_exact);
  CHECK(lap.epsilon(1e-5).epsilon() <= lap_exact + 0.01);
  // Subsampled Gaussian (the add order is at most -log(1 - q) = 0.69 here).
  const double sg =
      privacy_loss_distribution::subsampled_gaussian(0.5, 0.03, o).epsilon(1e-5).epsilon();
  const double sg_exact = sg_remove_epsilon(0.5, 0.03, 1e-5, 1, 2000);
  CHECK(sg_exact == doctest::Approx(690.8356).epsilon(1e-6));
  CHECK(sg >= sg_exact);
  CHECK(sg <= sg_exact + 0.01);
}

TEST_CASE("a loss past 2^62 grid points names the discretisation, never overflows an index") {
  // sensitivity / scale = 1e300: the grid index of the top loss does not fit
  // 64 bits (converting it was undefined behaviour).
  CHECK_THROWS_WITH_AS(
      privet::privacy_loss_distribution::laplace(1e-300, 1),
      doctest::Contains("privet: value_discretization_interval = 1e-04 is invalid; allowed: "
                        "coarse enough for the loss range"),
      privet::invalid_parameter);
}

namespace {

// The k-fold composition of a pmf's finite part by direct convolution in
// long double (64-bit mantissa: its round-off, about 1e-19 relative per
// product, is far below the double FFT's allowance), and its delta(eps).
std::vector<long double> convolve_ld(const std::vector<long double>& a,
                                     const std::vector<long double>& b) {
  std::vector<long double> out(a.size() + b.size() - 1, 0.0L);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) out[i + j] += a[i] * b[j];
  return out;
}

struct reference_pmf {
  std::int64_t lowest;
  std::vector<long double> probs;
  long double inf;
  double h;
  [[nodiscard]] long double delta(double eps) const {
    long double s = inf;
    for (std::size_t j = 0; j < probs.size(); ++j) {
      const long double l = static_cast<long double>(lowest + static_cast<std::int64_t>(j)) * h;
      if (l > eps) s += probs[j] * -std::expm1(static_cast<long double>(eps) - l);
    }
    return s;
  }
};

reference_pmf self_compose_ld(const privet::pld_pmf& p, std::uint64_t k) {
  std::vector<long double> base(p.probs().begin(), p.probs().end());
  std::vector<long double> acc{1.0L};
  long double fin = 0, total_base = p.infinity_mass();
  for (double v : p.probs()) fin += v;
  total_base += fin;
  for (std::uint64_t e = k; e > 0; e >>= 1) {
    if (e & 1) acc = convolve_ld(acc, base);
    if (e > 1) base = convolve_ld(base, base);
  }
  const long double kk = static_cast<long double>(k);
  return {static_cast<std::int64_t>(k) * p.lowest_index(), acc,
          std::pow(total_base, kk) - std::pow(fin, kk), p.interval()};
}

}  // namespace

TEST_CASE("the real FFT is within its componentwise round-off bound") {
  // Reference: the DFT summed directly in long double with long-double
  // twiddles. forward(): every output within forward_error() ||x||_1;
  // inverse(): the outputs' 1-norm error within inverse_error() times the
  // spectrum's 1-norm over all n frequencies (real_fft.hpp).
  for (std::size_t n : {8, 16, 32, 512}) {
    CAPTURE(n);
    const privet::detail::real_fft fft(n);
    std::vector<double> x(n);
    std::uint64_t state = 12345;
    for (auto& v : x) {  // a fixed LCG: signed values of mixed magnitude
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      v = (static_cast<double>(state >> 11) * 0x1p-53 - 0.3) * std::pow(10.0, -double(state % 5));
    }
    double l1 = 0;
    for (double v : x) l1 += std::fabs(v);
    std::vector<std::complex<double>> f(n / 2 + 1);
    fft.forward(x.data(), f.data());
    const long double two_pi = 6.283185307179586476925286766559L;
    double worst = 0, spec_l1 = 0;
    for (std::size_t k = 0; k <= n / 2; ++k) {
      long double re = 0, im = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const long double a = -two_pi * static_cast<long double>((j * k) % n) / n;
        re += x[j] * std::cos(a);
        im += x[j] * std::sin(a);
      }
      worst = std::max(worst, std::hypot(static_cast<double>(f[k].real() - re),
                                         static_cast<double>(f[k].imag() - im)));
      spec_l1 += (k == 0 || k == n / 2 ? 1 : 2) * std::abs(f[k]);
    }
    CHECK(worst <= fft.forward_error() * l1);
    CHECK(worst > 0);  // the reference resolves the FFT's round-off
    std::vector<double> back(n);
    fft.inverse(f.data(), back.data());
    double err = 0;
    for (std::size_t j = 0; j < n; ++j) {
      long double s = 0;  // the exact inverse of the computed spectrum
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t kk = k <= n / 2 ? k : n - k;
        const long double sign = k <= n / 2 ? 1 : -1;
        const long double a = two_pi * static_cast<long double>((j * k) % n) / n;
        s += f[kk].real() * std::cos(a) - sign * f[kk].imag() * std::sin(a);
      }
      err += std::fabs(static_cast<double>(back[j] - s / n));
    }
    CHECK(err <= fft.inverse_error() * spec_l1);
  }
}

namespace {

// sum_l x_l e^{-2 pi i j l / n} in long double: the reference the direct
// DFTs are checked against.
std::complex<long double> long_double_dft(const std::vector<double>& x, std::size_t len,
                                          std::size_t n, std::size_t j) {
  const long double two_pi = 6.283185307179586476925286766559L;
  long double re = 0, im = 0;
  for (std::size_t l = 0; l < len; ++l) {
    const long double a = -two_pi * static_cast<long double>((j * l) % n) / n;
    re += x[l] * std::cos(a);
    im += x[l] * std::sin(a);
  }
  return {re, im};
}

}  // namespace

TEST_CASE("the direct DFTs are within their error bounds") {
  // Reference: the DFT at each frequency summed in long double with
  // long-double twiddles; every output of direct_dft within direct_dft_ulps
  // u ||x||_1 and of direct_dft_blocked within direct_dft_blocked_ulps u
  // ||x||_1 (pld.hpp), for lengths that leave a partial block.
  const double u = std::numeric_limits<double>::epsilon() / 2;
  for (std::size_t n : {64, 4096}) {
    const privet::detail::real_fft fft(n);
    for (std::size_t len : {std::size_t{5}, n / 2 + 3, n}) {
      CAPTURE(n);
      CAPTURE(len);
      std::vector<double> x(len);
      std::uint64_t state = 987654321;
      for (auto& v : x) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        v = (static_cast<double>(state >> 11) * 0x1p-53 - 0.3) * std::pow(10.0, -double(state % 4));
      }
      double l1 = 0;
      for (double v : x) l1 += std::fabs(v);
      const std::vector<std::size_t> js{0, 1, 7, n / 4 + 1, n / 2 - 1, n / 2};
      std::vector<std::complex<double>> got(js.size()), blocked(js.size());
      privet::detail::direct_dft(fft, x.data(), len, js, got);
      privet::detail::direct_dft_blocked(fft, x.data(), len, js, blocked);
      for (std::size_t r = 0; r < js.size(); ++r) {
        const auto ref = long_double_dft(x, len, n, js[r]);
        const long double re = ref.real(), im = ref.imag();
        CAPTURE(js[r]);
        CHECK(std::hypot(static_cast<double>(got[r].real() - re),
                         static_cast<double>(got[r].imag() - im)) <=
              privet::detail::direct_dft_ulps * u * l1);
        CHECK(std::hypot(static_cast<double>(blocked[r].real() - re),
                         static_cast<double>(blocked[r].imag() - im)) <=
              privet::detail::direct_dft_blocked_ulps * u * l1);
      }
    }
  }
}

TEST_CASE("FFT compositions are never below a long-double direct composition, and close") {
  // Fixed pmfs; the FFT power (32-fold at h = 0.05) and the FFT product of a
  // 6-fold pmf (1,800 points at h = 0.01) and a Gaussian's (3,200) against
  // the same compositions summed directly in long double. Never below at any eps, and above by at
  // most the round-off and truncation allowances (2e-11 for the power, 5e-11
  // for the product here).
  auto compare = [](const privet::pld_pmf& got, const reference_pmf& ref) {
    for (double eps = 0; eps < 40; eps += 0.25) {
      CAPTURE(eps);
      const auto exact = static_cast<double>(ref.delta(eps));
      CHECK(got.delta(eps) >= exact);
      CHECK(got.delta(eps) - exact <= 1e-10);
    }
  };
  const auto coarse = pld::subsampled_gaussian(0.2, 0.8, {0.05});
  const auto k32 = coarse.self_compose(32);
  const auto fine = pld::subsampled_gaussian(0.2, 0.8, {0.01});
  const auto k6 = fine.self_compose(6);
  const auto g = pld::gaussian(0.5, 1, {0.01});
  // The product goes by FFT (direct below 4e6 products).
  REQUIRE(k6.remove().probs().size() * g.remove().probs().size() > 4'000'000);
  const auto pair = k6.compose(g);
  auto product = [](const privet::pld_pmf& a, const privet::pld_pmf& b) {
    const std::vector<long double> x(a.probs().begin(), a.probs().end());
    const std::vector<long double> y(b.probs().begin(), b.probs().end());
    long double fa = 0, fb = 0;
    for (long double v : x) fa += v;
    for (long double v : y) fb += v;
    return reference_pmf{a.lowest_index() + b.lowest_index(), convolve_ld(x, y),
                         (fa + a.infinity_mass()) * (fb + b.infinity_mass()) - fa * fb,
                         a.interval()};
  };
  for (bool remove : {true, false}) {
    CAPTURE(remove);
    compare(remove ? k32.remove() : k32.add(),
            self_compose_ld(remove ? coarse.remove() : coarse.add(), 32));
    compare(remove ? pair.remove() : pair.add(),
            product(remove ? k6.remove() : k6.add(), g.remove()));
  }
}

TEST_CASE("10^4 Gaussians through the Chernoff window stay above the exact GDP") {
  // k mu-GDP Gaussians are (mu sqrt k)-GDP exactly (Dong, Roth & Su 2022,
  // Corollary 3.3): mu = 0.02, k = 10^4 is 2-GDP. The window (not the full
  // range k n) and the round-off bound hold: never below, and within 1e-4
  // relative (connect-the-dots' second-order error over 10^4 steps) plus the
  // mass at +infinity.
  const auto p = pld::gaussian(50).self_compose(10'000);
  for (double eps : {0.0, 1.0, 2.5, 5.0, 7.0, 9.0}) {
    CAPTURE(eps);
    const double exact = gaussian_delta(2.0, eps);
    CHECK(p.delta(eps) >= exact);
    CHECK(p.delta(eps) <= exact * (1 + 1e-4) + 2e-8);
  }
  CHECK(p.remove().infinity_mass() < 2e-8);
}

TEST_CASE("10^5 subsampled Gaussian steps reach delta = 1e-7 within 1 % of dp_accounting") {
  // dp_accounting 0.4 (PLD accountant, connect-the-dots, interval 1e-4):
  // q = 1e-3, sigma = 1, 10^5 steps, epsilon(1e-7) = 2.065194831. Before the
  // round-off bound stopped growing as 4e-12 per step, this threw (mass at
  // +infinity 3.8e-7); now it is about 1e-13 per step.
  const auto p = pld::subsampled_gaussian(1e-3, 1.0, {1e-4}).self_compose(100'000);
  const double eps = p.epsilon(1e-7).epsilon();
  CHECK(eps >= 2.065194831 * (1 - 1e-3));
  CHECK(eps <= 2.065194831 * 1.01);
  CHECK(std::max(p.remove().infinity_mass(), p.add().infinity_mass()) < 2e-8);
}

namespace {

// The product of two long-double reference pmfs (the composition of their
// losses): masses convolved, the mass at +infinity the product measure's.
reference_pmf product_ld(const reference_pmf& a, const reference_pmf& b) {
  long double fa = 0, fb = 0;
  for (long double v : a.probs) fa += v;
  for (long double v : b.probs) fb += v;
  return {a.lowest + b.lowest, convolve_ld(a.probs, b.probs), (fa + a.inf) * (fb + b.inf) - fa * fb,
          a.h};
}

// Binary randomised response with parameter eps_i, run counts_i times each:
// delta(eps') = sum over all 2^k outcomes of (P(x) - e^eps' Q(x))_+, where
// P reports each true bit with probability e^eps_i / (1 + e^eps_i) and Q
// is the neighbour's (every bit flipped), in long double.
long double brute_force_rr(const std::vector<std::pair<double, int>>& kinds, double eps_prime) {
  std::vector<long double> p;
  for (const auto& [eps, count] : kinds) {
    for (int c = 0; c < count; ++c) p.push_back(1 / (1 + std::exp(-static_cast<long double>(eps))));
  }
  long double delta = 0;
  for (std::uint32_t x = 0; x < (1u << p.size()); ++x) {
    long double px = 1, qx = 1;
    for (std::size_t b = 0; b < p.size(); ++b) {
      const bool one = (x >> b) & 1u;
      px *= one ? p[b] : 1 - p[b];
      qx *= one ? 1 - p[b] : p[b];
    }
    delta += std::max(0.0L, px - std::exp(static_cast<long double>(eps_prime)) * qx);
  }
  return delta;
}

}  // namespace

TEST_CASE("compositions of mixed kinds in one transform are never below a long-double one") {
  // Three kinds (a subsampled Gaussian with two orders, a Gaussian, a
  // Laplace) at h = 0.05 composed by compose_all, against each kind's
  // k-fold composition and their product summed directly in long double.
  // Never below at any eps, and above by at most the round-off and
  // truncation allowances.
  const pld_options o{0.05};
  const auto sg = pld::subsampled_gaussian(0.2, 0.8, o);
  const auto g = pld::gaussian(1.5, 1, o);
  const auto lap = pld::laplace(3, 1, o);
  const std::vector<privet::pld_runs> kinds{{sg, 5}, {g, 3}, {lap, 2}, {sg, 4}};
  const auto all = pld::compose_all(kinds);
  CHECK_FALSE(all.symmetric());
  for (bool remove : {true, false}) {
    CAPTURE(remove);
    auto order = [&](const pld& p) -> const privet::pld_pmf& {
      return remove ? p.remove() : p.add();
    };
    reference_pmf ref = self_compose_ld(order(sg), 5);
    ref = product_ld(ref, self_compose_ld(order(g), 3));
    ref = product_ld(ref, self_compose_ld(order(lap), 2));
    ref = product_ld(ref, self_compose_ld(order(sg), 4));
    const privet::pld_pmf& got = order(all);
    for (double eps = 0; eps < 40; eps += 0.25) {
      CAPTURE(eps);
      const auto exact = static_cast<double>(ref.delta(eps));
      CHECK(got.delta(eps) >= exact);
      CHECK(got.delta(eps) - exact <= 1e-10);
    }
  }
  // Symmetric kinds give a symmetric composition.
  CHECK(pld::compose_all(std::vector<privet::pld_runs>{{g, 2}, {lap, 3}}).symmetric());
}

TEST_CASE("Gaussians of three widths in one window stay above the exact GDP") {
  // k_i runs of mu_i-GDP Gaussians are (sqrt(sum k_i mu_i^2))-GDP exactly
  // (Dong, Roth & Su 2022, Corollary 3.3): 5,000 at mu = 0.02, 1,000 at
  // 0.04 and 4,000 at 0.01 are 2-GDP. The full range (10^4 steps) is past
  // 2^20 points, so the Chernoff window of the sum is used. Never below, and
  // within 1e-4 relative plus the mass at +infinity.
  const auto a = pld::gaussian(50), b = pld::gaussian(25), c = pld::gaussian(100);
  const auto p = pld::compose_all(std::vector<privet::pld_runs>{{a, 5000}, {b, 1000}, {c, 4000}});
  for (double eps : {0.0, 1.0, 2.5, 5.0, 7.0, 9.0}) {
    CAPTURE(eps);
    const double exact = gaussian_delta(2.0, eps);
    CHECK(p.delta(eps) >= exact);
    CHECK(p.delta(eps) <= exact * (1 + 1e-4) + 2e-8);
  }
  CHECK(p.remove().infinity_mass() < 2e-8);
}

TEST_CASE("randomised responses of three epsilons compose to the brute-force divergence") {
  // eps = 0.5, 0.25, 0.75 are grid points of h = 2^-10, so each PLD is exact
  // and the composition is exact up to round-off and truncation: never below
  // the divergence over all 2^9 outcomes, and above it by at most the mass
  // at +infinity.
  const pld_options o{0x1p-10};
  const std::vector<std::pair<double, int>> spec{{0.5, 3}, {0.25, 4}, {0.75, 2}};
  std::vector<pld> plds;
  for (const auto& [eps, count] : spec) plds.push_back(pld::randomized_response(eps, 2, o));
  std::vector<privet::pld_runs> kinds;
  for (std::size_t i = 0; i < plds.size(); ++i) {
    kinds.push_back({plds[i], static_cast<std::uint64_t>(spec[i].second)});
  }
  const auto p = pld::compose_all(kinds);
  for (double e : {0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 4.0}) {
    CAPTURE(e);
    const auto exact = static_cast<double>(brute_force_rr(spec, e));
    if (e >= 4.0) {
      // The sum of the epsilons, the largest loss: the divergence is 0 (the
      // brute force's long-double round-off leaves about 1e-21), and basic
      // composition gives exactly 0.
      CHECK(exact < 1e-20);
      CHECK(p.delta(e) == 0.0);
      continue;
    }
    CHECK(p.delta(e) >= exact);
    CHECK(p.delta(e) <= up_to(exact, p));
  }
}

TEST_CASE("compose_all of one kind split in parts agrees with its self-composition") {
  // The same 1,000 DP-SGD steps as one kind (self_compose) and as three
  // (300, 600 and 100 runs of the same PLD): the same composition, so the
  // epsilons differ only by the round-off allowances (the split one has no
  // directly recomputed frequencies) and stay within 1e-4 relative.
  const auto s = pld::subsampled_gaussian(0.01, 1.1, {1e-3});
  const double whole = s.self_compose(1000).epsilon(1e-5).epsilon();
  CHECK(pld::compose_all(std::vector<privet::pld_runs>{{s, 1000}}).epsilon(1e-5).epsilon() ==
        whole);
  const auto parts = pld::compose_all(std::vector<privet::pld_runs>{{s, 300}, {s, 600}, {s, 100}});
  CHECK(parts.epsilon(1e-5).epsilon() == doctest::Approx(whole).epsilon(1e-4));
  CHECK(std::max(parts.remove().infinity_mass(), parts.add().infinity_mass()) < 1e-9);
}

TEST_CASE("compose_all names its bad inputs") {
  using privet::invalid_parameter;
  const auto g = pld::gaussian(1);
  CHECK_THROWS_WITH_AS(static_cast<void>(pld::compose_all({})),
                       "privet: kinds is empty; allowed: at least one element", invalid_parameter);
  CHECK_THROWS_WITH_AS(
      static_cast<void>(pld::compose_all(std::vector<privet::pld_runs>{{g, 2}, {g, 0}})),
      "privet: count = 0 is invalid; allowed: >= 1", invalid_parameter);
  const auto coarse = pld::gaussian(1, 1, {1e-3});
  CHECK_THROWS_WITH_AS(
      static_cast<void>(pld::compose_all(std::vector<privet::pld_runs>{{g, 2}, {coarse, 1}})),
      "privet: value_discretization_interval = 0.001 is invalid; allowed: the same "
      "as the other PLD's, 1e-04",
      invalid_parameter);
}

// ---- batch queries, true positive rates, more mechanisms -----------------------------

namespace {

// The hockey-stick divergence sup_S P(S) - e^eps Q(S) = int (p - e^eps q)_+ of
// two densities, by the midpoint rule on [lo, hi] with n cells (a second method
// for the continuous PLDs below; its error is far below the tolerances used).
template <class P, class Q>
double integral_delta(P p, Q q, double eps, double lo, double hi, int n) {
  long double sum = 0;
  const double w = (hi - lo) / n;
  for (int i = 0; i < n; ++i) {
    const double x = lo + (i + 0.5) * w;
    sum += std::max(0.0, p(x) - std::exp(eps) * q(x)) * w;
  }
  return static_cast<double>(sum);
}

double laplace_pdf(double x, double mu, double b) {
  return std::exp(-std::fabs(x - mu) / b) / (2 * b);
}
double normal_pdf(double x, double mu, double s) {
  return std::exp(-(x - mu) * (x - mu) / (2 * s * s)) / (s * std::sqrt(2 * std::numbers::pi));
}

}  // namespace

TEST_CASE("epsilons answers a sweep of deltas as epsilon does, each certified") {
  const auto p = pld::subsampled_gaussian(0.2, 0.5).self_compose(3);
  std::vector<double> deltas{0.0, 1e-13, 1e-9, 1e-6, 1e-3, 0.1, 0.15594, 0.5, 1.0};
  for (int i = 0; i < 200; ++i) deltas.push_back(std::pow(10.0, -8 + 8.0 * i / 199));
  const std::vector<double> eps = p.epsilons(deltas);
  const double top = std::max(p.remove().infinity_mass(), p.add().infinity_mass());
  REQUIRE(eps.size() == deltas.size());
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    CAPTURE(deltas[i]);
    if (deltas[i] <= top) {
      CHECK(eps[i] == std::numeric_limits<double>::infinity());
      continue;
    }
    if (deltas[i] >= 1) {
      CHECK(eps[i] == 0);
      continue;
    }
    CHECK(eps[i] == p.epsilon(deltas[i]).epsilon());
    CHECK(p.delta(eps[i]) <= deltas[i]);
    // Tight: a grid step lower already exceeds the delta (unless eps is 0).
    if (eps[i] > 1e-3) CHECK(p.delta(std::max(0.0, eps[i] - 1e-4)) > deltas[i]);
  }
  // dp_accounting's known answer (pld_privacy_accountant_test.py,
  // test_poisson_subsampled_gaussian): delta(1) = 0.15594 to 1e-3.
  CHECK(p.delta(1) == doctest::Approx(0.15594).epsilon(1e-2));
  CHECK_THROWS_AS(static_cast<void>(p.epsilons(std::vector<double>{0.5, 1.5})),
                  privet::invalid_parameter);
  CHECK_THROWS_AS(static_cast<void>(p.epsilons(std::vector<double>{std::nan("")})),
                  privet::invalid_parameter);
}

TEST_CASE("true positive rates bound the Gaussian's trade-off curve from above, tightly") {
  // Three Gaussians with sigma = sqrt(3): mu = 1 GDP, whose trade-off curve is
  // TPR(alpha) = Phi(Phi^-1(alpha) + 1) (Dong, Roth & Su 2022); dp_accounting's
  // test_gaussian_basic expects TPR(0.1) = 0.38914 and mu = 1, both to 1e-3.
  const auto p = pld::gaussian(std::sqrt(3.0)).self_compose(3);
  std::vector<double> deltas{0.0};
  for (int i = 0; i < 3000; ++i) deltas.push_back(std::pow(10.0, -13 + 13.0 * i / 2999));
  const std::vector<double> fprs{1e-6, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.9};
  const auto tpr = p.true_positive_rates(fprs, deltas);
  for (std::size_t i = 0; i < fprs.size(); ++i) {
    CAPTURE(fprs[i]);
    const double exact =
        0.5 * std::erfc(-(privet::detail::normal_isf(1 - fprs[i]) + 1) / std::numbers::sqrt2);
    CHECK(tpr[i] >= exact);
    CHECK(tpr[i] <= exact + 1e-3);
  }
  CHECK(tpr[3] == doctest::Approx(0.38914).epsilon(3e-3));
  std::vector<double> grid;
  for (int i = 0; i < 500; ++i)
    grid.push_back(std::pow(10.0, -12 + (12 + std::log10(0.5)) * i / 499));
  CHECK(p.gdp_parameter_estimate(grid, deltas) == doctest::Approx(1).epsilon(1e-3));
  // Pure eps-DP (eps = 3, randomised response): dp_accounting's
  // test_epsilon_basic, TPR(0.1) = 0.8286 to 1e-3; the exact curve is
  // min(e^3 alpha, 1 - e^-3 (1 - alpha)) = 0.8296 at 0.1.
  const auto rr = pld::from_guarantee(privet::approx_dp(3, 0));
  CHECK(rr.true_positive_rates(std::vector<double>{0.1}, deltas)[0] ==
        doctest::Approx(1 - std::exp(-3.0) * 0.9).epsilon(1e-6));
  CHECK_THROWS_AS(static_cast<void>(p.true_positive_rates(std::vector<double>{-0.1}, deltas)),
                  privet::invalid_parameter);
}

TEST_CASE("the Poisson-subsampled Laplace PLD is above the integral delta, and close") {
  const double q = 0.2, b = 0.5;
  const auto p = pld::subsampled_laplace(q, b);
  auto mix = [&](double x) { return q * laplace_pdf(x, 1, b) + (1 - q) * laplace_pdf(x, 0, b); };
  auto base = [&](double x) { return laplace_pdf(x, 0, b); };
  for (double e : {0.0, 0.1, 0.3, 0.6, 0.8}) {
    CAPTURE(e);
    const double remove = integral_delta(mix, base, e, -30, 31, 2'000'000);
    const double add = integral_delta(base, mix, e, -30, 31, 2'000'000);
    CHECK(p.remove().delta(e) >= remove - 1e-9);
    CHECK(p.remove().delta(e) <= remove + 1e-4);
    CHECK(p.add().delta(e) >= add - 1e-9);
    CHECK(p.add().delta(e) <= add + 1e-4);
  }
  // The loss is at most top = log(1 + q (e^{1/b} - 1)) = 0.823214 per run:
  // dp_accounting's test_poisson_subsampled_laplace has 3 runs reach epsilon
  // 2.46964 at delta 1e-14 (its truncation). privet's delta a grid step or
  // two above 3 top is its round-off allowances only, and its epsilon at
  // 1e-8 is within two grid steps of 3 top.
  const double top = std::log1p(q * std::expm1(1 / b));
  const auto three = p.self_compose(3);
  CHECK(three.delta(3 * top + 3e-4) < 1e-8);
  CHECK(three.epsilon(1e-8).epsilon() <= 3 * top + 3e-4);
  CHECK(three.epsilon(1e-8).epsilon() >= 3 * top - 1e-2);
  CHECK(pld::subsampled_laplace(1, b).delta(0.5) == pld::laplace(b).delta(0.5));
}

TEST_CASE("the replace-one subsampled Gaussian PLD is above the integral delta, and close") {
  const double q = 0.1, s = 1.0;
  const auto p = pld::subsampled_gaussian_replace_one(q, s);
  auto up = [&](double x) { return q * normal_pdf(x, 1, s) + (1 - q) * normal_pdf(x, 0, s); };
  auto down = [&](double x) { return q * normal_pdf(x, -1, s) + (1 - q) * normal_pdf(x, 0, s); };
  for (double e : {0.0, 0.1, 0.3, 0.6, 1.0}) {
    CAPTURE(e);
    const double exact = integral_delta(up, down, e, -12, 13, 2'000'000);
    CHECK(p.delta(e) >= exact - 1e-9);
    CHECK(p.delta(e) <= exact + 1e-4);
  }
  // The inverse loss is the loss's inverse.
  const privet::detail::subsampled_gaussian_replace_loss m{q, s};
  for (double l : {-2.0, -0.3, 0.01, 0.5, 3.0}) CHECK(m.loss(m.x_at(l)) == doctest::Approx(l));
  CHECK(pld::subsampled_gaussian_replace_one(1, 2).delta(0.5) == pld::gaussian(2, 2).delta(0.5));
}

TEST_CASE("randomised response under replace-special matches its two-atom divergence") {
  // dp_accounting's test_randomized_response (REPLACE_SPECIAL): noise
  // parameter p = (4 - e) / 3 over 4 buckets, and e^-1 over 2, are 1-DP
  // (delta(1) = 0 to 7 places); privet's epsilon is log(1 + k (1 - p) / p).
  for (const auto& nk : {std::pair{(4 - std::exp(1.0)) / 3, 4}, std::pair{std::exp(-1.0), 2}}) {
    const double noise = nk.first;
    const int k = nk.second;
    CAPTURE(k);
    const double kd = k;
    const double eps = std::log1p(kd * (1 - noise) / noise);
    const auto p = pld::randomized_response_replace_special(eps, static_cast<std::uint64_t>(k));
    CHECK(p.delta(1) < 1e-7);
    // Exact: remove P = RR(x), Q uniform; add the reverse.
    const double stay = 1 - noise + noise / kd, move = noise / kd;
    for (double e : {0.0, 0.2, 0.5}) {
      CAPTURE(e);
      const double rm = std::max(0.0, stay - std::exp(e) / kd) +
                        (kd - 1) * std::max(0.0, move - std::exp(e) / kd);
      const double ad = std::max(0.0, 1 / kd - std::exp(e) * stay) +
                        (kd - 1) * std::max(0.0, 1 / kd - std::exp(e) * move);
      CHECK(p.delta(e) >= std::max(rm, ad) - 1e-12);
      CHECK(p.delta(e) <= std::max(rm, ad) + 1e-4);
    }
  }
}

TEST_CASE("a two-point mixture of Gaussians is the subsampled Gaussian") {
  // Sensitivity 0 or 1 with probabilities 0.9 and 0.1 is the Poisson-
  // subsampled Gaussian with q = 0.1 (dp_accounting's docstring of
  // MixtureGaussianPrivacyLoss); privet's two constructions (a numeric and a
  // closed-form inverse loss) agree to far below the grid's error.
  const auto mog = pld::mixture_of_gaussians(1.0, {0.0, 1.0}, {0.9, 0.1});
  const auto sg = pld::subsampled_gaussian(0.1, 1.0);
  for (double e : {0.0, 0.05, 0.2, 0.5, 1.0}) {
    CAPTURE(e);
    CHECK(mog.remove().delta(e) == doctest::Approx(sg.remove().delta(e)).epsilon(1e-9));
    CHECK(mog.add().delta(e) == doctest::Approx(sg.add().delta(e)).epsilon(1e-9));
  }
}

TEST_CASE("a three-point mixture of Gaussians is above the integral delta, and close") {
  const double s = 1.0;
  const std::vector<double> c{0.0, 1.0, 2.0}, w{0.2, 0.6, 0.2};
  const auto p = pld::mixture_of_gaussians(s, c, w);
  auto mix = [&](double x) {
    double t = 0;
    for (std::size_t i = 0; i < c.size(); ++i) t += w[i] * normal_pdf(x, c[i], s);
    return t;
  };
  auto base = [&](double x) { return normal_pdf(x, 0, s); };
  for (double e : {0.0, 0.3, 1.0, 2.0}) {
    CAPTURE(e);
    const double remove = integral_delta(mix, base, e, -14, 16, 2'000'000);
    const double add = integral_delta(base, mix, e, -14, 16, 2'000'000);
    CHECK(p.remove().delta(e) >= remove - 1e-9);
    CHECK(p.remove().delta(e) <= remove + 1e-4);
    CHECK(p.add().delta(e) >= add - 1e-9);
    CHECK(p.add().delta(e) <= add + 1e-4);
  }
  // dp_accounting's test_mixture_of_gaussians_basic: 3 runs of this and 2 of
  // sigma = 2, sensitivities {0, 2, 3} with {0.33, 0.34, 0.33} reach epsilon
  // 17.193115 at delta 1e-6; privet's pessimistic grid is not below it.
  const auto q = pld::mixture_of_gaussians(2.0, {0.0, 2.0, 3.0}, {0.33, 0.34, 0.33});
  const auto both = pld::compose_all(std::vector<privet::pld_runs>{{p, 3}, {q, 2}});
  const double eps = both.epsilon(1e-6).epsilon();
  CHECK(eps >= 17.193115 - 1e-6);
  CHECK(eps <= 17.193115 + 1e-3);
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(static_cast<void>(pld::mixture_of_gaussians(1, {0.0, -1.0}, {0.5, 0.5})),
                       "privet: sensitivities[1] = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_AS(static_cast<void>(pld::mixture_of_gaussians(1, {1.0}, {0.5})), invalid_parameter);
  CHECK_THROWS_AS(static_cast<void>(pld::mixture_of_gaussians(1, {0.0}, {1.0})), invalid_parameter);
}

TEST_CASE("the truncated subsampled Gaussian mixes its two bounds by the truncation odds") {
  // n = 4, q = 0.5, batch 2: truncation given the record is sampled has
  // probability t = P(Bin(3, 0.5) >= 2) = 1/2, and the record is in the cut
  // batch with probability P(Bin(4, 0.5) >= 3) 2 / (t 4) = 5/16 (by hand).
  const auto p = pld::truncated_subsampled_gaussian(4, 0.5, 2, 1.0);
  const auto plain = pld::subsampled_gaussian(0.5, 1.0);
  const auto cut = pld::subsampled_gaussian_replace_one(5.0 / 16, 0.5);
  for (double e : {0.0, 0.5, 1.0, 3.0}) {
    CAPTURE(e);
    CHECK(p.remove().delta(e) ==
          doctest::Approx(0.5 * cut.delta(e) + 0.5 * plain.remove().delta(e)).epsilon(1e-9));
    CHECK(p.add().delta(e) ==
          doctest::Approx(0.5 * cut.delta(e) + 0.5 * plain.add().delta(e)).epsilon(1e-9));
  }
  // No truncation possible (batch >= n): the plain subsampled Gaussian.
  CHECK(pld::truncated_subsampled_gaussian(3, 0.5, 3, 1.0).delta(0.5) == plain.delta(0.5));
  // dp_accounting's test_truncated_subsampled_gaussian_basic: 3 runs of this
  // and 2 with n = 3 reach epsilon 17.904330 at delta 1e-6.
  const auto second = pld::truncated_subsampled_gaussian(3, 0.5, 2, 1.0);
  const auto both = pld::compose_all(std::vector<privet::pld_runs>{{p, 3}, {second, 2}});
  const double eps = both.epsilon(1e-6).epsilon();
  CHECK(eps >= 17.904330 - 1e-6);
  CHECK(eps <= 17.904330 + 1e-3);
}

// ---- basic composition beside the grid -------------------------------------

namespace {

using rational = boost::multiprecision::cpp_rational;

// 1 - prod (1 - delta_i)^(k_i), exactly.
rational exact_infinity_mass(const std::vector<std::pair<double, unsigned>>& parts) {
  // Each delta is a double m 2^-s exactly, so prod (1 - delta_i)^k_i is an
  // integer over a power of two: built with integer powers and one final
  // reduction (a rational product reduced at every step took over a minute
  // under the sanitizers at k = 1000).
  using boost::multiprecision::cpp_int;
  cpp_int kept = 1;
  unsigned long shift = 0;
  for (const auto& part : parts) {
    int e = 0;
    const double f = std::frexp(part.first, &e);   // delta = f 2^e, f in [1/2, 1) or 0
    const auto s = static_cast<unsigned>(53 - e);  // delta < 1, so e <= 0
    const cpp_int m(std::ldexp(f, 53));            // delta = m 2^-s exactly
    kept *= boost::multiprecision::pow((cpp_int(1) << s) - m, part.second);
    shift += static_cast<unsigned long>(s) * part.second;
  }
  return 1 - rational(kept, cpp_int(1) << shift);
}

}  // namespace

TEST_CASE("pure-DP compositions answer delta 0 from the sum of their epsilons") {
  // dp_accounting's test_epsilon_basic and test_exponential_mechanism_basic:
  // (1, 0) then (2, 0) give delta(3) = 0 exactly and epsilon at delta 0 = 3.
  const auto one = pld::from_guarantee(privet::approx_dp(1, 0));
  const auto two = pld::from_guarantee(privet::approx_dp(2, 0));
  const auto both = one.compose(two);
  CHECK(both.loss_bound() == 3.0);
  CHECK(both.infinity_mass_bound() == 0.0);
  CHECK(both.delta(3.0) == 0.0);
  CHECK(both.delta(3.5) == 0.0);
  // Below the bound the grid answers, never 0 (two atoms at 3 - h and 3 are
  // certain to be hit with some mass, and the round-off allowances sit at
  // +infinity).
  CHECK(both.delta(2.99) > 0.0);
  // The grid alone could not certify a tiny delta: its own mass at
  // +infinity is above 1e-14; the basic bound does.
  CHECK(std::max(both.remove().infinity_mass(), both.add().infinity_mass()) > 1e-14);
  CHECK(both.has_epsilon(1e-14));
  CHECK(both.epsilon(1e-14).epsilon() == 3.0);
  const std::vector<double> deltas{0.0, 1e-14, 0.5};
  const auto eps = both.epsilons(deltas);
  CHECK(eps[0] == 3.0);
  CHECK(eps[1] == 3.0);
  CHECK(eps[2] < 3.0);  // the grid's own answer where it is smaller
  // A Gaussian has no bound: nothing changes.
  const auto g = pld::gaussian(1.0).compose(one);
  CHECK(g.loss_bound() == std::numeric_limits<double>::infinity());
  CHECK_FALSE(g.has_epsilon(1e-300));
}

TEST_CASE("Laplace and discrete Laplace compositions reach their summed epsilon at any delta") {
  // dp_accounting's test_laplace_basic and test_discrete_laplace_basic:
  // scales 1 (x 3) and 2 (x 2), parameters 1 and 0.5: epsilon 4 where delta
  // is 1e-14 or 0.
  const auto lap1 = pld::laplace(1.0), lap2 = pld::laplace(2.0);
  const auto lap = pld::compose_all(std::vector<privet::pld_runs>{{lap1, 3}, {lap2, 2}});
  CHECK(lap.loss_bound() == 4.0);
  CHECK(lap.epsilon(1e-14).epsilon() == 4.0);
  CHECK(lap.delta(4.0) == 0.0);
  const auto dlap = pld::discrete_laplace(1.0).self_compose(3).compose(
      pld::discrete_laplace(2.0).self_compose(2));
  CHECK(dlap.loss_bound() == 4.0);
  CHECK(dlap.delta(4.0) == 0.0);
  CHECK(dlap.epsilons(std::vector<double>{0.0})[0] == 4.0);
  // The bound is exact: just below it the delta is positive (the two
  // largest losses of each Laplace are attained with positive mass).
  CHECK(lap.delta(3.999) > 0.0);
  // Sensitivity 3 of scale 2 per step: 1.5 a step, times 5.
  CHECK(pld::laplace(2.0, 3.0).self_compose(5).loss_bound() == 7.5);
}

TEST_CASE("the subsampled Laplace's loss bound is log(1 + q (e^(1/b) - 1)) a step, from above") {
  // dp_accounting's test_poisson_subsampled_laplace: q = 0.2, b = 0.5, three
  // steps reach epsilon 2.46964 at delta 1e-14.
  const auto p = pld::subsampled_laplace(0.2, 0.5).self_compose(3);
  const double exact = 3 * std::log1p(0.2 * std::expm1(2.0));
  CHECK(p.loss_bound() >= exact);
  CHECK(p.loss_bound() <= exact * (1 + 1e-13));
  CHECK(p.epsilon(1e-14).epsilon() == doctest::Approx(2.46964).epsilon(1e-5));
  CHECK(p.delta(p.loss_bound()) == 0.0);
  // The add order's bound, -log(1 - q + q e^(-1/b)) a step, is smaller.
  const auto one = pld::subsampled_laplace(0.2, 0.5);
  CHECK(one.loss_bound() >= std::log1p(0.2 * std::expm1(2.0)));
  // Randomised response under replace-special: the larger of eps + log(k/c)
  // and -log(k/c), c = e^eps + k - 1.
  const auto rr = pld::randomized_response_replace_special(1.0, 4);
  const double c = std::exp(1.0) + 3;
  CHECK(rr.loss_bound() >= std::max(1 + std::log(4 / c), -std::log(4 / c)));
  CHECK(rr.loss_bound() <= std::max(1 + std::log(4 / c), -std::log(4 / c)) * (1 + 1e-13));
}

TEST_CASE("(eps, delta) compositions keep 1 - prod (1 - delta_i) at +infinity, rounded up once") {
  // dp_accounting's test_epsilon_delta_basic: (1, 0.1) then (2, 0.2) give
  // delta(3) = 0.28 and epsilon(0.28) = 3. The exact 1 - (1 - 0.1)(1 - 0.2)
  // of the doubles 0.1 and 0.2 is 0.44 ulp below the double 0.28, so 0.28 is
  // the smallest double above it; plain double arithmetic gives
  // 0.2799999999999999, below the exact value.
  const auto both = pld::from_guarantee(privet::approx_dp(1, 0.1))
                        .compose(pld::from_guarantee(privet::approx_dp(2, 0.2)));
  const rational exact = exact_infinity_mass({{0.1, 1}, {0.2, 1}});
  CHECK(rational(both.infinity_mass_bound()) >= exact);
  CHECK(both.infinity_mass_bound() == 0.28);
  CHECK(both.delta(3.0) == 0.28);
  CHECK(both.epsilon(0.28).epsilon() == 3.0);
  CHECK_FALSE(both.has_epsilon(0.27));
  // Many steps of several kinds: never below the exact mass, within an ulp.
  const auto a = pld::from_guarantee(privet::approx_dp(0.1, 1e-3));
  const auto b = pld::from_guarantee(privet::approx_dp(0.2, 3e-7));
  const auto c = pld::from_guarantee(privet::approx_dp(0.05, 0.0));
  const auto many = pld::compose_all(std::vector<privet::pld_runs>{{a, 37}, {b, 101}, {c, 5}});
  const rational want = exact_infinity_mass({{1e-3, 37}, {3e-7, 101}});
  const double got = many.infinity_mass_bound();
  CHECK(rational(got) >= want);
  CHECK(rational(std::nextafter(got, 0.0)) < want);
  CHECK(many.loss_bound() >= 0.1 * 37 + 0.2 * 101 + 0.05 * 5);
  CHECK(many.loss_bound() <= (0.1 * 37 + 0.2 * 101 + 0.05 * 5) * (1 + 1e-14));
  const auto self = a.self_compose(1000);
  const double got_self = self.infinity_mass_bound();
  CHECK(rational(got_self) >= exact_infinity_mass({{1e-3, 1000}}));
  CHECK(rational(std::nextafter(got_self, 0.0)) < exact_infinity_mass({{1e-3, 1000}}));
}

TEST_CASE(
    "a mechanism's own mass at +infinity makes the GDP estimate +infinity; allowances do not") {
  // dp_accounting's test_epsilon_delta_basic: (1, 0.1) then (2, 0.2) is
  // mu-GDP for no mu (its true positive rate is at least 0.28 at every
  // false positive rate).
  const auto both = pld::from_guarantee(privet::approx_dp(1, 0.1))
                        .compose(pld::from_guarantee(privet::approx_dp(2, 0.2)));
  const std::vector<double> rates{1e-12, 1e-6, 0.1, 0.5};
  const std::vector<double> deltas{0.0, 1e-9, 0.28, 0.3, 0.5};
  CHECK(both.gdp_parameter_estimate(rates, deltas) == std::numeric_limits<double>::infinity());
  // Rates all above the mass: an estimate from those rates.
  const std::vector<double> high{0.3, 0.4, 0.5};
  CHECK(std::isfinite(both.gdp_parameter_estimate(high, deltas)));
  // A Gaussian's mass at +infinity is only the grid's allowances: its
  // estimate stays finite and near mu = 1 (test_gaussian_basic).
  const auto g = pld::gaussian(1.0);
  CHECK(g.infinity_mass_bound() == 0.0);
  CHECK(g.remove().infinity_mass() > 0.0);
  std::vector<double> many_rates, many_deltas{0.0};
  for (int i = 0; i <= 200; ++i) many_rates.push_back(std::pow(10.0, -12 + 11.7 * i / 200));
  for (int i = 0; i <= 300; ++i) many_deltas.push_back(std::pow(10.0, -13 + 13.0 * i / 300));
  CHECK(g.gdp_parameter_estimate(many_rates, many_deltas) == doctest::Approx(1.0).epsilon(2e-3));
  // A PLD made from pmfs knows nothing of its mechanism: bound 1, no basic
  // answers, and the estimate is the grid's.
  const pld raw(g.remove());
  CHECK(raw.infinity_mass_bound() == 1.0);
  CHECK(raw.loss_bound() == std::numeric_limits<double>::infinity());
  CHECK(std::isfinite(raw.gdp_parameter_estimate(many_rates, many_deltas)));
  CHECK(raw.compose(both).infinity_mass_bound() == 1.0);
}

namespace {

// A pmf's finite part as a privacy profile: delta_k = sum_{i > k} p_i (1 -
// e^{l_k - l_i}) at every grid point l_k of its range, by suffix sums in
// long double (the mass at +infinity left out: it holds each pmf's own
// round-off allowances).
std::vector<long double> finite_profile(const privet::pld_pmf& p) {
  const auto& x = p.probs();
  const long double top = p.loss(x.size() - 1);
  std::vector<long double> out(x.size());
  long double sp = 0, se = 0;
  for (std::size_t k = x.size(); k-- > 0;) {
    const long double l = p.loss(k);
    out[k] = sp - std::exp(l - top) * se;
    sp += x[k];
    se += x[k] * std::exp(top - l);
  }
  return out;
}

// The two orders of a DP-SGD step as subsampled_gaussian builds them, with
// discretize_continuous's tail blocks at `budget` (0: every grid point).
pld dpsgd_with_budget(double q, double s, double budget) {
  namespace d = privet::detail;
  const pld_options o;
  const double z = d::normal_isf(o.tail_mass_truncation / 2);
  const d::subsampled_gaussian_remove_loss rm{q, s};
  const d::subsampled_gaussian_add_loss ad{q, s};
  return pld(d::discretize_continuous(rm, rm.loss(-s * z), rm.loss(1 + s * z), o, budget),
             d::discretize_continuous(ad, ad.loss(s * z), ad.loss(-s * z), o, budget),
             o.tail_mass_truncation);
}

std::size_t non_zeros(const privet::pld_pmf& p) {
  return static_cast<std::size_t>(
      std::count_if(p.probs().begin(), p.probs().end(), [](double v) { return v > 0; }));
}

}  // namespace

TEST_CASE("DP-SGD PLDs with blocked tails are never below the dense grid's, and close") {
  // A block's mass is split between its edges keeping its P- and Q-mass, so
  // its delta is the chord, over the block, of the dense grid's (convex in
  // e^eps): never below at any eps. Checked at every grid point's loss, to
  // 1e-16 (the long-double sums' rounding at mass 1), both orders; above by
  // at most 1e-11 (6.2e-12 measured); the default budget keeps under a
  // quarter of the points for DP-SGD's small q, all of them at budget 0.
  const std::vector<std::pair<double, double>> kinds{
      {0.001, 0.8}, {0.0055, 1.15}, {0.01, 1.5}, {0.01, 0.5}, {0.2, 0.8}};
  for (const auto& kind : kinds) {
    // (Not a structured binding: CAPTURE's lambda may not capture one in clang 14.)
    const double q = kind.first, s = kind.second;
    CAPTURE(q);
    CAPTURE(s);
    const pld blocked = pld::subsampled_gaussian(q, s);
    const pld dense = dpsgd_with_budget(q, s, 0);
    for (bool remove : {true, false}) {
      CAPTURE(remove);
      const auto& b = remove ? blocked.remove() : blocked.add();
      const auto& d = remove ? dense.remove() : dense.add();
      REQUIRE(b.lowest_index() == d.lowest_index());
      REQUIRE(b.probs().size() == d.probs().size());
      CHECK(non_zeros(d) == d.probs().size());
      if (q <= 0.01 && s >= 0.8) CHECK(4 * non_zeros(b) < d.probs().size());
      const auto pb = finite_profile(b), pd = finite_profile(d);
      long double below = 0, above = 0;
      for (std::size_t k = 0; k < pb.size(); ++k) {
        below = std::max(below, pd[k] - pb[k]);
        above = std::max(above, pb[k] - pd[k]);
      }
      CHECK(below <= 1e-16L);
      CHECK(above <= 1e-11L);
    }
  }
}

TEST_CASE("sums over a sparse pmf's non-zeros are within the dense sums' bounds") {
  // direct_dft, direct_dft_blocked and log_mgf given split_blocks (blocks
  // with mass summed as blocks, the sparse ones' non-zeros one by one):
  // each DFT output within its bound (direct_dft_ulps, direct_dft_blocked_ulps
  // u ||x||_1) of the DFT summed in long double, and log_mgf's `upper` never
  // below the log of the moment sum in long double and within 1e-12 of it,
  // for a pmf dense at first, then with runs of zeros of every length, and a
  // partial last block.
  namespace d = privet::detail;
  const double u = std::numeric_limits<double>::epsilon() / 2;
  const std::size_t n = 4096, len = 3001;
  std::vector<double> x(len, 0.0);
  std::uint64_t state = 12345;
  for (std::size_t l = 0; l < len;) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    x[l] = static_cast<double>(state >> 11) * 0x1p-53 * 1e-3;
    l += 1 + (state >> 7) % (l < 300 ? 2 : 97);  // dense, then sparse
  }
  x.back() = 1e-9;
  double l1 = 0;
  for (double v : x) l1 += v;
  const d::real_fft fft(n);
  const auto sparse = d::split_blocks(x, 0, len - 1, 16, false);
  REQUIRE(!sparse.blocks.empty());
  REQUIRE(sparse.singles.size() > 20);
  const std::vector<std::size_t> js{0, 1, 7, 1025, n / 2 - 1, n / 2};
  std::vector<std::complex<double>> got(js.size()), blocked(js.size());
  d::direct_dft(fft, x.data(), len, js, got, &sparse);
  d::direct_dft_blocked(fft, x.data(), len, js, blocked, &sparse);
  for (std::size_t r = 0; r < js.size(); ++r) {
    const auto ref = long_double_dft(x, len, n, js[r]);
    const long double re = ref.real(), im = ref.imag();
    CAPTURE(js[r]);
    CHECK(std::hypot(static_cast<double>(got[r].real() - re),
                     static_cast<double>(got[r].imag() - im)) <= d::direct_dft_ulps * u * l1);
    CHECK(std::hypot(static_cast<double>(blocked[r].real() - re),
                     static_cast<double>(blocked[r].imag() - im)) <=
          d::direct_dft_blocked_ulps * u * l1);
  }
  const privet::pld_pmf p(d::pmf_built_t{}, 1e-3, -500, x, 0.0);
  const d::mgf_blocks mb{d::split_blocks(x, 0, len - 1, 64, true),
                         d::split_blocks(x, 0, len - 1, 64, false)};
  for (double t : {-3.0, -0.5, 0.0, 0.7, 4.0}) {
    CAPTURE(t);
    long double sum = 0;
    for (std::size_t l = 0; l < len; ++l) {
      sum += x[l] * std::exp(static_cast<long double>(t) * static_cast<long double>(p.loss(l)));
    }
    const double exact = static_cast<double>(std::log(sum));
    const auto all = d::log_mgf(p, 0, len - 1, t), some = d::log_mgf(p, 0, len - 1, t, &mb);
    CHECK(some.upper >= exact);
    CHECK(some.upper - exact <= 1e-12);
    CHECK(some.d1 == doctest::Approx(all.d1).epsilon(1e-12));
    CHECK(some.d2 == doctest::Approx(all.d2).epsilon(1e-10));
  }
}

TEST_CASE("200 kinds of DP-SGD step compose above their dense grids' composition, and close") {
  // bench/accounting_bench's pld/heterogeneous_job at 200 kinds x 50 steps:
  // q_i = 0.001 + 0.009 i / 199, sigma_i = 0.8 + 0.7 ((7 i) mod 200) / 199.
  // With the tails in blocks, epsilon(1e-5) is never below the composition
  // of the dense grids' PLDs and within 1e-6 relative of it (2.3e-7 when
  // measured); and within 1e-5 of 3.1180930782, what privet gave before
  // the blocks (main a28c739).
  std::vector<pld> blocked, dense;
  for (int i = 0; i < 200; ++i) {
    const double q = 0.001 + 0.009 * i / 199.0, s = 0.8 + 0.7 * ((7 * i) % 200) / 199.0;
    blocked.push_back(pld::subsampled_gaussian(q, s));
    dense.push_back(dpsgd_with_budget(q, s, 0));
  }
  auto eps = [](const std::vector<pld>& kinds) {
    std::vector<privet::pld_runs> runs;
    for (const pld& k : kinds) runs.push_back({k, 50});
    return pld::compose_all(runs).epsilon(1e-5).epsilon();
  };
  const double b = eps(blocked), d = eps(dense);
  CHECK(b >= d);
  CHECK(b <= d * (1 + 1e-6));
  CHECK(std::fabs(b - 3.1180930782) <= 1e-5 * 3.1180930782);
}
