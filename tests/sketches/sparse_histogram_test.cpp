// Sparse histograms: counting, shard merges equal to one pass, counts that
// saturate at the count type's limits (never throw: a count is data),
// deterministic top-k and thresholds, noise through a sampler or a mechanism
// over stored or given keys (saturated at the count type), and batched
// updates (add_all) equal to one add per key, undone exactly when memory
// runs out.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using hist = privet::sparse_histogram<std::uint64_t>;

TEST_CASE("counts match a std::map, and merging shards equals one pass") {
  privet::testing::seeded_release_generator gen(3);
  hist all, a, b;
  std::map<std::uint64_t, std::int64_t> reference;
  for (int i = 0; i < 100'000; ++i) {
    const auto key = privet::uniform_below(gen, 5000);
    const auto w = static_cast<std::int64_t>(privet::uniform_below(gen, 3)) + 1;
    all.add(key, w);
    (i % 3 == 0 ? a : b).add(key, w);
    reference[key] += w;
  }
  a.merge(b);
  REQUIRE(all.size() == reference.size());
  CHECK(a.sorted_by_key() == all.sorted_by_key());
  for (const auto& [k, c] : reference) CHECK(all[k] == c);
  CHECK(all[999'999] == 0);
  CHECK_FALSE(all.contains(999'999));
}

TEST_CASE("a count at the type's limit saturates, for add and merge: neighbours both count") {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  // D: key 1 at max; D': D plus one record of key 1. Both count (no throw),
  // and the counts differ by 0 <= 1 (saturation is 1-Lipschitz).
  hist d, d_plus;
  for (hist* h : {&d, &d_plus}) {
    h->add(1, max - 1);
    h->add(1);
  }
  CHECK_NOTHROW(d_plus.add(1));
  CHECK(d[1] == max);
  CHECK(d_plus[1] == max);
  d_plus.add(1, max);  // still max, never a wrap to a negative count
  CHECK(d_plus[1] == max);
  d_plus.add(1, -5);  // exact again below the limit
  CHECK(d_plus[1] == max - 5);
  hist low;
  low.add(3, min + 1);
  low.add(3, -2);
  CHECK(low[3] == min);

  // merge: max - 1 + 5 saturates, the shard's other key is merged as usual.
  hist h;
  h.add(1, max - 1);
  hist other;
  other.add(2, 5);
  other.add(1, 5);
  CHECK_NOTHROW(h.merge(other));
  CHECK(h[1] == max);
  CHECK(h[2] == 5);
  CHECK(h.size() == 2);
}

TEST_CASE("saturating counts move by at most one record's weight between neighbours") {
  // The proof in detail/histogram_ops.hpp: x -> clamp(x + w) is 1-Lipschitz,
  // so deleting record j from a chain of updates moves the final count by at
  // most |w_j|, however often the others saturate. Checked on int8 counts
  // (limits within reach) over random chains of weights in [-60, 60]; a
  // failure is deterministic (fixed seed), not statistical.
  privet::testing::seeded_release_generator gen(21);
  std::size_t saturated = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<std::int8_t> w(20);
    for (auto& x : w) x = static_cast<std::int8_t>(privet::uniform_below(gen, 121)) - 60;
    const auto run = [&](std::size_t skip) {
      privet::sparse_histogram<int, std::int8_t> h;
      for (std::size_t i = 0; i < w.size(); ++i) {
        if (i != skip) h.add(0, w[i]);
      }
      return int{h[0]};
    };
    const int full = run(w.size());
    saturated += full == 127 || full == -128;
    for (std::size_t j = 0; j < w.size(); ++j) {
      CAPTURE(trial);
      CAPTURE(j);
      CHECK(std::abs(full - run(j)) <= std::abs(int{w[j]}));
    }
  }
  CHECK(saturated > 100);  // the limits were really reached
}

TEST_CASE("top-k and thresholds are deterministic, ties by key") {
  hist h;
  for (auto [k, c] : std::vector<std::pair<std::uint64_t, std::int64_t>>{
           {5, 3}, {2, 7}, {9, 3}, {4, 1}, {1, 3}}) {
    h.add(k, c);
  }
  using entries = std::vector<std::pair<std::uint64_t, std::int64_t>>;
  CHECK(h.top_k(3) == entries{{2, 7}, {1, 3}, {5, 3}});
  CHECK(h.top_k(10).size() == 5);
  CHECK(h.at_least(3) == entries{{1, 3}, {2, 7}, {5, 3}, {9, 3}});
}

TEST_CASE("string keys are found from a string_view without a copy") {
  privet::sparse_histogram<std::string> h;
  h.add("privacy");
  h.add("privacy");
  h.add("gboard", 5);
  CHECK(h[std::string_view("privacy")] == 2);
  CHECK(h.top_k(1).front().first == "gboard");
}

TEST_CASE("noise from a sampler or a mechanism, over stored keys or a fixed key set") {
  hist h;
  for (std::uint64_t k = 0; k < 100; ++k) h.add(k, static_cast<std::int64_t>(k));
  const privet::discrete_laplace_distribution noise(2.0);
  privet::testing::seeded_release_generator g1(7), g2(7);
  const auto x = h.noisy(noise, g1), y = h.noisy(noise, g2);
  CHECK(x.sorted_by_key() == y.sorted_by_key());  // same seed, same release
  int moved = 0;
  for (std::uint64_t k = 0; k < 100; ++k) moved += x[k] != h[k];
  CHECK(moved > 50);  // scale 2: P[noise = 0] = tanh(1/4) ~ 0.24
  // A mechanism replaces the count (here a real-valued release).
  privet::sparse_histogram<std::uint64_t, double> real;
  real.add(1, 10.0);
  const auto lap = privet::laplace_mechanism<double>::from_scale(1.0);
  privet::testing::seeded_release_generator g3(8);
  const auto released = real.noisy(lap, g3);
  CHECK(released.size() == 1);
  CHECK(released[1] != 10.0);
  // Over a fixed key set: absent keys are released too, extra stored keys are not.
  const std::vector<std::uint64_t> keys{0, 1, 500};
  privet::testing::seeded_release_generator g4(9);
  const auto fixed = h.noisy_over(keys, noise, g4);
  CHECK(fixed.size() == 3);
  CHECK(fixed.contains(500));
  CHECK_FALSE(fixed.contains(50));
}

TEST_CASE("noise that takes a count out of its type saturates at the type's limits") {
  // A sampler that always draws z, so the exact sum is known.
  struct fixed_noise {
    std::int64_t z;
    std::int64_t operator()(privet::testing::seeded_release_generator&) const { return z; }
  };
  privet::sparse_histogram<std::uint64_t, std::int8_t> h;
  h.add(1, std::int8_t{-100});
  privet::testing::seeded_release_generator gen(13);
  const std::vector<std::uint64_t> one{1};
  // -100 - 200 = -300 and -100 - 29 = -129 release -128; -100 - 28 is -128
  // exactly; -100 + 300 = 200 releases 127; -100 + 227 = 127 exactly.
  std::int8_t released = 0;
  CHECK_NOTHROW(released = h.noisy(fixed_noise{-200}, gen)[1]);
  CHECK(released == -128);
  CHECK(h.noisy_over(one, fixed_noise{-29}, gen)[1] == -128);
  CHECK(h.noisy_over(one, fixed_noise{-28}, gen)[1] == -128);
  CHECK(h.noisy_over(one, fixed_noise{-27}, gen)[1] == -127);
  CHECK(h.noisy(fixed_noise{300}, gen)[1] == 127);
  CHECK(h.noisy(fixed_noise{227}, gen)[1] == 127);
  CHECK(h.noisy(fixed_noise{226}, gen)[1] == 126);

  // Neighbours at the int64 limit, with real noise: D has key 1 at max - 1,
  // D' one more record (max). Both release, same seed, and each release is
  // the exact count + sample clamped to int64.
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  hist d, d_plus;
  d.add(1, max - 1);
  d_plus.add(1, max - 1);
  d_plus.add(1);
  const privet::discrete_laplace_distribution noise(2.0);
  for (std::uint64_t seed = 0; seed < 64; ++seed) {
    privet::testing::seeded_release_generator g1(seed), g2(seed), g3(seed);
    const auto z = noise(g3);  // the sample both releases draw
    std::int64_t rd = 0, rd_plus = 0;
    CHECK_NOTHROW(rd = d.noisy(noise, g1)[1]);
    CHECK_NOTHROW(rd_plus = d_plus.noisy(noise, g2)[1]);
    CHECK(rd == (z >= 1 ? max : max - 1 + z));
    CHECK(rd_plus == (z >= 0 ? max : max + z));
  }
}

namespace {

// `n` keys uniform over `distinct` values, spread over the 64-bit range.
std::vector<std::uint64_t> random_keys(std::size_t n, std::uint64_t distinct, std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) k = privet::uniform_below(gen, distinct) * 0x9E3779B97F4A7C15ull;
  return keys;
}

hist one_by_one(std::span<const std::uint64_t> keys) {
  hist h;
  for (const auto k : keys) h.add(k);
  return h;
}

}  // namespace

TEST_CASE("add_all equals one add per key, for small batches and sorted large ones") {
  // 100 updates take the in-order path; 2 x 10^5 updates over 5 x 10^4 keys
  // would need a table above 1 MB and are sorted by hash prefix first.
  for (const std::size_t n : {std::size_t{100}, std::size_t{200'000}}) {
    CAPTURE(n);
    const auto keys = random_keys(n, n / 4 + 1, 5);
    hist batched;
    batched.add(keys[0], 7);  // a key present before the batch
    batched.add_all(keys);
    hist expected = one_by_one(keys);
    expected.add(keys[0], 7);
    CHECK(batched.sorted_by_key() == expected.sorted_by_key());
    // A second batch over the now large table, with new keys mixed in.
    const auto more = random_keys(n, n / 2 + 1, 6);
    batched.add_all(more);
    for (const auto k : more) expected.add(k);
    CHECK(batched.sorted_by_key() == expected.sorted_by_key());
  }
}

TEST_CASE("add_all with weights, and string keys") {
  const auto keys = random_keys(50'000, 20'000, 7);
  std::vector<std::int64_t> weights(keys.size());
  privet::testing::seeded_release_generator gen(8);
  for (auto& w : weights) w = static_cast<std::int64_t>(privet::uniform_below(gen, 11)) - 5;
  hist batched, expected;
  batched.add_all(keys, weights);
  for (std::size_t i = 0; i < keys.size(); ++i) expected.add(keys[i], weights[i]);
  CHECK(batched.sorted_by_key() == expected.sorted_by_key());

  std::vector<std::string> words;
  for (std::size_t i = 0; i < 40'000; ++i) words.push_back("w" + std::to_string(i % 9'973));
  privet::sparse_histogram<std::string> s;
  s.add_all(words);
  CHECK(s.size() == 9'973);
  CHECK(s["w0"] == 5);     // 0, 9973, 19946, 29919, 39892
  CHECK(s["w9972"] == 4);  // 39892 + 9972 > 39999
  CHECK(s[std::string_view("w17")] == 5);

  CHECK_THROWS_WITH_AS(batched.add_all(keys, std::span(weights).first(3)),
                       "privet: weights.size() = 3 is invalid; allowed: keys.size() = 50000 (one "
                       "weight per key)",
                       privet::invalid_parameter);
}

TEST_CASE("add_all saturates exactly as add() in order does, on either path") {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  for (const std::size_t n : {std::size_t{10}, std::size_t{200'000}}) {
    CAPTURE(n);
    auto keys = random_keys(n, n, 9);
    std::vector<std::int64_t> weights(keys.size(), 1);
    // Key 42 near max, key 7 near max with mixed signs (saturating, then
    // exact, then saturating again: the order of a key's updates matters
    // and must be the batch's), key 99 new to the table and saturating at
    // once. Some of these come first in the batch, some last, so the large
    // batch meets them in its in-order first slice and its sorted second.
    const std::vector<std::uint64_t> head{7, 42, 7};
    const std::vector<std::int64_t> head_w{10, 1, -10};
    keys.insert(keys.begin(), head.begin(), head.end());
    weights.insert(weights.begin(), head_w.begin(), head_w.end());
    keys.insert(keys.end(), {42, 42, 7, 7, 99, 99, 99});
    weights.insert(weights.end(), {1, 1, 20, -1, max, 1, -3});
    hist batched, expected;
    for (hist* h : {&batched, &expected}) {
      h->add(42, max - 1);
      h->add(7, max - 5);
      h->add(keys[5], 3);
    }
    CHECK_NOTHROW(batched.add_all(keys, weights));
    for (std::size_t i = 0; i < keys.size(); ++i) expected.add(keys[i], weights[i]);
    CHECK(batched.sorted_by_key() == expected.sorted_by_key());
    CHECK(batched[42] == max);
    CHECK(batched[7] == max - 1);   // max - 5 +10 -> max, -10, +20 -> max, -1
    CHECK(batched[99] == max - 3);  // max, +1 saturates, -3
    // Unweighted: 42 at max takes more records and stays there.
    CHECK_NOTHROW(batched.add_all(std::span<const std::uint64_t>(keys)));
    CHECK(batched[42] == max);
  }
}

namespace {

// Global allocation failure injection for the test below: while `armed`,
// the allocation numbered `fail_at` (counted from arming) throws
// std::bad_alloc. Disarmed, operator new is malloc.
std::atomic<bool> armed{false};
std::atomic<std::uint64_t> allocations{0};
std::atomic<std::uint64_t> fail_at{0};

}  // namespace

void* operator new(std::size_t size) {
  if (armed.load(std::memory_order_relaxed) &&
      allocations.fetch_add(1, std::memory_order_relaxed) ==
          fail_at.load(std::memory_order_relaxed)) {
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC sees free() after an inlined new-expression and warns, not knowing
// this operator new is malloc.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace {

// Runs f with the allocation numbered k failing; whether it threw bad_alloc.
template <class F>
bool fails_at_allocation(std::uint64_t k, F f) {
  allocations = 0;
  fail_at = k;
  armed = true;
  bool threw = false;
  try {
    f();
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  armed = false;
  return threw;
}

}  // namespace

TEST_CASE("an allocation failure in add_all leaves the histogram as it was, saturated counts too") {
  // The only way add_all can fail now: memory. Every allocation of the
  // batch is made to fail in turn (until one run allocates no more than k
  // times and succeeds), and each failure must leave the exact state
  // before, including counts the batch had saturated (undone from the log
  // of saturated updates, in reverse order per key).
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  for (const std::size_t n : {std::size_t{10}, std::size_t{200'000}}) {
    CAPTURE(n);
    auto keys = random_keys(n, n / 3 + 1, 12);
    std::vector<std::int64_t> weights(keys.size(), 1);
    keys.insert(keys.begin(), {7, 7, 42});
    weights.insert(weights.begin(), {10, -10, 1});
    keys.insert(keys.end(), {42, 7, 7, 99, 99});
    weights.insert(weights.end(), {1, 20, -1, max, 1});
    hist h;
    h.add(42, max - 1);
    h.add(7, max - 5);
    h.add(keys[4], 3);
    const auto before = h.sorted_by_key();
    std::uint64_t k = 0;
    for (; k < 10'000; ++k) {
      CAPTURE(k);
      if (!fails_at_allocation(k, [&] { h.add_all(keys, weights); })) break;
      REQUIRE(h.sorted_by_key() == before);
    }
    CHECK(k > 3);  // the failures were real: the batch allocates
    CHECK(k < 10'000);
    hist expected;
    expected.add(42, max - 1);
    expected.add(7, max - 5);
    expected.add(keys[4], 3);
    for (std::size_t i = 0; i < keys.size(); ++i) expected.add(keys[i], weights[i]);
    CHECK(h.sorted_by_key() == expected.sorted_by_key());
  }
}

TEST_CASE("a very large batch saturating a count, in several slices, equals add() in order") {
  // More than 2^22 updates: applied in three slices.
  auto keys = random_keys((std::size_t{1} << 22) + 1000, 1'000'000, 11);
  hist h;
  h.add(1, std::numeric_limits<std::int64_t>::max());
  h.add(keys[0], 1);
  keys.push_back(1);
  CHECK_NOTHROW(h.add_all(keys));
  CHECK(h[keys[0]] == 1 + std::count(keys.begin(), keys.end(), keys[0]));
  CHECK(h[1] == std::numeric_limits<std::int64_t>::max());
}

namespace {
enum class page : std::uint32_t {};
}  // namespace

template <>
struct std::hash<page> {
  // The identity, as std::hash of an integer or an enumeration usually is:
  // the table must still spread these keys (its buckets come from the
  // hash's high bits, which are all 0 here).
  std::size_t operator()(page p) const noexcept { return static_cast<std::size_t>(p); }
};

TEST_CASE("keys whose std::hash is the identity are still spread over the table") {
  privet::sparse_histogram<page> h;
  std::vector<page> keys;
  for (std::uint32_t i = 0; i < 100'000; ++i) keys.push_back(page{i % 50'000});
  h.add_all(keys);
  for (std::uint32_t i = 0; i < 50'000; ++i) h.add(page{i});
  CHECK(h.size() == 50'000);
  CHECK(h[page{0}] == 3);
  CHECK(h[page{49'999}] == 3);
}

TEST_CASE("top_k keeps the k best entries of a full sort, for every k") {
  privet::testing::seeded_release_generator gen(12);
  hist h;
  for (int i = 0; i < 2000; ++i) h.add(privet::uniform_below(gen, 700), 1);
  auto all = h.sorted_by_key();
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  for (const std::size_t k :
       {std::size_t{0}, std::size_t{1}, std::size_t{17}, all.size(), all.size() + 5}) {
    CAPTURE(k);
    const auto top = h.top_k(k);
    CHECK(top == std::vector(all.begin(),
                             all.begin() + static_cast<std::ptrdiff_t>(std::min(k, all.size()))));
  }
}

TEST_CASE("noisy_over refuses a key listed twice instead of releasing it twice") {
  struct fixed_noise {
    std::int64_t z;
    std::int64_t operator()(privet::testing::seeded_release_generator&) const { return z; }
  };
  privet::sparse_histogram<std::string> h;
  h.add("a", 5);
  privet::testing::seeded_release_generator gen(3);
  CHECK_THROWS_WITH_AS(
      (void)h.noisy_over(std::vector<std::string>{"a", "b", "a"}, fixed_noise{1}, gen),
      "privet: keys = a is invalid; allowed: distinct keys (this one is listed twice)",
      privet::invalid_parameter);
  const auto ok = h.noisy_over(std::vector<std::string>{"a", "b"}, fixed_noise{1}, gen);
  CHECK(ok["a"] == 6);
  CHECK(ok["b"] == 1);
}

// Issue 22, finding 5: sparse_histogram<std::int32_t> took an int64 key
// 2^32 + 3 as the key 3, and noisy_over({2^32 + 3}) released key 3's count
// under the other key's name.
TEST_CASE("keys are never narrowed: a wider key type does not compile") {
  using privet::detail::key_conversion;
  using privet::detail::key_conversion_of;
  // The reproducer's type, and every other conversion that can change a
  // key's value, are refused at compile time (a static_assert in add and
  // noisy_over; tests/compile_fail/sparse_histogram_narrowing_key.cpp
  // checks its sentence).
  static_assert(key_conversion_of<std::int64_t, std::int32_t>() == key_conversion::narrowing);
  static_assert(key_conversion_of<std::uint32_t, std::int32_t>() == key_conversion::narrowing);
  static_assert(key_conversion_of<std::uint64_t, std::int64_t>() == key_conversion::narrowing);
  static_assert(key_conversion_of<double, std::int64_t>() == key_conversion::narrowing);
  static_assert(key_conversion_of<bool, std::uint64_t>() == key_conversion::narrowing);
  static_assert(key_conversion_of<double, float>() == key_conversion::narrowing);
  // Integers no wider than the key are checked at run time (their only
  // values outside an unsigned key are negative); a literal 7 still works.
  static_assert(key_conversion_of<int, std::uint64_t>() == key_conversion::checked);
  static_assert(key_conversion_of<std::int64_t, std::uint64_t>() == key_conversion::checked);
  static_assert(key_conversion_of<std::uint32_t, std::int64_t>() == key_conversion::checked);
  // The key type itself and lossless conversions are taken as they are.
  static_assert(key_conversion_of<std::int32_t, std::int32_t>() == key_conversion::unchanged);
  static_assert(key_conversion_of<const char*, std::string>() == key_conversion::unchanged);
  static_assert(key_conversion_of<std::string_view, std::string>() == key_conversion::unchanged);
  static_assert(key_conversion_of<std::string, std::uint64_t>() == key_conversion::none);
  CHECK(true);
}

TEST_CASE("keys are never narrowed: an integer outside the key type is nobody's key") {
  // Lookups take any integer at its own value: 2^32 + 3 is not the key 3.
  privet::sparse_histogram<std::int32_t> h;
  h.add(3, 5);
  const std::int64_t wide = (std::int64_t{1} << 32) + 3;
  CHECK(h[wide] == 0);
  CHECK_FALSE(h.contains(wide));
  CHECK(h[std::int64_t{3}] == 5);
  CHECK(h.contains(std::int64_t{3}));

  // A negative key for an unsigned key type is data outside the key domain:
  // not counted (least of all as 2^32 - 1), and counted in out_of_domain().
  privet::sparse_histogram<std::uint32_t> u;
  u.add(std::numeric_limits<std::uint32_t>::max(), 7);
  u.add(-1);
  u.add(std::int32_t{-5}, 2);
  u.add(4);  // a literal int that fits is counted
  CHECK(u.size() == 2);
  CHECK(u[std::numeric_limits<std::uint32_t>::max()] == 7);
  CHECK(u[4u] == 1);
  CHECK(u.out_of_domain() == 2);
  // ... and a lookup of -1 does not find 2^32 - 1's count.
  CHECK(u[-1] == 0);
  CHECK_FALSE(u.contains(-1));
  // merge adds the shards' out-of-domain records.
  privet::sparse_histogram<std::uint32_t> v;
  v.add(-7);
  u.merge(v);
  CHECK(u.out_of_domain() == 3);
  CHECK(u.size() == 2);

  // noisy_over's keys are public parameters: one outside the key type is
  // refused before anything is released, never released under 2^32 - 1.
  struct no_noise {
    std::int64_t operator()(privet::testing::seeded_release_generator&) const { return 0; }
  };
  privet::testing::seeded_release_generator gen(21);
  CHECK_THROWS_WITH_AS(
      (void)u.noisy_over(std::vector<int>{4, -1}, no_noise{}, gen),
      "privet: keys = -1 is invalid; allowed: keys of the histogram's key type, [0, 4294967295]",
      privet::invalid_parameter);
  const auto released = u.noisy_over(std::vector<int>{4, 9}, no_noise{}, gen);
  CHECK(released.sorted_by_key() ==
        std::vector<std::pair<std::uint32_t, std::int64_t>>{{4, 1}, {9, 0}});
  // A key type as wide as the histogram's: 2^32 + 3 released as itself.
  privet::sparse_histogram<std::int64_t> w;
  w.add(3, 5);
  const auto own = w.noisy_over(std::vector<std::int64_t>{wide}, no_noise{}, gen);
  CHECK(own.sorted_by_key() == std::vector<std::pair<std::int64_t, std::int64_t>>{{wide, 0}});
}

TEST_CASE("floating-point weights: NaN adds 0, infinities and sums saturate, counts stay finite") {
  constexpr double max = std::numeric_limits<double>::max();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  privet::sparse_histogram<std::string, double> h;
  h.add("a", nan);  // the reproducer: NaN was stored and ranked first by top_k
  h.add("b", inf);
  h.add("b", 1.0);
  h.add("c", -inf);
  h.add("d", 2.0);
  h.add("e", max);
  h.add("e", max);  // max + max saturates at max, never inf
  h.add("f", 3.0);
  h.add("f", nan);  // adds 0 to an existing count
  h.add("g", max);
  h.add("g", -max);  // never inf - inf = NaN
  CHECK(h["a"] == 0.0);
  CHECK(h.contains("a"));
  CHECK(h["b"] == max);
  CHECK(h["c"] == -max);
  CHECK(h["e"] == max);
  CHECK(h["f"] == 3.0);
  CHECK(h["g"] == 0.0);
  for (const auto& [k, c] : h) CHECK(std::isfinite(c));
  using entries = std::vector<std::pair<std::string, double>>;
  // Deterministic: the saturated counts tie and are ordered by key.
  CHECK(h.top_k(4) == entries{{"b", max}, {"e", max}, {"f", 3.0}, {"d", 2.0}});
  CHECK(h.at_least(0.0) ==
        entries{{"a", 0.0}, {"b", max}, {"d", 2.0}, {"e", max}, {"f", 3.0}, {"g", 0.0}});
  CHECK(h.at_least(-inf).size() == h.size());
  CHECK_THROWS_WITH_AS((void)h.at_least(nan),
                       "privet: threshold = nan is invalid; allowed: a number (not NaN)",
                       privet::invalid_parameter);

  // add_all and merge follow the same rule.
  const std::vector<std::string> keys{"a", "b", "c", "b"};
  const std::vector<double> weights{nan, inf, -inf, 1.0};
  privet::sparse_histogram<std::string, double> batch;
  batch.add_all(keys, weights);
  CHECK(batch.sorted_by_key() == entries{{"a", 0.0}, {"b", max}, {"c", -max}});
  batch.merge(h);
  CHECK(batch["b"] == max);
  CHECK(batch["c"] == -max);
  for (const auto& [k, c] : batch) CHECK(std::isfinite(c));

  // A noisy release sees finite counts only (here a mechanism that adds 1).
  const auto plus_one = [](double c, privet::testing::seeded_release_generator&) { return c + 1; };
  privet::testing::seeded_release_generator gen(22);
  const auto released = h.noisy(plus_one, gen);
  CHECK(released["a"] == 1.0);
  CHECK(released["b"] == max);  // max + 1 rounds to max
  for (const auto& [k, c] : released) CHECK(std::isfinite(c));
}

TEST_CASE("top_k ranks a NaN count last and at_least never selects it") {
  // A sparse histogram stores no NaN, but the shared selections must stay
  // a strict weak order if one is handed a NaN (a caller's range).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<int, double>> entries{
      {1, nan}, {2, 1.0}, {3, nan}, {4, 5.0}, {5, -1.0}};
  const auto top = privet::detail::top_k_entries<int, double>(entries, 4);
  REQUIRE(top.size() == 4);
  CHECK(top[0] == std::pair(4, 5.0));
  CHECK(top[1] == std::pair(2, 1.0));
  CHECK(top[2] == std::pair(5, -1.0));
  CHECK(top[3].first == 1);  // the NaNs last, the smaller key first
  CHECK(std::isnan(top[3].second));
  CHECK(privet::detail::top_k_entries<int, double>(entries, 2) ==
        std::vector<std::pair<int, double>>{{4, 5.0}, {2, 1.0}});
  CHECK(privet::detail::entries_at_least<int, double>(entries, -10.0, true) ==
        std::vector<std::pair<int, double>>{{2, 1.0}, {4, 5.0}, {5, -1.0}});
}
