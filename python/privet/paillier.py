"""privet.paillier: the Paillier cryptosystem from privet's C++ core (GMP).

Paillier (1999) is additively homomorphic: Enc(a) + Enc(b) decrypts to
a + b and k * Enc(a) to k a. privet adds Damgard, Jurik and Nielsen's
short-exponent encryption (``mode="djn"``, about 40 times faster than the
textbook r^n, under a stronger assumption: see crypto/paillier.hpp), batches
on every core, and python-paillier's JSON layouts.

- ``generate_keypair(bits=3072, mode="textbook", *, allow_insecure_key_size=False)``
  returns ``(PublicKey, PrivateKey)``. Keys below 2048 bits (down to 128) are
  breakable and need ``allow_insecure_key_size=True``.
- ``PublicKey.encrypt(int)`` gives a ``Ciphertext`` of a signed integer of any
  size in [-(n-1)/2, (n-1)/2]; ``+``, ``-`` (ciphertexts or ints), ``*`` by an
  int and negation work modulo n.
- ``PublicKey.encrypt_number(x, bound, digits=16)`` gives an
  ``EncryptedNumber``: x at the fixed-point scale 16^digits with a public bound
  on |x|. Its operations carry the bound and raise ``RepresentationOverflow``
  before a result could wrap (privet never reduces behind your back).
- ``encrypt_array`` / ``decrypt_array`` take NumPy arrays (or lists) and run
  in parallel with the GIL released.
- Writers of ciphertexts (``to_json``, ``numbers_to_json``) re-randomise first,
  as in C++: a computed ciphertext would otherwise let whoever made its inputs
  recognise a secret scalar. ``already_randomised=True`` skips it, only for
  fresh encryptions.

Randomness comes from the operating system's CSPRNG only; there is no seed.
Errors are ``privet.Error`` subclasses (``ValueError``) with the C++ message.
"""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Union

import numpy as np

from ._privet import paillier as _native

PublicKey = _native.PublicKey
PrivateKey = _native.PrivateKey
Ciphertext = _native.Ciphertext
EncryptedNumber = _native.EncryptedNumber
generate_keypair = _native.generate_keypair
numbers_to_json = _native.numbers_to_json
numbers_from_json = _native.numbers_from_json
encode = _native.encode
decode = _native.decode
random_below = _native.random_below
random_prime = _native.random_prime
is_probable_prime = _native.is_probable_prime

default_key_bits: int = _native.default_key_bits
min_key_bits: int = _native.min_key_bits
min_insecure_key_bits: int = _native.min_insecure_key_bits
max_key_bits: int = _native.max_key_bits
max_peer_key_bits: int = _native.max_peer_key_bits
max_digits: int = _native.max_digits
default_digits: int = _native.default_digits

__all__ = [
    "Ciphertext",
    "EncryptedNumber",
    "PrivateKey",
    "PublicKey",
    "decode",
    "decrypt_array",
    "default_digits",
    "default_key_bits",
    "encode",
    "encrypt_array",
    "generate_keypair",
    "is_probable_prime",
    "max_digits",
    "max_key_bits",
    "max_peer_key_bits",
    "min_insecure_key_bits",
    "min_key_bits",
    "numbers_from_json",
    "numbers_to_json",
    "random_below",
    "random_prime",
]


def _is_integer_data(values) -> bool:
    if isinstance(values, np.ndarray):
        if values.dtype.kind in "iu":
            return True
        if values.dtype.kind == "f":
            return False
        values = values.ravel().tolist()
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values)


def encrypt_array(
    public_key: PublicKey,
    values: Union[np.ndarray, Sequence[int], Sequence[float]],
    bound: Optional[float] = None,
    digits: int = default_digits,
    threads: int = 0,
) -> Union[List[Ciphertext], List[EncryptedNumber]]:
    """Encrypts every value of a 1-D array or list, in parallel on ``threads``
    threads (0: every core), with the GIL released.

    Integers (a NumPy integer array, or a list of ints) give ``Ciphertext``\\ s;
    reals (a float array, or a list with a float) give ``EncryptedNumber``\\ s at
    the scale 16^digits and need the public ``bound`` on their magnitude.
    """
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise TypeError("privet: encrypt_array takes a 1-D array (ravel it first)")
    if _is_integer_data(values):
        return public_key.encrypt_batch(values, threads)
    if bound is None:
        raise TypeError(
            "privet: encrypting reals needs the public bound on their magnitude "
            "(bound=...); it travels in the clear, so it must not depend on the data"
        )
    return public_key.encrypt_numbers(values, bound, digits, threads)


def decrypt_array(
    private_key: PrivateKey,
    items: Iterable[Union[Ciphertext, EncryptedNumber]],
    threads: int = 0,
) -> np.ndarray:
    """Decrypts a list of ``Ciphertext`` (an int64 array when every value
    fits, else an object array of Python ints) or of ``EncryptedNumber`` (a
    float64 array), in parallel with the GIL released."""
    items = list(items)
    if items and all(isinstance(x, EncryptedNumber) for x in items):
        return private_key.decrypt_numbers(items, threads)
    values = private_key.decrypt_batch(items, threads)
    if all(-(2**63) <= v < 2**63 for v in values):
        return np.array(values, dtype=np.int64)
    return np.array(values, dtype=object)
