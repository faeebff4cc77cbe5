#include <privet/core/pipeline.hpp>
#include <privet/core/transformations/bounded_sum.hpp>
#include <privet/core/transformations/clamp.hpp>
#include <privet/core/transformations/clipped_sum.hpp>
#include <privet/core/transformations/count.hpp>
#include <privet/core/transformations/metric_cast.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

TEST_CASE("clamp maps records into bounds and rejects NaN") {
  privet::clamp c(0.0, 1.0);
  CHECK(c(std::vector<double>{-1, 0.5, 3}) == std::vector<double>{0, 0.5, 1});
  CHECK(c.stability(4) == 4);
  CHECK_THROWS_WITH_AS(
      c(std::vector<double>{0.1, NAN}),
      "privet: records[1] = nan is invalid; allowed: a number (NaN cannot be clamped)",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::clamp(2.0, 1.0),
                       "privet: upper = 1 is invalid; allowed: >= lower = 2",
                       privet::invalid_parameter);
}

TEST_CASE("bounded_sum sums, refuses out-of-bound records, and covers rounding") {
  privet::bounded_sum s(-2.0, 1.0, 1000);
  CHECK(s(std::vector<double>{1, -2, 0.5}) == -0.5);
  CHECK_THROWS_WITH_AS(
      s(std::vector<double>{0.5, 1.5}),
      "privet: records[1] = 1.5 is invalid; allowed: [-2, 1] (bounded_sum does not clamp; "
      "put clamp before it)",
      privet::invalid_parameter);
  CHECK(s.stability(1) > 2.0);
  CHECK(s.stability(1) < 2.0 * (1 + 1e-9));
  CHECK(s.stability_margin() > 0);
  // Pairwise summation: one large value among many small ones is not lost
  // the way a naive double loop would lose it.
  std::vector<double> v(1 << 20, 1e-16);
  v.front() = 1.0;
  privet::bounded_sum big(0.0, 1.0, v.size());
  CHECK(big(v) == doctest::Approx(1.0 + 1e-16 * ((1 << 20) - 1)).epsilon(1e-15));
}

TEST_CASE("count has stability 1 per record") {
  CHECK(privet::count{}(std::vector<int>{1, 2, 3}) == 3);
  CHECK(privet::count{}.stability(5) == 5.0);
}

TEST_CASE("clipped_sum scales rows to the clip norm") {
  privet::clipped_sum<privet::l2_distance> s(2, 1.0);
  const auto sum = s(std::vector<std::vector<double>>{{3, 4}, {0.3, 0.4}});
  CHECK(sum[0] == doctest::Approx(0.6 + 0.3));
  CHECK(sum[1] == doctest::Approx(0.8 + 0.4));
  CHECK(std::hypot(sum[0] - 0.3, sum[1] - 0.4) <= 1.0);
  privet::clipped_sum<privet::l1_distance> l1(2, 1.0);
  const auto s1 = l1(std::vector<std::vector<double>>{{3, 1}});
  CHECK(std::fabs(s1[0]) + std::fabs(s1[1]) <= 1.0);
  CHECK_THROWS_WITH_AS(s(std::vector<std::vector<double>>{{1, 2, 3}}),
                       "privet: rows[0].size() = 3 is invalid; allowed: == dimension = 2",
                       privet::invalid_parameter);
}

TEST_CASE("metric casts are identity on data and scale the stability") {
  auto t = privet::clipped_sum<privet::l2_distance>(9, 2.0) | privet::l2_as_l1(9);
  static_assert(std::same_as<decltype(t)::output_metric, privet::l1_distance>);
  CHECK(t.stability(1) == 6.0);  // sqrt(9) * 2
  CHECK_THROWS_WITH_AS(privet::l2_as_l1(0), "privet: dimension = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
}

TEST_CASE("transformations name the parameter or record they refuse") {
  CHECK_THROWS_WITH_AS(privet::bounded_sum(0.0, 1.0, 0),
                       "privet: max_records = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::bounded_sum(std::numeric_limits<double>::quiet_NaN(), 1.0),
                       "privet: lower = nan is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  const privet::bounded_sum s(0.0, 1.0, 2);
  CHECK_THROWS_WITH_AS(s(std::vector<double>{0.1, 0.2, 0.3}),
                       "privet: records.size() = 3 is invalid; allowed: <= max_records = 2",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(s(std::vector<double>{NAN}),
                       "privet: records[0] = nan is invalid; allowed: [0, 1] (bounded_sum does not "
                       "clamp; put clamp before it)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::clamp(0.0, std::numeric_limits<double>::infinity()),
                       "privet: upper = inf is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::clipped_sum<privet::l2_distance>(0, 1.0),
                       "privet: dimension = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::clipped_sum<privet::l1_distance>(2, 0.0),
                       "privet: clip = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  const privet::clipped_sum<privet::l2_distance> c(2, 1.0);
  CHECK_THROWS_WITH_AS(c(std::vector<std::vector<double>>{{1, 2}, {INFINITY, 0}}),
                       "privet: rows[1] = inf is invalid; allowed: finite coordinates",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((privet::metric_cast<privet::l1_distance, privet::l2_distance>(0.0)),
                       "privet: factor = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
}
