// Sparse histograms: counting, shard merges equal to one pass, overflow
// refused without change, deterministic top-k and thresholds, and noise
// through a sampler or a mechanism over stored or given keys.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <map>
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
  CHECK_THROWS_AS(h.add(1, 2), privet::overflow_error);
  CHECK(h[1] == std::numeric_limits<std::int64_t>::max() - 1);
  hist other;
  other.add(2, 5);
  other.add(1, 5);
  CHECK_THROWS_AS(h.merge(other), privet::overflow_error);
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
