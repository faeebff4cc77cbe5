#!/usr/bin/env python3
"""privet's RDP accountant against Google's dp_accounting, side by side.

The job is DP-SGD's (Poisson rate q = 0.01, noise multiplier 1.1, delta =
1e-5) at a number of steps (10^4 by default), on dp_accounting's
DEFAULT_RDP_ORDERS for both: one step's RDP curve, its composition and the
conversion to epsilon. The two run alternately in one session, so that both
see the same machine load, and the script prints each round's times, their
ratio, the median ratio and the load averages before and after.

dp_accounting is not part of privet: point DP_ACCOUNTING_PATH at the
directory that holds its `dp_accounting` package (python/dp_accounting in a
checkout of google/differential-privacy). It needs numpy, scipy, absl and
attrs (Debian: python3-numpy python3-scipy python3-absl python3-attr).

    DP_ACCOUNTING_PATH=/path/to/differential-privacy/python/dp_accounting \\
        python3 bench/compare_dp_accounting.py build/bench/accounting_bench

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


def time_privet(bench, steps, min_seconds):
    """Seconds per answer (wall, CPU) and the epsilon, from Google Benchmark."""
    name = f"rdp/dpsgd_dp_accounting_orders/steps/{steps}"
    out = subprocess.run(
        [bench, f"--benchmark_filter=^{name}$", "--benchmark_format=json",
         f"--benchmark_min_time={min_seconds}"],
        check=True, capture_output=True, text=True).stdout
    runs = [b for b in json.loads(out)["benchmarks"] if b["name"] == name]
    if not runs:
        sys.exit(f"{bench} has no benchmark {name} (steps must be 1000, 10000, 100000 or 1000000)")
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[runs[0]["time_unit"]]
    return runs[0]["real_time"] * unit, runs[0]["cpu_time"] * unit, runs[0]["epsilon"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", help="path to the compiled accounting_bench")
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-seconds", type=float, default=1.0,
                        help="minimum timing per side and round")
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
