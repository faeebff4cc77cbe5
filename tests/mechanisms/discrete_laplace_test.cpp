#include <privet/core/seeded_generator.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>

#include <doctest/doctest.h>

#include <cmath>

TEST_CASE("discrete Laplace takes the exact binary value of a double scale") {
  const privet::discrete_laplace_distribution d(0.75);
  CHECK(d.scale_num() == 3);
  CHECK(d.scale_den() == 4);
  const privet::discrete_laplace_distribution big(std::ldexp(1.0, 40));
  CHECK(big.scale_num() == (std::uint64_t{1} << 40));
  CHECK(big.scale_den() == 1);
  const privet::discrete_laplace_distribution reduced(6, 4);
  CHECK(reduced.scale_num() == 3);
}

TEST_CASE("samplers are deterministic under a seeded generator") {
  const privet::discrete_laplace_distribution lap(2.5);
  const privet::discrete_gaussian_distribution gau(9, 1);
  privet::seeded_generator a(1), b(1);
  for (int i = 0; i < 100; ++i) {
    CHECK(lap(a) == lap(b));
    CHECK(gau(a) == gau(b));
  }
}

TEST_CASE("sampler parameters are validated") {
  CHECK_THROWS_WITH_AS(privet::discrete_laplace_distribution(0, 1),
                       "privet: scale_num = 0 is invalid; allowed: [1, 2^62)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::discrete_laplace_distribution(-1.0),
                       "privet: scale = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::discrete_laplace_distribution(1e300),
                       "privet: scale = 1e+300 is invalid; allowed: < 2^62",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::discrete_gaussian_distribution(1, 0),
                       "privet: sigma2_den = 0 is invalid; allowed: [1, 2^62)",
                       privet::invalid_parameter);
  privet::seeded_generator gen(2);
  CHECK_THROWS_WITH_AS(privet::bernoulli_exp(gen, std::uint64_t{1}, std::uint64_t{0}),
                       "privet: den = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
}
