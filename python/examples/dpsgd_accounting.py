#!/usr/bin/env python3
"""DP-SGD privacy accounting and noise calibration with privet.

Accounts for a DP-SGD run (Poisson sampling at rate q = batch / dataset,
Gaussian noise with a noise multiplier, a number of steps) by privet's RDP,
PLD and PRV accountants, then finds the smallest noise multiplier that keeps
the run within a target epsilon, by the RDP and by the PLD accountant.

    python3 dpsgd_accounting.py --dataset-size 60000 --batch-size 600 \
        --epochs 100 --noise-multiplier 1.1 --delta 1e-5 --target-epsilon 3
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import privet
from privet import accounting as acc


def main() -> int:
    parser = argparse.ArgumentParser(
        description="DP-SGD accounting (RDP, PLD, PRV) and noise calibration with privet.")
    parser.add_argument("--dataset-size", type=int, default=60_000, help="records (default 60000)")
    parser.add_argument("--batch-size", type=int, default=600,
                        help="expected batch size under Poisson sampling (default 600)")
    parser.add_argument("--epochs", type=float, default=100, help="passes over the data (default 100)")
    parser.add_argument("--noise-multiplier", type=float, default=1.1,
                        help="noise standard deviation / clipping norm (default 1.1)")
    parser.add_argument("--delta", type=float, default=1e-5, help="target delta (default 1e-5)")
    parser.add_argument("--target-epsilon", type=float, default=3.0,
                        help="epsilon to calibrate the noise multiplier for (default 3)")
    args = parser.parse_args()

    try:
        q = args.batch_size / args.dataset_size
        # An explicit step count: privet does not guess between floor and ceil.
        steps = math.ceil(args.epochs * args.dataset_size / args.batch_size)
        step = acc.SubsampledGaussianEvent(q, args.noise_multiplier)
        print(f"DP-SGD: q = {q:g}, noise multiplier {args.noise_multiplier:g}, {steps} steps, "
              f"delta = {args.delta:g}")
        for name, accountant in (("RDP", acc.RdpAccountant()), ("PLD", acc.PldAccountant()),
                                 ("PRV", acc.PrvAccountant())):
            start = time.perf_counter()
            eps = accountant.compose(step, steps).get_epsilon(args.delta)
            ms = (time.perf_counter() - start) * 1e3
            extra = ""
            if name == "PRV":
                b = accountant.get_epsilon_bounds(args.delta)
                extra = f"  (bounds [{b.lower:.4f}, {b.upper:.4f}], estimate {b.estimate:.4f})"
            print(f"  {name}: epsilon = {eps:.4f}  in {ms:.1f} ms{extra}")

        print(f"smallest noise multiplier for epsilon = {args.target_epsilon:g} "
              f"over the same {steps} steps:")
        for name in ("rdp", "pld"):
            start = time.perf_counter()
            sigma = acc.dpsgd_noise_multiplier(q, steps, args.target_epsilon, args.delta,
                                               accountant=name)
            ms = (time.perf_counter() - start) * 1e3
            check = acc.PldAccountant() if name == "pld" else acc.RdpAccountant()
            eps = check.compose(acc.SubsampledGaussianEvent(q, sigma), steps).get_epsilon(args.delta)
            print(f"  by {name.upper()}: sigma = {sigma:.5f} (its epsilon {eps:.4f}) "
                  f"in {ms:.0f} ms")
    except privet.Error as e:  # bad parameters: privet's message names the parameter
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
