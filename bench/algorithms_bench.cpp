// Algorithms: the pageview histogram's per-row and per-cell stages; LDP
// TrieHH's simulated users, stage by stage and a whole layer.
#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/algorithms/triehh_constant_time.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

namespace pv = privet::pageview;

// A synthetic day: 10^5 actors, 10^4 pages (squared-uniform popularity, a
// cheap skew), 50 countries; 30 % of the rows come from 100 heavy actors.
std::vector<pv::view> synthetic_day(std::size_t rows) {
  privet::testing::seeded_release_generator gen(1);
  std::vector<pv::view> out;
  out.reserve(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint64_t r = gen();
    const std::uint64_t actor = (r % 10 < 3) ? (r >> 8) % 100 : 100 + (r >> 8) % 100'000;
    const double u = static_cast<double>(gen() >> 11) * 0x1p-53;
    const auto page = static_cast<std::uint64_t>(u * u * 10'000);
    out.push_back(
        {actor,
         {page, static_cast<std::uint32_t>(page % 5), static_cast<std::uint16_t>((r >> 40) % 50)}});
  }
  return out;
}

void pageview_bounding(benchmark::State& state) {
  const auto rows = synthetic_day(static_cast<std::size_t>(state.range(0)));
  const pv::histogram<> h(pv::parameters<>{}, 50);
  privet::testing::seeded_release_generator gen(2);
  for (auto _ : state) {
    auto counts = h.bounded_counts(rows, gen);
    benchmark::DoNotOptimize(counts.size());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Noise on every candidate x country cell (10^4 pages x 250 countries),
// each page from its own keyed stream, then suppression. Over the exact
// sampler (secure_noise) and the default constant-time one.
template <class Noise>
void pageview_release(benchmark::State& state) {
  const auto pages = static_cast<std::uint64_t>(state.range(0));
  const pv::histogram<pv::bound_per_actor, privet::discrete_gaussian_mechanism<std::int64_t, Noise>>
      h(pv::parameters<>{}, 250);
  pv::page_counts pub;
  for (std::uint64_t p = 0; p < pages; ++p) pub.add({p, 0}, 1000);
  pv::tuple_counts counts;
  for (std::uint64_t p = 0; p < pages; ++p) counts.add({p, 0, 3}, 500);
  const auto streams = privet::testing::seeded_keyed_streams(3);
  for (auto _ : state) {
    auto released = h.release(counts, pub, streams);
    benchmark::DoNotOptimize(released.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(pages) * 250);
}

// TrieHH at the paper's scale: |X| = 100 (99 symbols and the end-of-word
// symbol), eta_max = 10^4 open prefixes of length 2 (99^2 = 9801 of them),
// so s = 980 100 candidates, eps = 10 (d = 45), B = 60 items per user (60
// typed words over the broadcast's prefixes). A simulated user: valid
// prefixes, random sampling, padding, 60 subset-selection reports (2700
// indices) and the vote's addition to the layer's sum.
namespace th = privet::triehh;

struct triehh_setup {
  th::word alphabet;
  th::layer_broadcast broadcast;
  th::parameters p;
  std::vector<th::user_data> users;

  triehh_setup() {
    for (char32_t c = 33; c < 33 + 99; ++c) alphabet.push_back(c);
    broadcast = {2, {}, alphabet + U'\u00ff'};
    for (std::size_t i = 0; i < 99 * 99; ++i) {
      broadcast.prefixes.push_back(th::word{alphabet[i / 99 % 99], alphabet[i % 99]});
    }
    p.contributions = 60;
    p.users_per_layer = 1'000'000;
    privet::testing::seeded_release_generator gen(8);
    users.resize(1000);
    for (auto& u : users) {
      for (int w = 0; w < 60; ++w) {
        const std::size_t i = privet::uniform_below(gen, 99 * 99);
        // Appended in place: GCC 12 at -O3 flags prefix + word{...}, an
        // rvalue inserted at 0, with a false -Wrestrict (GCC bug 105329).
        th::word typed = broadcast.prefixes[i];
        typed.push_back(alphabet[privet::uniform_below(gen, 99)]);
        typed.push_back(U'x');
        u.emplace_back(std::move(typed), 1);
      }
    }
  }
};

template <class G>
G make_generator(std::uint64_t seed) {
  if constexpr (std::is_same_v<G, privet::csprng>) {
    return G();
  } else {
    return G(seed);
  }
}

const triehh_setup& triehh_data() {
  static const triehh_setup data;
  return data;
}

// One simulated user on one core, as the driver runs it.
template <class G>
void triehh_user(benchmark::State& state) {
  const auto& data = triehh_data();
  const th::prepared_layer layer(data.broadcast, data.p);
  std::vector<th::client<th::random_sampling>> clients;
  for (const auto& u : data.users) clients.emplace_back(u, nullptr);
  th::vote_sum sum(2, layer.broadcast().candidates(),
                   th::max_vote_indices(data.p, layer.broadcast().candidates()));
  G gen = make_generator<G>(9);
  th::vote v{};
  std::size_t next = 0;
  for (auto _ : state) {
    clients[next++ % clients.size()].respond(layer, gen, v);
    sum.add(v);
  }
  benchmark::DoNotOptimize(sum.votes());
  state.SetItemsProcessed(state.iterations());
}

// The constant-time client (triehh_constant_time.hpp) on the same users and
// layer: W = range(0) slots, a known vocabulary of range(1) random words of
// 4-10 symbols (L = 16: max_depth + 1). Each client is padded beforehand,
// as a device does when its store is loaded.
void triehh_user_constant_time(benchmark::State& state) {
  const auto& data = triehh_data();
  const th::prepared_layer layer(data.broadcast, data.p);
  std::unordered_set<th::word> vocabulary;
  privet::testing::seeded_release_generator words(12);
  while (vocabulary.size() < static_cast<std::size_t>(state.range(1))) {
    th::word w;
    const std::uint64_t len = 4 + privet::uniform_below(words, 7);
    for (std::uint64_t i = 0; i < len; ++i) {
      w.push_back(data.alphabet[privet::uniform_below(words, 99)]);
    }
    vocabulary.insert(w);
  }
  const th::constant_time_layer ct(layer, &vocabulary,
                                   {static_cast<std::size_t>(state.range(0)), 0});
  std::vector<th::constant_time_client> clients;
  for (const auto& u : data.users) clients.emplace_back(u, ct.bounds());
  privet::csprng gen;
  th::vote v{};
  std::size_t next = 0;
  for (auto _ : state) {
    clients[next++ % clients.size()].respond(ct, gen, v);
    benchmark::DoNotOptimize(v.indices.data());
  }
  state.SetItemsProcessed(state.iterations());
}

// The same stages one at a time, per user: where the time goes.
void triehh_valid_prefixes(benchmark::State& state) {
  const auto& data = triehh_data();
  const th::prepared_broadcast b(data.broadcast);
  std::vector<th::client<th::random_sampling>> clients;
  for (const auto& u : data.users) clients.emplace_back(u, nullptr);
  std::size_t next = 0;
  for (auto _ : state) {
    auto counts = clients[next++ % clients.size()].valid_prefixes(b);
    benchmark::DoNotOptimize(counts.data());
  }
  state.SetItemsProcessed(state.iterations());
}

template <class G>
void triehh_reports(benchmark::State& state) {
  const privet::subset_selection ss(10, 99 * 99 * 100 + 1);
  G gen = make_generator<G>(10);
  std::vector<std::uint64_t> out;
  for (auto _ : state) {
    out.clear();
    for (std::uint64_t z = 0; z < 60; ++z) ss(z * 1000, gen, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void triehh_aggregate(benchmark::State& state) {
  const auto& data = triehh_data();
  const th::prepared_layer layer(data.broadcast, data.p);
  privet::testing::seeded_release_generator gen(11);
  std::vector<th::vote> votes(256);
  for (std::size_t i = 0; i < votes.size(); ++i) {
    votes[i] = th::client<th::random_sampling>(data.users[i], nullptr).respond(layer, gen);
  }
  th::vote_sum sum(2, layer.broadcast().candidates(),
                   th::max_vote_indices(data.p, layer.broadcast().candidates()));
  std::size_t next = 0;
  for (auto _ : state) sum.add(votes[next++ % votes.size()]);
  benchmark::DoNotOptimize(sum.votes());
  state.SetItemsProcessed(state.iterations());
}

// Setting the randomiser up (the exact coin's certified bounds): once per
// layer, not per user.
void triehh_randomiser_setup(benchmark::State& state) {
  for (auto _ : state) {
    const privet::subset_selection ss(10, 99 * 99 * 100 + 1);
    benchmark::DoNotOptimize(ss.d());
  }
}

// A whole layer of 20 000 users through simulate_layer on every core
// (TBB), each block of users from its own keyed stream: users per second
// of wall time (the CPU column sums every thread).
void triehh_layer(benchmark::State& state) {
  const auto& data = triehh_data();
  const th::prepared_layer layer(data.broadcast, data.p);
  std::vector<th::user_data> users;
  for (int r = 0; r < 20; ++r) users.insert(users.end(), data.users.begin(), data.users.end());
  std::vector<std::uint64_t> group(users.size());
  for (std::size_t i = 0; i < group.size(); ++i) group[i] = i;
  const auto streams = privet::testing::seeded_keyed_streams(12);
  std::uint64_t stream = 0;
  for (auto _ : state) {
    th::vote_sum sum(2, layer.broadcast().candidates(),
                     th::max_vote_indices(data.p, layer.broadcast().candidates()));
    th::simulate_layer(layer, users, group, nullptr, streams, stream++, sum);
    benchmark::DoNotOptimize(sum.votes());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(users.size()));
}

}  // namespace

BENCHMARK(pageview_bounding)
    ->Name("pageview/bounding/rows")
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(pageview_release, privet::secure_noise)
    ->Name("pageview/release/pages_x250")
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(pageview_release, privet::constant_time_noise)
    ->Name("pageview/release_constant_time/pages_x250")
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(triehh_user<privet::testing::seeded_release_generator>)
    ->Name("triehh/simulated_user/X100_eta1e4_eps10_B60/seeded");
BENCHMARK(triehh_user<privet::csprng>)->Name("triehh/simulated_user/X100_eta1e4_eps10_B60/csprng");
BENCHMARK(triehh_user_constant_time)
    ->Name("triehh/simulated_user/X100_eta1e4_eps10_B60/constant_time")
    ->ArgNames({"W", "vocabulary"})
    ->Args({64, 0})
    ->Args({256, 0})
    ->Args({256, 10000})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(triehh_valid_prefixes)->Name("triehh/stage/valid_prefixes");
BENCHMARK(triehh_reports<privet::testing::seeded_release_generator>)
    ->Name("triehh/stage/60_reports/seeded");
BENCHMARK(triehh_reports<privet::csprng>)->Name("triehh/stage/60_reports/csprng");
BENCHMARK(triehh_aggregate)->Name("triehh/stage/aggregate_vote");
BENCHMARK(triehh_randomiser_setup)->Name("triehh/randomiser_setup")->Unit(benchmark::kMicrosecond);
BENCHMARK(triehh_layer)
    ->Name("triehh/layer_20000_users/all_threads")
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
