"""dp_accounting's event classes (``dp_accounting.dp_event``), as plain frozen
records. What each one means for privet's accountants is decided by the
accountants (privet.compat.dp_accounting.rdp / .pld), which map the events
they can represent to privet.accounting's events and report the others as
unsupported, with the reason."""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Sequence, Union

__all__ = [
    "ComposedDpEvent",
    "DiscreteGaussianDpEvent",
    "DiscreteLaplaceDpEvent",
    "DpEvent",
    "EpsilonDeltaDpEvent",
    "ExponentialMechanismDpEvent",
    "GaussianDpEvent",
    "LaplaceDpEvent",
    "MixtureOfGaussiansDpEvent",
    "NoOpDpEvent",
    "NonPrivateDpEvent",
    "PermuteAndFlipDpEvent",
    "PoissonSampledDpEvent",
    "RandomizedResponseDpEvent",
    "RepeatAndSelectDpEvent",
    "SampledWithReplacementDpEvent",
    "SampledWithoutReplacementDpEvent",
    "SelfComposedDpEvent",
    "SingleEpochTreeAggregationDpEvent",
    "TruncatedSubsampledGaussianDpEvent",
    "UnsupportedDpEvent",
    "ZCDpEvent",
]

_event = dataclasses.dataclass(frozen=True)


class DpEvent:
    """Base of every event: a description of a differentially private
    computation, interpreted by an accountant."""


@_event
class NoOpDpEvent(DpEvent):
    """An operation that touches no private data (costs nothing)."""


@_event
class NonPrivateDpEvent(DpEvent):
    """An operation on private data without any privacy guarantee."""


@_event
class UnsupportedDpEvent(DpEvent):
    """An operation no accountant can analyse."""


@_event
class RandomizedResponseDpEvent(DpEvent):
    """With probability ``noise_parameter`` a uniformly random one of
    ``num_buckets`` buckets, otherwise the true one."""

    noise_parameter: float
    num_buckets: int


@_event
class EpsilonDeltaDpEvent(DpEvent):
    """A mechanism known only to be (epsilon, delta)-DP."""

    epsilon: float
    delta: float


@_event
class GaussianDpEvent(DpEvent):
    """Gaussian noise of standard deviation noise_multiplier times the L2
    sensitivity."""

    noise_multiplier: float


@_event
class LaplaceDpEvent(DpEvent):
    """Laplace noise of scale noise_multiplier times the L1 sensitivity."""

    noise_multiplier: float


@_event
class DiscreteLaplaceDpEvent(DpEvent):
    """Discrete Laplace noise, P[x] proportional to exp(-noise_parameter |x|),
    on an integer query of L1 sensitivity ``sensitivity``."""

    noise_parameter: float
    sensitivity: int


@_event
class DiscreteGaussianDpEvent(DpEvent):
    """Discrete Gaussian noise of parameter sigma on an integer query of L2
    sensitivity ``sensitivity``."""

    sigma: float
    sensitivity: float = 1.0
    dimension: Optional[int] = None


@_event
class SelfComposedDpEvent(DpEvent):
    """``count`` runs of ``event``."""

    event: DpEvent
    count: int


@_event
class ComposedDpEvent(DpEvent):
    """Each of ``events`` in turn."""

    events: List[DpEvent]


@_event
class PoissonSampledDpEvent(DpEvent):
    """``event`` on a Poisson sample including each record with probability
    ``sampling_probability``."""

    sampling_probability: float
    event: DpEvent


@_event
class SampledWithReplacementDpEvent(DpEvent):
    """``event`` on ``sample_size`` records drawn with replacement."""

    source_dataset_size: int
    sample_size: int
    event: DpEvent


@_event
class SampledWithoutReplacementDpEvent(DpEvent):
    """``event`` on ``sample_size`` records drawn without replacement."""

    source_dataset_size: int
    sample_size: int
    event: DpEvent


@_event
class SingleEpochTreeAggregationDpEvent(DpEvent):
    """Tree aggregation (DP-FTRL) with Gaussian noise over one epoch."""

    noise_multiplier: float
    step_counts: Union[int, List[int]]


@_event
class RepeatAndSelectDpEvent(DpEvent):
    """``event`` repeated a random number of times (mean, shape), the best
    output kept."""

    event: DpEvent
    mean: float
    shape: float


@_event
class MixtureOfGaussiansDpEvent(DpEvent):
    """A Gaussian whose sensitivity is drawn from a finite distribution."""

    standard_deviation: float
    sensitivities: Sequence[float]
    sampling_probs: Sequence[float]


@_event
class ZCDpEvent(DpEvent):
    """A (xi, rho)-zCDP mechanism."""

    rho: float
    xi: float = 0.0


@_event
class ExponentialMechanismDpEvent(DpEvent):
    """The exponential mechanism with parameter epsilon (epsilon-DP)."""

    epsilon: float


@_event
class PermuteAndFlipDpEvent(DpEvent):
    """The permute-and-flip mechanism with parameter epsilon (epsilon-DP)."""

    epsilon: float


@_event
class TruncatedSubsampledGaussianDpEvent(DpEvent):
    """A Poisson-subsampled Gaussian whose batch is truncated to
    ``truncated_batch_size``."""

    dataset_size: int
    sampling_probability: float
    truncated_batch_size: int
    noise_multiplier: float
