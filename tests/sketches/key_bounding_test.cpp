// Per-key contribution bounding: exact counts under the bounds, bounds never
// exceeded by adversarial units, a uniformly random choice of kept keys
// (chi-square over the 15 possible 2-subsets of 6 keys at alpha = 1e-6: a
// correct sampler fails with probability 1e-6, and the seed is fixed),
// determinism, stability, and errors.
#include <privet/core/seeded_generator.hpp>
#include <privet/sketches/key_bounding.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <vector>

using record = privet::unit_record<std::uint64_t, std::uint64_t>;
using bounder = privet::bound_keys<std::uint64_t, std::uint64_t>;

TEST_CASE("units within the bounds are counted exactly") {
  privet::seeded_generator gen(1);
  std::vector<record> records{{1, 10}, {1, 11}, {2, 10}, {2, 10}, {3, 12}};
  const auto h = bounder(2, 5)(records, gen);
  CHECK(h[10] == 3);
  CHECK(h[11] == 1);
  CHECK(h[12] == 1);
  CHECK(h.size() == 3);
}

TEST_CASE("an adversarial unit never exceeds max_keys keys or max_per_key per key") {
  privet::seeded_generator gen(2);
  std::vector<record> records;
  for (std::uint64_t i = 0; i < 1'000'000; ++i)
    records.push_back({7, i % 100'000});  // 10 each of 10^5 keys
  records.push_back({8, 3});
  const auto h = bounder(3, 2)(records, gen);
  std::int64_t total = 0;
  std::size_t keys_from_7 = 0;
  for (const auto& [k, c] : h) {
    total += c;
    if (k != 3 || c > 1) ++keys_from_7;
    CHECK(c <= 3);  // key 3 may get 2 from unit 7 and 1 from unit 8
  }
  CHECK(keys_from_7 <= 3);
  CHECK(total <= 3 * 2 + 1);
  CHECK(total >= 3 * 2);  // unit 7 has 10 records of each kept key
}

TEST_CASE("the kept keys are a uniform subset of a unit's distinct keys") {
  privet::seeded_generator gen(3);
  std::vector<record> records;
  for (int rep = 0; rep < 3; ++rep) {
    for (std::uint64_t k = 0; k < 6; ++k) records.push_back({42, k});  // duplicates in between
  }
  const bounder b(2, 10);
  std::map<std::set<std::uint64_t>, std::uint64_t> seen;
  for (int trial = 0; trial < 30'000; ++trial) {
    std::set<std::uint64_t> kept;
    for (const auto& [k, c] : b(records, gen)) {
      kept.insert(k);
      CHECK(c == 3);  // every occurrence of a kept key counts
    }
    ++seen[kept];
  }
  REQUIRE(seen.size() == 15);
  std::vector<std::uint64_t> counts;
  for (const auto& [subset, c] : seen) counts.push_back(c);
  const auto r = privet::test::chi_square_cells(counts, std::vector<double>(15, 1.0 / 15), 1e-6);
  CAPTURE(r.statistic);
  CHECK(r.passes());
}

TEST_CASE("deterministic for a seed; stability and errors") {
  std::vector<record> records;
  for (std::uint64_t i = 0; i < 1000; ++i) records.push_back({i % 7, i % 31});
  privet::seeded_generator a(9), b2(9);
  const bounder b(4, 2);
  CHECK(b(records, a).sorted_by_key() == b(records, b2).sorted_by_key());
  const auto s = b.stability(3);
  CHECK(s.partitions == 12);
  CHECK(s.per_partition == 6.0);
  CHECK_THROWS_AS((void)b.stability(UINT64_MAX), privet::overflow_error);
  CHECK_THROWS_WITH_AS(bounder(0, 1), "privet: max_keys = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(bounder(1, 0), "privet: max_per_key = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
}
