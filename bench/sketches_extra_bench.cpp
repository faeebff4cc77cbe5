// Sketches layer, count-min, feature reduction and string hashing:
// count-min updates and queries (w = 2^16, d = 5, 64-bit keys), a noisy
// release of the whole sketch, SimHash of a 500-nonzero binary vector to 256
// bits, hash-space reduction and uniform feature sampling of the same
// vectors, PCA of sparse binary vectors (with privet::blas), and the choice
// of string hash for hash tables: XXH3, libstdc++'s std::hash and SipHash-2-4
// on words and n-grams, alone, in tsl::robin_map and in std::unordered_map.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/mechanisms/integer_noise.hpp>
#include <privet/sketches/count_min.hpp>
#include <privet/sketches/feature_reduction.hpp>
#include <privet/sketches/pca.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <sodium.h>
#include <tsl/robin_map.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

std::vector<std::uint64_t> random_keys(std::size_t n) {
  privet::testing::seeded_release_generator gen(1);
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) k = privet::random_u64(gen);
  return keys;
}

// 64 sparse binary vectors of 500 nonzeros in [0, 2^20), like a hashed email.
std::vector<std::vector<std::uint32_t>> sparse_vectors() {
  privet::testing::seeded_release_generator gen(2);
  std::vector<std::vector<std::uint32_t>> out;
  for (int i = 0; i < 64; ++i) {
    const auto s = privet::uniform_subset(gen, std::uint64_t{1} << 20, 500);
    std::vector<std::uint32_t> v(s.begin(), s.end());
    std::sort(v.begin(), v.end());
    out.push_back(std::move(v));
  }
  return out;
}

void count_min_add(benchmark::State& state) {
  const auto keys = random_keys(1 << 16);
  privet::count_min_sketch<std::uint64_t> s(std::uint64_t{1} << 16, 5, 3);
  for (auto _ : state) {
    for (auto k : keys) s.add(k);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
}
BENCHMARK(count_min_add);

void count_min_estimate(benchmark::State& state) {
  const auto keys = random_keys(1 << 16);
  privet::count_min_sketch<std::uint64_t> s(std::uint64_t{1} << 16, 5, 3);
  for (auto k : keys) s.add(k);
  std::int64_t sum = 0;
  for (auto _ : state) {
    for (auto k : keys) sum += s.estimate(k);
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
}
BENCHMARK(count_min_estimate);

// Discrete Gaussian noise (sigma^2 = 100) on all 5 x 2^16 counters.
void count_min_noisy_release(benchmark::State& state) {
  privet::count_min_sketch<std::uint64_t> s(std::uint64_t{1} << 16, 5, 3);
  for (auto k : random_keys(1 << 16)) s.add(k);
  // The exact sampler, as the recorded numbers (bench/README.md).
  const auto mech =
      privet::discrete_gaussian_mechanism<std::int64_t, privet::secure_noise>::from_sigma2(100, 1);
  privet::testing::seeded_release_generator gen(4);
  for (auto _ : state) benchmark::DoNotOptimize(s.noisy(mech, gen));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(s.counters().size()));
}
BENCHMARK(count_min_noisy_release)->Unit(benchmark::kMillisecond);

void simhash_500_to_256(benchmark::State& state) {
  const auto vs = sparse_vectors();
  const privet::simhash h(256, std::uint64_t{1} << 20, 5);
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(h(vs[i++ % vs.size()]));
  state.SetItemsProcessed(state.iterations());  // vectors
}
BENCHMARK(simhash_500_to_256)->Unit(benchmark::kMicrosecond);

// Items are input features (500 per vector), into d = 2^16.
void hash_space_reduction_500(benchmark::State& state) {
  const auto vs = sparse_vectors();
  const privet::hash_space_reduction h(1 << 16, 6);
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(h(vs[i++ % vs.size()]));
  state.SetItemsProcessed(state.iterations() * 500);
}
BENCHMARK(hash_space_reduction_500);

// Items are input features, keeping 2^16 of the 2^20.
void uniform_feature_sampling_500(benchmark::State& state) {
  const auto vs = sparse_vectors();
  const privet::uniform_feature_sampling u(std::uint64_t{1} << 20, 1 << 16, 7);
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(u(vs[i++ % vs.size()]));
  state.SetItemsProcessed(state.iterations() * 500);
}
BENCHMARK(uniform_feature_sampling_500);

// ---- string hashing ----------------------------------------------------------

struct std_string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

// SipHash-2-4 under a fixed key, as count-min fingerprints strings.
struct siphash_string_hash {
  using is_transparent = void;
  std::array<unsigned char, crypto_shorthash_KEYBYTES> key{1, 2, 3, 4, 5, 6, 7, 8};
  std::size_t operator()(std::string_view s) const noexcept {
    std::array<unsigned char, crypto_shorthash_BYTES> out{};
    crypto_shorthash(out.data(), reinterpret_cast<const unsigned char*>(s.data()), s.size(),
                     key.data());
    std::uint64_t v;
    std::memcpy(&v, out.data(), sizeof v);
    return static_cast<std::size_t>(v);
  }
};

// range(0) = 0: `distinct` words of 3 to 12 letters; 1: n-grams of 1 to 5
// such words joined by spaces (4 to 64 bytes, 21 on average).
std::vector<std::string> string_keys(std::int64_t kind, std::size_t distinct) {
  privet::testing::seeded_release_generator gen(21);
  std::vector<std::string> out;
  out.reserve(distinct);
  for (std::size_t i = 0; i < distinct; ++i) {
    std::string key;
    const auto words = kind == 0 ? 1 : 1 + privet::uniform_below(gen, 5);
    for (std::uint64_t w = 0; w < words; ++w) {
      if (w > 0) key += ' ';
      const auto letters = 3 + privet::uniform_below(gen, 10);
      for (std::uint64_t c = 0; c < letters; ++c) {
        key += static_cast<char>('a' + privet::uniform_below(gen, 26));
      }
    }
    out.push_back(std::move(key));
  }
  return out;
}

// 10^6 updates drawn uniformly from the keys.
std::vector<std::string_view> string_updates(const std::vector<std::string>& keys) {
  privet::testing::seeded_release_generator gen(22);
  std::vector<std::string_view> out(1'000'000);
  for (auto& u : out) u = keys[privet::uniform_below(gen, keys.size())];
  return out;
}

template <class Hash>
void string_hash_alone(benchmark::State& state) {
  const auto keys = string_keys(state.range(0), 100'000);
  const auto updates = string_updates(keys);
  const Hash hash;
  std::size_t sum = 0;
  for (auto _ : state) {
    for (const auto u : updates) sum += hash(u);
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(updates.size()));
}

// Counting updates over range(1) distinct keys in Map, a fresh map each pass.
template <class Map>
void string_counting(benchmark::State& state) {
  const auto keys = string_keys(state.range(0), static_cast<std::size_t>(state.range(1)));
  const auto updates = string_updates(keys);
  for (auto _ : state) {
    Map counts;
    for (const auto u : updates) {
      const auto it = counts.find(u);
      if (it == counts.end()) {
        counts.emplace(std::string(u), 1);
      } else if constexpr (requires { it.value(); }) {
        ++it.value();  // tsl::robin_map's iterators give the value through value()
      } else {
        ++it->second;
      }
    }
    benchmark::DoNotOptimize(counts.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(updates.size()));
}

template <class Hash>
using robin_counts = tsl::robin_map<std::string, std::int64_t, Hash, std::equal_to<>>;
template <class Hash>
using std_counts = std::unordered_map<std::string, std::int64_t, Hash, std::equal_to<>>;

// privet's own string histogram (XXH3, buckets from the hash's high bits),
// one add per update and one batch.
void string_sparse_histogram(benchmark::State& state) {
  const auto keys = string_keys(state.range(0), static_cast<std::size_t>(state.range(1)));
  const auto views = string_updates(keys);
  const std::vector<std::string> updates(views.begin(), views.end());
  const bool batched = state.range(2) == 1;
  for (auto _ : state) {
    privet::sparse_histogram<std::string> h;
    if (batched) {
      h.add_all(updates);
    } else {
      for (const auto& u : updates) h.add(u);
    }
    benchmark::DoNotOptimize(h.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(updates.size()));
}

}  // namespace

// range(0): 0 words, 1 n-grams; range(1): distinct keys.
void string_kinds(benchmark::internal::Benchmark* b) {
  b->ArgName("ngrams")->Arg(0)->Arg(1);
}
void string_maps(benchmark::internal::Benchmark* b) {
  b->ArgNames({"ngrams", "distinct"})->Args({0, 1000})->Args({0, 100'000})->Args({1, 100'000});
}

BENCHMARK(string_hash_alone<privet::detail::xxh3_string_hash>)
    ->Name("string_hash/xxh3")
    ->Apply(string_kinds);
BENCHMARK(string_hash_alone<std_string_hash>)->Name("string_hash/std_hash")->Apply(string_kinds);
BENCHMARK(string_hash_alone<siphash_string_hash>)->Name("string_hash/siphash")->Apply(string_kinds);
BENCHMARK(string_counting<robin_counts<privet::detail::xxh3_string_hash>>)
    ->Name("robin_map/xxh3")
    ->Apply(string_maps);
BENCHMARK(string_counting<robin_counts<std_string_hash>>)
    ->Name("robin_map/std_hash")
    ->Apply(string_maps);
BENCHMARK(string_counting<robin_counts<siphash_string_hash>>)
    ->Name("robin_map/siphash")
    ->Apply(string_maps);
BENCHMARK(string_counting<std_counts<privet::detail::xxh3_string_hash>>)
    ->Name("unordered_map/xxh3")
    ->Apply(string_maps);
BENCHMARK(string_counting<std_counts<std_string_hash>>)
    ->Name("unordered_map/std_hash")
    ->Apply(string_maps);
BENCHMARK(string_counting<std_counts<siphash_string_hash>>)
    ->Name("unordered_map/siphash")
    ->Apply(string_maps);
BENCHMARK(string_sparse_histogram)
    ->Name("sparse_histogram_string")
    ->ArgNames({"ngrams", "distinct", "batched"})
    ->Args({0, 100'000, 0})
    ->Args({0, 100'000, 1})
    ->Args({1, 100'000, 0})
    ->Args({1, 100'000, 1});

#ifdef PRIVET_HAS_BLAS
namespace {

// PCA of range(0) synthetic emails: each 400 hashed features in [0, 10^4)
// with a Zipf-like frequency (feature f drawn with weight 1 / (f + 1)), the
// top range(1) components with the default 7 rounds of subspace iteration.
std::vector<std::vector<std::uint32_t>> email_features(std::size_t n) {
  privet::testing::seeded_release_generator gen(23);
  std::vector<double> cdf;
  double total = 0;
  for (int f = 0; f < 10'000; ++f) cdf.push_back(total += 1.0 / (f + 1));
  std::vector<std::vector<std::uint32_t>> out(n);
  for (auto& row : out) {
    for (int i = 0; i < 400; ++i) {
      const double u = privet::uniform_real(gen) * total;
      row.push_back(
          static_cast<std::uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()));
    }
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
  }
  return out;
}

void pca_fit(benchmark::State& state) {
  const auto x = email_features(static_cast<std::size_t>(state.range(0)));
  const auto k = static_cast<std::size_t>(state.range(1));
  for (auto _ : state) {
    benchmark::DoNotOptimize(privet::sparse_pca<>::fit(10'000, k, x, 1).explained_variance());
  }
}

// Items are emails projected to k = range(0) dimensions.
void pca_transform(benchmark::State& state) {
  const auto x = email_features(1000);
  const auto p = privet::sparse_pca<>::fit(10'000, static_cast<std::size_t>(state.range(0)), x, 1);
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(p(x[i++ % x.size()]));
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(pca_fit)->Name("pca/fit/n/k")->Args({1000, 50})->Unit(benchmark::kMillisecond);
BENCHMARK(pca_transform)->Name("pca/transform/k")->Arg(50)->Unit(benchmark::kMicrosecond);
#endif
