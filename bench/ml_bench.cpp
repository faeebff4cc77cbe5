// ML layer: per-example gradient throughput (examples/s) of logistic
// regression on sparse binary features (d = 10^4, the spam filter's reduced
// space) and of an MLP, against the batched mean gradient that non-private
// SGD needs; and one DP-SGD step (sampling, per-example gradients, clipping,
// noise, update) against one non-private SGD step on the same model and
// batch size, with simulation, secure (release-grade) and constant-time
// (release-grade, time independent of the noise; issue 36) noise. Wall-clock
// time (UseRealTime): the MLP spreads examples over TBB threads and BLAS may
// use both cores.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/ml/dpsgd.hpp>
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/mlp.hpp>

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace {

using privet::ml::dense_batch;
using privet::ml::sparse_binary_batch;
using sparse_lr = privet::ml::logistic_regression<double>;
using mlp = privet::ml::mlp<double>;

constexpr std::size_t lr_dimension = 10'000;
constexpr std::size_t lr_active = 500;  // active 4-grams per email after hashing
const std::vector<std::size_t> mlp_layers{64, 256, 256, 10};

sparse_binary_batch sparse_data(std::size_t n, unsigned seed) {
  privet::testing::seeded_release_generator gen(seed);
  sparse_binary_batch b;
  b.dimension = lr_dimension;
  for (std::size_t i = 0; i < n; ++i) {
    auto idx = privet::uniform_subset(gen, lr_dimension, lr_active);
    std::vector<std::uint32_t> row(idx.begin(), idx.end());
    std::sort(row.begin(), row.end());
    b.features.push_back(std::move(row));
    b.y.push_back(i % 3 == 0 ? 1 : -1);
  }
  return b;
}

dense_batch<double> dense_data(std::size_t n, std::size_t f, int classes, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> nd;
  dense_batch<double> b;
  b.x = xt::xtensor<double, 2>::from_shape({n, f});
  for (auto& v : b.x) v = nd(gen);
  for (std::size_t i = 0; i < n; ++i) b.y.push_back(static_cast<int>(i % classes));
  return b;
}

sparse_lr trained_lr() {
  sparse_lr m(lr_dimension);
  std::mt19937 gen(1);
  std::normal_distribution<double> nd(0, 0.01);
  for (auto& w : m.parameters()) w = nd(gen);
  return m;
}

mlp make_mlp() {
  privet::testing::seeded_release_generator gen(2);
  return mlp({mlp_layers, privet::ml::activation::tanh}, gen);
}

// ---- per-example gradients vs the batched mean gradient ---------------------

void lr_sparse_per_example(benchmark::State& state) {
  const auto b = sparse_data(static_cast<std::size_t>(state.range(0)), 3);
  const auto m = trained_lr();
  for (auto _ : state) {
    auto g = m.per_example_gradients(b);
    benchmark::DoNotOptimize(g.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void lr_sparse_mean_gradient(benchmark::State& state) {
  const auto b = sparse_data(static_cast<std::size_t>(state.range(0)), 3);
  const auto m = trained_lr();
  for (auto _ : state) {
    auto g = m.mean_gradient(b);
    benchmark::DoNotOptimize(g.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void mlp_per_example(benchmark::State& state) {
  const auto b = dense_data(static_cast<std::size_t>(state.range(0)), mlp_layers.front(), 10, 4);
  const auto m = make_mlp();
  for (auto _ : state) {
    auto g = m.per_example_gradients(b);
    benchmark::DoNotOptimize(g.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["parameters"] = static_cast<double>(m.parameter_count());
}

void mlp_mean_gradient(benchmark::State& state) {
  const auto b = dense_data(static_cast<std::size_t>(state.range(0)), mlp_layers.front(), 10, 4);
  const auto m = make_mlp();
  for (auto _ : state) {
    auto g = m.mean_gradient(b);
    benchmark::DoNotOptimize(g.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// ---- one training step: DP-SGD vs non-private SGD -----------------------------

constexpr std::size_t dataset_size = 8192;
constexpr std::size_t batch_size = 256;

// Non-private SGD: a uniform batch of b examples, the batched mean gradient,
// the update.
template <class Model, class Batch>
void sgd_step(benchmark::State& state, Model model, const Batch& data) {
  privet::testing::seeded_release_generator gen(5);
  for (auto _ : state) {
    const auto chosen = privet::uniform_subset(gen, dataset_size, batch_size);
    const std::vector<std::size_t> idx(chosen.begin(), chosen.end());
    const auto g = model.mean_gradient(data.select(idx));
    auto w = model.parameters();
    for (std::size_t j = 0; j < w.size(); ++j) w[j] -= 0.1 * g(j);
    benchmark::DoNotOptimize(w.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_size));
}

// DP-SGD: Poisson batches of expected size b, per-example gradients,
// clipping, Gaussian noise on every coordinate, the update, the odometer.
template <class Noise, class Model, class Batch>
void dpsgd_step(benchmark::State& state, Model model, const Batch& data) {
  privet::ml::dpsgd<Model, Noise> opt(
      model.parameter_count(), dataset_size,
      {.learning_rate = 0.1, .clip_norm = 1, .batch_size = batch_size}, 1.1);
  privet::testing::seeded_release_generator gen(6);
  std::int64_t examples = 0;
  for (auto _ : state) {
    const auto r = opt.step(model, data, gen);
    examples += static_cast<std::int64_t>(r.batch.size());
  }
  state.SetItemsProcessed(examples);
}

// The batch draw: a DP-SGD step without noise on a logistic regression of
// one feature, whose gradients for the sampled rows cost a few
// microseconds, so the step is mostly the batch draw over 8192 units:
// Poisson coins or a fixed-size subset of state.range(0) units (exact, or
// constant time with constant_time_noise).
template <class Noise, privet::ml::batch_sampling Sampling>
void dpsgd_batch(benchmark::State& state) {
  using tiny = privet::ml::logistic_regression<double, dense_batch<double>>;
  static const auto data = dense_data(dataset_size, 1, 2, 9);
  tiny model(1);
  auto opt = privet::ml::dpsgd<tiny, Noise>::non_private(
      1, dataset_size,
      {.learning_rate = 0.1,
       .clip_norm = 1,
       .batch_size = static_cast<std::size_t>(state.range(0)),
       .sampling = Sampling});
  privet::testing::seeded_release_generator gen(10);
  for (auto _ : state) benchmark::DoNotOptimize(opt.step(model, data, gen).batch.data());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(dataset_size));
}

void sgd_step_lr(benchmark::State& state) {
  static const auto data = sparse_data(dataset_size, 7);
  sgd_step(state, trained_lr(), data);
}
void dpsgd_step_lr_simulation(benchmark::State& state) {
  static const auto data = sparse_data(dataset_size, 7);
  dpsgd_step<privet::simulation_only_noise>(state, trained_lr(), data);
}
void dpsgd_step_lr_secure(benchmark::State& state) {
  static const auto data = sparse_data(dataset_size, 7);
  dpsgd_step<privet::secure_noise>(state, trained_lr(), data);
}
void dpsgd_step_lr_constant_time(benchmark::State& state) {
  static const auto data = sparse_data(dataset_size, 7);
  dpsgd_step<privet::constant_time_noise>(state, trained_lr(), data);
}
void sgd_step_mlp(benchmark::State& state) {
  static const auto data = dense_data(dataset_size, mlp_layers.front(), 10, 8);
  sgd_step(state, make_mlp(), data);
}
void dpsgd_step_mlp_simulation(benchmark::State& state) {
  static const auto data = dense_data(dataset_size, mlp_layers.front(), 10, 8);
  dpsgd_step<privet::simulation_only_noise>(state, make_mlp(), data);
}
void dpsgd_step_mlp_secure(benchmark::State& state) {
  static const auto data = dense_data(dataset_size, mlp_layers.front(), 10, 8);
  dpsgd_step<privet::secure_noise>(state, make_mlp(), data);
}

void dpsgd_step_mlp_constant_time(benchmark::State& state) {
  static const auto data = dense_data(dataset_size, mlp_layers.front(), 10, 8);
  dpsgd_step<privet::constant_time_noise>(state, make_mlp(), data);
}

}  // namespace

BENCHMARK(lr_sparse_per_example)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(lr_sparse_mean_gradient)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(mlp_per_example)
    ->Arg(32)
    ->Arg(128)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(mlp_mean_gradient)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(dpsgd_batch<privet::secure_noise, privet::ml::batch_sampling::poisson>)
    ->Name("dpsgd_batch/poisson/secure")
    ->Arg(batch_size);
BENCHMARK(dpsgd_batch<privet::constant_time_noise, privet::ml::batch_sampling::poisson>)
    ->Name("dpsgd_batch/poisson/constant_time")
    ->Arg(batch_size);
BENCHMARK(dpsgd_batch<privet::secure_noise, privet::ml::batch_sampling::fixed_size>)
    ->Name("dpsgd_batch/fixed_size/secure")
    ->Arg(256)
    ->Arg(4096);
BENCHMARK(dpsgd_batch<privet::constant_time_noise, privet::ml::batch_sampling::fixed_size>)
    ->Name("dpsgd_batch/fixed_size/constant_time")
    ->Arg(256)
    ->Arg(4096);
BENCHMARK(sgd_step_lr)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(dpsgd_step_lr_simulation)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(dpsgd_step_lr_secure)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(dpsgd_step_lr_constant_time)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(sgd_step_mlp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(dpsgd_step_mlp_simulation)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(dpsgd_step_mlp_secure)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(dpsgd_step_mlp_constant_time)->Unit(benchmark::kMillisecond)->UseRealTime();
