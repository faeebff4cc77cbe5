// Dense histograms over ids [0, n): the same counts as a sparse histogram
// and a std::map, batched adds and merges equal to one add per update,
// out-of-domain ids dropped and counted, counts saturating, every id of the
// domain stored (and noised), and use with ngram_table's interned ids.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/sketches/dense_histogram.hpp>
#include <privet/sketches/ngrams.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

using dense = privet::dense_histogram<std::int64_t>;
using ids = std::vector<std::uint32_t>;
using privet::test::rejected_parameter;

namespace {
ids random_ids(std::size_t n, std::uint32_t domain, std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  ids out(n);
  for (auto& k : out) k = static_cast<std::uint32_t>(privet::uniform_below(gen, domain));
  return out;
}
}  // namespace

TEST_CASE("counts match a std::map and a sparse histogram; add_all equals one add per id") {
  const auto keys = random_ids(100'000, 5000, 3);
  dense one(5000), batched(5000);
  privet::sparse_histogram<std::uint32_t> sparse;
  std::map<std::uint32_t, std::int64_t> reference;
  for (const auto k : keys) {
    one.add(k);
    sparse.add(k);
    ++reference[k];
  }
  batched.add_all(keys);
  CHECK(one.sorted_by_key() == batched.sorted_by_key());
  CHECK(one.size() == 5000);
  for (const auto& [k, c] : reference) CHECK(one[k] == c);
  CHECK(one.to_sparse().sorted_by_key() == sparse.sorted_by_key());
  CHECK(one[4999] == reference[4999]);
  CHECK(one[5000] == 0);  // outside the domain, like a key never added
  CHECK(one.contains(4999));
  CHECK_FALSE(one.contains(5000));

  std::vector<std::int64_t> weights(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) weights[i] = static_cast<std::int64_t>(i % 7) - 3;
  dense weighted(5000), expected(5000);
  weighted.add_all(keys, weights);
  for (std::size_t i = 0; i < keys.size(); ++i) expected.add(keys[i], weights[i]);
  CHECK(weighted.sorted_by_key() == expected.sorted_by_key());
}

TEST_CASE("merging shards equals one pass, and the domain grows to the larger one") {
  const auto keys = random_ids(20'000, 3000, 4);
  dense all(3000), a(1000), b(3000);
  for (const auto k : keys) {
    all.add(k);
    if (k < 1000 && k % 2 == 0) {
      a.add(k);
    } else {
      b.add(k);
    }
  }
  a.merge(b);
  CHECK(a.size() == 3000);
  CHECK(a.sorted_by_key() == all.sorted_by_key());
  dense small(10);
  small.merge(dense(5));
  CHECK(small.size() == 10);
}

TEST_CASE("an id outside the domain is dropped and counted, never throws") {
  dense h(100);
  h.add(3, 4);
  const auto before = h.sorted_by_key();
  CHECK_NOTHROW(h.add(100));
  CHECK(h.out_of_domain() == 1);
  CHECK(h.sorted_by_key() == before);
  // The batch counts its in-domain ids and drops 250.
  CHECK_NOTHROW(h.add_all(ids{1, 2, 3, 250, 4}));
  CHECK(h.out_of_domain() == 2);
  CHECK(h[1] == 1);
  CHECK(h[2] == 1);
  CHECK(h[3] == 5);
  CHECK(h[4] == 1);
  CHECK(h[250] == 0);
  h.add_all(ids{300, 7}, std::vector<std::int64_t>{9, 2});
  CHECK(h.out_of_domain() == 3);
  CHECK(h[7] == 2);
  // Parameters still throw: a domain above 2^32, a shrinking domain, a
  // weight list of another length.
  CHECK(rejected_parameter([] { dense(std::uint64_t{1} << 33); }) == "domain");
  CHECK(rejected_parameter([&] { h.extend_domain(50); }) == "domain");
  CHECK_THROWS_WITH_AS(h.add_all(ids{1, 2}, std::vector<std::int64_t>{1}),
                       "privet: weights.size() = 1 is invalid; allowed: keys.size() = 2 (one "
                       "weight per key)",
                       privet::invalid_parameter);
  h.extend_domain(300);
  h.add(250);
  CHECK(h.size() == 300);
  CHECK(h[250] == 1);
  CHECK(h[3] == 5);
  // merge adds the shards' dropped updates too.
  dense other(10);
  other.add(10);
  h.merge(other);
  CHECK(h.out_of_domain() == 4);
}

TEST_CASE("overflow saturates at the count type's limits, for add, add_all and merge") {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  dense h(10);
  h.add(1, max - 1);
  h.add(2, 5);
  CHECK_NOTHROW(h.add(1, 2));
  CHECK(h[1] == max);
  CHECK_NOTHROW(h.add_all(ids{2, 3, 1, 4, 1}));
  CHECK(h[1] == max);
  CHECK(h[2] == 6);
  // Mixed signs at the limit: each update is clamped in turn.
  h.add_all(ids{1, 1, 3, 1, 1}, std::vector<std::int64_t>{-10, 10, 2, 1, 1});
  CHECK(h[1] == max);
  CHECK(h[3] == 3);
  h.add(5, min);
  h.add(5, -1);
  CHECK(h[5] == min);
  dense other(12);
  other.add(11, 1);
  other.add(1, 5);
  CHECK_NOTHROW(h.merge(other));
  CHECK(h[1] == max);
  CHECK(h[11] == 1);
  CHECK(h.size() == 12);
}

// Issue 22's neighbouring-pair property: a dataset whose count sits at the
// type's maximum and its neighbour with one more record both give a
// histogram (and a release), and they differ by at most the record's weight.
TEST_CASE("neighbours at the count limit both count and stay one record apart") {
  constexpr auto max = std::numeric_limits<std::int32_t>::max();
  privet::dense_histogram<std::int32_t> d(4), d_plus(4);
  d.add(0, max - 1);
  d_plus.add(0, max - 1);
  d.add(0);  // D: count max
  d_plus.add(0);
  d_plus.add(0);  // D + {one record of key 0}: saturates at max
  d_plus.add(9);  // and one record outside the domain
  CHECK(d[0] == max);
  CHECK(d_plus[0] == max);
  for (std::uint32_t k = 0; k < 4; ++k) CHECK(std::llabs(std::int64_t{d[k]} - d_plus[k]) <= 1);
}

namespace {
// An integer sampler that always draws `z`: the noise is known, so the
// released counts and the overflow checks are exact.
struct fixed_noise {
  std::int64_t z;
  template <class G>
  std::int64_t operator()(G&) const {
    return z;
  }
};
}  // namespace

TEST_CASE("ids are never narrowed to 32 bits: 2^32 + 3 is not id 3") {
  constexpr std::uint64_t wide = (std::uint64_t{1} << 32) + 3;
  dense h(100);
  h.add(3, 7);
  const auto before = h.sorted_by_key();
  // Outside the domain at its own value: dropped, never counted as id 3.
  CHECK_NOTHROW(h.add(wide));
  CHECK_NOTHROW(h.add(-1, 2));
  CHECK(h.out_of_domain() == 2);
  CHECK(h.sorted_by_key() == before);
  CHECK(h[wide] == 0);
  CHECK_FALSE(h.contains(wide));
  CHECK(h[-1] == 0);
  CHECK(h[std::uint64_t{3}] == 7);
  h.add(std::int64_t{5});  // a wide type holding a valid id is fine
  CHECK(h[5] == 1);

  // Released under its own name from a count of 0 (the documented rule for
  // ids outside the domain), not as id 3 with its count 7.
  privet::testing::seeded_release_generator gen(11);
  const auto out = h.noisy_over(std::vector<std::uint64_t>{wide, 3}, fixed_noise{0}, gen);
  CHECK(out.sorted_by_key() ==
        std::vector<std::pair<std::uint64_t, std::int64_t>>{{3, 7}, {wide, 0}});
  const auto negative = h.noisy_over(std::vector<int>{-3, 5}, fixed_noise{2}, gen);
  CHECK(negative.sorted_by_key() == std::vector<std::pair<int, std::int64_t>>{{-3, 2}, {5, 3}});
}

TEST_CASE("noise that takes a count out of its type saturates, for noisy and noisy_over") {
  privet::dense_histogram<std::int8_t> h(2);
  h.add(0, std::int8_t{100});
  privet::testing::seeded_release_generator gen(12);
  CHECK(h.noisy(fixed_noise{300}, gen)[0] == 127);
  CHECK(h.noisy(fixed_noise{-300}, gen)[0] == -128);
  CHECK(h.noisy_over(ids{0}, fixed_noise{28}, gen)[0u] == 127);
  CHECK(h.noisy_over(ids{0}, fixed_noise{27}, gen)[0u] == 127);
  CHECK(h.noisy_over(ids{0}, fixed_noise{26}, gen)[0u] == 126);
}

TEST_CASE("top-k and thresholds: every id of the domain takes part, ties by id") {
  dense h(6);
  for (auto [k, c] :
       std::vector<std::pair<std::uint32_t, std::int64_t>>{{5, 3}, {2, 7}, {0, 3}, {4, 1}}) {
    h.add(k, c);
  }
  using entries = std::vector<std::pair<std::uint32_t, std::int64_t>>;
  CHECK(h.top_k(3) == entries{{2, 7}, {0, 3}, {5, 3}});
  CHECK(h.top_k(6) == entries{{2, 7}, {0, 3}, {5, 3}, {4, 1}, {1, 0}, {3, 0}});
  CHECK(h.top_k(10).size() == 6);
  CHECK(h.at_least(3) == entries{{0, 3}, {2, 7}, {5, 3}});
  CHECK(h.at_least(0).size() == 6);
  // Where every id has a positive count, the selections are the sparse histogram's.
  const auto keys = random_ids(30'000, 400, 5);
  dense d(400);
  privet::sparse_histogram<std::uint32_t> s;
  d.add_all(keys);
  s.add_all(keys);
  REQUIRE(s.size() == 400);
  CHECK(d.top_k(25) == s.top_k(25));
  CHECK(d.at_least(80) == s.at_least(80));
}

TEST_CASE("noise on every id of the domain, or over a fixed key set") {
  dense h(200);
  for (std::uint32_t k = 0; k < 100; ++k) h.add(k, static_cast<std::int64_t>(k));
  const privet::discrete_laplace_distribution noise(2.0);
  privet::testing::seeded_release_generator g1(7), g2(7);
  const auto x = h.noisy(noise, g1), y = h.noisy(noise, g2);
  CHECK(x.sorted_by_key() == y.sorted_by_key());  // same seed, same release
  CHECK(x.size() == 200);
  int moved = 0;
  for (std::uint32_t k = 100; k < 200; ++k) moved += x[k] != 0;
  CHECK(moved > 50);  // zero counts are noised too; P[noise = 0] = tanh(1/4) ~ 0.24
  privet::dense_histogram<double> real(3);
  real.add(1, 10.0);
  const auto lap = privet::laplace_mechanism<double>::from_scale(1.0);
  privet::testing::seeded_release_generator g3(8);
  const auto released = real.noisy(lap, g3);
  CHECK(released.size() == 3);
  CHECK(released[1] != 10.0);
  CHECK(released[0] != 0.0);
  privet::testing::seeded_release_generator g4(9);
  const auto fixed = h.noisy_over(ids{0, 1, 500}, noise, g4);
  CHECK(fixed.size() == 3);
  CHECK(fixed.contains(500));  // outside the domain: released from a count of 0
  CHECK_FALSE(fixed.contains(50));
}

TEST_CASE("counting n-grams by their interned ids equals counting them in a sparse histogram") {
  privet::ngram_table table;
  ids text;
  privet::testing::seeded_release_generator gen(10);
  for (int i = 0; i < 3000; ++i) {
    text.push_back(table.word("w" + std::to_string(privet::uniform_below(gen, 40))));
  }
  ids grams;
  table.for_each_ngram(text, 3, [&](auto g, auto, auto) { grams.push_back(g); });
  dense d;
  d.extend_domain(table.size());  // ids are dense in [0, table.size())
  d.add_all(grams);
  privet::sparse_histogram<std::uint32_t> s;
  for (const auto g : grams) s.add(g);
  CHECK(d.to_sparse().sorted_by_key() == s.sorted_by_key());
}

TEST_CASE("noisy_over refuses an id listed twice instead of releasing it twice") {
  privet::dense_histogram<> h(10);
  h.add(3u);
  privet::testing::seeded_release_generator gen(3);
  CHECK_THROWS_WITH_AS(
      (void)h.noisy_over(std::vector<std::uint32_t>{3, 4, 3}, fixed_noise{0}, gen),
      "privet: keys = 3 is invalid; allowed: distinct keys (this one is listed twice)",
      privet::invalid_parameter);
  CHECK(h.noisy_over(std::vector<std::uint32_t>{3, 4}, fixed_noise{0}, gen)[3u] == 1);
}
