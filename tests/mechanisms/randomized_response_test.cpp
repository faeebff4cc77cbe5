#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/randomized_response.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

TEST_CASE("randomised response validates its inputs") {
  CHECK_THROWS_WITH_AS(privet::randomized_response(1.0, 1),
                       "privet: k = 1 is invalid; allowed: >= 2", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::randomized_response(0.0, 4),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  privet::testing::seeded_release_generator gen(1);
  const privet::randomized_response rr(1.0, 4);
  CHECK_THROWS_WITH_AS(static_cast<void>(rr.estimate_counts({1, 2})),
                       "privet: counts.size() = 2 is invalid; allowed: == k = 4",
                       privet::invalid_parameter);
  CHECK(rr.guarantee().epsilon() == 1.0);
}

TEST_CASE("report probabilities follow e^eps / (e^eps + k - 1)") {
  const privet::randomized_response rr(std::log(3.0), 5);
  CHECK(rr.p_true() == doctest::Approx(3.0 / 7.0));
  CHECK(rr.p_other() == doctest::Approx(1.0 / 7.0));
  CHECK(rr.p_true() / rr.p_other() == doctest::Approx(3.0));  // the eps-LDP ratio, exactly e^eps
}

TEST_CASE("randomised response takes any finite eps > 0 and a million values") {
  // The coin is certified bounds on e^eps / (e^eps + k - 1), so an eps such
  // as 1e-3 (whose binary fraction needs 62+ bits) and eps = 700 both work.
  privet::testing::seeded_release_generator gen(3);
  for (double eps : {1e-3, 700.0}) {
    const privet::randomized_response rr(eps, 1'000'000);
    for (int i = 0; i < 100; ++i) CHECK(rr(999'999, gen) < 1'000'000);
  }
  const privet::randomized_response sure(700.0, 1'000'000);
  CHECK(sure(123, gen) == 123);  // keeps with probability 1 - 1e-298
}

TEST_CASE("binary randomised response validates epsilon and its estimate's counts") {
  CHECK_THROWS_WITH_AS(privet::binary_randomized_response(-1.0),
                       "privet: epsilon = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  const privet::binary_randomized_response rr(1.0);
  CHECK_THROWS_WITH_AS((void)rr.estimate_count(5, 4),
                       "privet: true_reports = 5 is invalid; allowed: <= n = 4",
                       privet::invalid_parameter);
}

// Issue 22: a user's value is data, so a value outside [0, k) never throws;
// it is reported as a uniformly random value would be (the mixture of the
// in-domain reports, uniform on [0, k)).
TEST_CASE("a value outside the domain reports uniformly, never throws") {
  privet::testing::seeded_release_generator gen(12);
  const privet::randomized_response rr(2.0, 4);
  int counts[4] = {0, 0, 0, 0};
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t v = i % 2 == 0 ? 4 : ~std::uint64_t{0};
    const std::uint64_t r = rr(v, gen);
    REQUIRE(r < 4);
    ++counts[r];
  }
  // Uniform: 1/4 each; 6 standard deviations (false alarm about 1e-8 over all 4).
  const double sd = std::sqrt(n * 0.25 * 0.75);
  for (int c : counts) CHECK(std::fabs(c - n * 0.25) < 6 * sd);
}
