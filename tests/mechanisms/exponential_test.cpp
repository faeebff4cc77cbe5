#include <privet/core/seeded_generator.hpp>
#include <privet/mechanisms/exponential.hpp>

#include <doctest/doctest.h>

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
