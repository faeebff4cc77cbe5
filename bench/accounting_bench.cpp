// Accounting layer: the cost of an (eps, delta) answer for DP-SGD, the
// issue's reference workload (10^4 steps, q = 0.01, sigma = 1.1, delta = 1e-5).
#include <privet/accounting/rdp.hpp>
#include <privet/accounting/shuffle.hpp>

#include <benchmark/benchmark.h>

namespace {

// RDP curve of one step on dp_accounting's default orders (integer and
// fractional), composed over the steps, then converted.
void rdp_dpsgd_epsilon(benchmark::State& state) {
  const auto steps = static_cast<std::uint64_t>(state.range(0));
  double eps = 0;
  for (auto _ : state) {
    const auto curve = privet::rdp_subsampled_gaussian(0.01, 1.1).composed(steps);
    eps = privet::to_approx_dp(curve, 1e-5).epsilon();
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;
}

// eps of the numerical shuffling bound for n = range(0) reports of eps0 =
// range(1)-LDP randomisers at delta = 1e-8 (bisection over delta(eps)).
void shuffle_epsilon(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  const auto eps0 = static_cast<double>(state.range(1));
  double eps = 0;
  for (auto _ : state) {
    eps = privet::shuffle_amplification(eps0, n, 1e-8).epsilon();
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;
}

}  // namespace

BENCHMARK(rdp_dpsgd_epsilon)
    ->Name("rdp/dpsgd_epsilon/steps")
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(shuffle_epsilon)
    ->Name("shuffle/epsilon")
    ->ArgNames({"n", "eps0"})
    ->Args({1'000'000, 10})
    ->Args({10'000'000, 10})
    ->Args({10'000'000, 1})
    ->Unit(benchmark::kMillisecond);
