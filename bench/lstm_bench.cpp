// LSTM gradients for DP-SGD (the federated speech example's model): 13 MFCCs
// per frame, 200 units, 10 classes, sequences of 90-110 frames (about 100),
// batches of 32 and 64 on 1 and 2 threads. Items are examples, so
// items_per_second is examples/s:
//   lstm_per_example_gradients — B x P per-example gradients (what DP-SGD needs);
//   lstm_dpsgd_gradient        — the same, then each row clipped to L2 norm 1
//                                and the rows summed (DP-SGD's gradient before noise);
//   lstm_mean_gradient         — the batch's mean gradient only (non-private SGD);
//   lstm_padded_gradients      — per-example gradients with gradient_frames =
//                                110 (every sequence runs the longest one's
//                                steps: constant time in the lengths).
// Parallelism is over blocks of examples (TBB); OpenBLAS is held at one
// thread per call so the two do not oversubscribe the cores.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/ml/lstm.hpp>

#include <benchmark/benchmark.h>
#include <oneapi/tbb/global_control.h>

#include <cmath>
#include <cstddef>
#include <vector>

// OpenBLAS's thread control, when the BLAS in use is OpenBLAS.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace {

constexpr std::size_t input_dim = 13, hidden = 200, classes = 10;

template <class Real>
privet::ml::sequence_batch<Real> speech_like_batch(std::size_t size) {
  privet::testing::seeded_release_generator gen(7);
  privet::ml::sequence_batch<Real> b;
  for (std::size_t i = 0; i < size; ++i) {
    const std::size_t frames = 90 + privet::uniform_below(gen, 21);
    xt::xtensor<Real, 2> x = xt::xtensor<Real, 2>::from_shape({frames, input_dim});
    for (auto& v : x) v = static_cast<Real>(4 * privet::uniform_real(gen) - 2);
    b.x.push_back(std::move(x));
    b.y.push_back(static_cast<int>(privet::uniform_below(gen, classes)));
  }
  return b;
}

enum class workload { per_example, dpsgd, batch_mean, padded };

template <class Real, workload W>
void lstm_gradients(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  const auto threads = static_cast<std::size_t>(state.range(1));
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism, threads);
  privet::testing::seeded_release_generator gen(1);
  const privet::ml::lstm_classifier<Real> model(
      {.input_dim = input_dim,
       .hidden = hidden,
       .classes = classes,
       .gradient_frames = W == workload::padded ? std::size_t{110} : std::size_t{0}},
      gen);
  const auto batch = speech_like_batch<Real>(size);
  const std::size_t p = model.parameter_count();
  std::vector<Real> sum(p);
  for (auto _ : state) {
    if constexpr (W == workload::batch_mean) {
      const auto g = model.mean_gradient(batch);
      benchmark::DoNotOptimize(g.data());
    } else {
      const auto g = model.per_example_gradients(batch);
      benchmark::DoNotOptimize(g.data());
      if constexpr (W == workload::dpsgd) {
        std::fill(sum.begin(), sum.end(), Real(0));
        for (std::size_t e = 0; e < size; ++e) {
          const Real* row = g.data() + e * p;
          Real norm2 = 0;
          for (std::size_t i = 0; i < p; ++i) norm2 += row[i] * row[i];
          const Real scale = std::min(Real(1), Real(1) / std::sqrt(norm2));
          for (std::size_t i = 0; i < p; ++i) sum[i] += scale * row[i];
        }
        benchmark::DoNotOptimize(sum.data());
      }
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * size));
  state.counters["threads"] = static_cast<double>(threads);
  state.counters["parameters"] = static_cast<double>(p);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->ArgsProduct({{32, 64}, {1, 2}})->ArgNames({"batch", "threads"});
  b->MeasureProcessCPUTime()->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK_TEMPLATE(lstm_gradients, float, workload::per_example)
    ->Name("lstm_per_example_gradients<float>")
    ->Apply(sizes);
BENCHMARK_TEMPLATE(lstm_gradients, float, workload::dpsgd)
    ->Name("lstm_dpsgd_gradient<float>")
    ->Apply(sizes);
BENCHMARK_TEMPLATE(lstm_gradients, float, workload::batch_mean)
    ->Name("lstm_mean_gradient<float>")
    ->Apply(sizes);
BENCHMARK_TEMPLATE(lstm_gradients, float, workload::padded)
    ->Name("lstm_padded_gradients<float>")
    ->Apply(sizes);
BENCHMARK_TEMPLATE(lstm_gradients, double, workload::per_example)
    ->Name("lstm_per_example_gradients<double>")
    ->Apply(sizes);
BENCHMARK_TEMPLATE(lstm_gradients, double, workload::batch_mean)
    ->Name("lstm_mean_gradient<double>")
    ->Apply(sizes);
