// DPSU with constant_time_noise (issue 36): the calibration is secure_noise's
// up to the samplers' share of delta; the guarantee is the exact noise's
// raised by (1 + e^eps) 2^64 tau, checked against a second computation in
// long double from the samplers' own bounds (dpsu_test runs its releases
// and its thread test with both policies); a pass rate agrees with the exact law; and every noised
// item draws the same number of CSPRNG words whatever its weight (which the variable-time sampler
// does not, so a ct path that used it would fail).
#include <privet/algorithms/dpsu.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>
#include <support/errors.hpp>
#include <support/gaussian_reference.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <type_traits>
#include <vector>

namespace dpsu = privet::dpsu;
using ct = privet::constant_time_noise;
using privet::test::rejected_parameter;

using privet::test::counting_release_generator;

namespace {

// The second computation of the raised delta: delta + (1 + e^eps) 2^64 tau
// in long double.
long double raised_delta(long double delta, double eps, double tau) {
  return delta + (1 + std::exp(static_cast<long double>(eps))) * 0x1p64L * tau;
}

}  // namespace

static_assert(std::is_same_v<dpsu::set_union<dpsu::weighted_gaussian, ct>::guarantee_type,
                             privet::within_tv<privet::zcdp>>);
static_assert(std::is_same_v<dpsu::set_union<dpsu::policy_laplace, ct>::guarantee_type,
                             privet::within_tv<privet::pure_dp>>);
static_assert(std::is_same_v<dpsu::set_union<>::guarantee_type, privet::within_tv<privet::zcdp>>);
static_assert(
    std::is_same_v<dpsu::set_union<dpsu::weighted_gaussian, privet::secure_noise>::guarantee_type,
                   privet::zcdp>);

TEST_CASE("constant-time DPSU (Gaussian): the noise guarantee is the exact one within 2^64 tau") {
  const auto su = dpsu::set_union<dpsu::weighted_gaussian, ct>::with_noise(3.0, 1e-8, 40);
  const auto exact =
      dpsu::set_union<dpsu::weighted_gaussian, privet::secure_noise>::with_noise(3.0, 1e-8, 40);
  CHECK(su.noise().scale() == exact.noise().scale());
  CHECK(su.noise().scale_bits() == exact.noise().scale_bits());
  CHECK(su.threshold_units() == exact.threshold_units());
  const auto g = su.noise_guarantee();
  CHECK(g.base() == exact.noise_guarantee());
  // tau: the constant-time sampler of the fixed point's discrete Gaussian,
  // sigma = 3 in units of 2^-b (its table of sums at 2^20 to 2^21 units).
  const privet::constant_time_discrete_gaussian sampler(
      std::ldexp(3.0, static_cast<int>(su.noise().scale_bits())));
  const double tau = sampler.total_variation_bound();
  CHECK(su.noise().sampler_total_variation() == tau);
  CHECK(tau > 0);
  CHECK(tau < 0x1p-100);
  CHECK(g.total_variation() == 0x1p64 * tau);  // a power of two: exact
  // guarantee(noise_delta): the exact run's (eps, 2e-8) raised.
  const privet::approx_dp e = exact.guarantee(1e-8);
  const privet::approx_dp a = su.guarantee(1e-8);
  CHECK(a.epsilon() == e.epsilon());
  const long double want = raised_delta(e.delta(), e.epsilon(), tau);
  CHECK(static_cast<long double>(a.delta()) >= want);
  CHECK(static_cast<long double>(a.delta()) <= want * (1 + 1e-15L));
  CHECK(a.delta() > e.delta());
  // Under 1e-10 on delta, as the issue states for 2^64 coordinates.
  CHECK(a.delta() - e.delta() < 1e-10);
}

TEST_CASE("constant-time DPSU (Laplace): tau = 2 (B + 1) 2^-128 per item, 2^64 of them") {
  const auto su = dpsu::set_union<dpsu::weighted_laplace, ct>::with_noise(0.5, 1e-6, 50);
  const auto exact =
      dpsu::set_union<dpsu::weighted_laplace, privet::secure_noise>::with_noise(0.5, 1e-6, 50);
  CHECK(su.noise_guarantee().base() == exact.noise_guarantee());
  // t = 0.5 2^b in [2^20, 2^21): B = ceil(log2(89 t)) digits per geometric
  // (constant_time_noise.hpp), tau = 2 (B + 1) 2^-128.
  const double t = std::ldexp(0.5, static_cast<int>(su.noise().scale_bits()));
  const int digits = static_cast<int>(std::ceil(std::log2(89 * t)));
  const double tau = std::ldexp(2.0 * (digits + 1), -128);
  CHECK(privet::constant_time_discrete_laplace(t).digits() == digits);
  CHECK(su.noise().sampler_total_variation() == tau);
  CHECK(su.noise_guarantee().total_variation() == 0x1p64 * tau);
  const privet::approx_dp a = su.guarantee(0);
  CHECK(a.epsilon() == exact.guarantee(0).epsilon());
  const long double want = raised_delta(1e-6, a.epsilon(), tau);
  CHECK(static_cast<long double>(a.delta()) >= want);
  CHECK(static_cast<long double>(a.delta()) <= want * (1 + 1e-15L));
}

TEST_CASE("constant-time DPSU calibrated: secure noise's scale, the target met with the share") {
  for (const auto& point : {std::pair{4.0, 1e-7}, std::pair{1.0, 1e-6}, std::pair{8.0, 1e-9}}) {
    const dpsu::parameters p{point.first, point.second, 100, 1};
    INFO("eps = " << p.epsilon << ", delta = " << p.delta);
    const dpsu::set_union<dpsu::weighted_gaussian, ct> su(p);
    const dpsu::set_union<dpsu::weighted_gaussian, privet::secure_noise> exact(p);
    // The share is about 2 (1 + e^eps) 2^64 tau, tau about 2^-117: up to
    // 5e-4 of delta at eps = 8, delta = 1e-9, which moves sigma by about
    // 1e-5 relative (3e-9 at eps = 4, delta = 1e-7).
    CHECK(su.noise().scale() >= exact.noise().scale());
    CHECK(su.noise().scale() <= exact.noise().scale() * (1 + 1e-4));
    const privet::approx_dp g = su.guarantee();
    CHECK(g.epsilon() <= p.epsilon);
    CHECK(g.epsilon() >= p.epsilon * (1 - 1e-6));
    CHECK(g.delta() <= p.delta);
    // The threshold's and the noise's deltas are each (delta - share) / 2.
    const double share = p.delta - 2 * su.threshold_delta();
    const long double need = raised_delta(0, g.epsilon(), su.noise().sampler_total_variation());
    CHECK(static_cast<long double>(share) >= need * (1 - 1e-12L));
    CHECK(static_cast<long double>(share) <= 4 * need);
    CHECK(share < p.delta * 1e-3);
    // The known answer: guarantee() is guarantee(noise_delta) of the halves.
    CHECK(g == su.guarantee(su.threshold_delta()));
  }
  const dpsu::set_union<dpsu::policy_laplace, ct> lap(dpsu::parameters{2, 1e-6, 50, 1});
  const dpsu::set_union<dpsu::policy_laplace, privet::secure_noise> lap_exact(
      dpsu::parameters{2, 1e-6, 50, 1});
  CHECK(lap.noise().scale() == lap_exact.noise().scale());
  CHECK(lap.guarantee().epsilon() <= 2);
  CHECK(lap.guarantee().delta() <= 1e-6);
  CHECK(lap.threshold_delta() < 1e-6);
  // A delta below twice the samplers' share (about 1e-14 at eps = 4) is
  // refused; 1e-12 is not.
  CHECK(dpsu::set_union<dpsu::weighted_gaussian, ct>(dpsu::parameters{4, 1e-12, 100, 1})
            .guarantee()
            .delta() <= 1e-12);
  CHECK(rejected_parameter([] {
          dpsu::set_union<dpsu::weighted_gaussian, ct>(dpsu::parameters{4, 1e-15, 100, 1});
        }) == "delta");
}

TEST_CASE("constant-time fixed-point noise passes at the exact law's rate") {
  // 40 000 draws at a weight where the exact pass probability is about 0.3:
  // the count is within 5 standard deviations of 40 000 p (a two-sided
  // false alarm of 5.7e-7 per check, 2 checks, fixed seeds), p from the
  // exact law (pass_probability); the sampler's distance is below 2^-100.
  const auto check = [](const auto& noise, std::uint64_t seed) {
    const std::int64_t tau = noise.to_units(2.0);
    const auto weight =
        static_cast<std::int64_t>(std::ldexp(1.5, static_cast<int>(noise.scale_bits())));
    const double prob = noise.pass_probability(weight, tau);
    REQUIRE(prob > 0.2);
    REQUIRE(prob < 0.4);
    privet::testing::seeded_release_generator gen(seed);
    constexpr int n = 40'000;
    int passed = 0;
    for (int i = 0; i < n; ++i) passed += noise.passes(weight, tau, gen);
    const double sd = std::sqrt(n * prob * (1 - prob));
    INFO("passed " << passed << ", expected " << n * prob << " +- " << sd);
    CHECK(std::fabs(passed - n * prob) <= 5 * sd);
  };
  check(dpsu::fixed_point_noise<dpsu::update_norm::l2, ct>(1.0), 21);
  check(dpsu::fixed_point_noise<dpsu::update_norm::l1, ct>(1.0), 22);
}

TEST_CASE("constant-time DPSU draws the same CSPRNG words per item whatever its weight") {
  // One user holds item 0, or 3000 users do (weight 1 unit vs 3000 units):
  // after the salt, each of the 3001 items draws words_per_sample() words.
  std::vector<std::vector<int>> shared(3000), alone(3000);
  for (int u = 0; u < 3000; ++u) {
    shared[static_cast<std::size_t>(u)] = {0, 1000 + u};
    alone[static_cast<std::size_t>(u)] = {1000 + u};
  }
  alone[0].push_back(0);
  const dpsu::parameters p{4, 1e-7, 10, 1};
  const dpsu::set_union<dpsu::weighted_gaussian, ct> su(p);
  const privet::constant_time_discrete_gaussian sampler(
      std::ldexp(su.noise().scale(), static_cast<int>(su.noise().scale_bits())));
  const auto words = [](const auto& s, const auto& users, std::uint64_t seed) {
    counting_release_generator gen(seed);
    const auto r = s(users, gen);
    return std::pair{gen.calls(), r.support};
  };
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto [a, na] = words(su, shared, seed);
    const auto [b, nb] = words(su, alone, seed);
    CHECK(na == 3001);
    CHECK(nb == 3001);
    CHECK(a == 1 + 3001 * static_cast<std::uint64_t>(sampler.words_per_sample()));
    CHECK(b == a);
  }
  // The same for Laplace (4 B words per item).
  const dpsu::set_union<dpsu::weighted_laplace, ct> lap(p);
  const privet::constant_time_discrete_laplace lap_sampler(
      std::ldexp(lap.noise().scale(), static_cast<int>(lap.noise().scale_bits())));
  CHECK(words(lap, shared, 4).first ==
        1 + 3001 * static_cast<std::uint64_t>(lap_sampler.words_per_sample()));
  CHECK(words(lap, alone, 5).first == words(lap, shared, 4).first);
  // The exact sampler's words vary with the draws: this check tells the two
  // apart, so a constant-time path that used it would fail above.
  const dpsu::set_union<dpsu::weighted_gaussian, privet::secure_noise> exact(p);
  std::set<std::uint64_t> seen;
  for (std::uint64_t seed : {1u, 2u, 3u}) seen.insert(words(exact, shared, seed).first);
  CHECK(seen.size() > 1);
}
