"""python-paillier's ``phe.paillier`` on privet's C++ Paillier (GMP):
``generate_paillier_keypair``, ``PaillierPublicKey``, ``PaillierPrivateKey``,
``PaillierPrivateKeyring`` and ``EncryptedNumber``, with phe's semantics.

An ``EncryptedNumber`` holds a privet ciphertext and phe's exponent;
sums and products are privet's (one product, or one exponentiation, modulo
n^2, with the GIL released), and ``obfuscate()`` is privet's
re-randomisation. Keys below 2048 bits need the opt-in (see the package
docstring): ``allow_insecure_key_size`` here, or
``PRIVET_ALLOW_INSECURE_KEY_SIZE=1``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from privet._privet import InvalidParameter as _InvalidParameter
from privet._privet import paillier as _native

from .encoding import EncodedNumber

DEFAULT_KEYSIZE = 3072
"""Bits of n for new keys (python-paillier's default, privet's too)."""

allow_insecure_key_size = os.environ.get("PRIVET_ALLOW_INSECURE_KEY_SIZE", "").lower() in (
    "1",
    "true",
    "yes",
)
"""Process-wide opt-in to keys below 2048 bits (breakable: tests and
examples only). Set from ``PRIVET_ALLOW_INSECURE_KEY_SIZE`` at import."""


OPT_IN_HINT = (
    " [privet.compat.phe: keys below 2048 bits are breakable, for tests only: opt in with "
    "allow_insecure_key_size=True or PRIVET_ALLOW_INSECURE_KEY_SIZE=1 in the environment]"
)
"""Appended to privet's refusal of a small key made without the opt-in (the
C++ message before it is unchanged): the C++ message names the C++ opt-in."""


def _insecure(flag):
    return allow_insecure_key_size if flag is None else bool(flag)


def _refusal_names_the_opt_in(insecure, bits, make):
    """``make()``; privet's refusal of a ``bits()``-bit key that the opt-in
    would allow (128 to 2047 bits) gets OPT_IN_HINT when the opt-in is off."""
    try:
        return make()
    except _InvalidParameter as e:
        if insecure or not _native.min_insecure_key_bits <= bits() < _native.min_key_bits:
            raise
        raise type(e)(str(e) + OPT_IN_HINT) from None


def generate_paillier_keypair(private_keyring=None, n_length=DEFAULT_KEYSIZE, *, allow_insecure_key_size=None):
    """A new key pair ``(PaillierPublicKey, PaillierPrivateKey)`` with n of
    exactly ``n_length`` bits (privet's key generation: primes from the OS
    CSPRNG, |p - q| >= 2^(n_length/2 - 100)), added to ``private_keyring``
    if one is given. ``n_length`` below 2048 needs the opt-in."""
    insecure = _insecure(allow_insecure_key_size)
    pub, priv = _refusal_names_the_opt_in(
        insecure,
        lambda: n_length if n_length % 2 == 0 else 0,  # odd lengths: the opt-in would not help
        lambda: _native.generate_keypair(n_length, allow_insecure_key_size=insecure),
    )
    public_key = PaillierPublicKey._from_native(pub)
    private_key = PaillierPrivateKey._from_native(public_key, priv)
    if private_keyring is not None:
        private_keyring.add(private_key)
    return public_key, private_key


class PaillierPublicKey(object):
    """A Paillier public key: ``n``, ``g = n + 1``, ``nsquare = n**2`` and
    ``max_int = n // 3 - 1`` (python-paillier's plaintext band)."""

    def __init__(self, n, *, allow_insecure_key_size=None):
        insecure = _insecure(allow_insecure_key_size)
        key = _refusal_names_the_opt_in(
            insecure,
            lambda: int(n).bit_length(),
            lambda: _native.PublicKey(n, allow_insecure_key_size=insecure),
        )
        self._init(key)

    @classmethod
    def _from_native(cls, key):
        self = cls.__new__(cls)
        self._init(key)
        return self

    def _init(self, key):
        self._key = key
        self.n = key.n
        self.g = self.n + 1
        self.nsquare = self.n * self.n
        self.max_int = self.n // 3 - 1

    def __repr__(self):
        return "<PaillierPublicKey {}>".format(hex(hash(self))[2:][:10])

    def __eq__(self, other):
        return isinstance(other, PaillierPublicKey) and self.n == other.n

    def __hash__(self):
        return hash(self.n)

    def raw_encrypt(self, plaintext, r_value=None):
        """The ciphertext (an int) of ``plaintext`` mod n: (1 + m n) r^n mod
        n^2 with ``r_value`` if given (in [1, n), coprime to n), else a random
        r from the OS CSPRNG."""
        if not isinstance(plaintext, int):
            raise TypeError("Expected int type plaintext but got: %s" % type(plaintext))
        return self._key.raw_encrypt(plaintext % self.n, r_value or None).value

    def get_random_lt_n(self):
        """A uniform integer in [1, n) from the OS CSPRNG."""
        return 1 + _native.random_below(self.n - 1)

    def encrypt(self, value, precision=None, r_value=None):
        """Encodes ``value`` (int, float or ``EncodedNumber``) and encrypts it;
        see ``EncodedNumber.encode`` for ``precision``."""
        if isinstance(value, EncodedNumber):
            encoding = value
        else:
            encoding = EncodedNumber.encode(self, value, precision)
        return self.encrypt_encoded(encoding, r_value)

    def encrypt_encoded(self, encoding, r_value):
        """Encrypts an ``EncodedNumber``: with ``r_value`` if given (not
        obfuscated), else with fresh randomness (obfuscated)."""
        c = self._key.raw_encrypt(encoding.encoding % self.n, r_value or None)
        number = EncryptedNumber(self, c, encoding.exponent)
        if r_value is None:
            number._EncryptedNumber__is_obfuscated = True
        return number


class PaillierPrivateKey(object):
    """A Paillier private key (the primes, ``p < q``), with privet's
    constant-time CRT decryption."""

    def __init__(self, public_key, p, q, *, allow_insecure_key_size=None):
        if not p * q == public_key.n:
            raise ValueError("given public key does not match the given p and q.")
        if p == q:
            raise ValueError("p and q have to be different")
        # A public key below 2048 bits exists only if its maker opted in:
        # that opt-in covers its private key.
        insecure = _insecure(allow_insecure_key_size) or public_key._key.bits < _native.min_key_bits
        key = _refusal_names_the_opt_in(
            insecure,
            lambda: public_key.n.bit_length(),
            lambda: _native.PrivateKey.from_primes(p, q, allow_insecure_key_size=insecure),
        )
        self._init(public_key, key)

    @classmethod
    def _from_native(cls, public_key, key):
        self = cls.__new__(cls)
        self._init(public_key, key)
        return self

    def _init(self, public_key, key):
        self._key = key
        self.public_key = public_key
        self.p, self.q = sorted((key.p, key.q))
        self.psquare = self.p * self.p
        self.qsquare = self.q * self.q

    @staticmethod
    def from_totient(public_key, totient):
        """The private key of ``public_key`` from phi(n) = (p - 1)(q - 1):
        p + q = n - phi + 1 and p - q from the square root of (p + q)^2 -
        4n."""
        s = public_key.n - totient + 1
        disc = s * s - 4 * public_key.n
        if disc < 0:
            raise ValueError("given public key and totient do not match.")
        d = math.isqrt(disc)
        q = (s - d) // 2
        p = s - q
        if not p * q == public_key.n:
            raise ValueError("given public key and totient do not match.")
        return PaillierPrivateKey(public_key, p, q)

    def __repr__(self):
        return "<PaillierPrivateKey for {}>".format(repr(self.public_key))

    def __eq__(self, other):
        return isinstance(other, PaillierPrivateKey) and (self.p, self.q) == (other.p, other.q)

    def __hash__(self):
        return hash((self.p, self.q))

    def decrypt(self, encrypted_number):
        """The int or float ``encrypted_number`` holds (``OverflowError`` in
        python-paillier's overflow band)."""
        return self.decrypt_encoded(encrypted_number).decode()

    def decrypt_encoded(self, encrypted_number, Encoding=None):
        """The ``EncodedNumber`` (or ``Encoding``) decrypted from
        ``encrypted_number``; ``TypeError`` for anything else,
        ``ValueError`` for a number under another key."""
        if not isinstance(encrypted_number, EncryptedNumber):
            raise TypeError("Expected encrypted_number to be an EncryptedNumber not: %s" % type(encrypted_number))
        if self.public_key != encrypted_number.public_key:
            raise ValueError("encrypted_number was encrypted against a different key!")
        if Encoding is None:
            Encoding = EncodedNumber
        encoded = self._key.raw_decrypt(encrypted_number._native_ciphertext())
        return Encoding(self.public_key, encoded, encrypted_number.exponent)

    def raw_decrypt(self, ciphertext):
        """The plaintext in [0, n) of an int ciphertext."""
        if not isinstance(ciphertext, int):
            raise TypeError("Expected ciphertext to be an int, not: %s" % type(ciphertext))
        return self._key.raw_decrypt(_native.Ciphertext(self.public_key._key, ciphertext))


class PaillierPrivateKeyring(Mapping):
    """Private keys by public key; ``decrypt`` picks the right one."""

    def __init__(self, private_keys=None):
        if private_keys is None:
            private_keys = []
        self.__keyring = {k.public_key: k for k in private_keys}

    def __getitem__(self, key):
        return self.__keyring[key]

    def __len__(self):
        return len(self.__keyring)

    def __iter__(self):
        return iter(self.__keyring)

    def __delitem__(self, public_key):
        del self.__keyring[public_key]

    def add(self, private_key):
        """Adds ``private_key`` (a ``PaillierPrivateKey``, else TypeError)."""
        if not isinstance(private_key, PaillierPrivateKey):
            raise TypeError("private_key should be of type PaillierPrivateKey, not %s" % type(private_key))
        self.__keyring[private_key.public_key] = private_key

    def decrypt(self, encrypted_number):
        """Decrypts with the key of ``encrypted_number.public_key``
        (``KeyError`` when the keyring has none)."""
        return self.__keyring[encrypted_number.public_key].decrypt(encrypted_number)


class EncryptedNumber(object):
    """The Paillier encryption of an encoded int or float: a ciphertext under
    ``public_key`` and the ``exponent`` of its encoding. ``+`` / ``-`` with
    EncryptedNumbers, EncodedNumbers, ints and floats; ``*`` and ``/`` by
    plaintexts. Results of operations are not obfuscated until
    ``ciphertext()`` (be_secure=True) or ``obfuscate()``."""

    def __init__(self, public_key, ciphertext, exponent=0):
        if not isinstance(public_key, PaillierPublicKey):
            raise TypeError("public_key should be a PaillierPublicKey")
        if isinstance(ciphertext, EncryptedNumber):
            raise TypeError("ciphertext should be an integer")
        self.public_key = public_key
        if isinstance(ciphertext, _native.Ciphertext):
            self.__ciphertext = ciphertext
        elif isinstance(ciphertext, int):
            self.__ciphertext = _native.Ciphertext(public_key._key, ciphertext)
        else:
            raise TypeError("ciphertext should be an integer")
        self.exponent = exponent
        self.__is_obfuscated = False

    def _native_ciphertext(self):
        return self.__ciphertext

    def __add__(self, other):
        if isinstance(other, EncryptedNumber):
            return self._add_encrypted(other)
        if isinstance(other, EncodedNumber):
            return self._add_encoded(other)
        return self._add_scalar(other)

    def __radd__(self, other):
        return self.__add__(other)

    def __mul__(self, other):
        if isinstance(other, EncryptedNumber):
            raise NotImplementedError("The product of two Paillier ciphertexts is not computable")
        encoding = other if isinstance(other, EncodedNumber) else EncodedNumber.encode(self.public_key, other)
        return EncryptedNumber(self.public_key, self._raw_mul(encoding.encoding), self.exponent + encoding.exponent)

    def __rmul__(self, other):
        return self.__mul__(other)

    def __sub__(self, other):
        return self + (other * -1)

    def __rsub__(self, other):
        return other + (self * -1)

    def __truediv__(self, scalar):
        return self.__mul__(1 / scalar)

    def __neg__(self):
        return self * -1

    def ciphertext(self, be_secure=True):
        """The ciphertext as an int, obfuscated first when ``be_secure`` and
        not yet obfuscated (a computed ciphertext would otherwise reveal the
        scalars that made it)."""
        if be_secure and not self.__is_obfuscated:
            self.obfuscate()
        return self.__ciphertext.value

    def decrease_exponent_to(self, new_exp):
        """The same value at the lower exponent ``new_exp`` (times
        BASE**(exponent - new_exp)); ``ValueError`` for a higher one."""
        if new_exp > self.exponent:
            raise ValueError(
                "New exponent %i should be more negative than old exponent %i" % (new_exp, self.exponent)
            )
        multiplied = self * pow(EncodedNumber.BASE, self.exponent - new_exp)
        multiplied.exponent = new_exp
        return multiplied

    def obfuscate(self):
        """Multiplies the ciphertext by a fresh encryption of 0 (privet's
        re-randomisation, randomness from the OS CSPRNG)."""
        self.__ciphertext = self.public_key._key.rerandomize(self.__ciphertext)
        self.__is_obfuscated = True

    def _add_scalar(self, scalar):
        encoded = EncodedNumber.encode(self.public_key, scalar, max_exponent=self.exponent)
        return self._add_encoded(encoded)

    def _add_encoded(self, encoded):
        if self.public_key != encoded.public_key:
            raise ValueError("Attempted to add numbers encoded against different public keys!")
        a, b = self, encoded
        if a.exponent > b.exponent:
            a = self.decrease_exponent_to(b.exponent)
        elif a.exponent < b.exponent:
            b = b.decrease_exponent_to(a.exponent)
        n = a.public_key.n
        plain = _native.Ciphertext(a.public_key._key, 1 + (b.encoding % n) * n)
        return EncryptedNumber(a.public_key, a.__ciphertext + plain, a.exponent)

    def _add_encrypted(self, other):
        if self.public_key != other.public_key:
            raise ValueError("Attempted to add numbers encrypted against different public keys!")
        a, b = self, other
        if a.exponent > b.exponent:
            a = self.decrease_exponent_to(b.exponent)
        elif a.exponent < b.exponent:
            b = b.decrease_exponent_to(a.exponent)
        return EncryptedNumber(a.public_key, a.__ciphertext + b.__ciphertext, a.exponent)

    def _raw_add(self, e_a, e_b):
        return e_a * e_b % self.public_key.nsquare

    def _raw_mul(self, plaintext):
        if not isinstance(plaintext, int):
            raise TypeError("Expected ciphertext to be int, not %s" % type(plaintext))
        if plaintext < 0 or plaintext >= self.public_key.n:
            raise ValueError("Scalar out of bounds: %i" % plaintext)
        if plaintext >= self.public_key.n - self.public_key.max_int:
            return self.__ciphertext * (plaintext - self.public_key.n)
        return self.__ciphertext * plaintext
