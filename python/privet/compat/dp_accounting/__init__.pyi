"""Types of privet.compat.dp_accounting (dp_accounting's package on privet)."""

from . import (
    dp_event as dp_event,
    dp_event_builder as dp_event_builder,
    mechanism_calibration as mechanism_calibration,
    pld as pld,
    privacy_accountant as privacy_accountant,
    rdp as rdp,
)
from .dp_event import (
    ComposedDpEvent as ComposedDpEvent,
    DiscreteGaussianDpEvent as DiscreteGaussianDpEvent,
    DiscreteLaplaceDpEvent as DiscreteLaplaceDpEvent,
    DpEvent as DpEvent,
    EpsilonDeltaDpEvent as EpsilonDeltaDpEvent,
    ExponentialMechanismDpEvent as ExponentialMechanismDpEvent,
    GaussianDpEvent as GaussianDpEvent,
    LaplaceDpEvent as LaplaceDpEvent,
    MixtureOfGaussiansDpEvent as MixtureOfGaussiansDpEvent,
    NonPrivateDpEvent as NonPrivateDpEvent,
    NoOpDpEvent as NoOpDpEvent,
    PermuteAndFlipDpEvent as PermuteAndFlipDpEvent,
    PoissonSampledDpEvent as PoissonSampledDpEvent,
    RandomizedResponseDpEvent as RandomizedResponseDpEvent,
    RepeatAndSelectDpEvent as RepeatAndSelectDpEvent,
    SampledWithoutReplacementDpEvent as SampledWithoutReplacementDpEvent,
    SampledWithReplacementDpEvent as SampledWithReplacementDpEvent,
    SelfComposedDpEvent as SelfComposedDpEvent,
    SingleEpochTreeAggregationDpEvent as SingleEpochTreeAggregationDpEvent,
    TruncatedSubsampledGaussianDpEvent as TruncatedSubsampledGaussianDpEvent,
    UnsupportedDpEvent as UnsupportedDpEvent,
    ZCDpEvent as ZCDpEvent,
)
from .dp_event_builder import DpEventBuilder as DpEventBuilder
from .mechanism_calibration import (
    ExplicitBracketInterval as ExplicitBracketInterval,
    LowerEndpointAndGuess as LowerEndpointAndGuess,
    calibrate_dp_mechanism as calibrate_dp_mechanism,
)
from .privacy_accountant import (
    NeighboringRelation as NeighboringRelation,
    PrivacyAccountant as PrivacyAccountant,
    UnsupportedEventError as UnsupportedEventError,
)
