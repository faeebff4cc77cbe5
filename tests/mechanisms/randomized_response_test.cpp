#include <privet/core/seeded_generator.hpp>
#include <privet/mechanisms/randomized_response.hpp>

#include <doctest/doctest.h>

TEST_CASE("randomised response validates its inputs") {
  CHECK_THROWS_WITH_AS(privet::randomized_response(1.0, 1),
                       "privet: k = 1 is invalid; allowed: >= 2", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::randomized_response(0.0, 4),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  privet::seeded_generator gen(1);
  const privet::randomized_response rr(1.0, 4);
  CHECK_THROWS_WITH_AS(rr(4, gen), "privet: value = 4 is invalid; allowed: [0, k) with k = 4",
                       privet::invalid_parameter);
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
  privet::seeded_generator gen(3);
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
