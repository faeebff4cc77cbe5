#!/usr/bin/env python3
"""privet from Python against python-paillier (phe), side by side in one
run, rounds alternating which goes first; prints medians and ratios.

    PYTHONPATH=build/py/python /usr/bin/python3 bench/compare_python_paillier_api.py \
        /path/to/python-paillier [--rounds 3] [--bits 2048] [--batch 10000] [--phe-sample 100]

The path is a checkout of https://github.com/data61/python-paillier (pure
Python; it uses gmpy2 when importable, e.g. Debian's python3-gmpy2, else
Python's own integers; the script prints which). Nothing of it is vendored.
bench/compare_python_paillier.py compares privet's C++ benchmark with phe;
this one measures privet through its Python bindings, binding overhead
included.

What is timed (wall clock, time.perf_counter; 2048-bit keys by default):
 - encryption of one int: phe's PaillierPublicKey.encrypt (textbook r^n,
   obfuscated) against privet.paillier's PublicKey.encrypt in DJN mode (the
   target) and in textbook mode (for reference), and privet.compat.phe's
   encrypt (python-paillier's API on privet, textbook);
 - decryption of one int: PaillierPrivateKey.decrypt against privet's
   PrivateKey.decrypt (CRT, constant time) and privet.compat.phe's decrypt;
 - a batch of --batch encryptions on 2 cores: privet's encrypt_batch(threads=2)
   (DJN) on the whole batch, against phe's encrypt mapped over a 2-process
   multiprocessing pool (phe has no batch call) on --phe-sample values,
   scaled linearly to the batch size (the per-item cost of a pool map is flat
   once the pool runs).
"""

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import time

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("checkout", help="a checkout of data61/python-paillier")
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--bits", type=int, default=2048)
parser.add_argument("--batch", type=int, default=10000)
parser.add_argument("--phe-sample", type=int, default=100, help="phe encryptions timed for the batch row")
parser.add_argument("--single", type=int, default=20, help="phe operations per round for the single rows")
args = parser.parse_args()

sys.path.insert(0, args.checkout)
import phe  # noqa: E402
import phe.util  # noqa: E402
from phe import paillier as phe_paillier  # noqa: E402

import privet  # noqa: E402
from privet import paillier as pv  # noqa: E402
from privet.compat.phe import paillier as compat  # noqa: E402

assert phe.__file__.startswith(os.path.abspath(args.checkout)), phe.__file__

_pool_key = None


def _pool_init(n):
    global _pool_key
    _pool_key = phe_paillier.PaillierPublicKey(n)


def _pool_encrypt(x):
    return _pool_key.encrypt(x).ciphertext()


def per_op(fn, items):
    t0 = time.perf_counter()
    for x in items:
        fn(x)
    return (time.perf_counter() - t0) / len(items)


def main():
    bits = args.bits
    backend = "gmpy2 " + __import__("gmpy2").version() if phe.util.HAVE_GMP else "pure Python ints (no gmpy2)"
    print(f"privet {privet.__version__}; phe from {args.checkout}, backend: {backend}")
    print(f"cores: {os.cpu_count()}; load before: {os.getloadavg()}")
    phe_pk, phe_sk = phe_paillier.generate_paillier_keypair(n_length=bits)
    pv_pk, pv_sk = pv.generate_keypair(bits)
    pv_djn = pv_pk.with_mode("djn")
    cp_pk, cp_sk = compat.generate_paillier_keypair(n_length=bits)

    def values(k):
        return [random.randrange(-(2**60), 2**60) for _ in range(k)]

    many = max(200, 10 * args.single)
    rows = {name: [] for name in ("phe enc", "privet enc djn", "privet enc textbook", "compat enc",
                                  "phe dec", "privet dec", "compat dec", "phe batch", "privet batch")}
    pool = multiprocessing.get_context("fork").Pool(2, initializer=_pool_init, initargs=(phe_pk.n,))

    def phe_side():
        xs = values(args.single)
        rows["phe enc"].append(per_op(phe_pk.encrypt, xs))
        cs = [phe_pk.encrypt(x) for x in xs]
        rows["phe dec"].append(per_op(phe_sk.decrypt, cs))
        sample = values(args.phe_sample)
        t0 = time.perf_counter()
        pool.map(_pool_encrypt, sample, chunksize=max(1, args.phe_sample // 8))
        rows["phe batch"].append((time.perf_counter() - t0) * args.batch / args.phe_sample)

    def privet_side():
        xs = values(many)
        rows["privet enc djn"].append(per_op(pv_djn.encrypt, xs))
        rows["privet enc textbook"].append(per_op(pv_pk.encrypt, xs[: max(20, many // 5)]))
        rows["compat enc"].append(per_op(cp_pk.encrypt, xs[: max(20, many // 5)]))
        cs = [pv_pk.encrypt(x) for x in xs[:many // 2]]
        rows["privet dec"].append(per_op(pv_sk.decrypt, cs))
        ccs = [cp_pk.encrypt(x) for x in xs[: max(20, many // 5)]]
        rows["compat dec"].append(per_op(cp_sk.decrypt, ccs))
        batch = values(args.batch)
        t0 = time.perf_counter()
        out = pv_djn.encrypt_batch(batch, threads=2)
        rows["privet batch"].append(time.perf_counter() - t0)
        assert len(out) == args.batch

    pv_djn.encrypt(0)  # the DJN table, built once per key, outside the timing
    for r in range(args.rounds):
        if r % 2 == 0:
            phe_side()
            privet_side()
        else:
            privet_side()
            phe_side()
        print(f"round {r + 1}/{args.rounds} done; load {os.getloadavg()}", flush=True)
    pool.close()
    med = {k: statistics.median(v) for k, v in rows.items()}

    def ms(x):
        return f"{1e3 * x:9.3f} ms"

    print(f"\n{bits}-bit keys, {args.rounds} rounds alternating, medians (wall clock):")
    print(f"  encrypt   phe {ms(med['phe enc'])} | privet djn {ms(med['privet enc djn'])} "
          f"-> {med['phe enc'] / med['privet enc djn']:.1f}x  (target >= 10x)")
    print(f"            privet textbook {ms(med['privet enc textbook'])} -> "
          f"{med['phe enc'] / med['privet enc textbook']:.1f}x; privet.compat.phe {ms(med['compat enc'])} -> "
          f"{med['phe enc'] / med['compat enc']:.1f}x")
    print(f"  decrypt   phe {ms(med['phe dec'])} | privet {ms(med['privet dec'])} "
          f"-> {med['phe dec'] / med['privet dec']:.2f}x  (target >= 1.1x); privet.compat.phe "
          f"{ms(med['compat dec'])} -> {med['phe dec'] / med['compat dec']:.2f}x")
    print(f"  batch of {args.batch} on 2 cores: phe (2-process pool, {args.phe_sample} timed, scaled) "
          f"{med['phe batch']:.2f} s | privet djn encrypt_batch(threads=2) {med['privet batch']:.3f} s "
          f"-> {med['phe batch'] / med['privet batch']:.1f}x  (target >= 20x)")
    for k, v in rows.items():
        print(f"    {k:20s} rounds: " + ", ".join(f"{x:.6f}" for x in v))
    print(f"load after: {os.getloadavg()}")
    os.system("uptime")


if __name__ == "__main__":
    main()
