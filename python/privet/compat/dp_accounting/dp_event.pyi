"""Types of privet.compat.dp_accounting.dp_event (frozen dataclasses)."""

from typing import List, Optional, Sequence, Union

class DpEvent: ...
class NoOpDpEvent(DpEvent): ...
class NonPrivateDpEvent(DpEvent): ...
class UnsupportedDpEvent(DpEvent): ...

class RandomizedResponseDpEvent(DpEvent):
    noise_parameter: float
    num_buckets: int
    def __init__(self, noise_parameter: float, num_buckets: int) -> None: ...

class EpsilonDeltaDpEvent(DpEvent):
    epsilon: float
    delta: float
    def __init__(self, epsilon: float, delta: float) -> None: ...

class GaussianDpEvent(DpEvent):
    noise_multiplier: float
    def __init__(self, noise_multiplier: float) -> None: ...

class LaplaceDpEvent(DpEvent):
    noise_multiplier: float
    def __init__(self, noise_multiplier: float) -> None: ...

class DiscreteLaplaceDpEvent(DpEvent):
    noise_parameter: float
    sensitivity: int
    def __init__(self, noise_parameter: float, sensitivity: int) -> None: ...

class DiscreteGaussianDpEvent(DpEvent):
    sigma: float
    sensitivity: float
    dimension: Optional[int]
    def __init__(self, sigma: float, sensitivity: float = 1.0, dimension: Optional[int] = None) -> None: ...

class SelfComposedDpEvent(DpEvent):
    event: DpEvent
    count: int
    def __init__(self, event: DpEvent, count: int) -> None: ...

class ComposedDpEvent(DpEvent):
    events: List[DpEvent]
    def __init__(self, events: List[DpEvent]) -> None: ...

class PoissonSampledDpEvent(DpEvent):
    sampling_probability: float
    event: DpEvent
    def __init__(self, sampling_probability: float, event: DpEvent) -> None: ...

class SampledWithReplacementDpEvent(DpEvent):
    source_dataset_size: int
    sample_size: int
    event: DpEvent
    def __init__(self, source_dataset_size: int, sample_size: int, event: DpEvent) -> None: ...

class SampledWithoutReplacementDpEvent(DpEvent):
    source_dataset_size: int
    sample_size: int
    event: DpEvent
    def __init__(self, source_dataset_size: int, sample_size: int, event: DpEvent) -> None: ...

class SingleEpochTreeAggregationDpEvent(DpEvent):
    noise_multiplier: float
    step_counts: Union[int, List[int]]
    def __init__(self, noise_multiplier: float, step_counts: Union[int, List[int]]) -> None: ...

class RepeatAndSelectDpEvent(DpEvent):
    event: DpEvent
    mean: float
    shape: float
    def __init__(self, event: DpEvent, mean: float, shape: float) -> None: ...

class MixtureOfGaussiansDpEvent(DpEvent):
    standard_deviation: float
    sensitivities: Sequence[float]
    sampling_probs: Sequence[float]
    def __init__(
        self, standard_deviation: float, sensitivities: Sequence[float], sampling_probs: Sequence[float]
    ) -> None: ...

class ZCDpEvent(DpEvent):
    rho: float
    xi: float
    def __init__(self, rho: float, xi: float = 0.0) -> None: ...

class ExponentialMechanismDpEvent(DpEvent):
    epsilon: float
    def __init__(self, epsilon: float) -> None: ...

class PermuteAndFlipDpEvent(DpEvent):
    epsilon: float
    def __init__(self, epsilon: float) -> None: ...

class TruncatedSubsampledGaussianDpEvent(DpEvent):
    dataset_size: int
    sampling_probability: float
    truncated_batch_size: int
    noise_multiplier: float
    def __init__(
        self, dataset_size: int, sampling_probability: float, truncated_batch_size: int, noise_multiplier: float
    ) -> None: ...
