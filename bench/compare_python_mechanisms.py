#!/usr/bin/env python3
"""privet.mechanisms' Laplace and Gaussian noise on NumPy arrays against numpy.random.

Informative only: numpy.random is NOT a secure peer. Its Generator (PCG64)
is a statistical PRNG whose state can be recovered from its outputs, and it
samples floating-point Laplace and Gaussian variates, whose low-order bits
leak the input (Mironov 2012). privet draws every sample exactly (discrete
Laplace and discrete Gaussian on a power-of-two grid, Canonne, Kamath &
Steinke 2020) from ChaCha20 keyed by the operating system's CSPRNG, on
every core with the GIL released. The ratio says what that costs, not who
wins a like-for-like race.

Each job adds noise to a float64 array of --size values (10^6 by default):
privet's mechanism (built once, as a user would) and numpy's
`x + rng.laplace(0, b, n)` / `x + rng.normal(0, sigma, n)`, alternating
round by round in one run, so that both see the same machine load. Printed:
each round's times, the median throughput of each (values per second) and
the median ratio, and the load averages before and after.

    PYTHONPATH=build/py/python /usr/bin/python3 bench/compare_python_mechanisms.py
    PYTHONPATH=... /usr/bin/python3 bench/compare_python_mechanisms.py --size 1000000 --rounds 7
"""

import argparse
import os
import statistics
import time

import numpy as np

from privet import mechanisms


def timed(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="values per array")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per job")
    args = parser.parse_args()
    n = args.size
    x = np.linspace(-100.0, 100.0, n)
    rng = np.random.default_rng()
    jobs = {
        "laplace b=1": (
            mechanisms.Laplace.from_scale(1.0, l1_sensitivity=1.0, dimension=n),
            lambda: x + rng.laplace(0.0, 1.0, n),
        ),
        "gaussian sigma=1": (
            mechanisms.Gaussian.from_sigma(1.0, l2_sensitivity=1.0, dimension=n),
            lambda: x + rng.normal(0.0, 1.0, n),
        ),
    }
    print(f"load before: {os.getloadavg()}  cores: {os.cpu_count()}  size: {n}")
    for name, (mechanism, peer) in jobs.items():
        mechanism(x[:16] if n > 16 else x)  # warm up: thread pool, CSPRNG
        peer()
        ours, theirs = [], []
        for r in range(args.rounds):
            first, second = (lambda: mechanism(x), peer) if r % 2 == 0 else (peer, lambda: mechanism(x))
            t1, t2 = timed(first), timed(second)
            t_ours, t_theirs = (t1, t2) if r % 2 == 0 else (t2, t1)
            ours.append(t_ours)
            theirs.append(t_theirs)
            print(f"  {name} round {r}: privet {t_ours * 1e3:8.1f} ms  numpy {t_theirs * 1e3:8.1f} ms")
        med_ours, med_theirs = statistics.median(ours), statistics.median(theirs)
        print(
            f"{name}: privet {n / med_ours / 1e6:7.2f} M values/s, numpy.random {n / med_theirs / 1e6:7.2f} M"
            f" values/s; privet time / numpy time (median of rounds) "
            f"{statistics.median(o / t for o, t in zip(ours, theirs)):.2f}x"
        )
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
