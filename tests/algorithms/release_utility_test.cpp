// The utility report on hand-computed cases.
#include <privet/algorithms/release_utility.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

TEST_CASE("utility metrics by group, computed by hand") {
  privet::sparse_histogram<int, std::int64_t> truth;
  // Group "a": cells 1..4; group "b": cells 10, 11.
  truth.add(1, 100);
  truth.add(2, 200);
  truth.add(3, 10);
  truth.add(4, 50);
  truth.add(10, 40);
  const std::vector<std::pair<int, std::int64_t>> released{
      {1, 110}, {2, 150}, {3, 30}, {11, 95}, {10, 40}};
  auto group = [](const int& k) { return std::string(k < 10 ? "a" : "b"); };
  const auto by = privet::utility_by(truth, released, group);
  REQUIRE(by.size() == 2);
  const auto& a = by.at("a");
  // Errors 0.1, 0.25, 2: median 0.25, share < 0.5 = 2/3; cell 4 dropped.
  CHECK(a.published == 3);
  CHECK(a.median_relative_error == doctest::Approx(0.25));
  CHECK(a.share_below_half == doctest::Approx(2.0 / 3));
  CHECK(a.true_nonzero == 4);
  CHECK(a.dropped == 1);
  CHECK(a.drop_rate() == doctest::Approx(0.25));
  CHECK(a.spurious == 0);
  const auto& b = by.at("b");
  // Cell 11 is spurious (error +inf), cell 10 exact: median of {0, inf} is inf.
  CHECK(b.published == 2);
  CHECK(b.spurious == 1);
  CHECK(b.spurious_rate() == 0.5);
  CHECK(std::isinf(b.median_relative_error));
  CHECK(b.share_below_half == 0.5);
  CHECK(b.dropped == 0);

  const auto all = privet::utility(truth, released);
  CHECK(all.published == 5);
  CHECK(all.dropped == 1);
  // Errors 0, 0.1, 0.25, 2, inf: median 0.25.
  CHECK(all.median_relative_error == doctest::Approx(0.25));

  // Nothing published: NaN, not 0.
  const auto none = privet::utility(truth, {});
  CHECK(std::isnan(none.median_relative_error));
  CHECK(none.drop_rate() == 1.0);
  CHECK_THROWS_AS(privet::utility(truth, {{1, 5}, {1, 6}}), privet::invalid_parameter);
}

TEST_CASE("a cell published twice is refused, naming the release") {
  privet::sparse_histogram<int, std::int64_t> truth;
  truth.add(1, 5);
  CHECK_THROWS_WITH_AS(privet::utility(truth, {{1, 5}, {1, 6}}),
                       "privet: released = a cell published twice is invalid; allowed: each cell "
                       "at most once",
                       privet::invalid_parameter);
}
