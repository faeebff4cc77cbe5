"""python-paillier's ``phe.encoding``: ``EncodedNumber``, a signed int or
float as an integer in [0, n) and an exponent, value = mantissa *
BASE**exponent (BASE = 16), with python-paillier's plaintext band: mantissas
up to max_int = n // 3 - 1 in magnitude, and the band between max_int and
n - max_int read as overflow.

Floats at base 16 are encoded by privet's fixed-point encoding
(crypto/fixed_point.hpp: round(16^D x), ties to even, exact), which is the
rounding python-paillier specifies; other bases (a subclass setting ``BASE``
and ``LOG2_BASE``) are computed exactly with fractions.
"""

from __future__ import annotations

import fractions
import math
import numbers
import sys

import privet
from privet._privet import paillier as _native


class DecodeOverflowError(privet.RepresentationOverflow, OverflowError):
    """A decrypted mantissa in python-paillier's overflow band, or a value
    too large for a float: both privet's RepresentationOverflow and the
    OverflowError python-paillier raises."""


class EncodedNumber(object):
    """A plaintext ready for Paillier: ``encoding`` in [0, n) (negatives as n
    + mantissa) and ``exponent``, value = mantissa * BASE**exponent.

    Subclasses may set another ``BASE`` (and ``LOG2_BASE = log2(BASE)``).
    """

    BASE = 16
    """Base of the exponent."""
    LOG2_BASE = math.log(BASE, 2)
    """log2(BASE)."""
    FLOAT_MANTISSA_BITS = sys.float_info.mant_dig
    """Bits of a float's significand (53)."""

    def __init__(self, public_key, encoding, exponent):
        self.public_key = public_key
        self.encoding = encoding
        self.exponent = exponent

    @classmethod
    def encode(cls, public_key, scalar, precision=None, max_exponent=None):
        """The encoding of an int or float under ``public_key``.

        The exponent is the largest that keeps ``precision`` (by default: an
        int exactly; a float at least as precisely as its own last bit),
        capped at ``max_exponent``. ``ValueError`` when the mantissa exceeds
        ``public_key.max_int`` in magnitude.
        """
        if precision is None:
            if isinstance(scalar, bool) or isinstance(scalar, numbers.Integral):
                prec_exponent = 0
            elif isinstance(scalar, float):
                lsb = math.frexp(scalar)[1] - cls.FLOAT_MANTISSA_BITS
                prec_exponent = math.floor(lsb / cls.LOG2_BASE)
            else:
                raise TypeError("Don't know the precision of type %s." % type(scalar))
        else:
            prec_exponent = math.floor(math.log(precision, cls.BASE))
        exponent = prec_exponent if max_exponent is None else min(max_exponent, prec_exponent)
        mantissa = cls._mantissa(scalar, exponent)
        if abs(mantissa) > public_key.max_int:
            raise ValueError(
                "Integer needs to be within +/- %d but got %d (python-paillier's max_int = n // 3 - 1)"
                % (public_key.max_int, mantissa)
            )
        return cls(public_key, mantissa % public_key.n, exponent)

    @classmethod
    def _mantissa(cls, scalar, exponent):
        if isinstance(scalar, numbers.Integral):
            scalar = int(scalar)
            if exponent <= 0:
                return scalar * cls.BASE ** -exponent
            return round(fractions.Fraction(scalar, cls.BASE**exponent))
        if cls.BASE == 16 and -_native.max_digits <= exponent <= 0 and math.isfinite(scalar):
            return _native.encode(float(scalar), -exponent)
        # Exact: a float is a fraction; round() on a Fraction ties to even.
        return round(fractions.Fraction(scalar) * fractions.Fraction(cls.BASE) ** -exponent)

    def decode(self):
        """The int (exponent >= 0) or float this encodes. ``ValueError`` for
        an encoding outside [0, n); ``OverflowError`` in the overflow band
        (max_int, n - max_int) or beyond the float range."""
        n = self.public_key.n
        max_int = self.public_key.max_int
        if self.encoding >= n:
            raise ValueError("Attempted to decode corrupted number: the encoding is not below n")
        if self.encoding <= max_int:
            mantissa = self.encoding
        elif self.encoding >= n - max_int:
            mantissa = self.encoding - n
        else:
            raise DecodeOverflowError(
                "Overflow detected in decrypted number: the plaintext lies in python-paillier's "
                "overflow band (max_int, n - max_int)"
            )
        if self.exponent >= 0:
            return mantissa * self.BASE**self.exponent
        try:
            return mantissa / self.BASE**-self.exponent
        except OverflowError as e:
            raise DecodeOverflowError("decoded result too large for a float") from e

    def decrease_exponent_to(self, new_exp):
        """The same value at the lower exponent ``new_exp`` (the mantissa
        times BASE**(exponent - new_exp)); ``ValueError`` for a higher one."""
        if new_exp > self.exponent:
            raise ValueError(
                "New exponent %i should be more negative than old exponent %i" % (new_exp, self.exponent)
            )
        factor = self.BASE ** (self.exponent - new_exp)
        return self.__class__(self.public_key, self.encoding * factor % self.public_key.n, new_exp)
