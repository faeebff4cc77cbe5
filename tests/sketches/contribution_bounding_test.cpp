#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/contribution_bounding.hpp>

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <vector>

using record = privet::unit_record<int, int>;
using bound_int = privet::bound_contributions<int, int>;

TEST_CASE("bound_contributions keeps at most k records per unit and all of small units") {
  privet::testing::seeded_release_generator gen(3);
  std::vector<record> records;
  for (int i = 0; i < 20; ++i) records.push_back({1, i});
  records.push_back({2, 100});
  const auto out = privet::bound_contributions<int, int>(4)(records, gen);
  std::map<int, int> per_unit;
  for (const auto& r : out) ++per_unit[r.unit];
  CHECK(per_unit[1] == 4);
  CHECK(per_unit[2] == 1);  // nothing dropped below the bound
  CHECK(out.size() == 5);
}

TEST_CASE("bound_contributions is deterministic for a seeded generator") {
  std::vector<record> records;
  for (int i = 0; i < 50; ++i) records.push_back({i % 3, i});
  privet::testing::seeded_release_generator a(7), b(7);
  const privet::bound_contributions<int, int> bound(2);
  CHECK(bound(records, a) == bound(records, b));
}

TEST_CASE("bound_contributions samples uniformly (every record can survive)") {
  // Over 2000 runs each of 10 records is kept with probability 3/10; the
  // chance that some record is never kept is 10 * 0.7^2000 (negligible).
  std::vector<record> records;
  for (int i = 0; i < 10; ++i) records.push_back({0, i});
  privet::testing::seeded_release_generator gen(11);
  std::vector<int> kept(10);
  for (int run = 0; run < 2000; ++run)
    for (const auto& r : privet::bound_contributions<int, int>(3)(records, gen)) ++kept[r.value];
  for (int k : kept) {
    CHECK(k > 450);  // mean 600, sd ~20.5: 7 sd below
    CHECK(k < 750);
  }
}

TEST_CASE("bound_contributions validates its bound") {
  CHECK_THROWS_WITH_AS(bound_int(0), "privet: max_per_unit = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK(privet::bound_contributions<int, int>(5).stability(3) == 15);
}
