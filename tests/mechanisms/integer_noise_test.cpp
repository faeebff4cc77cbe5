// Integer noise mechanisms: exact privacy maps (CKS 2020 Theorem 14 for the
// discrete Gaussian, D / t for the discrete Laplace), minimal calibration,
// checked addition, and the directed uint64 -> double conversions.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/integer_noise.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

TEST_CASE("discrete Gaussian mechanism: exact zCDP map and minimal calibration") {
  // sigma^2 = 1000 / 3 on L2 sensitivity sqrt(10): rho = 10 * 3 / 2000 = 0.015.
  const auto m = privet::discrete_gaussian_mechanism<>::from_sigma2(1000, 3);
  CHECK(m.guarantee(std::sqrt(10.0)).rho() == doctest::Approx(0.015).epsilon(1e-15));
  CHECK(m.guarantee(0).rho() == 0);
  for (double rho : {0.015, 0.5, 2.0}) {
    for (double d : {1.0, std::sqrt(10.0), 7.0}) {
      const auto c = privet::discrete_gaussian_mechanism<>::from_guarantee(privet::zcdp(rho), d);
      CAPTURE(rho);
      CAPTURE(d);
      CHECK(c.guarantee(d).rho() <= rho);
      // Minimal: sigma^2 is within 1e-12 relative of D^2 / (2 rho).
      CHECK(c.distribution().sigma2() == doctest::Approx(d * d / (2 * rho)).epsilon(1e-12));
    }
  }
}

TEST_CASE("discrete Laplace mechanism: exact pure-DP map and minimal calibration") {
  const auto m = privet::discrete_laplace_mechanism<>::from_guarantee(privet::pure_dp(1.0), 10);
  CHECK(m.guarantee(10).epsilon() == 1.0);
  CHECK(m.distribution().scale_num() == 10);
  const auto f = privet::discrete_laplace_mechanism<>::from_guarantee(privet::pure_dp(0.3), 1);
  CHECK(f.guarantee(1).epsilon() <= 0.3);
  CHECK(f.guarantee(1).epsilon() >= 0.3 * (1 - 1e-15));
}

TEST_CASE("value plus noise saturates at the value type's limits, never throws") {
  privet::testing::seeded_release_generator gen(4);
  // int8 with sigma = 1000: nearly every sample leaves [-128, 127] and comes
  // out as one of the limits (clamping the exact sum is post-processing).
  const auto m = privet::discrete_gaussian_mechanism<std::int8_t>::from_scale(1000);
  int at_limit = 0;
  for (int i = 0; i < 200; ++i) {
    const std::int8_t y = m(std::int8_t{0}, gen);
    at_limit += (y == 127 || y == -128) ? 1 : 0;
  }
  // P[|N(0, 1000)| <= 128] = 0.10 per draw: 51 or more of 200 inside the
  // range is 7 standard deviations out (false alarm below 1e-9).
  CHECK(at_limit >= 150);
  // A count at int64's maximum and its neighbour both release (issue 22: a
  // throw on one of them would tell them apart with certainty).
  constexpr std::int64_t top = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t bottom = std::numeric_limits<std::int64_t>::min();
  const auto l = privet::discrete_laplace_mechanism<>::from_scale(1);
  int saturated = 0;
  for (int i = 0; i < 64; ++i) {
    const std::int64_t a = l(top, gen);
    const std::int64_t b = l(top - 1, gen);
    CHECK(a <= top);
    CHECK(b <= top);
    saturated += a == top ? 1 : 0;
    CHECK(l(bottom, gen) >= bottom);
    CHECK(l(bottom + 1, gen) >= bottom);
  }
  // P[Z >= 0] = 1 / (1 + e^-1) = 0.73 per draw: 64 draws with none at the top
  // has probability 1e-37.
  CHECK(saturated > 0);
  const auto g32 = privet::discrete_gaussian_mechanism<std::int32_t>::from_scale(3);
  for (int i = 0; i < 64; ++i) {
    CHECK_NOTHROW((void)g32(std::numeric_limits<std::int32_t>::max(), gen));
    CHECK_NOTHROW((void)g32(std::numeric_limits<std::int32_t>::min(), gen));
  }
  // In range, the value is shifted by an integer.
  const auto g = privet::discrete_gaussian_mechanism<>::from_scale(2);
  std::int64_t sum = 0;
  for (int i = 0; i < 1000; ++i) sum += g(100, gen) - 100;
  CHECK(std::llabs(sum) < 1000 * 2 * 5 / 31);  // |mean| < 5 sd / sqrt(n) (about 1e-6 false alarm)
}

TEST_CASE("uint64 bounds in double round the right way") {
  const std::uint64_t big = (std::uint64_t{1} << 60) + 1;
  CHECK(privet::detail::u64_down(big) <= static_cast<long double>(big));
  CHECK(privet::detail::u64_up(big) >= static_cast<long double>(big));
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  CHECK(static_cast<long double>(privet::detail::u64_down(top)) <= static_cast<long double>(top));
  CHECK(privet::detail::u64_up(3) == 3.0);
  CHECK(privet::detail::u64_down(3) == 3.0);
}

TEST_CASE("bad integer-noise parameters throw, naming them") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(privet::discrete_gaussian_mechanism<>::from_guarantee(privet::zcdp(0.1), 0),
                       "privet: l2_sensitivity = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_AS(privet::discrete_gaussian_mechanism<>::from_guarantee(privet::zcdp(0), 1),
                  invalid_parameter);
  CHECK_THROWS_AS(privet::discrete_laplace_mechanism<>::from_guarantee(privet::pure_dp(0), 1),
                  invalid_parameter);
  CHECK_THROWS_AS((void)privet::discrete_laplace_mechanism<>::from_scale(1).guarantee(-1),
                  invalid_parameter);
}

TEST_CASE("integer-noise messages name the parameter, value and range") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(privet::discrete_gaussian_mechanism<>::from_guarantee(privet::zcdp(0), 1),
                       "privet: target.rho = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::discrete_gaussian_mechanism<>::from_scale(1).guarantee(NAN),
                       "privet: l2_sensitivity = nan is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::discrete_laplace_mechanism<>::from_guarantee(privet::pure_dp(0), 1),
                       "privet: target.epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::discrete_laplace_mechanism<>::from_guarantee(privet::pure_dp(1), -1),
                       "privet: l1_sensitivity = -1 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::discrete_laplace_mechanism<>::from_scale(1).guarantee(-1),
                       "privet: l1_sensitivity = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  // The saturating addition both mechanisms share: exact inside the range,
  // the nearer limit outside it.
  CHECK(privet::detail::add_noise_saturating<std::int8_t>(std::int8_t{100}, 100) == 127);
  CHECK(privet::detail::add_noise_saturating<std::int8_t>(std::int8_t{0}, 1000) == 127);
  CHECK(privet::detail::add_noise_saturating<std::int8_t>(std::int8_t{-100}, -29) == -128);
  CHECK(privet::detail::add_noise_saturating<std::int8_t>(std::int8_t{100}, 27) == 127);
  CHECK(privet::detail::add_noise_saturating<std::int8_t>(std::int8_t{100}, -228) == -128);
  CHECK(privet::detail::add_noise_saturating<std::int8_t>(std::int8_t{100}, -227) == -127);
  CHECK(privet::detail::add_noise_saturating<std::int64_t>(
            std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max()) ==
        std::numeric_limits<std::int64_t>::max());
  CHECK(privet::detail::add_noise_saturating<std::int64_t>(
            std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::min()) ==
        std::numeric_limits<std::int64_t>::min());
}
