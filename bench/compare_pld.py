#!/usr/bin/env python3
"""privet's PLD against Google's dp_accounting PLD, timed alternately in one run.

The job: DP-SGD with Poisson sampling q = 0.01, noise multiplier 1.1,
delta = 1e-5, at the given step counts and discretisation intervals; both
sides build one step's connect-the-dots PLD (both orders), self-compose it
and ask for epsilon. Each round times dp_accounting in this process, then
runs privet's accounting_bench for the same job (its own timer, so process
start-up is not counted); the rounds alternate so that machine load hits
both alike. Medians over the rounds are printed with the ratio.

dp_accounting is not part of privet: point DP_ACCOUNTING_PATH at the
directory that holds its `dp_accounting` package (the `python/dp_accounting`
directory of github.com/google/differential-privacy), and PRIVET_BENCH at
the accounting_bench executable. Needs numpy, scipy, mpmath, attrs, absl.

  DP_ACCOUNTING_PATH=/tmp/dp/python/dp_accounting \\
  PRIVET_BENCH=build/bench/accounting_bench python3 bench/compare_pld.py
"""
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.environ["DP_ACCOUNTING_PATH"])
from dp_accounting.pld import privacy_loss_distribution as dp_pld  # noqa: E402

BENCH = os.environ.get("PRIVET_BENCH", "build/bench/accounting_bench")
ROUNDS = int(os.environ.get("ROUNDS", "5"))
JOBS = [(1000, 1e-4), (10000, 1e-4), (100000, 1e-4), (1000000, 1e-4),
        (1000, 1e-3), (10000, 1e-3), (100000, 1e-3), (1000000, 1e-3)]
if len(sys.argv) > 1:  # e.g. "10000:1e-4 10000:1e-3"
    JOBS = [(int(a), float(b)) for a, b in (j.split(":") for j in sys.argv[1:])]


def dp_accounting_job(steps, h):
    start = time.perf_counter()
    pld = dp_pld.from_gaussian_mechanism(
        1.1, sampling_prob=0.01, value_discretization_interval=h, use_connect_dots=True)
    eps = pld.self_compose(steps).get_epsilon_for_delta(1e-5)
    return eps, time.perf_counter() - start


def privet_job(steps, h):
    name = f"pld/dpsgd_steps/steps:{steps}/h_micro:{round(h * 1e6)}"
    out = subprocess.run(
        [BENCH, f"--benchmark_filter=^{name}$", "--benchmark_format=json",
         "--benchmark_min_time=0.2" if steps < 100000 else "--benchmark_min_time=0.01"],
        check=True, capture_output=True, text=True).stdout
    run = json.loads(out)["benchmarks"][0]
    scale = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[run["time_unit"]]
    return run["epsilon"], run["real_time"] * scale


def main():
    print(f"load: {os.getloadavg()}")
    times = {job: ([], []) for job in JOBS}
    eps = {}
    for _ in range(ROUNDS):
        for job in JOBS:
            e_dp, t_dp = dp_accounting_job(*job)
            e_pv, t_pv = privet_job(*job)
            times[job][0].append(t_dp)
            times[job][1].append(t_pv)
            eps[job] = (e_dp, e_pv)
    print("| steps | h | eps dp_accounting | eps privet | rel. diff | dp_accounting s | privet s | speed-up |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for job in JOBS:
        t_dp = statistics.median(times[job][0])
        t_pv = statistics.median(times[job][1])
        e_dp, e_pv = eps[job]
        print(f"| {job[0]} | {job[1]:g} | {e_dp:.6f} | {e_pv:.6f} | {(e_pv - e_dp) / e_dp:+.2e} "
              f"| {t_dp:.4f} | {t_pv:.4f} | {t_dp / t_pv:.1f}x |")
    print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
