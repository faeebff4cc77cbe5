"""Noise: the Laplace, Gaussian, discrete Laplace and discrete Gaussian mechanisms.

Each class is privet's C++ mechanism, driven by the operating system's
CSPRNG, and, for the real-valued ones, on a power-of-two output grid that
closes the floating-point attack of Mironov (2012). By default the noise
comes from privet's constant-time samplers (C++ ``constant_time_noise``):
the same random words, loop counts and branches whatever the sample, so
that a release's running time does not reveal its noise (Jin et al. 2022).
They are the exact laws up to a total variation below 2^-100 per
coordinate, and ``guarantee()`` says so: it returns :class:`PureDpWithinTv`
or :class:`ZcdpWithinTv`, the exact mechanism's guarantee (``.base``) with
that distance (``.total_variation``). ``noise="secure"`` names the exact
samplers (Canonne, Kamath & Steinke 2020; C++ ``secure_noise``), whose
running time depends on the noise; their ``guarantee()`` is the plain
:class:`PureDp` or :class:`Zcdp`. There is no seed argument: reproducible
noise for tests comes only from :mod:`privet.testing`.

A mechanism is built from its privacy target and the query's sensitivity
(``Laplace(1.0, l1_sensitivity=1.0)``) or from its noise scale
(``Laplace.from_scale(2.0, l1_sensitivity=1.0)``), either with
``noise="secure"`` added; bad parameters (a ``noise`` other than
``"constant_time"`` or ``"secure"`` too) raise :class:`privet.InvalidParameter`
with the C++ message. ``guarantee()`` is the C++ privacy map's answer, never
a formula recomputed in Python; the within-TV guarantees compose in
:mod:`privet.accounting` (``compose_basic``, ``compose_zcdp`` and every
accountant) and convert with ``to_approx_dp``, (eps, delta + (1 + e^eps) tau).

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
    PureDpWithinTv,
    Zcdp,
    ZcdpWithinTv,
)

__all__ = [
    "ApproxDp",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "Gaussian",
    "Laplace",
    "PureDp",
    "PureDpWithinTv",
    "Zcdp",
    "ZcdpWithinTv",
]
