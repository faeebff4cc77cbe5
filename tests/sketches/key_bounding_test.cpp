// Per-key contribution bounding: exact counts under the bounds, bounds never
// exceeded by adversarial units, a uniformly random choice of kept keys
// (chi-square over the 15 possible 2-subsets of 6 keys at alpha = 1e-6: a
// correct sampler fails with probability 1e-6, and the seed is fixed),
// determinism, stability, and errors.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/key_bounding.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <vector>

using record = privet::unit_record<std::uint64_t, std::uint64_t>;
using bounder = privet::bound_keys<std::uint64_t, std::uint64_t>;

TEST_CASE("units within the bounds are counted exactly") {
  privet::testing::seeded_release_generator gen(1);
  std::vector<record> records{{1, 10}, {1, 11}, {2, 10}, {2, 10}, {3, 12}};
  const auto h = bounder(2, 5)(records, gen);
  CHECK(h[10] == 3);
  CHECK(h[11] == 1);
  CHECK(h[12] == 1);
  CHECK(h.size() == 3);
}

TEST_CASE("an adversarial unit never exceeds max_keys keys or max_per_key per key") {
  privet::testing::seeded_release_generator gen(2);
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
  privet::testing::seeded_release_generator gen(3);
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
  privet::testing::seeded_release_generator a(9), b2(9);
  const bounder b(4, 2);
  CHECK(b(records, a).sorted_by_key() == b(records, b2).sorted_by_key());
  const auto s = b.stability(3);
  CHECK(s.partitions == 12);
  CHECK(s.per_partition == 6.0);
  // max_per_key = 2 is checked first: 2^64 - 1 times 2 does not fit.
  CHECK_THROWS_WITH_AS((void)b.stability(UINT64_MAX),
                       "privet: bound_keys stability d_in * max_per_key = 18446744073709551615 * "
                       "2 overflows 64 bits; allowed: a product < 2^64",
                       privet::overflow_error);
  // max_per_key = 1 fits whatever d_in; max_keys = 4 does not.
  CHECK_THROWS_WITH_AS((void)bounder(4, 1).stability(std::uint64_t{1} << 62),
                       "privet: bound_keys stability d_in * max_keys = 4611686018427387904 * 4 "
                       "overflows 64 bits; allowed: a product < 2^64",
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS(bounder(0, 1), "privet: max_keys = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(bounder(1, 0), "privet: max_per_key = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  // A bounded count is an int64: one unit's copies must fit it.
  CHECK_THROWS_WITH_AS(bounder(1, std::uint64_t{1} << 63),
                       "privet: max_per_key = 9223372036854775808 is invalid; allowed: [1, 2^63 - "
                       "1]",
                       privet::invalid_parameter);
  CHECK(bounder(1, (std::uint64_t{1} << 63) - 1).max_per_key() == (std::uint64_t{1} << 63) - 1);
}

TEST_CASE("parallel shards give exactly the single-threaded counts") {
  std::vector<record> records;
  privet::testing::seeded_release_generator data(21);
  for (int i = 0; i < 200'000; ++i) {
    records.push_back({privet::uniform_below(data, 5'000), privet::uniform_below(data, 300)});
  }
  const bounder b(4, 2);
  privet::testing::seeded_release_generator g1(5), g2(5), g3(5);
  const auto one = b(records, g1);
  for (unsigned threads : {2u, 3u}) {
    privet::testing::seeded_release_generator g(5);
    const auto many = b(records, g, threads);
    CHECK(many.sorted_by_key() == one.sorted_by_key());
  }
  CHECK(b(records, g2, 1).sorted_by_key() == one.sorted_by_key());
  CHECK_THROWS_WITH_AS(b(records, g3, 0), "privet: threads = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
}

TEST_CASE("DPSU weighting gives every unit an L2 norm of at most 1, exactly") {
  const privet::l2_normalized_keys<std::uint64_t, std::uint64_t> w(4);
  // floor(2^30 / sqrt(m)) for m = 1..4: 2^30, floor(2^30 / sqrt 2), 2^30 / sqrt 3, 2^29.
  CHECK(w.weight(1) == (std::int64_t{1} << 30));
  CHECK(w.weight(2) == 759250124);  // floor(1073741824 / 1.41421356...) = 759250124.99
  CHECK(w.weight(3) == 619925131);  // 1073741824 / 1.7320508 = 619925131.4
  CHECK(w.weight(4) == (std::int64_t{1} << 29));
  for (std::uint64_t m = 1; m < 200; ++m) {
    const auto x = static_cast<long double>(w.weight(m));
    CHECK(x * x * m <= 0x1p60L);
    CHECK((x + 1) * (x + 1) * m > 0x1p60L);
  }
  // Unit 1 has 2 keys, unit 2 has 9 (keeps 4), unit 3 one key.
  std::vector<record> records{{1, 10}, {1, 11}, {1, 10}, {3, 10}};
  for (std::uint64_t k = 0; k < 9; ++k) records.push_back({2, 100 + k});
  privet::testing::seeded_release_generator gen(3);
  const auto h = w(records, gen);
  CHECK(h[10] == w.weight(2) + w.weight(1));
  CHECK(h[11] == w.weight(2));
  std::int64_t from_2 = 0;
  int keys_2 = 0;
  for (std::uint64_t k = 0; k < 9; ++k) {
    if (h[100 + k] != 0) {
      CHECK(h[100 + k] == w.weight(4));
      ++keys_2;
    }
    from_2 += h[100 + k];
  }
  CHECK(keys_2 == 4);
  CHECK(from_2 == 4 * w.weight(4));
  CHECK(w.stability(2) == 2 * w.unit());
  CHECK_THROWS_WITH_AS((privet::l2_normalized_keys<std::uint64_t, std::uint64_t>(0)),
                       "privet: max_keys = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((privet::l2_normalized_keys<std::uint64_t, std::uint64_t>(3, 41)),
                       "privet: scale_bits = 41 is invalid; allowed: [1, 40]",
                       privet::invalid_parameter);
}

TEST_CASE("per-window bounding: windows, keys per window and copies per key") {
  using wrecord = privet::windowed_record<std::uint64_t, std::uint32_t, std::uint64_t>;
  const privet::bound_keys_per_window<std::uint64_t, std::uint32_t, std::uint64_t> b(2, 3, 1);
  // An adversarial unit on 30 days with 50 keys a day, 4 copies each; a
  // modest unit within every bound.
  std::vector<wrecord> records;
  for (std::uint32_t day = 0; day < 30; ++day)
    for (std::uint64_t k = 0; k < 50; ++k)
      for (int c = 0; c < 4; ++c) records.push_back({7, day, day * 100 + k});
  records.push_back({8, 1, 5000});
  records.push_back({8, 2, 5000});
  privet::testing::seeded_release_generator gen(9);
  const auto h = b(records, gen);
  std::int64_t total = 0;
  std::set<std::uint32_t> days;
  for (const auto& [k, c] : h.sorted_by_key()) {
    if (k == 5000) {
      CHECK(c == 2);  // unit 8: both its days, one copy each
      continue;
    }
    CHECK(c == 1);
    days.insert(static_cast<std::uint32_t>(k / 100));
    total += c;
  }
  CHECK(total == 2 * 3);  // 2 windows x 3 keys x 1
  CHECK(days.size() == 2);
  const auto st = b.stability(1);
  CHECK(st.partitions == 6);
  // Unit 8 kept key 5000 in both its windows and added 2 to its count: the
  // per-key bound is max_windows * max_per_key, not max_per_key (it was 1,
  // a false claim, until issue 35's review).
  CHECK(st.per_partition == 2);
}

TEST_CASE("per-window bounding names each refused bound, and its stability's overflow") {
  using per_window = privet::bound_keys_per_window<std::uint64_t, std::uint32_t, std::uint64_t>;
  CHECK_THROWS_WITH_AS(per_window(0, 3, 1), "privet: max_windows = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(per_window(2, 0, 1), "privet: max_keys = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(per_window(2, 3, 0), "privet: max_per_key = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  // max_windows * max_keys must fit 64 bits: 2^32 * 2^32 does not, 2^32 * (2^32 - 1) does.
  constexpr std::uint64_t two32 = std::uint64_t{1} << 32;
  CHECK_THROWS_WITH_AS(per_window(two32, two32, 1),
                       "privet: max_windows = 4294967296 is invalid; allowed: <= 2^64 / max_keys "
                       "(the stability must fit 64 bits)",
                       privet::invalid_parameter);
  CHECK(per_window(two32, two32 - 1, 1).stability(1).partitions == two32 * (two32 - 1));
  // Stability: d_in * max_keys overflowing is bound_keys' message; d_in *
  // max_keys fitting but times max_windows not is the window bound's own.
  const per_window b(2, 3, 1);
  CHECK_THROWS_WITH_AS((void)b.stability(std::uint64_t{1} << 63),
                       "privet: bound_keys stability d_in * max_keys = 9223372036854775808 * 3 "
                       "overflows 64 bits; allowed: a product < 2^64",
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)b.stability(std::uint64_t{1} << 62),  // 3 * 2^62 fits, 6 * 2^62 not
                       "privet: bound_keys_per_window stability overflows 64 bits",
                       privet::overflow_error);
  CHECK(b.stability((std::uint64_t{1} << 62) / 3).partitions == ((std::uint64_t{1} << 62) / 3) * 6);
  // The per-key bound max_windows * max_per_key overflowing is refused too.
  const std::uint64_t max_count = (std::uint64_t{1} << 63) - 1;
  CHECK_THROWS_WITH_AS((void)per_window(3, 1, max_count).stability(1),
                       "privet: bound_keys_per_window stability overflows 64 bits",
                       privet::overflow_error);
  CHECK(per_window(2, 1, max_count).stability(1).per_partition == 2 * max_count);
}

namespace {

// Random records: `units` units, keys below `keys`, with repeats.
std::vector<record> random_records(std::uint64_t seed, std::size_t n, std::uint64_t units,
                                   std::uint64_t keys) {
  privet::seeded_generator g(seed);
  std::vector<record> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back({privet::uniform_below(g, units), privet::uniform_below(g, keys)});
  return out;
}

// Fisher-Yates with a seeded generator: another order of the same records.
void shuffle(std::vector<record>& r, std::uint64_t seed) {
  privet::seeded_generator g(seed);
  for (std::size_t i = r.size(); i > 1; --i) std::swap(r[i - 1], r[privet::uniform_below(g, i)]);
}

}  // namespace

TEST_CASE("the streaming bound equals bound_keys on any input, in any order") {
  // Both select() paths (flat for max_keys <= 16, per-unit vectors above),
  // counted and uncounted copies, units below and far above max_keys.
  struct shape {
    std::uint64_t max_keys, max_per_key, units, keys;
    std::size_t n;
  };
  for (const shape s : {shape{1, 1, 300, 50, 20'000}, shape{3, 2, 500, 40, 20'000},
                        shape{10, 1, 2'000, 5'000, 40'000}, shape{10, 3, 100, 30, 30'000},
                        shape{40, 5, 50, 400, 40'000}, shape{16, 1, 20, 100'000, 20'000}}) {
    CAPTURE(s.max_keys);
    CAPTURE(s.max_per_key);
    const bounder b(s.max_keys, s.max_per_key);
    auto records = random_records(s.max_keys * 7 + s.units, s.n, s.units, s.keys);
    for (std::uint64_t seed : {1u, 2u}) {
      privet::testing::seeded_release_generator g1(seed);
      const auto expected = b(records, g1).sorted_by_key();
      for (int order = 0; order < 3; ++order) {
        CAPTURE(order);
        privet::testing::seeded_release_generator g2(seed);
        auto acc = b.start(g2);
        if (order == 0) {
          for (const record& r : records) acc.add(r);
        } else {
          // Chunks of uneven sizes, in a shuffled order.
          shuffle(records, 100 + order);
          std::size_t i = 0;
          for (std::size_t chunk = 1; i < records.size(); chunk = chunk * 3 + 1) {
            const std::size_t n = std::min(chunk, records.size() - i);
            acc.add(std::span<const record>(records.data() + i, n));
            i += n;
          }
        }
        CHECK(acc.counts().sorted_by_key() == expected);
        CHECK(acc.units() <= s.units);
      }
    }
  }
}

TEST_CASE("the streaming bound visits select()'s kept keys and priorities") {
  const bounder b(5, 3);
  const auto records = random_records(8, 10'000, 200, 60);
  using kept_set = std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>>;
  std::map<std::uint64_t, kept_set> from_select, from_stream;
  b.select(records, 77, [&](std::uint64_t u, std::span<const bounder::kept_key> kept) {
    for (const auto& k : kept)
      from_select[u].insert({k.priority, k.key, std::min<std::uint64_t>(k.count, 3)});
  });
  auto acc = b.start_salted(77);
  acc.add(records);
  acc.visit([&](std::uint64_t u, std::span<const bounder::kept_key> kept) {
    CHECK(from_stream.count(u) == 0);  // once per unit
    for (const auto& k : kept) from_stream[u].insert({k.priority, k.key, k.count});
  });
  CHECK(from_stream == from_select);
  std::uint64_t pairs = 0;
  for (const auto& [u, s] : from_select) pairs += s.size();
  CHECK(acc.kept() == pairs);
  CHECK(acc.units() == from_select.size());
  CHECK(acc.salt() == 77);
}

TEST_CASE("a unit repeating one key streams into one count capped at max_per_key") {
  privet::testing::seeded_release_generator g(4);
  const bounder b(10, 3);
  auto acc = b.start(g);
  for (int i = 0; i < 100'000; ++i) acc.add(record{5, 42});
  acc.add(record{6, 42});
  const auto h = acc.counts();
  CHECK(h.size() == 1);
  CHECK(h[42] == 3 + 1);
  CHECK(acc.units() == 2);
  CHECK(acc.kept() == 2);
  // max_per_key = 1 stores no counts: still one each.
  auto once = bounder(10, 1).start(g);
  for (int i = 0; i < 1000; ++i) once.add(record{5, 42});
  CHECK(once.counts()[42] == 1);
}

TEST_CASE("the streaming bound keeps a unit's many keys in its own blocks") {
  // Blocks over 1024 slots take the large-block path.
  const bounder b(2'000, 2);
  std::vector<record> records;
  for (std::uint64_t k = 0; k < 3'000; ++k) records.push_back({1, k});
  for (std::uint64_t k = 0; k < 2'500; ++k) records.push_back({2, k * 7});
  for (std::uint64_t k = 0; k < 100; ++k) records.push_back({1, k});  // second copies
  privet::testing::seeded_release_generator g1(3), g2(3);
  const auto expected = b(records, g1).sorted_by_key();
  shuffle(records, 9);
  auto acc = b.start(g2);
  acc.add(records);
  CHECK(acc.counts().sorted_by_key() == expected);
  CHECK(acc.kept() == 4'000);
}

TEST_CASE("the streaming bound's memory follows kept pairs, not records") {
  // 200 000 records of 1 000 units with 10 distinct keys each: 10 000 kept
  // pairs at max_keys = 4 (4 000). Bytes per kept pair: entries and key
  // blocks, well under 100 (a record-keeping bound would hold 16 per record).
  const bounder b(4, 1);
  privet::testing::seeded_release_generator g(1);
  auto acc = b.start(g);
  for (int rep = 0; rep < 20; ++rep)
    for (std::uint64_t u = 0; u < 1000; ++u)
      for (std::uint64_t k = 0; k < 10; ++k) acc.add(record{u, u * 10 + k});
  CHECK(acc.kept() == 4000);
  const double per_pair = static_cast<double>(acc.memory_bytes()) / 4000.0;
  MESSAGE("streaming bound: " << per_pair << " bytes per kept pair at 1000 units");
  // Pages are allocated 2^16 slots at a time: at this small size the page
  // dominates, so the check is against records (200 000 x 16 bytes).
  CHECK(acc.memory_bytes() < 200'000 * 16 / 2);
}

TEST_CASE("a streaming bound refuses max_keys above 2^24 - 1, naming it") {
  privet::testing::seeded_release_generator g(1);
  const bounder b(std::uint64_t{1} << 24, 1);
  CHECK_THROWS_WITH_AS((void)b.start(g),
                       "privet: max_keys = 16777216 is invalid; allowed: [1, 2^24 - 1] for a "
                       "streaming bound",
                       privet::invalid_parameter);
  CHECK_NOTHROW((void)bounder((std::uint64_t{1} << 24) - 1, 1).start(g));
}
