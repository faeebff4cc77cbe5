// Resource limits and counter boundaries of per-unit contribution bounding
// (privet/sketches/contribution_bounding.hpp): a unit with 10^7 records,
// read lazily, keeps exactly max_per_unit of them in memory that follows
// units x max_per_unit; the stability's product stops exactly at 2^64 - 1.
#include <privet/core/detail/lazy_range.hpp>
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/contribution_bounding.hpp>

#include <doctest/doctest.h>
#include <support/memory.hpp>

#include <cstdint>
#include <limits>
#include <ranges>
#include <set>
#include <vector>

using privet::test::mebibyte;
using privet::test::peak_rss_probe;

namespace {
using record = privet::unit_record<std::uint64_t, std::uint64_t>;
constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();
}  // namespace

TEST_CASE("a unit with 10^7 records, read lazily, keeps max_per_unit of them") {
  constexpr std::uint64_t records = 10'000'000;
  // Unit 1 sends record i for every i; every 100 000th record is unit 2's.
  const auto stream = privet::detail::generated(records, [](std::uint64_t i) {
    return i % 100'000 == 0 ? record{2, i} : record{1, i};
  });
  const privet::bound_contributions<std::uint64_t, std::uint64_t> bound(50);
  privet::testing::seeded_release_generator gen(21);
  const peak_rss_probe probe;
  const auto kept = bound(stream, gen);
  const std::size_t growth = probe.growth();

  // The bound: 50 distinct records of unit 1, 50 of unit 2's 100.
  REQUIRE(kept.size() == 100);
  std::set<std::uint64_t> one, two;
  for (const auto& r : kept) {
    if (r.unit == 1) {
      one.insert(r.value);
      CHECK(r.value % 100'000 != 0);
    } else {
      REQUIRE(r.unit == 2);
      two.insert(r.value);
      CHECK(r.value % 100'000 == 0);
    }
  }
  CHECK(one.size() == 50);
  CHECK(two.size() == 50);
  // Memory: two reservoirs of 50, not 10^7 records (160 MB). Limit 16 MiB;
  // skipped under AddressSanitizer, whose shadow memory and quarantine make
  // resident sizes meaningless.
  MESSAGE("peak RSS growth bounding a unit with 10^7 records: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 16 * mebibyte);
}

TEST_CASE("the largest bound keeps everything; the stability stops at 2^64 - 1") {
  // max_per_unit = 2^64 - 1: no record is ever dropped.
  const privet::bound_contributions<int, int> all(max64);
  privet::testing::seeded_release_generator gen(22);
  std::vector<privet::unit_record<int, int>> in;
  for (int i = 0; i < 1000; ++i) in.push_back({i % 3, i});
  CHECK(all(in, gen).size() == 1000);
  CHECK(all.stability(1) == max64);
  CHECK_THROWS_WITH_AS((void)all.stability(2),
                       "privet: bound_contributions stability d_in * max_per_unit = 2 * "
                       "18446744073709551615 overflows 64 bits; allowed: a product < 2^64",
                       privet::overflow_error);
  // 3 x 6148914691236517205 = 2^64 - 1 exactly; one more unit overflows.
  const privet::bound_contributions<int, int> three(3);
  CHECK(three.stability(6148914691236517205ull) == max64);
  CHECK_THROWS_WITH_AS((void)three.stability(6148914691236517206ull),
                       "privet: bound_contributions stability d_in * max_per_unit = "
                       "6148914691236517206 * 3 overflows 64 bits; allowed: a product < 2^64",
                       privet::overflow_error);
  CHECK(three.stability(0) == 0);
}
