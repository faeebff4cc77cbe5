"""Long privet calls release the GIL: while a worker thread is inside one
(noise on a large NumPy array, a batch of Paillier encryptions or
decryptions, key generation, a JSON writer that re-randomises), the main
thread keeps running Python code.

How it is measured (no clock is read and no speed is asserted): the main
thread counts iterations of a Python loop until the worker is done; the
worker reads the count just before and just after the call. The three steps
(read, call, read) run from C (``list(map(methodcaller("__call__"),
...))`` over ``functools.partial`` objects of C functions), so the worker
never passes through the bytecode loop between them, which is the only place
it would hand the GIL over on its own: a call that holds the GIL leaves the
count unchanged (exactly 0 progress), a call that releases it lets the main
thread run for its whole length (each call is sized to last from a fraction
of a second to a few seconds: hundreds of thousands to millions of
iterations). The threshold, PROGRESS = 10,000 iterations, is far from both.
The test can fail: ``test_a_call_holding_the_gil_is_caught`` runs the same
harness on privet.testing's seeded release, which holds the GIL on purpose
(its generator is one shared Python object), and finds 0.

The native calls are measured (``PublicKey.encrypt_numbers``, not
``paillier.encrypt_array`` around it): the pure-Python wrappers only
dispatch to them.
"""

import functools
import operator
import threading

import numpy as np
import pytest

from privet import mechanisms, paillier, testing
from privet._privet import paillier as native_paillier

PROGRESS = 10_000


def main_thread_progress(fn, *args, **kwargs):
    """(iterations of the main thread's loop while ``fn(*args, **kwargs)``
    ran in a worker thread, its result)."""
    count = [0]
    done = [False]
    out = {}
    read = functools.partial(operator.getitem, count, 0)
    steps = [read, functools.partial(fn, *args, **kwargs), read]
    run_each = operator.methodcaller("__call__")

    def worker():
        try:
            out["steps"] = list(map(run_each, steps))
        except BaseException as e:  # re-raised in the main thread
            out["error"] = e
        finally:
            done[0] = True

    t = threading.Thread(target=worker)
    t.start()
    while not done[0]:
        count[0] += 1
    t.join()
    if "error" in out:
        raise out["error"]
    before, result, after = out["steps"]
    return after - before, result


@pytest.fixture(scope="module")
def keys():
    # 1024 bits (insecure: test only) keeps each batch near a second.
    return paillier.generate_keypair(1024, allow_insecure_key_size=True)


N_NOISE = 2_000_000
N_PAILLIER = 200


# Laplace and Gaussian release one vector of `dimension` coordinates.
MECHANISMS = {
    "laplace": (lambda: mechanisms.Laplace(1.0, l1_sensitivity=1.0, dimension=N_NOISE), np.float64),
    "gaussian": (lambda: mechanisms.Gaussian.from_sigma(1.0, l2_sensitivity=1.0, dimension=N_NOISE), np.float64),
    "discrete_laplace": (lambda: mechanisms.DiscreteLaplace(1.0, l1_sensitivity=1.0), np.int64),
    "discrete_gaussian": (lambda: mechanisms.DiscreteGaussian(0.5, l2_sensitivity=1.0), np.int64),
}


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_mechanism_on_an_array_releases_the_gil(name):
    make, dtype = MECHANISMS[name]
    m = make()
    x = np.zeros(N_NOISE, dtype=dtype)
    progress, out = main_thread_progress(m.release, x)
    assert out.shape == x.shape and out.dtype == dtype
    assert progress >= PROGRESS


def test_a_call_holding_the_gil_is_caught():
    # privet.testing's seeded release holds the GIL (one shared generator):
    # the main thread cannot run while it works.
    m = mechanisms.Laplace(1.0, l1_sensitivity=1.0, dimension=N_NOISE)
    gen = testing.SeededReleaseGenerator(7)
    x = np.zeros(N_NOISE, dtype=np.float64)
    progress, out = main_thread_progress(testing.release, m, x, gen)
    assert out.shape == x.shape
    assert progress == 0


def test_key_generation_releases_the_gil():
    # 4096 bits: two 2048-bit primes, each found after many Miller-Rabin
    # tests, whatever the luck of the draw.
    progress, (pk, _) = main_thread_progress(paillier.generate_keypair, 4096)
    assert pk.bits == 4096
    assert progress >= PROGRESS


def test_batch_encryption_and_decryption_release_the_gil(keys):
    pk, sk = keys
    values = np.arange(-N_PAILLIER // 2, N_PAILLIER // 2, dtype=np.int64)
    progress, cs = main_thread_progress(pk.encrypt_batch, values)
    assert progress >= PROGRESS
    progress, back = main_thread_progress(sk.decrypt_batch, cs)
    assert back == values.tolist()
    assert progress >= PROGRESS


def test_batch_encryption_of_reals_and_its_json_release_the_gil(keys):
    pk, sk = keys
    values = np.linspace(-1.0, 1.0, N_PAILLIER)
    progress, xs = main_thread_progress(pk.encrypt_numbers, values, 1.0)
    assert progress >= PROGRESS
    progress, back = main_thread_progress(sk.decrypt_numbers, xs)
    assert np.allclose(back, values, atol=1e-12)
    assert progress >= PROGRESS
    # The writer re-randomises every ciphertext (one encryption of 0 each).
    progress, text = main_thread_progress(native_paillier.numbers_to_json, pk, xs)
    assert text.startswith("{")
    assert progress >= PROGRESS
    progress, again = main_thread_progress(native_paillier.numbers_from_json, text, pk, 1.0)
    assert np.allclose(sk.decrypt_numbers(again), values, atol=1e-12)
