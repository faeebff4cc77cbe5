// Accounting layer: the cost of an (eps, delta) answer for DP-SGD, the
// issue's reference workload (10^4 steps, q = 0.01, sigma = 1.1, delta = 1e-5).
#include <privet/accounting/rdp.hpp>

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

}  // namespace

BENCHMARK(rdp_dpsgd_epsilon)
    ->Name("rdp/dpsgd_epsilon/steps")
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
