// Mechanisms layer: exact integer samplers and the real-valued mechanisms,
// secure and simulation-only policies side by side. The exact samplers run
// on both the secure generator (release noise) and the seeded one (tests and
// simulations), so their cost can be told apart from the generator's.
#include <privet/core/csprng.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/exponential.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/mechanisms/partition_selection.hpp>
#include <privet/mechanisms/randomized_response.hpp>
#include <privet/mechanisms/sparse_vector.hpp>
#include <privet/mechanisms/subset_selection.hpp>

#include <benchmark/benchmark.h>

#include <concepts>
#include <cstdint>
#include <vector>

namespace {

template <privet::random_bit_source G>
G make_generator() {
  if constexpr (std::same_as<G, privet::testing::seeded_release_generator>) {
    return privet::testing::seeded_release_generator(2026);
  } else {
    return G{};
  }
}

// Scale t = state.range(0).
template <privet::random_bit_source G>
void discrete_laplace(benchmark::State& state) {
  G gen = make_generator<G>();
  const privet::discrete_laplace_distribution dist(static_cast<std::uint64_t>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(dist(gen));
  state.SetItemsProcessed(state.iterations());
}

// sigma = state.range(0), so sigma^2 = sigma * sigma exactly.
template <privet::random_bit_source G>
void discrete_gaussian(benchmark::State& state) {
  G gen = make_generator<G>();
  const auto sigma = static_cast<std::uint64_t>(state.range(0));
  const privet::discrete_gaussian_distribution dist(sigma * sigma, 1);
  for (auto _ : state) benchmark::DoNotOptimize(dist(gen));
  state.SetItemsProcessed(state.iterations());
}

// The constant-time discrete Laplace (issue 36), scale t = state.range(0).
template <privet::random_bit_source G>
void constant_time_laplace(benchmark::State& state) {
  G gen = make_generator<G>();
  const privet::constant_time_discrete_laplace dist(static_cast<std::uint64_t>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(dist(gen));
  state.SetItemsProcessed(state.iterations());
  state.counters["words"] = dist.words_per_sample();
}

// The constant-time discrete Gaussian, sigma = state.range(0) (a table up
// to about 307, R rejection proposals above).
template <privet::random_bit_source G>
void constant_time_gaussian(benchmark::State& state) {
  G gen = make_generator<G>();
  const auto sigma = static_cast<std::uint64_t>(state.range(0));
  const privet::constant_time_discrete_gaussian dist(sigma * sigma, 1);
  for (auto _ : state) benchmark::DoNotOptimize(dist(gen));
  state.SetItemsProcessed(state.iterations());
  state.counters["words"] = dist.words_per_sample();
}

// Bernoulli(exp(-num / den)) with num / den = range(0) / range(1).
template <privet::random_bit_source G>
void bernoulli_exp(benchmark::State& state) {
  G gen = make_generator<G>();
  const auto num = static_cast<std::uint64_t>(state.range(0));
  const auto den = static_cast<std::uint64_t>(state.range(1));
  for (auto _ : state) benchmark::DoNotOptimize(privet::bernoulli_exp(gen, num, den));
  state.SetItemsProcessed(state.iterations());
}

template <class Mechanism>
void mechanism(benchmark::State& state) {
  privet::csprng gen;
  const auto m = Mechanism::from_scale(1.0);
  double x = 0.5;
  for (auto _ : state) benchmark::DoNotOptimize(x = m(0.5, gen));
  state.SetItemsProcessed(state.iterations());
}

void randomized_response(benchmark::State& state) {
  privet::csprng gen;
  const privet::randomized_response rr(1.0, static_cast<std::uint64_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(rr(1, gen));
  state.SetItemsProcessed(state.iterations());
}

// One report of subset selection over s = range(0) candidates at
// eps = range(1) (d = ceil(s / (e^eps + 1))), into a reused buffer as LDP
// TrieHH's clients do.
template <privet::random_bit_source G>
void subset_selection(benchmark::State& state) {
  G gen = make_generator<G>();
  const auto s = static_cast<std::uint64_t>(state.range(0));
  const privet::subset_selection ss(static_cast<double>(state.range(1)), s);
  std::vector<std::uint64_t> out;
  std::uint64_t item = 0;
  for (auto _ : state) {
    out.clear();
    ss(item, gen, out);
    benchmark::DoNotOptimize(out.data());
    item = item + 1 == s ? 0 : item + 1;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["d"] = static_cast<double>(ss.d());
}

template <class Selector>
void selection(benchmark::State& state) {
  privet::csprng gen;
  std::vector<double> scores(static_cast<std::size_t>(state.range(0)));
  for (std::size_t i = 0; i < scores.size(); ++i) scores[i] = static_cast<double>(i % 17);
  const Selector s(1.0, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(s(scores, gen));
  state.SetItemsProcessed(state.iterations());
}

// One keep() decision of a partition selection (eps 1, delta 1e-6, 4
// partitions per unit) at the least count kept at least half the time.
template <class Policy>
void partition_keep(benchmark::State& state) {
  auto gen = make_generator<privet::csprng>();
  const Policy p(privet::approx_dp(1.0, 1e-6), 4);
  std::uint64_t n = 1;  // the least count kept at least half the time
  while (p.keep_probability(n) < 0.5) ++n;
  for (auto _ : state) benchmark::DoNotOptimize(p.keep(n, gen));
  state.SetItemsProcessed(state.iterations());
}

// One AboveThreshold query that stays below (eps 1, sensitivity 1).
template <class Noise>
void sparse_vector_query(benchmark::State& state) {
  auto gen = make_generator<privet::csprng>();
  privet::above_threshold<Noise> svt(1.0, 1.0, 1e9, gen);
  for (auto _ : state) benchmark::DoNotOptimize(svt(0.0, gen));
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(discrete_laplace<privet::csprng>)
    ->Name("discrete_laplace/csprng")
    ->ArgName("scale")
    ->Arg(1)
    ->Arg(100)
    ->Arg(std::int64_t{1} << 40);
BENCHMARK(discrete_laplace<privet::testing::seeded_release_generator>)
    ->Name("discrete_laplace/seeded")
    ->ArgName("scale")
    ->Arg(1)
    ->Arg(100)
    ->Arg(std::int64_t{1} << 40);
BENCHMARK(discrete_gaussian<privet::csprng>)
    ->Name("discrete_gaussian/csprng")
    ->ArgName("sigma")
    ->Arg(1)
    ->Arg(18)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(1 << 20);
BENCHMARK(discrete_gaussian<privet::testing::seeded_release_generator>)
    ->Name("discrete_gaussian/seeded")
    ->ArgName("sigma")
    ->Arg(1)
    ->Arg(100)
    ->Arg(1 << 20);
BENCHMARK(partition_keep<privet::laplace_partition_selection<privet::secure_noise>>)
    ->Name("partition_selection/laplace/secure");
BENCHMARK(partition_keep<privet::laplace_partition_selection<privet::constant_time_noise>>)
    ->Name("partition_selection/laplace/constant_time");
BENCHMARK(partition_keep<privet::gaussian_partition_selection<privet::secure_noise>>)
    ->Name("partition_selection/gaussian/secure");
BENCHMARK(partition_keep<privet::gaussian_partition_selection<privet::constant_time_noise>>)
    ->Name("partition_selection/gaussian/constant_time");
BENCHMARK(partition_keep<privet::optimal_partition_selection<privet::secure_noise>>)
    ->Name("partition_selection/optimal/secure");
BENCHMARK(partition_keep<privet::optimal_partition_selection<privet::constant_time_noise>>)
    ->Name("partition_selection/optimal/constant_time");
BENCHMARK(sparse_vector_query<privet::secure_noise>)->Name("above_threshold/secure");
BENCHMARK(sparse_vector_query<privet::constant_time_noise>)->Name("above_threshold/constant_time");
BENCHMARK(constant_time_laplace<privet::csprng>)
    ->Name("constant_time_laplace/csprng")
    ->ArgName("scale")
    ->Arg(1)
    ->Arg(100)
    ->Arg(std::int64_t{1} << 40);
BENCHMARK(constant_time_gaussian<privet::csprng>)
    ->Name("constant_time_gaussian/csprng")
    ->ArgName("sigma")
    ->Arg(1)
    ->Arg(18)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(1 << 20);
BENCHMARK(bernoulli_exp<privet::csprng>)
    ->Name("bernoulli_exp/csprng")
    ->ArgNames({"num", "den"})
    ->Args({1, 3})
    ->Args({5, 2});
BENCHMARK(mechanism<privet::laplace_mechanism<double, privet::secure_noise>>)
    ->Name("laplace_mechanism/secure");
BENCHMARK(mechanism<privet::laplace_mechanism<double, privet::simulation_only_noise>>)
    ->Name("laplace_mechanism/simulation_only");
BENCHMARK(mechanism<privet::laplace_mechanism<double, privet::constant_time_noise>>)
    ->Name("laplace_mechanism/constant_time");
BENCHMARK(mechanism<privet::gaussian_mechanism<double, privet::secure_noise>>)
    ->Name("gaussian_mechanism/secure");
BENCHMARK(mechanism<privet::gaussian_mechanism<double, privet::constant_time_noise>>)
    ->Name("gaussian_mechanism/constant_time");
BENCHMARK(mechanism<privet::gaussian_mechanism<double, privet::simulation_only_noise>>)
    ->Name("gaussian_mechanism/simulation_only");
BENCHMARK(randomized_response)
    ->Name("randomized_response/eps1/k")
    ->Arg(2)
    ->Arg(100)
    ->Arg(1'000'000);
BENCHMARK(subset_selection<privet::csprng>)
    ->Name("subset_selection/csprng")
    ->ArgNames({"s", "eps"})
    ->Args({1'000'000, 10})
    ->Args({1'000'000, 5})
    ->Args({1000, 1})
    ->Args({10'000, 1});
BENCHMARK(subset_selection<privet::testing::seeded_release_generator>)
    ->Name("subset_selection/seeded")
    ->ArgNames({"s", "eps"})
    ->Args({1'000'000, 10})
    ->Args({1'000'000, 5})
    ->Args({1000, 1});
BENCHMARK(selection<privet::exponential_mechanism<privet::secure_noise>>)
    ->Name("exponential_mechanism/secure/candidates")
    ->Arg(10)
    ->Arg(1000);
BENCHMARK(selection<privet::exponential_mechanism<>>)
    ->Name("exponential_mechanism/constant_time/candidates")
    ->Arg(10)
    ->Arg(1000);
BENCHMARK(selection<privet::permute_and_flip<privet::secure_noise>>)
    ->Name("permute_and_flip/secure/candidates")
    ->Arg(10)
    ->Arg(1000);
BENCHMARK(selection<privet::permute_and_flip<>>)
    ->Name("permute_and_flip/constant_time/candidates")
    ->Arg(10)
    ->Arg(1000);
