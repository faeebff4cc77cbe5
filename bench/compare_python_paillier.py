#!/usr/bin/env python3
"""python-paillier (phe, with gmpy2) against privet's CRT decryption, side by
side in one run: rounds alternate phe and privet's crypto_bench, and the
ratio of medians (CPU time per decryption) is printed.

    PHE_PATH=/path/to/python-paillier PRIVET_BENCH=build/bench/bench/crypto_bench \
        python3 bench/compare_python_paillier.py [rounds]

PHE_PATH is a checkout of github.com/data61/python-paillier (its `phe`
package is pure Python; gmpy2 comes from Debian's python3-gmpy2). Nothing of
it is vendored here.
"""
import os
import re
import statistics
import subprocess
import sys
import time
import random

sys.path.insert(0, os.environ["PHE_PATH"])
from phe import paillier  # noqa: E402

BENCH = os.environ["PRIVET_BENCH"]
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def phe_us(bits, keys, reps=4, n_ct=16):
    pk, sk = keys[bits]
    cs = [pk.encrypt(random.randrange(-2**60, 2**60)) for _ in range(n_ct)]
    t0 = time.process_time()
    for _ in range(reps):
        for c in cs:
            sk.decrypt(c)
    return 1e6 * (time.process_time() - t0) / (reps * n_ct)


def privet_us(bits):
    out = subprocess.run([BENCH, f"--benchmark_filter=decrypt_crt<mpz_int>/{bits}$",
                          "--benchmark_min_time=0.5", "--benchmark_format=csv"],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith('"decrypt_crt<mpz_int>'):
            fields = line.split(",")
            cpu, unit = float(fields[3]), fields[4]
            return cpu * {"ns": 1e-3, "us": 1.0, "ms": 1e3}[unit.strip('"')]
    raise RuntimeError("no decrypt_crt row in " + out)


keys = {b: paillier.generate_paillier_keypair(n_length=b) for b in (2048, 3072)}
# phe falls back to Python's own integers without gmpy2, which is 5-10x
# slower: the ratio means nothing unless the backend is known.
from phe import util as phe_util  # noqa: E402
print(f"phe backend: {'gmpy2' if getattr(phe_util, 'HAVE_GMP', False) else 'pure Python ints'}")
print(f"load: {os.getloadavg()}")
for bits in (2048, 3072):
    p, q = [], []
    for r in range(ROUNDS):
        if r % 2 == 0:
            p.append(phe_us(bits, keys)); q.append(privet_us(bits))
        else:
            q.append(privet_us(bits)); p.append(phe_us(bits, keys))
    mp, mq = statistics.median(p), statistics.median(q)
    print(f"{bits} bits: phe {mp:.0f} us, privet {mq:.0f} us, phe/privet {mp / mq:.2f}x "
          f"(rounds: {', '.join(f'{a / b:.2f}' for a, b in zip(p, q))})")
