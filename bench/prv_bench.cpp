// PRV accountant: the DP-SGD workload (10^4 steps, q = 0.01,
// sigma = 1.1, delta = 1e-5) by Gopi, Lee & Wutschitz's numerical
// composition, both orders of the subsampled Gaussian, at eps_error =
// range(0) / 1000 and delta_error = 1e-10.
#include <privet/accounting/prv.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace {

// Composes `steps` Poisson-subsampled Gaussian steps (rate q, noise
// multiplier sigma) with `options` each iteration and queries epsilon(1e-5)
// (compose(delta) when options leave delta_error to the delta), reporting
// the last bracket and the grid size.
void dpsgd_job(benchmark::State& state, double q, double sigma, std::uint64_t steps,
               std::optional<privet::prv_options> options) {
  privet::prv_bounds b{};
  std::size_t grid = 0;
  for (auto _ : state) {
    privet::prv_accountant acc =
        options ? privet::prv_accountant(*options) : privet::prv_accountant();
    acc.add(privet::prv::subsampled_gaussian(q, sigma), steps);
    const auto c = options ? acc.compose() : acc.compose(1e-5);
    b = c.epsilon(1e-5);
    grid = c.size();
    benchmark::DoNotOptimize(&b);
  }
  state.counters["eps_lower"] = b.lower;
  state.counters["eps_estimate"] = b.estimate;
  state.counters["eps_upper"] = b.upper;
  state.counters["grid"] = static_cast<double>(grid);
}

// compose() (discretisation, Chernoff window, one FFT per order, powers,
// inverse FFT) plus one epsilon query with its three answers.
void prv_dpsgd_epsilon(benchmark::State& state) {
  const double eps_error = static_cast<double>(state.range(0)) * 1e-3;
  dpsgd_job(state, 0.01, 1.1, 10'000,
            privet::prv_options{.eps_error = eps_error, .delta_error = 1e-10});
}

// A further query on a composition already computed.
void prv_dpsgd_query(benchmark::State& state) {
  const double eps_error = static_cast<double>(state.range(0)) * 1e-3;
  privet::prv_accountant acc({.eps_error = eps_error, .delta_error = 1e-10});
  acc.add(privet::prv::subsampled_gaussian(0.01, 1.1), 10'000);
  const auto c = acc.compose();
  privet::prv_bounds b{};
  for (auto _ : state) {
    b = c.epsilon(1e-5);
    benchmark::DoNotOptimize(&b);
  }
  state.counters["eps_upper"] = b.upper;
}

// The DP-SGD job at range(0) steps with the default options: eps_error =
// 0.01 and delta_error relative, delta / 1000 (Opacus's default), i.e. the
// composition prv_accountant::epsilon(1e-5) makes.
void prv_dpsgd_steps(benchmark::State& state) {
  dpsgd_job(state, 0.01, 1.1, static_cast<std::uint64_t>(state.range(0)), std::nullopt);
}

// The job of bench/compare_prv.py (issue 34): q = 1e-3, sigma = 1, eps_error
// = 0.01, delta_error = 1e-10, epsilon(1e-5) at range(0) steps, as
// microsoft/prv_accountant's PRVAccountant(PoissonSubsampledGaussianMechanism,
// eps_error, delta_error).compute_epsilon: compose() and one query.
void prv_compare(benchmark::State& state) {
  dpsgd_job(state, 1e-3, 1.0, static_cast<std::uint64_t>(state.range(0)),
            privet::prv_options{.eps_error = 0.01, .delta_error = 1e-10});
}

}  // namespace

BENCHMARK(prv_compare)
    ->Name("prv_compare/steps")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(prv_dpsgd_steps)
    ->Name("prv_dpsgd_steps/steps")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
// 10^5 and 10^6 steps take seconds (the grid grows as sqrt(steps) /
// eps_error, to 8 million points): registered only when
// PRIVET_BENCH_LARGE=1, so that the test suite's smoke run stays short.
const bool prv_large_registered = [] {
  const char* large = std::getenv("PRIVET_BENCH_LARGE");
  if (large == nullptr || std::string_view(large) != "1") return false;
  benchmark::RegisterBenchmark("prv_dpsgd_steps/steps", prv_dpsgd_steps)
      ->Arg(100'000)
      ->Arg(1'000'000)
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("prv_compare/steps", prv_compare)
      ->Arg(100'000)
      ->Arg(1'000'000)
      ->Unit(benchmark::kMillisecond);
  return true;
}();
BENCHMARK(prv_dpsgd_epsilon)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(prv_dpsgd_query)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);
