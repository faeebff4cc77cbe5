"""dp_accounting's public names and module layout on privet's accountants:
``from privet.compat import dp_accounting`` in place of ``import
dp_accounting``. Events privet cannot account for raise
UnsupportedEventError (compose) or make supports() return False, with the
reason; see python/README.md, "dp_accounting compatibility"."""

from . import dp_event  # noqa: F401
from . import dp_event_builder  # noqa: F401
from . import mechanism_calibration  # noqa: F401
from . import pld  # noqa: F401
from . import privacy_accountant  # noqa: F401
from . import rdp  # noqa: F401
from .dp_event import (  # noqa: F401
    ComposedDpEvent,
    DiscreteGaussianDpEvent,
    DiscreteLaplaceDpEvent,
    DpEvent,
    EpsilonDeltaDpEvent,
    ExponentialMechanismDpEvent,
    GaussianDpEvent,
    LaplaceDpEvent,
    MixtureOfGaussiansDpEvent,
    NonPrivateDpEvent,
    NoOpDpEvent,
    PermuteAndFlipDpEvent,
    PoissonSampledDpEvent,
    RandomizedResponseDpEvent,
    RepeatAndSelectDpEvent,
    SampledWithoutReplacementDpEvent,
    SampledWithReplacementDpEvent,
    SelfComposedDpEvent,
    SingleEpochTreeAggregationDpEvent,
    TruncatedSubsampledGaussianDpEvent,
    UnsupportedDpEvent,
    ZCDpEvent,
)
from .dp_event_builder import DpEventBuilder  # noqa: F401
from .mechanism_calibration import (  # noqa: F401
    ExplicitBracketInterval,
    LowerEndpointAndGuess,
    calibrate_dp_mechanism,
)
from .privacy_accountant import (  # noqa: F401
    NeighboringRelation,
    PrivacyAccountant,
    UnsupportedEventError,
)
