// Counter boundaries of per-key contribution bounding
// (privet/sketches/key_bounding.hpp), through its public API: a unit's
// occurrences of a key are capped at max_per_key, whose largest value 2^63 - 1
// is accepted and 2^63 refused; the stability's products stop exactly at
// 2^64 - 1 and its per-key bound is rounded up on its way to a double.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/key_bounding.hpp>

#include <doctest/doctest.h>
#include <support/errors.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {
using record = privet::unit_record<std::uint64_t, std::uint64_t>;
using bounder = privet::bound_keys<std::uint64_t, std::uint64_t>;
constexpr std::uint64_t max63 = std::uint64_t{1} << 63;
}  // namespace

TEST_CASE("max_per_key: 2^63 - 1 is the largest cap, 2^63 is refused") {
  const bounder widest(2, max63 - 1);
  CHECK(widest.max_per_key() == max63 - 1);
  CHECK_THROWS_WITH_AS(bounder(2, max63),
                       "privet: max_per_key = 9223372036854775808 is invalid; allowed: [1, 2^63 "
                       "- 1]",
                       privet::invalid_parameter);
  // Occurrences below the cap count in full, one per record.
  std::vector<record> in(5000, record{1, 42});
  in.push_back({1, 43});
  privet::testing::seeded_release_generator gen(31);
  const auto counts = widest(in, gen);
  CHECK(counts[42] == 5000);
  CHECK(counts[43] == 1);
  // A cap of exactly the occurrences keeps them all; one less cuts one.
  CHECK(bounder(2, 5000)(in, gen)[42] == 5000);
  CHECK(bounder(2, 4999)(in, gen)[42] == 4999);
}

TEST_CASE("stability at 2^64 - 1: products fit exactly, one more unit throws") {
  // 3 x 6148914691236517205 = 2^64 - 1.
  const auto s = bounder(3, 1).stability(6148914691236517205ull);
  CHECK(s.partitions == std::numeric_limits<std::uint64_t>::max());
  // The per-key bound d_in x 1 is not a double: rounded up, never down.
  CHECK(static_cast<long double>(s.per_partition) >= 6148914691236517205.0L);
  CHECK(s.per_partition == std::nextafter(static_cast<double>(6148914691236517205ull), 1e300));
  CHECK_THROWS_WITH_AS((void)bounder(3, 1).stability(6148914691236517206ull),
                       "privet: bound_keys stability d_in * max_keys = 6148914691236517206 * 3 "
                       "overflows 64 bits; allowed: a product < 2^64",
                       privet::overflow_error);
  // The per-key product: (2^63 - 1) x 2 fits, x 3 does not.
  const auto p = bounder(1, max63 - 1).stability(2);
  CHECK(p.per_partition >= 18446744073709551614.0);
  CHECK_THROWS_WITH_AS((void)bounder(1, max63 - 1).stability(3),
                       "privet: bound_keys stability d_in * max_per_key = 3 * 9223372036854775807 "
                       "overflows 64 bits; allowed: a product < 2^64",
                       privet::overflow_error);
}

// Issue 22: counts are data, so no count makes the bounding throw. A key's
// count saturates at 2^63 - 1 (a 1-Lipschitz map, so the stability holds).
TEST_CASE("counts saturate at 2^63 - 1 instead of throwing") {
  constexpr std::int64_t top = std::numeric_limits<std::int64_t>::max();
  privet::sparse_histogram<std::uint64_t, std::int64_t> h;
  h.add(1, top - 2);
  privet::detail::add_saturating(h, std::uint64_t{1}, 2);
  CHECK(h[1] == top);
  CHECK_NOTHROW(privet::detail::add_saturating(h, std::uint64_t{1}, 1));
  CHECK(h[1] == top);
  privet::detail::add_saturating(h, std::uint64_t{2}, top);
  CHECK(h[2] == top);
  // Merging shards at the limit: both neighbours (one more unit in the
  // second shard) merge, and differ by at most that unit's count.
  privet::sparse_histogram<std::uint64_t, std::int64_t> shard, shard_plus;
  shard.add(1, 5);
  shard_plus.add(1, 6);
  auto a = h, b = h;
  CHECK_NOTHROW(privet::detail::merge_saturating(a, shard));
  CHECK_NOTHROW(privet::detail::merge_saturating(b, shard_plus));
  CHECK(a[1] == top);
  CHECK(b[1] == top);
  // When the saturating path applies: once units * max_per_key can pass 2^63 - 1.
  CHECK_FALSE(privet::detail::may_saturate(1, max63 - 1));
  CHECK(privet::detail::may_saturate(2, max63 - 1));
  // (2^33 - 1) 2^30 < 2^63 <= 2^33 2^30.
  CHECK_FALSE(privet::detail::may_saturate((std::uint64_t{1} << 33) - 1, std::uint64_t{1} << 30));
  CHECK(privet::detail::may_saturate(std::uint64_t{1} << 33, std::uint64_t{1} << 30));
}

TEST_CASE("the saturating path counts as the unchecked one below the limit") {
  // max_per_key = 2^63 - 1 puts every unit after the first on the
  // saturating path; the counts must be the same as with a small cap.
  std::vector<record> records;
  for (std::uint64_t u = 0; u < 50; ++u) {
    for (std::uint64_t k = 0; k < 3; ++k) {
      for (std::uint64_t r = 0; r <= (u + k) % 4; ++r) records.push_back({u, k});
    }
  }
  privet::testing::seeded_release_generator g1(3), g2(3), g3(3);
  const auto wide = bounder(3, max63 - 1)(records, g1);
  const auto narrow = bounder(3, 1000)(records, g2);
  CHECK(wide.sorted_by_key() == narrow.sorted_by_key());
  const auto threaded = bounder(3, max63 - 1)(records, g3, 3);
  CHECK(threaded.sorted_by_key() == narrow.sorted_by_key());
}
