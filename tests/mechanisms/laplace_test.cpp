#include <privet/core/pipeline.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/transformations/bounded_sum.hpp>
#include <privet/core/transformations/clamp.hpp>
#include <privet/mechanisms/laplace.hpp>

#include "support/boundary_inputs.hpp"

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

using privet::laplace_mechanism;

TEST_CASE("Laplace from scale: guarantee is sensitivity / scale plus at most the grid step") {
  const auto m = laplace_mechanism<>::from_scale(2.0);
  CHECK(m.granularity() == std::ldexp(1.0, -39));  // 2 / 2^40 rounded to a power of two
  const double eps = m.guarantee(1.0).epsilon();
  CHECK(eps >= 0.5);
  CHECK(eps <= 0.5 + m.granularity());  // one grid step over scale 2, rounded up
  CHECK(m.guarantee(0).epsilon() == 0);
  const auto sim = laplace_mechanism<double, privet::simulation_only_noise>::from_scale(2.0);
  CHECK(sim.guarantee(1.0).epsilon() == 0.5);
}

TEST_CASE("Laplace calibrated to a target never exceeds it") {
  for (double eps : {0.01, 0.1, 1.0, 3.7, 10.0})
    for (double sens : {1.0, 0.3, 60.0, 1e6}) {
      const auto m = laplace_mechanism<>::from_guarantee(privet::pure_dp(eps), sens);
      CHECK(m.guarantee(sens).epsilon() <= eps);
      CHECK(m.guarantee(sens).epsilon() >= eps * (1 - 1e-9));  // and is not wasteful
      CHECK(m.scale() == doctest::Approx(sens / eps).epsilon(1e-9));
    }
}

TEST_CASE("Laplace secure outputs lie on the grid whatever the input") {
  privet::testing::seeded_release_generator gen(1);
  const auto m = laplace_mechanism<>::from_scale(1.0);
  for (double x : {0.0, 0.1, 1.0 / 3.0, 12345.678}) {
    const double y = m(x, gen);
    CHECK(y / m.granularity() == std::nearbyint(y / m.granularity()));
  }
}

TEST_CASE("Laplace noise has the right spread (coarse check)") {
  // Mean absolute deviation of Lap(b) is b; over 20000 draws its standard
  // error is about b / 141, so a 5% band fails with probability < 1e-6.
  privet::testing::seeded_release_generator gen(2);
  const auto m = laplace_mechanism<>::from_scale(3.0);
  double mad = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) mad += std::fabs(m(10.0, gen) - 10.0);
  CHECK(mad / n == doctest::Approx(3.0).epsilon(0.05));
}

TEST_CASE("Laplace rejects bad parameters and inputs with clear messages") {
  privet::testing::seeded_release_generator gen(3);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_scale(0),
                       "privet: scale = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_guarantee(privet::pure_dp(0), 1),
                       "privet: target.epsilon = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  const auto m = laplace_mechanism<>::from_scale(1.0);
  // Data never throws (these used to): NaN reads as 0, +-inf as +-max.
  CHECK(std::fabs(m(std::nan(""), gen)) < 60);
  CHECK(m(-std::numeric_limits<double>::infinity(), gen) == std::numeric_limits<double>::lowest());
  CHECK(m(1e300, gen) == 1e300);  // was overflow_error: now every finite input releases
  const auto v = laplace_mechanism<>::from_scale(1.0, 3);
  CHECK(v(std::vector<double>{1, 2, 3}, gen).size() == 3);
  // A vector's length is data: cut or zero-padded to the dimension, never thrown.
  const auto padded = v(std::vector<double>{1e6, 2e6}, gen);
  REQUIRE(padded.size() == 3);
  CHECK(std::fabs(padded[0] - 1e6) < 60);
  CHECK(std::fabs(padded[2]) < 60);  // the padding 0, plus Lap(1): |noise| < 60 but w.p. e^-60
  const auto cut = v(std::vector<double>{1e6, 2e6, 3e6, 4e6}, gen);
  REQUIRE(cut.size() == 3);
  CHECK(std::fabs(cut[2] - 3e6) < 60);
}

TEST_CASE("pipeline clamp | bounded_sum | Laplace reports the composed guarantee") {
  privet::testing::seeded_release_generator gen(4);
  auto p = privet::clamp(0.0, 5.0) | privet::bounded_sum(0.0, 5.0, 1000) |
           laplace_mechanism<>::from_guarantee(privet::pure_dp(0.5), 5.0);
  static_assert(std::same_as<privet::guarantee_t<decltype(p)>, privet::within_tv<privet::pure_dp>>);
  // bounded_sum's stability is 5 plus its rounding margin (< 1e-12 here),
  // which the mechanism's grid rounding absorbs or adds a hair to.
  CHECK(p.guarantee(1).epsilon() >= 0.5);
  CHECK(p.guarantee(1).epsilon() < 0.5 * (1 + 1e-9));
  const double y = p(std::vector<double>{1, 2, 9}, gen);
  CHECK(std::isfinite(y));
}

TEST_CASE("Laplace names every refused parameter and the input that leaves the grid") {
  privet::testing::seeded_release_generator gen(4);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_scale(1.0, 0),
                       "privet: dimension = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_guarantee(privet::pure_dp(1), 0),
                       "privet: l1_sensitivity = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_guarantee(privet::pure_dp(1), 1, 0),
                       "privet: dimension = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  const auto m = laplace_mechanism<>::from_scale(1.0);
  CHECK_THROWS_WITH_AS((void)m.guarantee(-1),
                       "privet: l1_sensitivity = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  // Scale 1: the grid is 2^-40, and 1e300 >= 2^77 = 2^117 g comes back
  // exactly (it used to throw overflow_error).
  CHECK(m(1e300, gen) == 1e300);
  const auto v = laplace_mechanism<>::from_scale(1.0, 3);
  CHECK_THROWS_WITH_AS(v(1.0, gen),
                       "privet: dimension = 3 is invalid; allowed: 1 for a scalar input (pass a "
                       "vector of that size)",
                       privet::invalid_parameter);
}

TEST_CASE("secure Laplace releases every finite input: both neighbours at each boundary") {
  // Issue 22, findings 1 and 2: the grid used to end at 2^62 steps, so
  // 4194303 released and its neighbour 4194304 threw at eps = 1.
  privet::testing::seeded_release_generator gen(11);
  const auto m = laplace_mechanism<>::from_guarantee(privet::pure_dp(1), 1);
  // Lap(1): |noise| < 60 but with probability e^-60.
  privet::test::check_boundary_neighbours(m, gen, 62.0, 0x1p76);
  const double max = std::numeric_limits<double>::max();
  // From 2^117 g = 2^77 up, round(x / g) + noise rounds back to round(x / g):
  // the output is x itself, to the last bit.
  for (double x : {0x1p77, 1e30, 1e300, max, -max}) CHECK(m(x, gen) == x);
  // eps = 10 and a count of a million (used to throw).
  const auto m10 = laplace_mechanism<>::from_guarantee(privet::pure_dp(10), 1);
  CHECK(std::fabs(m10(1e6, gen) - 1e6) < 10);
  // A large scale: the noise may push the output past the largest double,
  // which saturates instead of becoming inf.
  const auto wide = laplace_mechanism<>::from_scale(1e307);
  for (int i = 0; i < 50; ++i) {
    const double y = wide(max, gen);
    CHECK(std::isfinite(y));
    CHECK(y <= max);
  }
  // Vectors and the parallel path take the same inputs.
  const auto v = laplace_mechanism<>::from_scale(1.0, 3);
  const std::vector<double> xs{max, -max, 4194304};
  CHECK(v(xs, gen)[0] == max);
  CHECK(v(std::span<const double>(xs), gen, privet::parallel_options{2})[1] == -max);
}

TEST_CASE("secure Laplace over float and long double: every finite value, max and lowest") {
  privet::testing::seeded_release_generator gen(12);
  const auto f = laplace_mechanism<float>::from_guarantee(privet::pure_dp(1), 1);
  const float fmax = std::numeric_limits<float>::max();
  for (float x : {4194303.0f, 4194304.0f, 0x1p24f, 0x1p53f, fmax, -fmax}) {
    float y = 0;
    CHECK_NOTHROW(y = f(x, gen));
    CHECK(std::isfinite(y));
    CHECK(std::fabs(static_cast<double>(y) - x) <= std::max(62.0, std::fabs(x) * 0x1p-23));
  }
  CHECK(f(fmax, gen) == fmax);
  CHECK(f(-fmax, gen) == -fmax);
  if constexpr (privet::detail::wide_release_type<long double>) {
    const auto l = laplace_mechanism<long double>::from_guarantee(privet::pure_dp(1), 1);
    const long double lmax = std::numeric_limits<long double>::max();
    for (long double x : {4194304.0L, 0x1p53L, 0x1p64L, lmax, -lmax, 1e4000L}) {
      long double y = 0;
      CHECK_NOTHROW(y = l(x, gen));
      CHECK(std::isfinite(y));
      CHECK(std::fabs(y - x) <= std::max(62.0L, std::fabs(x) * 0x1p-63L));
    }
    CHECK(l(lmax, gen) == lmax);
    CHECK(l(1e4000L, gen) == 1e4000L);  // beyond every double: the long double grid path
  }
}

TEST_CASE("secure release: NaN reads as 0 and +-inf as max / lowest, noise still added") {
  // The mechanisms' perturb goes through detail::release_on_grid, which
  // maps the input first; the same noise draw gives the same output.
  const double g = 0x1p-40;
  const double max = std::numeric_limits<double>::max();
  const double inf = std::numeric_limits<double>::infinity();
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{12345}, std::int64_t{-987654321}}) {
    CHECK(privet::detail::release_on_grid(std::nan(""), g, n) ==
          privet::detail::release_on_grid(0.0, g, n));
    CHECK(privet::detail::release_on_grid(inf, g, n) == privet::detail::release_on_grid(max, g, n));
    CHECK(privet::detail::release_on_grid(-inf, g, n) ==
          privet::detail::release_on_grid(-max, g, n));
    CHECK(privet::detail::release_on_grid(std::nanf(""), g, n) ==
          privet::detail::release_on_grid(0.0f, g, n));
    CHECK(privet::detail::release_on_grid(static_cast<float>(INFINITY), g, n) ==
          std::numeric_limits<float>::max());
  }
  CHECK(privet::detail::release_on_grid(std::nan(""), g, 3) == 3 * g);
  // The simulation-only path saturates the same way.
  CHECK(privet::detail::add_saturated(std::nan(""), 0.5) == 0.5);
  CHECK(privet::detail::add_saturated(inf, 1e300) == max);
  CHECK(privet::detail::add_saturated(static_cast<float>(-INFINITY), -1e300) ==
        std::numeric_limits<float>::lowest());
}

TEST_CASE("grid release is one function of round(x / g) + noise in both regimes") {
  using privet::detail::int128;
  using privet::detail::round_to_double;
  // The rounding by hand agrees with the compiler's int128 conversion (a
  // second method), including ties, at the widths the release forms.
  std::uint64_t state = 7;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state;
  };
  for (int i = 0; i < 20000; ++i) {
    const int shift = static_cast<int>(next() % 60);
    int128 s = (static_cast<int128>(next() >> 1) << shift) + static_cast<int128>(next() >> 20);
    if (next() & 1) s = -s;
    CHECK(round_to_double(s) == static_cast<double>(s));
  }
  const int128 tie = (static_cast<int128>(1) << 60) + 64;  // half way between two doubles
  CHECK(round_to_double(tie) == 0x1p60);                   // ties to even
  CHECK(round_to_double(tie + 128) == 0x1p60 + 256);
  // The claim behind the high regime: at |k| >= 2^117, k + n rounds to k for
  // every int64 n, so returning x there is the same function of k + n.
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  for (double k : {0x1p117, -0x1p117, 0x1p117 + 0x1p65, 0x1p126, -0x1p126 - 0x1p74})
    for (std::int64_t n : {big, -big, std::int64_t{0}, big / 2, -(big / 3)}) {
      CHECK(round_to_double(static_cast<int128>(k) + n) == k);
    }
  // Just below the boundary the exact path is taken and still returns k for
  // these n (the next double down is 2^64 away).
  CHECK(privet::detail::release_finite(0x1p117 - 0x1p64, 1.0, big) == 0x1p117 - 0x1p64);
  CHECK(privet::detail::release_finite(0x1p117, 1.0, -big) == 0x1p117);
  CHECK(privet::detail::release_finite(0x1p116, 1.0, big) == 0x1p116);
  CHECK(privet::detail::release_finite(3.0, 1.0, -5) == -2.0);
}

TEST_CASE("Laplace at extreme parameters: a working mechanism or the caller's parameter named") {
  privet::testing::seeded_release_generator gen(13);
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double max = std::numeric_limits<double>::max();
  // A subnormal scale used to make a zero grid ("scale = inf" from the sampler).
  const auto t = laplace_mechanism<>::from_scale(tiny);
  CHECK(t.granularity() == tiny);
  CHECK(std::isfinite(t(1.0, gen)));
  CHECK(t.guarantee(tiny).epsilon() == 2);  // one step of sensitivity plus one of rounding
  CHECK_THROWS_WITH_AS((void)t.guarantee(1),
                       "privet: the Laplace guarantee for l1_sensitivity = 1 at scale = "
                       "5e-324 exceeds the double range",
                       privet::overflow_error);
  const auto c = laplace_mechanism<>::from_guarantee(privet::pure_dp(1), tiny);
  CHECK(c.guarantee(tiny).epsilon() <= 1);
  CHECK(c.granularity() == tiny);
  CHECK(std::isfinite(c(0.5, gen)));
  const auto huge = laplace_mechanism<>::from_scale(max);
  CHECK(std::isfinite(huge(0.0, gen)));
  CHECK(huge.guarantee(1e300).epsilon() <= (1e300 + huge.granularity()) / max * (1 + 1e-9));
  const auto big_eps = laplace_mechanism<>::from_guarantee(privet::pure_dp(1e300), 1);
  CHECK(big_eps.guarantee(1).epsilon() <= 1e300);
  CHECK(std::isfinite(big_eps(1.0, gen)));
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_guarantee(privet::pure_dp(1e-300), 1e300),
                       "privet: the Laplace scale for epsilon = 1e-300 (pure DP) and "
                       "l1_sensitivity = 1e+300 exceeds the double range",
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS(laplace_mechanism<>::from_guarantee(privet::pure_dp(1e-17), 1),
                       "privet: target.epsilon = 1e-17 is invalid; allowed: >= about dimension "
                       "* 2^-52 = 2.220446049250313e-16 with grid noise (each coordinate's "
                       "rounding to the grid costs one step, and the noise must stay within "
                       "2^52 steps)",
                       privet::invalid_parameter);
  // simulation_only_noise has no grid: only the double range limits it.
  CHECK(laplace_mechanism<double, privet::simulation_only_noise>::from_guarantee(
            privet::pure_dp(1e-17), 1)
            .scale() == doctest::Approx(1e17));
}
