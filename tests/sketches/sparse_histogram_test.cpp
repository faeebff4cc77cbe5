// Sparse histograms: counting, shard merges equal to one pass, overflow
// refused without change, deterministic top-k and thresholds, noise
// through a sampler or a mechanism over stored or given keys, and batched
// updates (add_all) equal to one add per key, undone entirely on overflow.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <algorithm>

#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

using hist = privet::sparse_histogram<std::uint64_t>;

TEST_CASE("counts match a std::map, and merging shards equals one pass") {
  privet::seeded_generator gen(3);
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

TEST_CASE("overflow throws and changes nothing, for add and merge") {
  hist h;
  h.add(1, std::numeric_limits<std::int64_t>::max() - 1);
  CHECK_THROWS_WITH_AS(h.add(1, 2),
                       "privet: a histogram count would overflow: 9223372036854775806 + 2; "
                       "allowed: the range of the count type [-9223372036854775808, "
                       "9223372036854775807]",
                       privet::overflow_error);
  CHECK(h[1] == std::numeric_limits<std::int64_t>::max() - 1);
  hist other;
  other.add(2, 5);
  other.add(1, 5);
  CHECK_THROWS_WITH_AS(h.merge(other),
                       "privet: a histogram count would overflow: 9223372036854775806 + 5; "
                       "allowed: the range of the count type [-9223372036854775808, "
                       "9223372036854775807]",
                       privet::overflow_error);
  CHECK(h.size() == 1);  // key 2 was not added either
  CHECK(h[1] == std::numeric_limits<std::int64_t>::max() - 1);
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
  privet::seeded_generator g1(7), g2(7);
  const auto x = h.noisy(noise, g1), y = h.noisy(noise, g2);
  CHECK(x.sorted_by_key() == y.sorted_by_key());  // same seed, same release
  int moved = 0;
  for (std::uint64_t k = 0; k < 100; ++k) moved += x[k] != h[k];
  CHECK(moved > 50);  // scale 2: P[noise = 0] = tanh(1/4) ~ 0.24
  // A mechanism replaces the count (here a real-valued release).
  privet::sparse_histogram<std::uint64_t, double> real;
  real.add(1, 10.0);
  const auto lap = privet::laplace_mechanism<double>::from_scale(1.0);
  privet::seeded_generator g3(8);
  const auto released = real.noisy(lap, g3);
  CHECK(released.size() == 1);
  CHECK(released[1] != 10.0);
  // Over a fixed key set: absent keys are released too, extra stored keys are not.
  const std::vector<std::uint64_t> keys{0, 1, 500};
  privet::seeded_generator g4(9);
  const auto fixed = h.noisy_over(keys, noise, g4);
  CHECK(fixed.size() == 3);
  CHECK(fixed.contains(500));
  CHECK_FALSE(fixed.contains(50));
}

TEST_CASE("noise that takes a count out of its type throws overflow_error naming it") {
  // A sampler that always draws z, so the failing sum is known.
  struct fixed_noise {
    std::int64_t z;
    std::int64_t operator()(privet::seeded_generator&) const { return z; }
  };
  privet::sparse_histogram<std::uint64_t, std::int8_t> h;
  h.add(1, std::int8_t{-100});
  privet::seeded_generator gen(13);
  CHECK_THROWS_WITH_AS((void)h.noisy(fixed_noise{-200}, gen),
                       "privet: a histogram count plus noise -200 does not fit the count type; "
                       "allowed: [-128, 127]",
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)h.noisy_over(std::vector<std::uint64_t>{1}, fixed_noise{-29}, gen),
                       "privet: a histogram count would overflow: -100 + -29; allowed: the range "
                       "of the count type [-128, 127]",
                       privet::overflow_error);
  CHECK(h.noisy_over(std::vector<std::uint64_t>{1}, fixed_noise{-28}, gen)[1] == -128);
}

namespace {

// `n` keys uniform over `distinct` values, spread over the 64-bit range.
std::vector<std::uint64_t> random_keys(std::size_t n, std::uint64_t distinct, std::uint64_t seed) {
  privet::seeded_generator gen(seed);
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
  privet::seeded_generator gen(8);
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

TEST_CASE("add_all is all-or-nothing on overflow, on either path") {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  for (const std::size_t n : {std::size_t{10}, std::size_t{200'000}}) {
    CAPTURE(n);
    auto keys = random_keys(n, n, 9);
    hist h;
    h.add(42, max - 1);
    h.add(keys[1], 3);
    const auto before = h.sorted_by_key();
    // The overflowing update comes last in the batch, after the new keys,
    // but the sorted path may apply it anywhere: either way nothing stays.
    keys.push_back(42);
    keys.push_back(42);
    if (n == 10) {
      // Keys below 10 and then 42 twice, applied in order: the second 42 fails.
      CHECK_THROWS_WITH_AS(h.add_all(keys),
                           "privet: a histogram count would overflow: 9223372036854775807 + 1; "
                           "allowed: the range of the count type [-9223372036854775808, "
                           "9223372036854775807]",
                           privet::overflow_error);
    } else {
      // The sorted path meets the updates of 42 in an order of its own.
      CHECK_THROWS_WITH_AS(h.add_all(keys),
                           doctest::Contains("privet: a histogram count would overflow: "),
                           privet::overflow_error);
    }
    CHECK(h.sorted_by_key() == before);
  }
  // Mixed signs near the limit: undoing in the wrong order would overflow
  // on the way back; the result must still be the exact state before.
  auto keys = random_keys(100'000, 30'000, 10);
  std::vector<std::int64_t> weights(keys.size(), 1);
  keys.insert(keys.end(), {7, 7, 7, 7});
  weights.insert(weights.end(), {-10, 10, 5, 1});
  hist h;
  h.add(7, max - 5);
  const auto before = h.sorted_by_key();
  CHECK_THROWS_WITH_AS(h.add_all(keys, weights),
                       doctest::Contains("privet: a histogram count would overflow: "),
                       privet::overflow_error);
  CHECK(h.sorted_by_key() == before);
  // The overflow on a key new to the table: the sorted path meets it in its
  // insert pass, after the lookup pass has applied the updates of known keys.
  auto fresh = random_keys(100'000, 30'000, 10);
  std::vector<std::int64_t> ones(fresh.size(), 1);
  hist g = one_by_one(std::span(fresh).first(50'000));
  const auto g_before = g.sorted_by_key();
  fresh.insert(fresh.end(), {99, 99});
  ones.insert(ones.end(), {max, 1});
  CHECK_THROWS_WITH_AS(g.add_all(fresh, ones),
                       "privet: a histogram count would overflow: 9223372036854775807 + 1; "
                       "allowed: the range of the count type [-9223372036854775808, "
                       "9223372036854775807]",
                       privet::overflow_error);
  CHECK_FALSE(g.contains(99));
  CHECK(g.sorted_by_key() == g_before);
}

TEST_CASE("an overflow in a later slice of a very large batch undoes the earlier slices") {
  // More than 2^22 updates: applied in two slices, the second fails.
  auto keys = random_keys((std::size_t{1} << 22) + 1000, 1'000'000, 11);
  hist h;
  h.add(1, std::numeric_limits<std::int64_t>::max());
  h.add(keys[0], 1);
  const auto before = h.sorted_by_key();
  keys.push_back(1);
  CHECK_THROWS_AS(h.add_all(keys), privet::overflow_error);
  CHECK(h.size() == before.size());
  CHECK(h.sorted_by_key() == before);
  keys.pop_back();
  h.add_all(keys);
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
  privet::seeded_generator gen(12);
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
    std::int64_t operator()(privet::seeded_generator&) const { return z; }
  };
  privet::sparse_histogram<std::string> h;
  h.add("a", 5);
  privet::seeded_generator gen(3);
  CHECK_THROWS_WITH_AS(
      (void)h.noisy_over(std::vector<std::string>{"a", "b", "a"}, fixed_noise{1}, gen),
      "privet: keys = a is invalid; allowed: distinct keys (this one is listed twice)",
      privet::invalid_parameter);
  const auto ok = h.noisy_over(std::vector<std::string>{"a", "b"}, fixed_noise{1}, gen);
  CHECK(ok["a"] == 6);
  CHECK(ok["b"] == 1);
}
