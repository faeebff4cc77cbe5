// Unit tests of the exact geometric and binomial samplers: parameters,
// saturation, the big-integer paths, determinism and the documented errors.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/binomial.hpp>

#include <doctest/doctest.h>
#include <support/errors.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using privet::binomial_distribution;
using privet::geometric_distribution;
using privet::test::rejected_parameter;

TEST_CASE("geometric: parameters and closed forms") {
  const geometric_distribution g(0.5);
  CHECK(g.rate() == 0.5);
  CHECK(g.success_probability() == doctest::Approx(1 - std::exp(-0.5)).epsilon(1e-15));
  CHECK(g.mean() == doctest::Approx(std::exp(-0.5) / (1 - std::exp(-0.5))).epsilon(1e-14));
  double total = 0;
  for (std::uint64_t x = 0; x < 200; ++x) total += g.pmf(x);
  CHECK(total == doctest::Approx(1).epsilon(1e-12));
}

TEST_CASE("geometric: invalid rates name `rate`") {
  for (double r : {0.0, -1.0, std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()}) {
    CHECK(rejected_parameter([&] { geometric_distribution{r}; }) == "rate");
  }
}

TEST_CASE("geometric: tiny and huge rates take the big-integer path and stay exact") {
  privet::testing::seeded_release_generator gen(1);
  // rate 2^-200: P[G < 2^64] = 1 - exp(-2^-136), so every sample saturates.
  const geometric_distribution tiny(std::ldexp(1.0, -200));
  for (int i = 0; i < 20; ++i) CHECK(tiny(gen) == geometric_distribution::result_max);
  // rate 2^200: P[G >= 1] = exp(-2^200) = 0 in any double.
  const geometric_distribution huge(std::ldexp(1.0, 200));
  for (int i = 0; i < 20; ++i) CHECK(huge(gen) == 0u);
  // 2^-70 is on the 128-bit path, with P[G < 2^64] = 1 - exp(-2^-6) = 1.55 %:
  // over 2000 draws the unsaturated samples are Binomial(2000, 0.0155), 31 on
  // average; the band [5, 70] fails a correct sampler with probability
  // below 1e-8.
  const geometric_distribution small(std::ldexp(1.0, -70));
  int below = 0;
  for (int i = 0; i < 2000; ++i) below += small(gen) != geometric_distribution::result_max;
  CHECK(below >= 5);
  CHECK(below <= 70);
}

TEST_CASE("geometric and binomial: a seeded generator repeats the samples") {
  privet::testing::seeded_release_generator a(9), b(9);
  const binomial_distribution d(1'000'000, 1e-4);
  for (int i = 0; i < 50; ++i) CHECK(d(a) == d(b));
}

TEST_CASE("binomial: parameters, bounds and the documented limits") {
  const binomial_distribution d(100, std::log(2.0));  // p = 1/2
  CHECK(d.trials() == 100u);
  CHECK(d.success_probability() == doctest::Approx(0.5).epsilon(1e-15));
  CHECK(d.mean() == doctest::Approx(50).epsilon(1e-14));
  CHECK(d.variance() == doctest::Approx(25).epsilon(1e-14));
  double total = 0;
  for (std::uint64_t x = 0; x <= 100; ++x) total += d.pmf(x);
  CHECK(total == doctest::Approx(1).epsilon(1e-10));
  CHECK(d.pmf(101) == 0);

  privet::testing::seeded_release_generator gen(3);
  const binomial_distribution none(0, 1.0);
  for (int i = 0; i < 10; ++i) CHECK(none(gen) == 0u);
  // rate 40: p = 1 - 4e-18, so all 1000 trials succeed (P[a failure] < 5e-15).
  const binomial_distribution all(1000, 40.0);
  for (int i = 0; i < 10; ++i) CHECK(all(gen) == 1000u);
  for (int i = 0; i < 100; ++i) CHECK(d(gen) <= 100u);

  CHECK(rejected_parameter([] { binomial_distribution(10, 0.0); }) == "rate");
  CHECK(rejected_parameter([] { binomial_distribution(10, -1.0); }) == "rate");
  // mean 2^40 > 2^32: refused, naming trials.
  CHECK(rejected_parameter([] { binomial_distribution(std::uint64_t{1} << 41, std::log(2.0)); }) ==
        "trials");
  CHECK(rejected_parameter([] { binomial_distribution(std::uint64_t{1} << 33, std::log(2.0)); }) ==
        "");
  try {
    binomial_distribution(std::uint64_t{1} << 41, std::log(2.0));
    FAIL("expected invalid_parameter");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()).find("<= 2^32") != std::string::npos);
  }
}

TEST_CASE("binomial: from_probability maps p to the rate -log1p(-p)") {
  const auto d = binomial_distribution::from_probability(1000, 0.01);
  CHECK(d.rate() == -std::log1p(-0.01));
  CHECK(d.success_probability() == doctest::Approx(0.01).epsilon(1e-15));
  for (double p : {0.0, 1.0, -0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    CHECK(rejected_parameter([&] { binomial_distribution::from_probability(10, p); }) == "p");
  }
}
