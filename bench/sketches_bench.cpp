// Sketches layer: word n-gram extraction with interned ids (DPNE's inner
// loop) on a synthetic text whose word frequencies follow Zipf's law,
// character 4-gram features, histogram updates (sparse_histogram one by one
// and batched, dense_histogram over ids, std::unordered_map as the
// reference point) and contribution bounding.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/sketches/char_ngrams.hpp>
#include <privet/sketches/dense_histogram.hpp>
#include <privet/sketches/key_bounding.hpp>
#include <privet/sketches/ngrams.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <unordered_map>

#include <benchmark/benchmark.h>

#include <algorithm>

#include <cmath>
#include <string>
#include <vector>

namespace {

// 10^5 words from a vocabulary of 5000 with Zipf(1) frequencies.
std::vector<privet::ngram_table::id> zipf_text(privet::ngram_table& table) {
  privet::testing::seeded_release_generator gen(7);
  std::vector<double> cdf;
  double total = 0;
  for (int r = 1; r <= 5000; ++r) cdf.push_back(total += 1.0 / r);
  std::vector<privet::ngram_table::id> words;
  for (int r = 0; r < 5000; ++r) words.push_back(table.word("w" + std::to_string(r)));
  std::vector<privet::ngram_table::id> text;
  for (int i = 0; i < 100'000; ++i) {
    const double u = privet::uniform_real(gen) * total;
    const auto r =
        static_cast<std::size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    text.push_back(words[std::min<std::size_t>(r, 4999)]);
  }
  return text;
}

// Grams of length 1..9 of the text; range(0) = 1 measures into a fresh
// table each time (interning), 0 into a warm one (lookups only).
void ngrams_up_to_9(benchmark::State& state) {
  const bool fresh = state.range(0) == 1;
  privet::ngram_table warm;
  const auto text = zipf_text(warm);
  warm.for_each_ngram(text, 9, [](auto, auto, auto) {});
  std::size_t grams = 0;
  for (auto _ : state) {
    if (fresh) {
      state.PauseTiming();
      privet::ngram_table table;
      const auto t = zipf_text(table);
      state.ResumeTiming();
      table.for_each_ngram(t, 9, [&](auto g, auto, auto) { grams += g & 1; });
    } else {
      warm.for_each_ngram(text, 9, [&](auto g, auto, auto) { grams += g & 1; });
    }
  }
  benchmark::DoNotOptimize(grams);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(text.size() * 9 - 36));
}

// The spam filter's features of one 35 KB email of random printable bytes,
// into a space of d = range(0).
void char4grams(benchmark::State& state) {
  privet::testing::seeded_release_generator gen(11);
  std::string email(privet::spam_filter_prefix_bytes, ' ');
  for (auto& c : email) c = static_cast<char>(32 + privet::uniform_below(gen, 95));
  const auto d = static_cast<std::uint32_t>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(privet::char4gram_features(email, d));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(email.size()));
}

// 10^6 updates with integer keys drawn uniformly from range(0) distinct keys.
std::vector<std::uint64_t> histogram_keys(std::uint64_t distinct) {
  privet::testing::seeded_release_generator gen(13);
  std::vector<std::uint64_t> keys(1'000'000);
  for (auto& k : keys) k = privet::uniform_below(gen, distinct) * 2654435761u;
  return keys;
}

void histogram_updates(benchmark::State& state) {
  const auto keys = histogram_keys(static_cast<std::uint64_t>(state.range(0)));
  for (auto _ : state) {
    privet::sparse_histogram<std::uint64_t> h;
    for (auto k : keys) h.add(k);
    benchmark::DoNotOptimize(h.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
}

// The same updates as one batch (sorted by hash prefix once the table
// outgrows the caches).
void histogram_add_all(benchmark::State& state) {
  const auto keys = histogram_keys(static_cast<std::uint64_t>(state.range(0)));
  for (auto _ : state) {
    privet::sparse_histogram<std::uint64_t> h;
    h.add_all(keys);
    benchmark::DoNotOptimize(h.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
}

// The same number of updates with ids in [0, range(0)), as ngram_table's
// interned ids, into a dense histogram (a fresh one each pass, like the
// sparse ones above; the domain is allocated and zeroed inside the timing).
std::vector<std::uint32_t> histogram_ids(std::uint64_t distinct) {
  privet::testing::seeded_release_generator gen(13);
  std::vector<std::uint32_t> ids(1'000'000);
  for (auto& k : ids) k = static_cast<std::uint32_t>(privet::uniform_below(gen, distinct));
  return ids;
}

void dense_histogram_add(benchmark::State& state) {
  const auto domain = static_cast<std::uint64_t>(state.range(0));
  const auto ids = histogram_ids(domain);
  for (auto _ : state) {
    privet::dense_histogram<std::int64_t> h(domain);
    for (auto k : ids) h.add(k);
    benchmark::DoNotOptimize(h.counts().data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(ids.size()));
}

void dense_histogram_add_all(benchmark::State& state) {
  const auto domain = static_cast<std::uint64_t>(state.range(0));
  const auto ids = histogram_ids(domain);
  for (auto _ : state) {
    privet::dense_histogram<std::int64_t> h(domain);
    h.add_all(ids);
    benchmark::DoNotOptimize(h.counts().data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(ids.size()));
}

// The same updates into std::unordered_map, the reference point.
void unordered_map_updates(benchmark::State& state) {
  const auto keys = histogram_keys(static_cast<std::uint64_t>(state.range(0)));
  for (auto _ : state) {
    std::unordered_map<std::uint64_t, std::int64_t> h;
    for (auto k : keys) ++h[k];
    benchmark::DoNotOptimize(h.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
}

// Pageview-like bounding: 10^6 (unit, key) rows, 10^5 units with 10 rows
// each on average, keys over 10^4 pages; k = range(0) keys per unit, 1 each.
void key_bounding(benchmark::State& state) {
  privet::testing::seeded_release_generator gen(17);
  std::vector<privet::unit_record<std::uint64_t, std::uint64_t>> rows(1'000'000);
  for (auto& r : rows)
    r = {privet::uniform_below(gen, 100'000), privet::uniform_below(gen, 10'000)};
  const privet::bound_keys<std::uint64_t, std::uint64_t> bound(
      static_cast<std::uint64_t>(state.range(0)), 1);
  // range(2) = 1: rows grouped by unit, as a day's log grouped by actor;
  // 0: units in random order (the worst case for the cache).
  if (state.range(2) == 1) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.unit < b.unit; });
  }
  const auto threads = static_cast<unsigned>(state.range(1));
  for (auto _ : state) benchmark::DoNotOptimize(bound(rows, gen, threads).size());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(rows.size()));
}

}  // namespace

BENCHMARK(ngrams_up_to_9)->Name("ngrams/T9/fresh_table")->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(ngrams_up_to_9)->Name("ngrams/T9/warm_table")->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(char4grams)->Name("char4gram_features/35KB/d")->Arg(10'000)->Arg(1'000'000);
BENCHMARK(histogram_updates)
    ->Name("sparse_histogram/add/distinct")
    ->Arg(1000)
    ->Arg(100'000)
    ->Arg(1'000'000);
BENCHMARK(histogram_add_all)
    ->Name("sparse_histogram/add_all/distinct")
    ->Arg(1000)
    ->Arg(100'000)
    ->Arg(1'000'000);
BENCHMARK(dense_histogram_add)
    ->Name("dense_histogram/add/distinct")
    ->Arg(1000)
    ->Arg(100'000)
    ->Arg(1'000'000);
BENCHMARK(dense_histogram_add_all)
    ->Name("dense_histogram/add_all/distinct")
    ->Arg(1000)
    ->Arg(100'000)
    ->Arg(1'000'000);
BENCHMARK(unordered_map_updates)
    ->Name("std_unordered_map/add/distinct")
    ->Arg(1000)
    ->Arg(100'000)
    ->Arg(1'000'000);
BENCHMARK(key_bounding)
    ->Name("bound_keys/rows/k/threads/grouped")
    ->Args({1, 1, 0})
    ->Args({10, 1, 0})
    ->Args({10, 2, 0})
    ->Args({10, 1, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
