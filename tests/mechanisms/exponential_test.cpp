#include <privet/core/seeded_generator.hpp>
#include <privet/mechanisms/exponential.hpp>

#include <doctest/doctest.h>

#include <type_traits>
#include <vector>

TEST_CASE("selectors validate scores and parameters") {
  privet::seeded_generator gen(1);
  const privet::exponential_mechanism em(1.0, 1.0);
  CHECK_THROWS_WITH_AS(em(std::vector<double>{}, gen),
                       "privet: scores is empty; allowed: at least one element",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(em(std::vector<double>{1, NAN}, gen),
                       "privet: scores[1] = nan is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::permute_and_flip(1.0, 0.0),
                       "privet: sensitivity = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK(em.guarantee().epsilon() == 1.0);
}

TEST_CASE("a single candidate or a dominant one is returned") {
  privet::seeded_generator gen(2);
  const privet::permute_and_flip pf(1.0, 1.0);
  CHECK(pf(std::vector<double>{5.0}, gen) == 0);
  const privet::exponential_mechanism em(50.0, 1.0);
  for (int i = 0; i < 100; ++i) CHECK(em(std::vector<double>{0, 1000, 0}, gen) == 1);
}

TEST_CASE("report-noisy-max names the exactly equivalent mechanisms") {
  static_assert(std::is_same_v<privet::report_noisy_max<privet::gumbel_noise>,
                               privet::exponential_mechanism>);
  static_assert(std::is_same_v<privet::report_noisy_max<privet::exponential_noise>,
                               privet::permute_and_flip>);
  static_assert(!privet::report_noisy_max_noise<double>);
  privet::seeded_generator gen(3);
  const privet::report_noisy_max<privet::exponential_noise> rnm(1.0, 1.0);
  CHECK(rnm(std::vector<double>{0, 100, 0}, gen) == 1);
}

TEST_CASE("selectors name a bad epsilon") {
  CHECK_THROWS_WITH_AS(privet::exponential_mechanism(0.0, 1.0),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::permute_and_flip(1.0, -1.0, true),
                       "privet: sensitivity = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
}
