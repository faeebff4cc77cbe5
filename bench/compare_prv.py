#!/usr/bin/env python3
"""privet's PRV accountant against Microsoft's prv_accountant, side by side.

The job (issue 34): DP-SGD's step, the Poisson-subsampled Gaussian with q =
1e-3 and noise multiplier 1, composed 10^3, 10^4, 10^5 and 10^6 times with
eps_error = 0.01 and delta_error = 1e-10, and epsilon at delta = 1e-5:

- privet: `prv_compare/steps/<k>` of prv_bench (compose() and one
  epsilon(1e-5): both orders of the pair of neighbours, the worse reported),
  run as a subprocess with PRIVET_BENCH_LARGE=1; Google Benchmark's CPU time
  per iteration;
- prv_accountant: PRVAccountant(PoissonSubsampledGaussianMechanism(1e-3, 1),
  max_self_compositions=k, eps_error=0.01, delta_error=1e-10) built afresh and
  compute_epsilon(1e-5, k), the process's CPU time around both (its one order,
  delta(N(0, 1) || mixture)).

For each round and step count the two run one after the other, so that both
see the same machine load; the script prints each measurement, the CPU-time
ratio, the median ratio per step count, both brackets [lower, upper] with
the estimates, and whether privet's upper bound is within prv_accountant's
bracket or above it by less than 0.5 %.

prv_accountant is not part of privet and is not installed: point the script
at a checkout of github.com/microsoft/prv_accountant (it is pure Python; it
runs on Debian's python3-numpy and python3-scipy through PYTHONPATH):

    python3 bench/compare_prv.py /tmp/prv_accountant --bench build/bench/bench/prv_bench
    python3 bench/compare_prv.py /tmp/prv_accountant --steps 1000 10000 --rounds 5
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

Q, SIGMA, EPS_ERROR, DELTA_ERROR, DELTA = 1e-3, 1.0, 0.01, 1e-10, 1e-5


def load_prv_accountant(path):
    sys.path.insert(0, path)
    from prv_accountant import PRVAccountant  # pylint: disable=import-outside-toplevel
    from prv_accountant.privacy_random_variables import (  # pylint: disable=import-outside-toplevel
        PoissonSubsampledGaussianMechanism)
    return PRVAccountant, PoissonSubsampledGaussianMechanism


def time_peer(peer, steps, min_seconds):
    """CPU seconds per answer and (lower, estimate, upper), over >= min_seconds."""
    accountant_class, mechanism = peer
    n, bounds = 0, None
    cpu0 = time.process_time()
    while True:
        accountant = accountant_class(prvs=mechanism(sampling_probability=Q, noise_multiplier=SIGMA),
                                      max_self_compositions=steps, eps_error=EPS_ERROR,
                                      delta_error=DELTA_ERROR)
        bounds = accountant.compute_epsilon(delta=DELTA, num_self_compositions=steps)
        n += 1
        if time.process_time() - cpu0 >= min_seconds:
            break
    return (time.process_time() - cpu0) / n, tuple(float(b) for b in bounds)


def time_privet(bench, steps, min_seconds):
    """CPU seconds per answer and (lower, estimate, upper), from Google Benchmark."""
    name = f"prv_compare/steps/{steps}"
    env = dict(os.environ, PRIVET_BENCH_LARGE="1")
    out = subprocess.run(
        [bench, f"--benchmark_filter=^{name}$", "--benchmark_format=json",
         f"--benchmark_min_time={min_seconds}"],
        check=True, capture_output=True, text=True, env=env).stdout
    runs = [b for b in json.loads(out)["benchmarks"] if b["name"] == name]
    if not runs:
        sys.exit(f"{bench} has no benchmark {name}")
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[runs[0]["time_unit"]]
    run = runs[0]
    return run["cpu_time"] * unit, (run["eps_lower"], run["eps_estimate"], run["eps_upper"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("prv_accountant", help="path to a checkout of microsoft/prv_accountant")
    parser.add_argument("--bench", default="build/bench/bench/prv_bench",
                        help="path to the compiled prv_bench (bench preset)")
    parser.add_argument("--steps", type=int, nargs="+",
                        default=[1_000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-seconds", type=float, default=0.5,
                        help="minimum CPU time per side, step count and round")
    args = parser.parse_args()
    peer = load_prv_accountant(args.prv_accountant)
    time_peer(peer, 100, 0)  # imports and SciPy's first calls, not timed

    print(f"PRV: Poisson-subsampled Gaussian q = {Q}, sigma = {SIGMA}, eps_error = {EPS_ERROR}, "
          f"delta_error = {DELTA_ERROR}, epsilon at delta = {DELTA}; CPU seconds")
    print("load average before: %.2f %.2f %.2f (%d CPUs)" % (*os.getloadavg(), os.cpu_count()))
    ratios = {k: [] for k in args.steps}
    last = {}
    for r in range(args.rounds):
        for k in args.steps:
            p_cpu, p_b = time_privet(args.bench, k, args.min_seconds)
            m_cpu, m_b = time_peer(peer, k, args.min_seconds)
            ratios[k].append(m_cpu / p_cpu)
            last[k] = (p_b, m_b)
            print(f"round {r + 1}, {k:>9} steps: privet {p_cpu:9.4f} s | prv_accountant "
                  f"{m_cpu:9.4f} s | {ratios[k][-1]:6.1f}x | load {os.getloadavg()[0]:.2f}",
                  flush=True)
    print()
    print("| steps | median ratio (CPU) | privet [lower, upper] (estimate) "
          "| prv_accountant [lower, upper] (estimate) | privet's upper vs theirs |")
    print("| --- | --- | --- | --- | --- |")
    for k in args.steps:
        p_b, m_b = last[k]
        above = p_b[2] / m_b[2] - 1
        verdict = ("within their bracket" if m_b[0] <= p_b[2] <= m_b[2] else
                   f"{above:+.3%}" + (" (< 0.5 %)" if 0 < above < 0.005 else ""))
        print(f"| {k} | {statistics.median(ratios[k]):.1f}x | [{p_b[0]:.6f}, {p_b[2]:.6f}] "
              f"({p_b[1]:.6f}) | [{m_b[0]:.6f}, {m_b[2]:.6f}] ({m_b[1]:.6f}) | {verdict} |")
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
