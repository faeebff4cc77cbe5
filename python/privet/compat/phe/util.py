"""python-paillier's ``phe.util``: the number theory and encodings its
examples and tests use, on Python's integers and privet's CSPRNG (random
primes and Miller-Rabin bases come from the OS, never from ``random``)."""

from __future__ import annotations

import base64

from privet._privet import paillier as _native

HAVE_GMP = False
"""python-paillier uses gmpy2 when present; privet's core uses GMP directly."""
HAVE_CRYPTO = False
"""python-paillier may use PyCrypto's primes; privet uses its own."""


def powmod(a, b, c):
    """a**b mod c (b may be negative when a is invertible mod c)."""
    if a == 1:
        return 1
    return pow(a, b, c)


def mulmod(a, b, c):
    """a * b mod c."""
    return a * b % c


def extended_euclidean_algorithm(a, b):
    """(r, s, t) with r = gcd(a, b) = a s + b t."""
    r0, r1 = a, b
    s0, s1 = 1, 0
    t0, t1 = 0, 1
    while r1 != 0:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        s0, s1 = s1, s0 - q * s1
        t0, t1 = t1, t0 - q * t1
    return r0, s0, t0


def invert(a, b):
    """a^-1 mod b; ZeroDivisionError when gcd(a, b) != 1."""
    try:
        return pow(a, -1, b)
    except ValueError:
        raise ZeroDivisionError("invert() no inverse exists") from None


def getprimeover(N):
    """A random prime of exactly N bits (top bit set), from the OS CSPRNG."""
    if N >= 16:
        return _native.random_prime(N)
    if N < 2:
        raise ValueError("getprimeover needs N >= 2, got %d" % N)
    while True:
        candidate = (1 << (N - 1)) | _native.random_below(1 << (N - 1)) | 1
        if is_prime(candidate):
            return candidate


def isqrt(N):
    """floor(sqrt(N)) for N >= 0."""
    import math

    return math.isqrt(N)


def improved_i_sqrt(n):
    """floor(sqrt(n)), as isqrt (python-paillier keeps both names)."""
    return isqrt(n)


def base64url_encode(payload):
    """Unpadded URL-safe base64 of bytes, as str."""
    if not isinstance(payload, bytes):
        payload = payload.encode("utf-8")
    return base64.urlsafe_b64encode(payload).decode("utf-8").rstrip("=")


def base64url_decode(payload):
    """Bytes of (possibly unpadded) URL-safe base64."""
    padding = -len(payload) % 4
    return base64.urlsafe_b64decode(payload + "=" * padding)


def base64_to_int(source):
    """The non-negative int of big-endian bytes in URL-safe base64."""
    return int.from_bytes(base64url_decode(source), "big")


def int_to_base64(source):
    """URL-safe base64 of a non-negative int's minimal big-endian bytes."""
    if source < 0:
        raise ValueError("int_to_base64 takes a non-negative int")
    return base64url_encode(source.to_bytes(max(1, (source.bit_length() + 7) // 8), "big"))


def miller_rabin(n, k):
    """Miller-Rabin with k random bases from the OS CSPRNG: False for a
    composite (always right), True for a probable prime (error <= 4^-k)."""
    if n < 4:
        return n in (2, 3)
    if n % 2 == 0:
        return False
    return _native.is_probable_prime(n, k)


def is_prime(n, mr_rounds=25):
    """Trial division by small primes, then ``mr_rounds`` Miller-Rabin rounds."""
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47):
        if n % p == 0:
            return n == p
    return miller_rabin(n, mr_rounds)
