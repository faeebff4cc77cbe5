#!/usr/bin/env python3
"""privet from Python against Google's dp_accounting, in one run, alternating.

The DP-SGD job: Poisson sampling rate q = 0.01, noise multiplier 1.1, 10^4
steps, epsilon at delta = 1e-5, by the RDP accountant (default orders) and
the PLD accountant (value_discretization_interval 1e-4, both libraries'
default). Each measurement builds a fresh accountant, composes the steps as
one self-composed event and asks for epsilon, all from Python, so binding
overhead is included. privet is timed through its native API
(privet.accounting) and through the drop-in layer
(privet.compat.dp_accounting); rounds alternate the libraries so that load
changes hit both.

Usage:
    compare_python_accounting.py [--rounds N] [DP_ACCOUNTING_PATH]

DP_ACCOUNTING_PATH (or env DP_ACCOUNTING_PATH) is the directory that holds
the dp_accounting package, e.g. <checkout>/python/dp_accounting; privet must
be importable (PYTHONPATH=<build>/python). Prints the median time of each,
the ratios and the machine load (uptime).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

Q, SIGMA, STEPS, DELTA = 0.01, 1.1, 10_000, 1e-5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", default=os.environ.get("DP_ACCOUNTING_PATH"),
                        help="directory holding the dp_accounting package")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    args = parser.parse_args()
    if args.path:
        sys.path.insert(0, os.path.abspath(args.path))
    import dp_accounting  # noqa: PLC0415  (the peer, from the path given)
    from privet import accounting as acc  # noqa: PLC0415
    from privet.compat import dp_accounting as compat  # noqa: PLC0415

    def peer_event(lib):
        return lib.SelfComposedDpEvent(
            lib.PoissonSampledDpEvent(Q, lib.GaussianDpEvent(SIGMA)), STEPS)

    jobs = {
        ("RDP", "dp_accounting"): lambda: dp_accounting.rdp.RdpAccountant()
        .compose(peer_event(dp_accounting)).get_epsilon(DELTA),
        ("RDP", "privet"): lambda: acc.RdpAccountant()
        .compose(acc.SubsampledGaussianEvent(Q, SIGMA), STEPS).get_epsilon(DELTA),
        ("RDP", "privet.compat"): lambda: compat.rdp.RdpAccountant()
        .compose(peer_event(compat)).get_epsilon(DELTA),
        ("PLD", "dp_accounting"): lambda: dp_accounting.pld.PLDAccountant()
        .compose(peer_event(dp_accounting)).get_epsilon(DELTA),
        ("PLD", "privet"): lambda: acc.PldAccountant()
        .compose(acc.SubsampledGaussianEvent(Q, SIGMA), STEPS).get_epsilon(DELTA),
        ("PLD", "privet.compat"): lambda: compat.pld.PLDAccountant()
        .compose(peer_event(compat)).get_epsilon(DELTA),
    }
    times = {k: [] for k in jobs}
    values = {}
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    for _ in range(args.rounds):
        for key, job in jobs.items():
            start = time.perf_counter()
            values[key] = job()
            times[key].append(time.perf_counter() - start)
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()

    print(f"DP-SGD job: q = {Q}, sigma = {SIGMA}, {STEPS} steps, delta = {DELTA}; "
          f"{args.rounds} alternating rounds, median wall time")
    for kind in ("RDP", "PLD"):
        peer = statistics.median(times[(kind, "dp_accounting")])
        for lib in ("dp_accounting", "privet", "privet.compat"):
            t = statistics.median(times[(kind, lib)])
            ratio = "" if lib == "dp_accounting" else f"  {peer / t:6.1f}x dp_accounting"
            print(f"  {kind} {lib:14s} epsilon = {values[(kind, lib)]:.6f}  "
                  f"{t * 1e3:9.2f} ms{ratio}")
    print(f"load before: {load_before}")
    print(f"load after:  {load_after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
