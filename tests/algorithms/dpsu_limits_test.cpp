// Resource limits and fixed-point boundaries of DPSU
// (privet/algorithms/dpsu.hpp): a user with 10^7 items, read lazily, keeps
// exactly the max_items items bound_keys' bottom-k rule gives over the whole
// stream, in memory that follows max_items and the chunk buffer, not the
// items; chunks that outgrow the buffer are bounded at user boundaries with
// the same result; thresholds in fixed point stop exactly at 2^63 units.
#include <privet/algorithms/dpsu.hpp>
#include <privet/core/detail/lazy_range.hpp>
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/key_bounding.hpp>

#include <doctest/doctest.h>
#include <support/memory.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <ranges>
#include <set>
#include <vector>

namespace dpsu = privet::dpsu;
using privet::test::mebibyte;
using privet::test::peak_rss_probe;

namespace {

// Records every user's kept items (as a set per call) instead of updating.
struct recording_policy {
  static constexpr dpsu::update_norm norm = dpsu::update_norm::l2;
  static constexpr bool sequential = true;
  std::vector<std::set<std::uint64_t>>* kept;
  template <class Key>
  void update(std::span<const Key> items, privet::sparse_histogram<Key, std::int64_t>& h,
              const dpsu::update_context&) const {
    kept->emplace_back(items.begin(), items.end());
    CHECK(kept->back().size() == items.size());  // distinct
    for (const Key& k : items) h.add(k, 1);
  }
  [[nodiscard]] double cutoff(double rho, double) const { return rho; }
};
static_assert(dpsu::update_policy<recording_policy>);

using record = privet::unit_record<std::uint64_t, std::uint64_t>;

// The reference: one bound_keys pass over all the records, streamed.
template <class Records>
std::map<std::uint64_t, std::set<std::uint64_t>> bottom_k(const Records& records,
                                                          std::uint64_t max_items,
                                                          std::uint64_t salt) {
  std::map<std::uint64_t, std::set<std::uint64_t>> out;
  const privet::bound_keys<std::uint64_t, std::uint64_t> select(max_items, 1);
  select.select(records, salt, [&](const std::uint64_t& u, const auto& kept) {
    for (const auto& k : kept) out[u].insert(k.key);
  });
  return out;
}

// 10^7 (10^6 under AddressSanitizer: support/memory.hpp).
constexpr std::uint64_t huge_user_items = privet::test::huge_input(10'000'000);
constexpr std::uint64_t distinct_items = 3'000'017;

std::uint64_t item(std::uint64_t i) {
  return (i * 7919) % distinct_items;  // every residue, each about 3 times
}

}  // namespace

TEST_CASE("a user with 10^7 items, streamed, keeps the bottom-k of all of them") {
  constexpr std::uint64_t max_items = 12;
  constexpr std::uint64_t salt = 77;
  // User 0: 10^7 items with repeats; users 1 and 2: a few.
  const auto emit = [](std::size_t u, dpsu::item_sink<std::uint64_t>& out) {
    if (u == 0) {
      for (std::uint64_t i = 0; i < huge_user_items; ++i) out.push_back(item(i));
    } else {
      for (std::uint64_t i = 0; i < 5 * u; ++i) out(100 * u + i % 4);
    }
  };
  std::vector<std::set<std::uint64_t>> kept;
  const peak_rss_probe probe;
  (void)dpsu::accumulate<std::uint64_t>(recording_policy{&kept}, 3, emit, max_items,
                                        dpsu::update_context{10, 0}, salt, 1);
  const std::size_t growth = probe.growth();

  const auto huge = privet::detail::generated(huge_user_items, [](std::uint64_t i) {
    return record{0, item(i)};
  });
  const auto expected = bottom_k(huge, max_items, salt);
  REQUIRE(kept.size() == 3);
  std::set<std::set<std::uint64_t>> got(kept.begin(), kept.end());
  CHECK(got.contains(expected.at(0)));
  CHECK(expected.at(0).size() == max_items);
  CHECK(
      got.contains(std::set<std::uint64_t>{100, 101, 102, 103}));  // user 1: 4 distinct, kept whole
  CHECK(got.contains(std::set<std::uint64_t>{200, 201, 202, 203}));

  // Memory: about buffered_records records and max_items keys, not the 10^7
  // items (240 MB as items plus records). Limit 64 MiB; skipped under
  // AddressSanitizer, whose shadow memory and quarantine make resident
  // sizes meaningless.
  MESSAGE("peak RSS growth bounding a user with 10^7 items: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 64 * mebibyte);
}

TEST_CASE("set_union reads a lazy user of 10^7 items once, in bounded memory") {
  // User 0 holds 10^7 distinct items (a lazy view), user 1 three others.
  struct from {
    std::uint64_t first;
    std::uint64_t operator()(std::size_t i) const { return first + i; }
  };
  using items = privet::detail::generated_range<from>;
  const std::vector<items> users{items(huge_user_items, from{0}),
                                 items(3, from{2 * huge_user_items})};
  dpsu::parameters p;
  p.epsilon = 1;
  p.delta = 1e-6;
  p.max_items = 10;
  const dpsu::set_union<dpsu::weighted_gaussian, privet::simulation_only_noise> su(p);
  privet::testing::seeded_release_generator gen(5);
  const peak_rss_probe probe;
  const auto rel = su(users, gen);
  const std::size_t growth = probe.growth();
  // The bound: 10 of user 0's items and user 1's 3, each with a weight.
  CHECK(rel.support == 13);
  // One user per item: nothing passes the threshold (a (0, delta) event).
  CHECK(rel.items.empty());
  MESSAGE("peak RSS growth of set_union on a lazy user of 10^7 items: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 64 * mebibyte);
}

TEST_CASE("chunks beyond the buffer, streamed or held, bound each user as one pass does") {
  // 2100 users of 300 items (three chunks of up to 1024 users, 307 200
  // records each, above buffered_records = 2^18) and, among them, one user
  // of 700 000 items (reduced while it arrives).
  static_assert(dpsu::buffered_records == std::size_t{1} << 18);
  constexpr std::uint64_t users = 2100;
  constexpr std::uint64_t max_items = 20;
  constexpr std::uint64_t salt = 1234;
  const auto size_of = [](std::uint64_t u) -> std::uint64_t { return u == 300 ? 700'000 : 300; };
  // The long user's items are all distinct, so every segment it is reduced
  // in brings keys of its own.
  const auto value = [](std::uint64_t u, std::uint64_t i) -> std::uint64_t {
    return u == 300 ? 1'000'000 + i : (u * 131 + i * 17) % 50'000;
  };
  const auto vector_emit = [&](std::size_t u, std::vector<std::uint64_t>& out) {
    for (std::uint64_t i = 0; i < size_of(u); ++i) out.push_back(value(u, i));
  };
  const auto sink_emit = [&](std::size_t u, dpsu::item_sink<std::uint64_t>& out) {
    for (std::uint64_t i = 0; i < size_of(u); ++i) out.push_back(value(u, i));
  };
  // The reference: each user's bottom-k over all its records in one pass,
  // weighted floor(2^b / sqrt(m)).
  std::vector<record> all;
  for (std::uint64_t u = 0; u < users; ++u)
    for (std::uint64_t i = 0; i < size_of(u); ++i) all.push_back({u, value(u, i)});
  const auto expected = bottom_k(all, max_items, salt);
  const dpsu::update_context ctx{20, 0};
  const privet::l2_normalized_keys<std::uint64_t, std::uint64_t> weights(max_items, 20);
  privet::sparse_histogram<std::uint64_t, std::int64_t> reference;
  for (const auto& [u, keys] : expected) {
    for (std::uint64_t k : keys) reference.add(k, weights.weight(keys.size()));
  }
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    const auto streamed = dpsu::accumulate<std::uint64_t>(dpsu::weighted_gaussian{}, users,
                                                          sink_emit, max_items, ctx, salt, threads);
    const auto held = dpsu::accumulate<std::uint64_t>(dpsu::weighted_gaussian{}, users, vector_emit,
                                                      max_items, ctx, salt, threads);
    CHECK(streamed.sorted_by_key() == reference.sorted_by_key());
    CHECK(held.sorted_by_key() == reference.sorted_by_key());
  }
}

TEST_CASE("a threshold in fixed point: the largest below 2^63 units fits, 2^63 throws") {
  const dpsu::fixed_point_noise<dpsu::update_norm::l2, privet::simulation_only_noise> noise(1.0);
  const int bits = static_cast<int>(noise.scale_bits());
  REQUIRE(bits == 20);  // 2^20 units per standard deviation of 1
  const double largest = std::ldexp(std::nextafter(0x1p63, 0.0), -bits);
  CHECK(noise.to_units(largest) == static_cast<std::int64_t>(std::nextafter(0x1p63, 0.0)));
  CHECK(noise.to_units(-std::ldexp(0x1p63, -bits) + std::ldexp(1024.0, -bits)) ==
        -static_cast<std::int64_t>(0x1p63 - 1024));
  CHECK_THROWS_WITH_AS((void)noise.to_units(std::ldexp(0x1p63, -bits)),
                       "privet: threshold 8796093022208 in units of 2^-20 does not fit int64; "
                       "allowed: |x| 2^b < 2^63",
                       privet::overflow_error);
  CHECK_THROWS_AS((void)noise.to_units(-std::ldexp(0x1p63, -bits)), privet::overflow_error);
}

// Issue 22: a weight sum is data. At b = 40 bits a user adds 2^40 units to
// each of its items, so 2^23 users holding one item reach 2^63: the sum
// saturates at 2^63 - 1 (a 1-Lipschitz clamp) and both neighbours, 2^23 and
// 2^23 + 1 users, release the item instead of one of them throwing.
TEST_CASE("weight sums saturate at 2^63 - 1: 2^23 users at 2^40 units, and one more") {
  const auto su =
      dpsu::set_union<dpsu::weighted_gaussian>::with_noise(std::ldexp(1.0, -21), 1e-6, 1, 2);
  REQUIRE(su.noise().scale_bits() == 40);
  const auto emit = [](std::size_t, std::vector<std::uint64_t>& out) { out.push_back(7); };
  // 2^23 users is the fewest that reach 2^63 (b is at most 40), and four
  // passes over them took 38 s sanitized at -O0: the limits tests also run
  // unsanitized and optimised (the checks preset), which keeps this part.
  const std::vector<std::size_t> saturating =
      privet::test::address_sanitizer
          ? std::vector<std::size_t>{}
          : std::vector<std::size_t>{std::size_t{1} << 23, (std::size_t{1} << 23) + 1};
  for (const std::size_t users : saturating) {
    privet::testing::seeded_release_generator gen(5);
    const auto h =
        dpsu::accumulate<std::uint64_t>(dpsu::weighted_gaussian{}, users, emit, 1,
                                        dpsu::update_context{su.noise().scale_bits(), 0}, 99, 2);
    CHECK(h[std::uint64_t{7}] == std::numeric_limits<std::int64_t>::max());
    const auto out = su.run<std::uint64_t>(users, emit, gen);
    CHECK(out.items == std::vector<std::uint64_t>{7});
  }
  // Below the limit the sums are exact, threaded or not.
  const auto small = dpsu::accumulate<std::uint64_t>(dpsu::weighted_gaussian{}, 3000, emit, 1,
                                                     dpsu::update_context{40, 0}, 99, 2);
  CHECK(small[std::uint64_t{7}] == std::int64_t{3000} << 40);
  dpsu::update_context forced{40, 0};
  forced.saturate = true;
  const auto same =
      dpsu::accumulate<std::uint64_t>(dpsu::weighted_gaussian{}, 3000, emit, 1, forced, 99, 2);
  CHECK(same.sorted_by_key() == small.sorted_by_key());
}
