"""Reproducible noise for tests. NOT FOR RELEASES.

:func:`release` runs a :mod:`privet.mechanisms` mechanism with its noise
drawn from a :class:`SeededReleaseGenerator` (privet's
``privet::testing::seeded_release_generator``, ChaCha20 from a 64-bit
seed) instead of the operating system's CSPRNG, so that a statistical test
has a fixed seed, a stated false-alarm rate and fails the same way twice.
Whoever knows the seed knows the noise, which then protects nothing: never
use this module for data that leaves the test.

    >>> from privet import mechanisms, testing
    >>> m = mechanisms.Laplace(1.0, l1_sensitivity=1.0)
    >>> gen = testing.SeededReleaseGenerator(42)
    >>> a = testing.release(m, [0.0], gen)
    >>> a == testing.release(m, [0.0], testing.SeededReleaseGenerator(42))
    True

An array's noise comes from keyed streams under a secret drawn from the
generator, as in a release: the result depends on the seed alone, not on
the number of threads. The generator's state advances with each call.
"""

from ._privet.testing import SeededReleaseGenerator, release  # noqa: F401

__all__ = ["SeededReleaseGenerator", "release"]
