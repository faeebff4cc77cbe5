// The mechanisms with constant_time_noise: the same calibration, grid and
// privacy map as secure_noise, the guarantee qualified by the sampler's
// total variation (within_tv), the accounting layer's (eps, delta) checked
// against a second computation of (1 + e^eps) tau, releases that are the
// tested constant-time samplers' draws on the grid, and a fixed number of
// CSPRNG words per release whatever the input or the noise.
#include <privet/accounting/composition.hpp>
#include <privet/accounting/zcdp.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/mechanisms/integer_noise.hpp>
#include <privet/mechanisms/laplace.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>
#include <support/errors.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <type_traits>
#include <vector>

namespace {

using privet::test::counting_release_generator;

// (1 + e^eps) tau in long double: the second computation of the sampler's
// share of delta.
long double share(double eps, double tau) {
  return (1 + std::exp(static_cast<long double>(eps))) * static_cast<long double>(tau);
}

using ct = privet::constant_time_noise;

}  // namespace

TEST_CASE("constant-time Laplace: the secure calibration, qualified by the sampler's distance") {
  const auto m = privet::laplace_mechanism<double, ct>::from_guarantee(privet::pure_dp(1), 1, 3);
  const auto exact = privet::laplace_mechanism<double, privet::secure_noise>::from_guarantee(
      privet::pure_dp(1), 1, 3);
  static_assert(std::is_same_v<decltype(m)::guarantee_type, privet::within_tv<privet::pure_dp>>);
  CHECK(m.scale() == exact.scale());
  CHECK(m.granularity() == exact.granularity());
  const auto g = m.guarantee(1);
  CHECK(g.base() == exact.guarantee(1));
  // Three coordinates, each one constant-time sample at t = scale / g in
  // [2^40, 2^41): tau = 3 * 2 (B + 1) 2^-128 with B the least digit count
  // with 2^B >= 89 t (47 or 48 here).
  const double t = m.scale() / m.granularity();
  const privet::constant_time_discrete_laplace sampler(t);
  CHECK(sampler.digits() == static_cast<int>(std::ceil(std::log2(89 * t))));
  CHECK(sampler.total_variation_bound() == std::ldexp(2.0 * (sampler.digits() + 1), -128));
  CHECK(g.total_variation() == 3 * sampler.total_variation_bound());
  CHECK(g.total_variation() < std::ldexp(1.0, -100));
  const privet::approx_dp a = privet::to_approx_dp(g);
  CHECK(a.epsilon() == g.base().epsilon());
  CHECK(static_cast<long double>(a.delta()) >= share(a.epsilon(), g.total_variation()));
  CHECK(static_cast<long double>(a.delta()) <=
        share(a.epsilon(), g.total_variation()) * (1 + 1e-12L));
  CHECK(m.guarantee(0).base().epsilon() == 0);
}

TEST_CASE("constant-time Laplace releases the sampler's draws on the grid, same words each time") {
  const auto m = privet::laplace_mechanism<double, ct>::from_scale(2.5);
  const privet::constant_time_discrete_laplace sampler(m.scale() / m.granularity());
  privet::testing::seeded_release_generator a(11), b(11);
  for (double x : {0.0, 1e6, -3.25}) {
    const double out = m(x, a);
    const double want = x + m.granularity() * static_cast<double>(sampler(b));
    CHECK(out == want);
  }
  counting_release_generator gen(12);
  std::set<std::uint64_t> words;
  for (double x : {0.0, 1e6, -1e6, 1e300}) {
    for (int i = 0; i < 200; ++i) {
      const std::uint64_t before = gen.calls();
      (void)m(x, gen);
      words.insert(gen.calls() - before);
    }
  }
  CHECK(words.size() == 1);
  CHECK(*words.begin() == static_cast<std::uint64_t>(m.words_per_coordinate()));
}

TEST_CASE("constant-time Gaussian: zCDP within the sampler's distance, delta kept as asked") {
  const auto m = privet::gaussian_mechanism<double, ct>::from_guarantee(privet::zcdp(0.5), 1);
  const auto exact = privet::gaussian_mechanism<double, privet::secure_noise>::from_guarantee(
      privet::zcdp(0.5), 1);
  static_assert(std::is_same_v<decltype(m)::guarantee_type, privet::within_tv<privet::zcdp>>);
  CHECK(m.sigma() == exact.sigma());
  const auto g = m.guarantee(1);
  CHECK(g.base() == exact.guarantee(1));
  CHECK(g.total_variation() > 0);
  CHECK(g.total_variation() < std::ldexp(1.0, -100));
  // epsilon at delta minus a share of at most 2^-46 delta: a hair above
  // the exact sampler's epsilon at delta, and delta itself unchanged.
  const auto a = m.approx_guarantee(1, 1e-6);
  const auto e = exact.approx_guarantee(1, 1e-6);
  CHECK(a.delta() == 1e-6);
  CHECK(a.epsilon() >= e.epsilon());
  CHECK(a.epsilon() <= exact.approx_guarantee(1, 1e-6 * (1 - std::ldexp(1.0, -46))).epsilon());
  // The accounting layer's conversion of within_tv<zcdp> does the same for
  // Corollary 13's bound.
  const auto z = privet::to_approx_dp(g, 1e-6);
  CHECK(z.delta() == 1e-6);
  CHECK(z.epsilon() >= privet::to_approx_dp(exact.guarantee(1), 1e-6).epsilon());
}

TEST_CASE("constant-time Gaussian calibrated to (eps, delta) meets it at delta") {
  for (std::size_t dim : {std::size_t{1}, std::size_t{10}}) {
    const privet::approx_dp target(1, 1e-6);
    const auto m = privet::gaussian_mechanism<double, ct>::from_guarantee(target, 1, dim);
    const auto exact =
        privet::gaussian_mechanism<double, privet::secure_noise>::from_guarantee(target, 1, dim);
    CAPTURE(dim);
    CHECK(m.approx_guarantee(1, 1e-6).epsilon() <= 1);
    CHECK(m.approx_guarantee(1, 1e-6).delta() == 1e-6);
    // The room left for the sampler (2^-47 of delta) moves sigma by at most
    // a few grid steps.
    CHECK(m.sigma() >= exact.sigma());
    CHECK(m.sigma() <= exact.sigma() * (1 + 1e-8));
  }
  CHECK(privet::test::rejected_parameter([] {
          (void)privet::gaussian_mechanism<double, ct>::from_scale(1).approx_guarantee(1, 1e-40);
        }) == "delta");
}

TEST_CASE("constant-time Gaussian releases the same words for every input and noise") {
  const auto m = privet::gaussian_mechanism<double, ct>::from_scale(3.0, 2);
  counting_release_generator gen(13);
  std::set<std::uint64_t> words;
  for (double x : {0.0, 1e6}) {
    for (int i = 0; i < 10; ++i) {
      const std::uint64_t before = gen.calls();
      (void)m(std::vector<double>{x, -x}, gen);
      words.insert(gen.calls() - before);
    }
  }
  CHECK(words.size() == 1);
  CHECK(*words.begin() == 2 * static_cast<std::uint64_t>(m.words_per_coordinate()));
}

TEST_CASE(
    "constant-time integer mechanisms: the exact privacy maps, within the sampler's distance") {
  using dl = privet::discrete_laplace_mechanism<std::int64_t, ct>;
  using dg = privet::discrete_gaussian_mechanism<std::int32_t, ct>;
  static_assert(std::is_same_v<dl::guarantee_type, privet::within_tv<privet::pure_dp>>);
  static_assert(std::is_same_v<dg::guarantee_type, privet::within_tv<privet::zcdp>>);
  const auto lap = dl::from_guarantee(privet::pure_dp(0.5), 1);
  const auto lap_exact =
      privet::discrete_laplace_mechanism<std::int64_t, privet::secure_noise>::from_guarantee(
          privet::pure_dp(0.5), 1);
  CHECK(lap.guarantee(1).base() == lap_exact.guarantee(1));
  CHECK(lap.guarantee(1).total_variation() ==
        privet::constant_time_discrete_laplace(lap.distribution()).total_variation_bound());
  const auto gau = dg::from_sigma2(1000, 3);
  CHECK(
      gau.guarantee(2).base() ==
      privet::discrete_gaussian_mechanism<std::int32_t, privet::secure_noise>::from_sigma2(1000, 3)
          .guarantee(2));
  CHECK(gau.sampler_total_variation() > 0);
  // Saturation is unchanged: the noisy value never wraps.
  privet::testing::seeded_release_generator gen(14);
  for (int i = 0; i < 100; ++i) {
    CHECK(gau(std::numeric_limits<std::int32_t>::max(), gen) <=
          std::numeric_limits<std::int32_t>::max());
  }
  // Composition sums bases and distances.
  const auto both = privet::compose(std::vector{gau.guarantee(1), gau.guarantee(1)});
  CHECK(both.base().rho() == 2 * gau.guarantee(1).base().rho());
  CHECK(both.total_variation() == 2 * gau.sampler_total_variation());
  const auto pure = privet::compose_basic(std::vector{lap.guarantee(1), lap.guarantee(2)});
  CHECK(pure.base().epsilon() ==
        lap.guarantee(1).base().epsilon() + lap.guarantee(2).base().epsilon());
  CHECK(pure.total_variation() == 2 * lap.sampler_total_variation());
}

TEST_CASE("the branch-free saturating sum equals add_noise_saturating") {
  // Second method: the exact path's branchy sum, at the limits of each type.
  auto check = [](auto value, std::int64_t noise) {
    using I = decltype(value);
    CHECK(privet::detail::add_noise_saturating_ct<I>(value, noise) ==
          privet::detail::add_noise_saturating<I>(value, noise));
  };
  const std::vector<std::int64_t> noises{0, 1, -1, 1000, -1000, INT64_MAX, INT64_MIN, 1LL << 40};
  for (std::int64_t n : noises) {
    for (std::int64_t v :
         {std::int64_t{0}, INT64_MAX, INT64_MIN, INT64_MAX - 5, INT64_MIN + 5, std::int64_t{-7}}) {
      check(v, n);
    }
    for (std::int32_t v : {0, INT32_MAX, INT32_MIN, INT32_MAX - 5, -7}) check(v, n);
    for (std::int8_t v : {std::int8_t{0}, std::int8_t{127}, std::int8_t{-128}, std::int8_t{-7}}) {
      check(v, n);
    }
  }
}
