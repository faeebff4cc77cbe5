// Streaming per-unit key bounding (sketches/key_bounding.hpp): the
// accumulator that bounds a day read once in chunks, against bound_keys on
// the whole day in memory, on a pageview-like day (units with 1 + a
// geometric number of rows, a few heavy units, popular keys). Counters:
// rows per second and the accumulator's bytes per kept (unit, key) pair.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/sketches/key_bounding.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace {

using record = privet::unit_record<std::uint64_t, std::uint64_t>;
using bounder = privet::bound_keys<std::uint64_t, std::uint64_t>;

// n rows: units in order, each with 1 + Geometric(1/3) rows (1 in 500 with
// 1000), keys the square of a uniform draw below 1000 (popular small keys).
std::vector<record> day(std::size_t n) {
  privet::seeded_generator g(11);
  std::vector<record> out;
  out.reserve(n);
  for (std::uint64_t unit = 1; out.size() < n; ++unit) {
    std::uint64_t rows = privet::uniform_below(g, 500) == 0 ? 1000 : 1;
    while (rows < 1000 && privet::uniform_below(g, 3) != 0) ++rows;
    for (std::uint64_t i = 0; i < rows && out.size() < n; ++i) {
      const std::uint64_t r = privet::uniform_below(g, 1000);
      out.push_back({privet::detail::mix64(unit), r * r});
    }
  }
  return out;
}

void BM_bound_keys_in_memory(benchmark::State& state) {
  const auto records = day(static_cast<std::size_t>(state.range(0)));
  const bounder b(10, 1);
  privet::testing::seeded_release_generator gen(1);
  for (auto _ : state) benchmark::DoNotOptimize(b(records, gen));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(records.size()));
}
BENCHMARK(BM_bound_keys_in_memory)->Arg(1 << 20)->Arg(1 << 23)->Unit(benchmark::kMillisecond);

void BM_bound_keys_streamed(benchmark::State& state) {
  const auto records = day(static_cast<std::size_t>(state.range(0)));
  const bounder b(10, 1);
  privet::testing::seeded_release_generator gen(1);
  double per_pair = 0;
  for (auto _ : state) {
    auto acc = b.start(gen);
    for (std::size_t i = 0; i < records.size(); i += 1 << 16) {
      acc.add(std::span<const record>(records.data() + i,
                                      std::min<std::size_t>(1 << 16, records.size() - i)));
    }
    benchmark::DoNotOptimize(acc.counts());
    per_pair = static_cast<double>(acc.memory_bytes()) / static_cast<double>(acc.kept());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(records.size()));
  state.counters["bytes_per_pair"] = per_pair;
}
BENCHMARK(BM_bound_keys_streamed)->Arg(1 << 20)->Arg(1 << 23)->Unit(benchmark::kMillisecond);

}  // namespace
