// Accounting layer: the cost of an (eps, delta) answer for DP-SGD, the
// issue's reference workload (10^4 steps, q = 0.01, sigma = 1.1, delta = 1e-5).
#include <privet/accounting/calibration.hpp>
#include <privet/accounting/odometer.hpp>
#include <privet/accounting/pld.hpp>
#include <privet/accounting/rdp.hpp>
#include <privet/accounting/rdp_wor.hpp>
#include <privet/accounting/shuffle.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

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

// The same DP-SGD workload by the PLD: one step's connect-the-dots PLD on a
// grid of h (in units of 1e-6), its 10^4-fold FFT power, then epsilon.
// h = 1e-3 is within 7e-4 relative of the converged epsilon (5.1933 at
// h <= 2e-4); RDP gives 5.6388.
void pld_dpsgd_epsilon(benchmark::State& state) {
  const double h = static_cast<double>(state.range(0)) * 1e-6;
  double eps = 0;
  for (auto _ : state) {
    const auto step = privet::privacy_loss_distribution::subsampled_gaussian(0.01, 1.1, {h});
    eps = step.self_compose(10'000).epsilon(1e-5).epsilon();
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;
}

// DP-SGD as a training loop sees it: 10^4 steps recorded one at a time,
// then the odometer's report (RDP and PLD side by side).
void odometer_dpsgd_report(benchmark::State& state) {
  double eps = 0;
  for (auto _ : state) {
    privet::privacy_odometer odometer;
    for (int i = 0; i < 10'000; ++i) odometer.record(privet::subsampled_gaussian_event{0.01, 1.1});
    const auto spent = odometer.epsilon(1e-5);
    benchmark::DoNotOptimize(&spent);
    eps = spent.epsilon();
  }
  state.counters["epsilon"] = eps;
}

// The inverse: the smallest sigma for (5.19, 1e-5) over 10^4 steps.
void pld_dpsgd_calibration(benchmark::State& state) {
  double sigma = 0;
  for (auto _ : state) {
    sigma = privet::dpsgd_noise_multiplier(0.01, 10'000, privet::approx_dp(5.19, 1e-5));
    benchmark::DoNotOptimize(sigma);
  }
  state.counters["sigma"] = sigma;
}

// Calibration at ordinary and extreme targets (issue 34, item 3: every
// calibration within 10 s). Each job is the Poisson-subsampled Gaussian's
// (q, steps, target epsilon at delta = 1e-5) by one accountant; the counters
// say how many accountant evaluations the search made and the sigma found.
struct calibration_job {
  double q;
  std::uint64_t steps;
  double epsilon;
  privet::accountant_kind accountant;
};
constexpr calibration_job calibration_jobs[] = {
    {0.01, 10'000, 5.19, privet::accountant_kind::pld},
    {0.5, 10, 800, privet::accountant_kind::pld},
    {0.01, 10'000, 0.1, privet::accountant_kind::pld},
    {1, 1'000, 80, privet::accountant_kind::pld},
    {1, 1, 0.01, privet::accountant_kind::pld},
    {0.001, 1'000'000, 1, privet::accountant_kind::pld},
    {0.5, 10, 800, privet::accountant_kind::prv},
    {1, 1'000, 80, privet::accountant_kind::prv},
    {0.01, 10'000, 5.19, privet::accountant_kind::prv},
    {0.5, 10, 800, privet::accountant_kind::rdp},
};

void calibration_at_any_target(benchmark::State& state) {
  const calibration_job& job = calibration_jobs[state.range(0)];
  privet::calibration_options c;
  c.accountant = job.accountant;
  double sigma = 0;
  std::uint64_t evaluations = 0;
  for (auto _ : state) {
    evaluations = 0;
    sigma = privet::smallest_noise_multiplier(
        [&](double s) {
          ++evaluations;
          return privet::subsampled_gaussian_event{job.q, s};
        },
        job.steps, privet::approx_dp(job.epsilon, 1e-5), c);
    benchmark::DoNotOptimize(sigma);
  }
  state.counters["sigma"] = sigma;
  state.counters["evaluations"] = static_cast<double>(evaluations);
  state.SetLabel(std::string(privet::to_string(job.accountant)) + " q=" + std::to_string(job.q) +
                 " steps=" + std::to_string(job.steps) + " eps=" + std::to_string(job.epsilon));
}

// Sampling without replacement: the curve on the default orders (gamma =
// 0.01, sigma = 1.1 in replace-one units) and eps for 10^4 steps.
void wor_dpsgd_epsilon(benchmark::State& state) {
  double eps = 0;
  for (auto _ : state) {
    const auto curve = privet::rdp_subsampled_wor_gaussian(0.01, 1.1);
    const auto spent = privet::to_approx_dp(curve.composed(10'000), 1e-5);
    benchmark::DoNotOptimize(&spent);
    eps = spent.epsilon();
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
BENCHMARK(pld_dpsgd_epsilon)
    ->Name("pld/dpsgd_epsilon/h_micro")
    ->Arg(1000)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(odometer_dpsgd_report)->Name("odometer/dpsgd_report")->Unit(benchmark::kMillisecond);
BENCHMARK(pld_dpsgd_calibration)->Name("pld/dpsgd_calibration")->Unit(benchmark::kMillisecond);
BENCHMARK(calibration_at_any_target)
    ->Name("calibration/any_target/job")
    ->DenseRange(0, std::size(calibration_jobs) - 1)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(wor_dpsgd_epsilon)->Name("rdp/wor_dpsgd_epsilon")->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------
// RDP at production scale (issue 23): the DP-SGD job (q = 0.01, sigma = 1.1,
// delta = 1e-5) at 10^3 to 10^6 steps. An RDP answer costs one step's curve
// whatever the number of steps (composition multiplies it), so the times
// agree across step counts; the epsilons show the growth.
// bench/compare_dp_accounting.py times rdp/dpsgd_dp_accounting_orders
// against dp_accounting's RdpAccountant on the same orders, alternately.
namespace {

// dp_accounting's DEFAULT_RDP_ORDERS (privet's default orders without 1.01,
// 1.02, 1.05).
std::vector<double> dp_accounting_rdp_orders() {
  const auto all = privet::default_rdp_orders();
  return {all.begin() + 3, all.end()};
}

void rdp_dpsgd_steps(benchmark::State& state, const std::vector<double>& orders) {
  const auto steps = static_cast<std::uint64_t>(state.range(0));
  double eps = 0, order = 0;
  for (auto _ : state) {
    const auto curve = privet::rdp_subsampled_gaussian(0.01, 1.1, orders).composed(steps);
    const auto [g, best] = privet::to_approx_dp_with_order(curve, 1e-5);
    eps = g.epsilon();
    order = best;
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;
  state.counters["order"] = order;
  state.counters["orders"] = static_cast<double>(orders.size());
}

void rdp_dpsgd_default_orders(benchmark::State& state) {
  rdp_dpsgd_steps(state, privet::default_rdp_orders());
}

void rdp_dpsgd_dp_accounting_orders(benchmark::State& state) {
  rdp_dpsgd_steps(state, dp_accounting_rdp_orders());
}

// Calibration by RDP: the smallest sigma for (8, 1e-5) over 10^4 steps at
// q = 0.01 (dp_accounting's orders give 0.91688081660).
void rdp_dpsgd_calibration(benchmark::State& state) {
  privet::calibration_options c;
  c.accountant = privet::accountant_kind::rdp;
  c.relative_tolerance = 1e-9;
  double sigma = 0;
  for (auto _ : state) {
    sigma = privet::dpsgd_noise_multiplier(0.01, 10'000, privet::approx_dp(8, 1e-5), c);
    benchmark::DoNotOptimize(sigma);
  }
  state.counters["sigma"] = sigma;
}

}  // namespace

BENCHMARK(rdp_dpsgd_default_orders)
    ->Name("rdp/dpsgd_default_orders/steps")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(rdp_dpsgd_dp_accounting_orders)
    ->Name("rdp/dpsgd_dp_accounting_orders/steps")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(rdp_dpsgd_calibration)->Name("rdp/dpsgd_calibration")->Unit(benchmark::kMillisecond);
// ------------------------- end of the RDP block ----------------------------

// ---------------------------------------------------------------------------
// PLD at production scale (issue 23): the DP-SGD job (q = 0.01, sigma = 1.1,
// delta = 1e-5) at 10^3 to 10^6 steps, on the default grid h = 1e-4 and on
// h = 1e-3 (range(1), in units of 1e-6): one step's connect-the-dots PLD
// (both orders), its FFT power with the Chernoff window, then epsilon.
// Counters: epsilon, the composed pmf's points and its mass at +infinity
// (truncation and round-off allowances). bench/compare_pld.py times the
// same jobs against dp_accounting's PLD, alternately in one run.
namespace {

void pld_dpsgd_steps(benchmark::State& state) {
  const auto steps = static_cast<std::uint64_t>(state.range(0));
  const double h = static_cast<double>(state.range(1)) * 1e-6;
  double eps = 0, points = 0, infinity = 0;
  for (auto _ : state) {
    const auto step = privet::privacy_loss_distribution::subsampled_gaussian(0.01, 1.1, {h});
    const auto all = step.self_compose(steps);
    eps = all.epsilon(1e-5).epsilon();
    benchmark::DoNotOptimize(eps);
    points = static_cast<double>(all.remove().probs().size());
    infinity = std::max(all.remove().infinity_mass(), all.add().infinity_mass());
  }
  state.counters["epsilon"] = eps;
  state.counters["points"] = points;
  state.counters["infinity"] = infinity;
}

// The scale checks: q = 1e-3, sigma = 1, 10^5 steps at h = 1e-4
// (epsilon(1e-7); dp_accounting: 2.065195) and 10^6 steps at h = 1e-3
// (epsilon(1e-5); dp_accounting: 6.383268).
void pld_scale_check(benchmark::State& state) {
  const auto steps = static_cast<std::uint64_t>(state.range(0));
  const double h = steps >= 1'000'000 ? 1e-3 : 1e-4;
  const double delta = steps >= 1'000'000 ? 1e-5 : 1e-7;
  double eps = 0;
  for (auto _ : state) {
    const auto step = privet::privacy_loss_distribution::subsampled_gaussian(1e-3, 1.0, {h});
    eps = step.self_compose(steps).epsilon(delta).epsilon();
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;
}

}  // namespace

BENCHMARK(pld_dpsgd_steps)
    ->Name("pld/dpsgd_steps")
    ->ArgNames({"steps", "h_micro"})
    ->Args({1'000, 100})
    ->Args({10'000, 100})
    ->Args({100'000, 100})
    ->Args({1'000'000, 100})
    ->Args({1'000, 1000})
    ->Args({10'000, 1000})
    ->Args({100'000, 1000})
    ->Args({1'000'000, 1000})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(pld_scale_check)
    ->Name("pld/scale_check/steps")
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
// ------------------------- end of the PLD block ----------------------------

// ---------------------------------------------------------------------------
// Heterogeneous compositions (issue 34): an odometer over `kinds` kinds of
// DP-SGD step, each recorded `steps` times, then epsilon(1e-5) on the
// default PLD grid (h = 1e-4). Kind i of n has q_i = 0.001 + 0.009 i / (n - 1)
// and sigma_i = 0.8 + 0.7 ((7 i) mod n) / (n - 1) (one kind: q = 0.0055,
// sigma = 1.15, the midpoints), so that q and sigma are not in step.
// bench/compare_dp_accounting.py --job heterogeneous builds the same kinds
// for dp_accounting's PLDAccountant.
namespace {

privet::subsampled_gaussian_event heterogeneous_kind(std::int64_t i, std::int64_t n) {
  if (n == 1) return {0.0055, 1.15};
  const double span = static_cast<double>(n - 1);
  return {0.001 + 0.009 * static_cast<double>(i) / span,
          0.8 + 0.7 * static_cast<double>((7 * i) % n) / span};
}

privet::privacy_odometer heterogeneous_odometer(std::int64_t kinds, std::int64_t steps) {
  privet::odometer_options o;
  o.use_prv = false;
  privet::privacy_odometer odometer(o);
  for (std::int64_t i = 0; i < kinds; ++i) {
    odometer.record(heterogeneous_kind(i, kinds), static_cast<std::uint64_t>(steps));
  }
  return odometer;
}

// The whole job as a user runs it: recording (each kind's PLD is built
// then) and one report.
void pld_heterogeneous_job(benchmark::State& state) {
  double eps = 0;
  for (auto _ : state) {
    const auto odometer = heterogeneous_odometer(state.range(0), state.range(1));
    const auto r = odometer.report(1e-5);
    eps = r.pld ? r.pld->epsilon() : -1;
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;
}

// The composition alone: report(1e-5) on an odometer recorded beforehand.
void pld_heterogeneous_query(benchmark::State& state) {
  const auto odometer = heterogeneous_odometer(state.range(0), state.range(1));
  double eps = 0;
  for (auto _ : state) {
    const auto r = odometer.report(1e-5);
    eps = r.pld ? r.pld->epsilon() : -1;
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;
  // The composition's size and its mass at +infinity (truncation and
  // round-off allowances), outside the timing.
  if (const auto p = odometer.composed_pld()) {
    state.counters["points"] = static_cast<double>(p->remove().probs().size());
    state.counters["infinity"] = std::max(p->remove().infinity_mass(), p->add().infinity_mass());
  }
}

}  // namespace

BENCHMARK(pld_heterogeneous_job)
    ->Name("pld/heterogeneous_job")
    ->ArgNames({"kinds", "steps"})
    ->Args({1, 10'000})
    ->Args({20, 500})
    ->Args({200, 50})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(pld_heterogeneous_query)
    ->Name("pld/heterogeneous_query")
    ->ArgNames({"kinds", "steps"})
    ->Args({1, 10'000})
    ->Args({20, 500})
    ->Args({200, 50})
    ->Unit(benchmark::kMillisecond);
// ------------------------- end of the heterogeneous block ------------------
