"""Reproducible noise for tests. NOT FOR RELEASES."""

from typing import Any, List, Union

from .mechanisms import DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace

class SeededReleaseGenerator:
    """privet::testing::seeded_release_generator: tests only."""
    def __init__(self, seed: int, stream: int = 0) -> None: ...
    def next_u64(self) -> int: ...

def release(
    mechanism: Union[Laplace, Gaussian, DiscreteLaplace, DiscreteGaussian],
    x: Any,
    generator: SeededReleaseGenerator,
) -> Any: ...

__all__: List[str]
