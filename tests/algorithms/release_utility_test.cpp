// The utility report on hand-computed cases.
#include <privet/algorithms/release_utility.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
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

TEST_CASE("the drop rate three ways: by cells, by views, among large cells") {
  privet::sparse_histogram<int, std::int64_t> truth;
  truth.add(1, 100);
  truth.add(2, 200);
  truth.add(3, 10);
  truth.add(4, 50);
  truth.add(10, 40);
  const std::vector<std::pair<int, std::int64_t>> released{
      {1, 110}, {2, 150}, {3, 30}, {11, 95}, {10, 40}};
  // Only cell 4 (50 views) is dropped: 1 of 5 cells, 50 of 400 views, and of
  // the cells with true count >= 50 (1, 2, 4), 1 of 3.
  const auto all = privet::utility(truth, released, 50);
  CHECK(all.drop_rate() == doctest::Approx(0.2));
  CHECK(all.true_views == 400);
  CHECK(all.dropped_views == 50);
  CHECK(all.view_drop_rate() == doctest::Approx(0.125));
  CHECK(all.large_from == 50);
  CHECK(all.true_large == 3);
  CHECK(all.dropped_large == 1);
  CHECK(all.large_drop_rate() == doctest::Approx(1.0 / 3));
  // Without a threshold the third rate is NaN, the other two unchanged.
  const auto plain = privet::utility(truth, released);
  CHECK(std::isnan(plain.large_drop_rate()));
  CHECK(plain.view_drop_rate() == doctest::Approx(0.125));
  // By group: "a" holds cells 1..4 (360 views, 50 dropped), "b" 10 and 11.
  auto group = [](const int& k) { return std::string(k < 10 ? "a" : "b"); };
  const auto by = privet::utility_by(truth, released, group, 50);
  CHECK(by.at("a").view_drop_rate() == doctest::Approx(50.0 / 360));
  CHECK(by.at("a").large_drop_rate() == doctest::Approx(1.0 / 3));
  CHECK(by.at("b").view_drop_rate() == 0);
  CHECK(std::isnan(by.at("b").large_drop_rate()));  // no cell of "b" reaches 50
  // Nothing released: everything dropped, every way.
  const auto none = privet::utility(truth, {}, 50);
  CHECK(none.view_drop_rate() == 1.0);
  CHECK(none.large_drop_rate() == 1.0);
}

TEST_CASE("view sums are exact where int64 would wrap") {
  // Two cells at 2^63 - 1: their sum wraps int64; summed exactly it is
  // 2^64 - 2, half of it dropped.
  privet::sparse_histogram<int, std::int64_t> truth;
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  truth.add(1, big);
  truth.add(2, big);
  const auto m = privet::utility(truth, {{1, big}}, 1);
  CHECK(m.true_views == doctest::Approx(18446744073709551614.0));
  CHECK(m.view_drop_rate() == doctest::Approx(0.5));
}

TEST_CASE("utility at many thresholds equals the report of each thresholded release") {
  // The one-pass evaluation against the definition: threshold the cells,
  // then utility(). Truth and noisy counts from a fixed LCG; some candidate
  // cells have true count 0 (spurious when published), some true cells are
  // not candidates (always dropped).
  privet::sparse_histogram<int, std::int64_t> truth;
  std::vector<std::pair<int, std::int64_t>> cells;
  std::uint64_t x = 12345;
  auto next = [&x](std::uint64_t m) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::int64_t>((x >> 33) % m);
  };
  for (int key = 0; key < 400; ++key) {
    const std::int64_t t = key % 7 == 0 ? 0 : next(300);
    if (t > 0) truth.add(key, t);
    if (key % 5 != 0) cells.emplace_back(key, t + next(81) - 40);
  }
  const std::vector<std::int64_t> taus{1, 20, 60, 90, 150, 400};
  const auto fast = privet::utility_at_thresholds(truth, cells, taus);
  REQUIRE(fast.size() == taus.size());
  for (std::size_t i = 0; i < taus.size(); ++i) {
    std::vector<std::pair<int, std::int64_t>> kept;
    for (const auto& c : cells)
      if (c.second >= taus[i]) kept.push_back(c);
    const auto slow = privet::utility(truth, kept, taus[i]);
    CAPTURE(taus[i]);
    CHECK(fast[i].published == slow.published);
    CHECK(fast[i].spurious == slow.spurious);
    CHECK(fast[i].true_nonzero == slow.true_nonzero);
    CHECK(fast[i].dropped == slow.dropped);
    CHECK(fast[i].true_views == slow.true_views);
    CHECK(fast[i].dropped_views == slow.dropped_views);
    CHECK(fast[i].true_large == slow.true_large);
    CHECK(fast[i].dropped_large == slow.dropped_large);
    CHECK(fast[i].large_from == slow.large_from);
    if (slow.published > 0) {
      CHECK(fast[i].median_relative_error == slow.median_relative_error);
      CHECK(fast[i].share_below_half == slow.share_below_half);
    } else {
      CHECK(std::isnan(fast[i].median_relative_error));
    }
  }
  // The grid is not trivial: some but not all cells pass the middle taus.
  CHECK(fast[2].published > 0);
  CHECK(fast[2].published < cells.size());
  CHECK(fast[5].published == 0);
}

TEST_CASE("the threshold of the large cells and the grid's thresholds are checked") {
  privet::sparse_histogram<int, std::int64_t> truth;
  truth.add(1, 5);
  CHECK_THROWS_WITH_AS(privet::utility(truth, {{1, 5}}, 0),
                       "privet: large_from = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  auto one = [](const int&) { return std::string("x"); };
  CHECK_THROWS_WITH_AS(privet::utility_by(truth, {{1, 5}}, one, -3),
                       "privet: large_from = -3 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::utility_at_thresholds(truth, {{1, 5}}, {90, 0}),
                       "privet: thresholds = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::utility_at_thresholds(truth, {{1, 5}, {1, 6}}, {90}),
                       "privet: unsuppressed = a cell published twice is invalid; allowed: each "
                       "cell at most once",
                       privet::invalid_parameter);
}
