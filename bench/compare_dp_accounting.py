#!/usr/bin/env python3
"""privet's accountants against Google's dp_accounting, side by side.

Two jobs (--job):

- rdp (the default): DP-SGD (Poisson rate q = 0.01, noise multiplier 1.1,
  delta = 1e-5) at a number of steps (10^4 by default), on dp_accounting's
  DEFAULT_RDP_ORDERS for both: one step's RDP curve, its composition and the
  conversion to epsilon.
- heterogeneous: --kinds kinds of DP-SGD step, each run --steps times (20 x
  500 by default), composed by PLD on the default grid h = 1e-4 and asked for
  epsilon(1e-5): privet's odometer (pld/heterogeneous_job in accounting_bench:
  recording, which builds each kind's PLD, and one report) against
  dp_accounting's PLDAccountant (compose per kind, get_epsilon). Kind i of n
  has q_i = 0.001 + 0.009 i / (n - 1) and sigma_i = 0.8 + 0.7 ((7 i) mod n) /
  (n - 1), as in accounting_bench.

The two run alternately in one session, so that both see the same machine
load, and the script prints each round's times, their ratio, the median
ratio and the load averages before and after.

dp_accounting is not part of privet: point DP_ACCOUNTING_PATH at the
directory that holds its `dp_accounting` package (python/dp_accounting in a
checkout of google/differential-privacy). It needs numpy, scipy, absl and
attrs (Debian: python3-numpy python3-scipy python3-absl python3-attr).

    DP_ACCOUNTING_PATH=/path/to/differential-privacy/python/dp_accounting \\
        python3 bench/compare_dp_accounting.py build/bench/accounting_bench
    DP_ACCOUNTING_PATH=... python3 bench/compare_dp_accounting.py \\
        build/bench/accounting_bench --job heterogeneous --kinds 200 --steps 50 --rounds 3

Times are per (eps, delta) answer: wall clock and CPU time of the process
(CPU time is the fairer measure when other jobs share the cores).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

Q, SIGMA, DELTA = 0.01, 1.1, 1e-5


def heterogeneous_kinds(n):
    """(q, sigma) of each kind, as accounting_bench's heterogeneous_kind."""
    if n == 1:
        return [(0.0055, 1.15)]
    return [(0.001 + 0.009 * i / (n - 1), 0.8 + 0.7 * ((7 * i) % n) / (n - 1)) for i in range(n)]


def load_dp_accounting():
    path = os.environ.get("DP_ACCOUNTING_PATH")
    if not path:
        sys.exit("set DP_ACCOUNTING_PATH to the directory holding the dp_accounting package "
                 "(python/dp_accounting of google/differential-privacy)")
    sys.path.insert(0, path)
    from dp_accounting import dp_event  # pylint: disable=import-outside-toplevel
    from dp_accounting.rdp import rdp_privacy_accountant  # pylint: disable=import-outside-toplevel
    return dp_event, rdp_privacy_accountant


def time_dp_accounting(dp_event, rdp, steps, min_seconds):
    """Seconds per answer (wall, CPU) and the epsilon, over >= min_seconds."""
    event = dp_event.PoissonSampledDpEvent(Q, dp_event.GaussianDpEvent(SIGMA))
    n, eps = 0, None
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while True:
        accountant = rdp.RdpAccountant()  # DEFAULT_RDP_ORDERS
        accountant.compose(event, steps)
        eps = accountant.get_epsilon(DELTA)
        n += 1
        wall = time.perf_counter() - wall0
        if wall >= min_seconds:
            break
    return wall / n, (time.process_time() - cpu0) / n, eps


def time_dp_accounting_heterogeneous(dp_event, pld_accountant, kinds, steps):
    """Seconds for one job (wall, CPU) and the epsilon."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    accountant = pld_accountant.PLDAccountant()  # value_discretization_interval = 1e-4
    for q, sigma in heterogeneous_kinds(kinds):
        accountant.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)),
                           steps)
    eps = accountant.get_epsilon(DELTA)
    return time.perf_counter() - wall0, time.process_time() - cpu0, eps


def run_bench(bench, name, min_seconds):
    """(wall, CPU) seconds per iteration and the counters of one benchmark."""
    out = subprocess.run(
        [bench, f"--benchmark_filter=^{name}$", "--benchmark_format=json",
         f"--benchmark_min_time={min_seconds}"],
        check=True, capture_output=True, text=True).stdout
    runs = [b for b in json.loads(out)["benchmarks"] if b["name"] == name]
    if not runs:
        sys.exit(f"{bench} has no benchmark {name}")
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[runs[0]["time_unit"]]
    return runs[0]["real_time"] * unit, runs[0]["cpu_time"] * unit, runs[0]


def time_privet(bench, steps, min_seconds):
    """Seconds per answer (wall, CPU) and the epsilon, from Google Benchmark."""
    if steps not in (1_000, 10_000, 100_000, 1_000_000):
        sys.exit("steps must be 1000, 10000, 100000 or 1000000")
    wall, cpu, run = run_bench(bench, f"rdp/dpsgd_dp_accounting_orders/steps/{steps}", min_seconds)
    return wall, cpu, run["epsilon"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", help="path to the compiled accounting_bench")
    parser.add_argument("--job", choices=["rdp", "heterogeneous"], default="rdp")
    parser.add_argument("--steps", type=int, default=None,
                        help="steps (rdp: 10000) or runs of each kind (heterogeneous: 500)")
    parser.add_argument("--kinds", type=int, default=20, help="heterogeneous: kinds of step")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-seconds", type=float, default=1.0,
                        help="minimum timing per side and round")
    args = parser.parse_args()
    if args.job == "heterogeneous":
        heterogeneous(args)
        return
    args.steps = args.steps or 10_000
    dp_event, rdp = load_dp_accounting()

    print(f"DP-SGD by RDP: q = {Q}, sigma = {SIGMA}, {args.steps} steps, delta = {DELTA}, "
          f"{len(rdp.DEFAULT_RDP_ORDERS)} orders (dp_accounting's DEFAULT_RDP_ORDERS)")
    print("load average before: %.2f %.2f %.2f (%d CPUs)" % (*os.getloadavg(), os.cpu_count()))
    wall_ratios, cpu_ratios = [], []
    for r in range(args.rounds):
        p_wall, p_cpu, p_eps = time_privet(args.bench, args.steps, args.min_seconds)
        d_wall, d_cpu, d_eps = time_dp_accounting(dp_event, rdp, args.steps, args.min_seconds)
        wall_ratios.append(d_wall / p_wall)
        cpu_ratios.append(d_cpu / p_cpu)
        print(f"round {r + 1}: privet {p_wall * 1e3:8.3f} ms wall {p_cpu * 1e3:8.3f} ms CPU | "
              f"dp_accounting {d_wall * 1e3:8.3f} ms wall {d_cpu * 1e3:8.3f} ms CPU | "
              f"speed-up {wall_ratios[-1]:6.1f}x wall {cpu_ratios[-1]:6.1f}x CPU")
    print(f"epsilon: privet {p_eps:.10f}, dp_accounting {d_eps:.10f} "
          f"(relative difference {abs(p_eps / d_eps - 1):.1e})")
    print(f"median speed-up: {statistics.median(wall_ratios):.1f}x wall clock, "
          f"{statistics.median(cpu_ratios):.1f}x CPU time")
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


def heterogeneous(args):
    """The heterogeneous PLD job, alternating privet and dp_accounting."""
    steps = args.steps or 500
    path = os.environ.get("DP_ACCOUNTING_PATH")
    if not path:
        sys.exit("set DP_ACCOUNTING_PATH (see the module's docstring)")
    sys.path.insert(0, path)
    from dp_accounting import dp_event  # pylint: disable=import-outside-toplevel
    from dp_accounting.pld import pld_privacy_accountant  # pylint: disable=import-outside-toplevel

    name = f"pld/heterogeneous_job/kinds:{args.kinds}/steps:{steps}"
    print(f"heterogeneous PLD: {args.kinds} kinds of DP-SGD step x {steps} steps, "
          f"h = 1e-4, delta = {DELTA}")
    print("load average before: %.2f %.2f %.2f (%d CPUs)" % (*os.getloadavg(), os.cpu_count()))
    wall_ratios, cpu_ratios = [], []
    for r in range(args.rounds):
        p_wall, p_cpu, run = run_bench(args.bench, name, 0.01)
        d_wall, d_cpu, d_eps = time_dp_accounting_heterogeneous(
            dp_event, pld_privacy_accountant, args.kinds, steps)
        p_eps = run["epsilon"]
        wall_ratios.append(d_wall / p_wall)
        cpu_ratios.append(d_cpu / p_cpu)
        print(f"round {r + 1}: privet {p_wall:8.3f} s wall {p_cpu:8.3f} s CPU | "
              f"dp_accounting {d_wall:8.3f} s wall {d_cpu:8.3f} s CPU | "
              f"speed-up {wall_ratios[-1]:6.1f}x wall {cpu_ratios[-1]:6.1f}x CPU | "
              f"load {os.getloadavg()[0]:.2f}", flush=True)
    print(f"epsilon: privet {p_eps:.6f}, dp_accounting {d_eps:.6f} "
          f"(relative difference {p_eps / d_eps - 1:+.2e})")
    print(f"median speed-up: {statistics.median(wall_ratios):.1f}x wall clock, "
          f"{statistics.median(cpu_ratios):.1f}x CPU time")
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
