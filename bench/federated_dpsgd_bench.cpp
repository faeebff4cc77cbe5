// Federated DP-SGD (algorithms/federated_dpsgd.hpp): the cost of one round —
// every worker's private half of a DP-SGD step (Poisson batch, per-example
// LSTM gradients, clipping, secure or simulation noise, accounting), the
// aggregator's weighted mean and every replica's update — against one
// non-private SGD step on the pooled data with the same expected batch.
// The model is the speech example's: LSTM 13 x H, 10 classes, frame labels,
// sequences of 30-50 frames; each worker holds 200 sequences and samples at
// q = 0.1 (20 expected per round). Items are examples, so items_per_second
// is examples/s. The aggregator alone is benchmarked on its own: W messages
// of P doubles received, averaged and applied (bytes/s of gradients).
// OpenBLAS is held at one thread; TBB runs the workers and blocks of
// sequences on both cores. user_level_round is the same worker with users
// of 8 sequences as its privacy unit.
#include <privet/algorithms/federated_dpsgd.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/ml/lstm.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

// OpenBLAS's thread control, when the BLAS in use is OpenBLAS.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace {

namespace fed = privet::federated;
namespace ml = privet::ml;

constexpr std::size_t classes = 10, per_worker = 200;
constexpr double rate = 0.1;

using frame_lstm = ml::frame_lstm_classifier<float>;

ml::frame_sequence_batch<float> speech_like(std::size_t n, std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  ml::frame_sequence_batch<float> b;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t frames = 30 + privet::uniform_below(gen, 21);
    xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({frames, 13});
    for (auto& v : x) v = static_cast<float>(4 * privet::uniform_real(gen) - 2);
    b.x.push_back(std::move(x));
    b.y.emplace_back(frames, static_cast<int>(privet::uniform_below(gen, classes)));
  }
  return b;
}

fed::worker_options private_worker(std::size_t w) {
  fed::worker_options o;
  o.name = "org" + std::to_string(w);
  o.clip_norm = 1;
  o.batch_size = static_cast<std::size_t>(rate * per_worker);
  // Noise for (8, 1e-5) per step by RDP on integer orders (calibration is
  // set-up, not timed); the odometer records every round.
  o.privacy = fed::per_step_budget{privet::approx_dp(8, 1e-5)};
  o.calibration.accountant = privet::accountant_kind::rdp;
  o.calibration.orders.clear();
  for (int a = 2; a <= 64; ++a) o.calibration.orders.push_back(a);
  return o;
}

template <class Noise>
void federated_round(benchmark::State& state) {
  const auto hidden = static_cast<std::size_t>(state.range(0));
  const auto workers = static_cast<std::size_t>(state.range(1));
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  privet::testing::seeded_release_generator init(1);
  const frame_lstm model({.hidden = hidden, .classes = classes}, init);
  std::vector<typename fed::federation<frame_lstm, Noise>::member> members;
  std::vector<privet::testing::seeded_release_generator> gens;
  for (std::size_t w = 0; w < workers; ++w) {
    members.push_back({private_worker(w), speech_like(per_worker, 10 + w)});
    gens.emplace_back(100 + w);
  }
  fed::federation<frame_lstm, Noise> f(model, std::move(members),
                                       {.learning_rate = 0.01,
                                        .rounds = std::numeric_limits<std::uint64_t>::max(),
                                        .rule = fed::aggregation::batch_weighted});
  for (auto _ : state) f.run_round(std::span<privet::testing::seeded_release_generator>(gens));
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * workers * rate * per_worker));
  state.counters["parameters"] = static_cast<double>(model.parameter_count());
}

// User-level DP-SGD (privacy unit: a user of 8 sequences): one worker of
// 200 sequences in 25 users, users sampled at q = 0.1 (2.5 users, 20
// sequences expected, as the example-level worker), each sampled user's
// mean gradient clipped as one record. Items are the expected examples.
void user_level_round(benchmark::State& state) {
  const auto hidden = static_cast<std::size_t>(state.range(0));
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  privet::testing::seeded_release_generator init(1);
  const frame_lstm model({.hidden = hidden, .classes = classes}, init);
  auto o = private_worker(0);
  o.batch_size = 0;
  o.sampling_rate = rate;
  std::vector<std::size_t> unit_of(per_worker);
  for (std::size_t i = 0; i < per_worker; ++i) unit_of[i] = i / 8;
  o.units = ml::privacy_units(unit_of);
  // The exact samplers, as the recorded numbers (bench/README.md).
  std::vector<fed::federation<frame_lstm, privet::secure_noise>::member> members;
  members.push_back({o, speech_like(per_worker, 10)});
  std::vector<privet::testing::seeded_release_generator> gens;
  gens.emplace_back(100);
  fed::federation<frame_lstm, privet::secure_noise> f(
      model, std::move(members),
      {.learning_rate = 0.01,
       .rounds = std::numeric_limits<std::uint64_t>::max(),
       .rule = fed::aggregation::batch_weighted});
  for (auto _ : state) f.run_round(std::span<privet::testing::seeded_release_generator>(gens));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rate * per_worker));
  state.counters["parameters"] = static_cast<double>(model.parameter_count());
}

// The baseline: one non-private SGD step on the pooled data of all workers
// with their summed expected batch, no clipping, no noise.
void pooled_sgd_step(benchmark::State& state) {
  const auto hidden = static_cast<std::size_t>(state.range(0));
  const auto workers = static_cast<std::size_t>(state.range(1));
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  privet::testing::seeded_release_generator init(1);
  frame_lstm model({.hidden = hidden, .classes = classes}, init);
  ml::frame_sequence_batch<float> all;
  for (std::size_t w = 0; w < workers; ++w) {
    auto part = speech_like(per_worker, 10 + w);
    all.x.insert(all.x.end(), part.x.begin(), part.x.end());
    all.y.insert(all.y.end(), part.y.begin(), part.y.end());
  }
  auto opt = ml::dpsgd<frame_lstm>::non_private(
      model.parameter_count(), all.size(),
      {.learning_rate = 0.01,
       .clip_norm = std::numeric_limits<double>::infinity(),
       .batch_size = static_cast<std::size_t>(rate * per_worker) * workers});
  privet::testing::seeded_release_generator gen(7);
  for (auto _ : state) (void)opt.step(model, all, gen);
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * workers * rate * per_worker));
}

void round_sizes(benchmark::internal::Benchmark* b) {
  b->ArgsProduct({{32, 200}, {1, 4}})->ArgNames({"hidden", "workers"});
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}

// The aggregator and the replicas' updates alone: W gradients of P entries.
void aggregate_and_apply(benchmark::State& state) {
  const auto p = static_cast<std::size_t>(state.range(0));
  const auto workers = static_cast<std::size_t>(state.range(1));
  fed::aggregator agg(p, std::vector<double>(workers, 1.0));
  std::vector<std::vector<double>> grads(workers, std::vector<double>(p, 1e-3));
  std::vector<std::vector<float>> replicas(workers, std::vector<float>(p, 0.5f));
  for (auto _ : state) {
    for (std::uint32_t w = 0; w < workers; ++w) agg.receive({w, agg.round(), grads[w]});
    const auto u = agg.aggregate();
    for (auto& r : replicas)
      for (std::size_t j = 0; j < p; ++j)
        r[j] = static_cast<float>(static_cast<double>(r[j]) - 0.01 * u.gradient[j]);
    benchmark::DoNotOptimize(replicas.front().data());
  }
  state.SetBytesProcessed(
      static_cast<std::int64_t>(state.iterations() * workers * p * sizeof(double)));
}

}  // namespace

BENCHMARK_TEMPLATE(federated_round, privet::secure_noise)
    ->Name("federated_round<secure_noise>")
    ->Apply(round_sizes);
BENCHMARK_TEMPLATE(federated_round, privet::simulation_only_noise)
    ->Name("federated_round<simulation_only_noise>")
    ->Apply(round_sizes);
BENCHMARK(pooled_sgd_step)->Apply(round_sizes);
BENCHMARK(user_level_round)
    ->ArgsProduct({{32, 200}})
    ->ArgNames({"hidden"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(aggregate_and_apply)
    ->ArgsProduct({{6'218, 172'810}, {4}})
    ->ArgNames({"parameters", "workers"})
    ->Unit(benchmark::kMicrosecond);
