"""Secure noise: the Laplace, Gaussian, discrete Laplace and discrete Gaussian mechanisms.

Each class is privet's C++ mechanism with ``secure_noise``: exact integer
samplers (Canonne, Kamath & Steinke 2020) driven by the operating system's
CSPRNG, and, for the real-valued ones, a power-of-two output grid that
closes the floating-point attack of Mironov (2012). The exact samplers take
a time that depends on the noise (Jin et al. 2022); the C++ default,
constant-time noise, is not bound yet (python/README.md, "Noise timing").
There is no seed argument: reproducible noise for tests comes only from
:mod:`privet.testing`.

A mechanism is built from its privacy target and the query's sensitivity
(``Laplace(1.0, l1_sensitivity=1.0)``) or from its noise scale
(``Laplace.from_scale(2.0, l1_sensitivity=1.0)``); bad parameters raise
:class:`privet.InvalidParameter` with the C++ message. ``guarantee()`` is
the C++ privacy map's answer (:class:`PureDp` or :class:`Zcdp`), never a
formula recomputed in Python.

``m.release(x)`` (or ``m(x)``) adds noise to a float or int, a list or a
NumPy array. For :class:`Laplace` and :class:`Gaussian` an array is one
value of ``dimension`` coordinates (its sensitivity is the whole array's),
computed in float64; the integer mechanisms noise each int64 entry. Arrays
are noised on every core with the GIL released. Data never raises: NaN is
read as 0 and +-inf as the largest finite double, outputs saturate, and an
array whose size is not ``dimension`` is cut or zero-padded to it (the C++
data rule) and comes back one-dimensional.
"""

from ._privet.mechanisms import (  # noqa: F401
    ApproxDp,
    DiscreteGaussian,
    DiscreteLaplace,
    Gaussian,
    Laplace,
    PureDp,
    Zcdp,
)

__all__ = [
    "ApproxDp",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "Gaussian",
    "Laplace",
    "PureDp",
    "Zcdp",
]
