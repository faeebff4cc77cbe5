"""Type stub for privet.accounting (privet._privet.accounting + accounting.py)."""

import enum
from typing import Callable, List, Optional, Sequence, Tuple, Union, overload

from .mechanisms import PureDpWithinTv as PureDpWithinTv
from .mechanisms import ZcdpWithinTv as ZcdpWithinTv

class AccountantKind(enum.Enum):
    """Which accountant answers or certifies."""

    RDP: int
    PLD: int
    PRV: int

class Discretization(enum.Enum):
    """How a continuous privacy loss is put on the PLD's grid."""

    ROUND_UP: int
    CONNECT_DOTS: int

def default_rdp_orders() -> List[float]:
    """privet's default Renyi orders: 1.1 to 10.9 by 0.1, 11 to 63, 128, 256, 512, 1024."""

class _EventBase:
    def describe(self) -> str:
        """The event's kind and parameters."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class GaussianEvent(_EventBase):
    """Gaussian noise of standard deviation noise_multiplier times the L2 sensitivity."""

    def __init__(self, noise_multiplier: float) -> None: ...
    @property
    def noise_multiplier(self) -> float: ...

class LaplaceEvent(_EventBase):
    """Laplace noise of scale `scale` times the L1 sensitivity ((1 / scale)-DP)."""

    def __init__(self, scale: float) -> None: ...
    @property
    def scale(self) -> float: ...

class DiscreteGaussianEvent(_EventBase):
    """Discrete Gaussian noise on an integer query of L2 sensitivity `sensitivity`."""

    def __init__(self, sigma: float, sensitivity: int = 1) -> None: ...
    @property
    def sigma(self) -> float: ...
    @property
    def sensitivity(self) -> int: ...

class DiscreteLaplaceEvent(_EventBase):
    """Discrete Laplace noise, P[x] ~ exp(-|x| / scale), on an integer query."""

    def __init__(self, scale: float, sensitivity: int = 1) -> None: ...
    @property
    def scale(self) -> float: ...
    @property
    def sensitivity(self) -> int: ...

class RandomizedResponseEvent(_EventBase):
    """k-ary randomised response with pure-DP epsilon."""

    def __init__(self, epsilon: float, k: int = 2) -> None: ...
    @property
    def epsilon(self) -> float: ...
    @property
    def k(self) -> int: ...

class SubsampledGaussianEvent(_EventBase):
    """One DP-SGD step: a Gaussian on a Poisson sample with rate q (add/remove)."""

    def __init__(self, q: float, noise_multiplier: float) -> None: ...
    @property
    def q(self) -> float: ...
    @property
    def noise_multiplier(self) -> float: ...

class RandomizedResponseSpecialEvent(_EventBase):
    """k-ary randomised response under replace-special neighbours (the special
    record reports uniformly), with its own RDP curve and PLD (both orders)."""

    def __init__(self, epsilon: float, k: int = 2) -> None: ...
    @property
    def epsilon(self) -> float: ...
    @property
    def k(self) -> int: ...

class BoundedRangeEvent(_EventBase):
    """An eps-bounded-range mechanism (e.g. the exponential mechanism): RDP
    curve min(eps, kl + (alpha - 1) eps^2 / 8) (Cesar & Rogers 2021); PLD as eps-DP."""

    def __init__(self, epsilon: float) -> None: ...
    @property
    def epsilon(self) -> float: ...

class TreeAggregationEvent(_EventBase):
    """One epoch of tree aggregation (DP-FTRL, Kairouz et al. 2021), replace-special
    neighbours: the Gaussian curve alpha depth / (2 sigma^2); RDP accountant only."""

    def __init__(self, noise_multiplier: float, step_counts: Sequence[int]) -> None: ...
    @property
    def noise_multiplier(self) -> float: ...
    @property
    def step_counts(self) -> List[int]: ...

class FixedSizeSubsampledGaussianEvent(_EventBase):
    """One DP-SGD step on a fixed-size batch without replacement (replace-one; RDP only)."""

    def __init__(self, sampling_fraction: float, noise_multiplier: float) -> None: ...
    @property
    def sampling_fraction(self) -> float: ...
    @property
    def noise_multiplier(self) -> float: ...

class SubsampledLaplaceEvent(_EventBase):
    """Laplace noise (scale times the L1 sensitivity) on a Poisson sample with
    rate q, add/remove neighbours (exact PLD; RDP by its pure DP)."""

    def __init__(self, q: float, scale: float) -> None: ...
    @property
    def q(self) -> float: ...
    @property
    def scale(self) -> float: ...

class SubsampledGaussianReplaceOneEvent(_EventBase):
    """Gaussian noise on a Poisson sample with rate q, replace-one neighbours
    (exact PLD; RDP by the Gaussian at sensitivity 2)."""

    def __init__(self, q: float, noise_multiplier: float) -> None: ...
    @property
    def q(self) -> float: ...
    @property
    def noise_multiplier(self) -> float: ...

class MixtureOfGaussiansEvent(_EventBase):
    """Gaussian noise (standard deviation sigma) on a query whose sensitivity
    is sensitivities[i] with probability probs[i], add/remove neighbours
    (MMCC; exact PLD; RDP by the largest sensitivity)."""

    def __init__(self, sigma: float, sensitivities: Sequence[float], probs: Sequence[float]) -> None: ...
    @property
    def sigma(self) -> float: ...
    @property
    def sensitivities(self) -> List[float]: ...
    @property
    def probs(self) -> List[float]: ...

class TruncatedSubsampledGaussianEvent(_EventBase):
    """dp_accounting's truncated Poisson-subsampled Gaussian: n records each
    sampled with probability q, batches cut to ``batch`` records."""

    def __init__(
        self, n: int, q: float, batch: int, noise_multiplier: float, replace_one: bool = False
    ) -> None: ...
    @property
    def n(self) -> int: ...
    @property
    def q(self) -> float: ...
    @property
    def batch(self) -> int: ...
    @property
    def noise_multiplier(self) -> float: ...
    @property
    def replace_one(self) -> bool: ...

class PureDp(_EventBase):
    """An eps-DP release."""

    def __init__(self, epsilon: float) -> None: ...
    @property
    def epsilon(self) -> float: ...

class ApproxDp(_EventBase):
    """An (eps, delta)-DP release; also what reports return."""

    def __init__(self, epsilon: float, delta: float) -> None: ...
    @property
    def epsilon(self) -> float: ...
    @property
    def delta(self) -> float: ...

class Zcdp(_EventBase):
    """A rho-zCDP release (no PLD)."""

    def __init__(self, rho: float) -> None: ...
    @property
    def rho(self) -> float: ...

class Gdp(_EventBase):
    """A mu-GDP release."""

    def __init__(self, mu: float) -> None: ...
    @property
    def mu(self) -> float: ...

class RdpCurve:
    """A release known by its RDP curve (RDP accountant only, on its orders)."""

    def __init__(self, orders: Sequence[float], epsilons: Sequence[float]) -> None: ...
    @property
    def orders(self) -> List[float]: ...
    @property
    def epsilons(self) -> List[float]: ...
    def describe(self) -> str: ...
    def epsilon(self, delta: float) -> Tuple[float, float]:
        """(epsilon, order) by the improved conversion."""
    def delta(self, epsilon: float) -> Tuple[float, float]:
        """(delta, order) by the improved conversion, capped at 1."""

_LeafEvent = Union[
    GaussianEvent,
    LaplaceEvent,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    RandomizedResponseEvent,
    RandomizedResponseSpecialEvent,
    BoundedRangeEvent,
    TreeAggregationEvent,
    SubsampledGaussianEvent,
    FixedSizeSubsampledGaussianEvent,
    SubsampledLaplaceEvent,
    SubsampledGaussianReplaceOneEvent,
    MixtureOfGaussiansEvent,
    TruncatedSubsampledGaussianEvent,
    PureDp,
    ApproxDp,
    Zcdp,
    Gdp,
    RdpCurve,
    PureDpWithinTv,
    ZcdpWithinTv,
]
_AnyEvent = Union[_LeafEvent, "SelfComposedEvent", "ComposedEvent"]

class SelfComposedEvent:
    """`count` runs of one event."""

    def __init__(self, event: _AnyEvent, count: int) -> None: ...
    @property
    def event(self) -> _AnyEvent: ...
    @property
    def count(self) -> int: ...

class ComposedEvent:
    """Each event in turn."""

    def __init__(self, events: Sequence[_AnyEvent]) -> None: ...
    @property
    def events(self) -> List[_AnyEvent]: ...

Event: Tuple[type, ...]

def flatten(event: _AnyEvent, count: int = 1) -> List[Tuple[_LeafEvent, int]]:
    """The leaves of a (possibly composite) event as (event, total count)."""

def rdp_curve(event: _AnyEvent, orders: Sequence[float], count: int = 1) -> RdpCurve:
    """The RDP curve of `count` runs of the event on `orders` (>= 1, inf allowed);
    an ApproxDp contributes its eps part only; a within-TV guarantee has none."""

@overload
def compose_basic(parts: Sequence[ApproxDp]) -> ApproxDp:
    """Basic composition: epsilons and deltas add, rounded up."""

@overload
def compose_basic(parts: Sequence[PureDpWithinTv]) -> PureDpWithinTv:
    """Basic composition: epsilons add and so do the total variations."""

@overload
def compose_zcdp(parts: Sequence[Zcdp]) -> Zcdp:
    """zCDP composition: the rhos add, rounded up."""

@overload
def compose_zcdp(parts: Sequence[ZcdpWithinTv]) -> ZcdpWithinTv:
    """zCDP composition: the rhos add and so do the total variations."""

def repeat_and_select(curve: RdpCurve, mean: float, shape: float) -> RdpCurve:
    """The curve of repeating a mechanism a random number of times (mean >= 1;
    shape inf: Poisson, 0: logarithmic, 1: geometric, else truncated negative
    binomial) and releasing the best run (Papernot & Steinke 2022)."""

def truncated_negative_binomial_mean(gamma: float, shape: float) -> float:
    """The mean of the truncated negative binomial (gamma in (0, 1], shape >= 0)."""

def truncated_negative_binomial_gamma(shape: float, mean: float) -> float:
    """Its gamma for a mean >= 1, rounded down."""

class PrvBounds:
    """lower <= the true value <= upper; estimate has no guarantee."""

    @property
    def lower(self) -> float: ...
    @property
    def estimate(self) -> float: ...
    @property
    def upper(self) -> float: ...

class _Accountant:
    """One accountant over a privacy odometer."""

    def __init__(
        self,
        kind: AccountantKind,
        *,
        orders: Optional[Sequence[float]] = None,
        value_discretization_interval: float = 1e-4,
        tail_mass_truncation: float = 1e-15,
        discretization: Discretization = Discretization.CONNECT_DOTS,
        eps_error: float = 0.01,
        delta_error: Optional[float] = None,
    ) -> None: ...
    def compose(self, event: _AnyEvent, count: int = 1) -> "_Accountant":
        """Records `count` runs (atomic); InvalidParameter with the reason if unsupported."""
    def supports(self, event: _AnyEvent) -> bool:
        """Whether compose() takes the event."""
    def unsupported_reason(self, event: _AnyEvent) -> Optional[str]:
        """Why compose() would refuse the event, or None."""
    def get_epsilon(self, delta: float) -> float:
        """The smallest certified epsilon at delta in (0, 1)."""
    def get_delta(self, epsilon: float) -> float:
        """The smallest certified delta at epsilon >= 0."""
    def get_epsilon_bounds(self, delta: float) -> PrvBounds:
        """PRV accountant only: bounds on epsilon."""
    def get_delta_bounds(self, epsilon: float) -> PrvBounds:
        """PRV accountant only: bounds on delta."""
    def true_positive_rates(
        self, false_positive_rates: Sequence[float], deltas: Optional[Sequence[float]] = None
    ) -> List[float]:
        """PLD accountant only: an upper bound on the true positive rate of any
        membership test at each false positive rate, the smallest over the
        (epsilon, delta) pairs of ``deltas`` (default: 0 and 3,000 log-spaced
        from 1e-13 to 1)."""
    def gdp_parameter_estimate(
        self,
        false_positive_rates: Optional[Sequence[float]] = None,
        deltas: Optional[Sequence[float]] = None,
    ) -> float:
        """PLD accountant only: an estimate (no bound either way) of mu-GDP's mu,
        over the rates above the PLD's mass at +infinity and at most 1/2."""
    @property
    def kind(self) -> AccountantKind: ...
    @property
    def orders(self) -> List[float]: ...
    @property
    def rdp(self) -> List[float]: ...
    @property
    def entries(self) -> List[Tuple[str, int]]: ...
    @property
    def releases(self) -> int: ...
    @property
    def total_variation(self) -> float: ...

class RdpAccountant(_Accountant):
    """The RDP accountant."""

    def __init__(self, orders: Optional[Sequence[float]] = None) -> None: ...

class PldAccountant(_Accountant):
    """The PLD accountant."""

    def __init__(
        self,
        value_discretization_interval: float = 1e-4,
        tail_mass_truncation: float = 1e-15,
        discretization: Discretization = Discretization.CONNECT_DOTS,
    ) -> None: ...

class PrvAccountant(_Accountant):
    """The PRV accountant."""

    def __init__(self, eps_error: float = 0.01, delta_error: Optional[float] = None) -> None: ...

class OdometerReport:
    """What the odometer can justify for one delta."""

    @property
    def rdp(self) -> Optional[ApproxDp]: ...
    @property
    def pld(self) -> Optional[ApproxDp]: ...
    @property
    def prv(self) -> Optional[ApproxDp]: ...
    @property
    def tightest(self) -> ApproxDp: ...
    @property
    def method(self) -> AccountantKind: ...
    @property
    def pld_unavailable(self) -> str: ...
    @property
    def prv_unavailable(self) -> str: ...
    @property
    def rdp_unavailable(self) -> str: ...

class Odometer:
    """A privacy odometer over events of mixed kinds."""

    def __init__(
        self,
        *,
        orders: Optional[Sequence[float]] = None,
        pld: bool = True,
        prv: bool = False,
        value_discretization_interval: float = 1e-4,
        tail_mass_truncation: float = 1e-15,
        discretization: Discretization = Discretization.CONNECT_DOTS,
        eps_error: float = 0.01,
        delta_error: Optional[float] = None,
    ) -> None: ...
    def record(self, event: _AnyEvent, count: int = 1) -> "Odometer": ...
    def report(self, delta: float) -> OdometerReport: ...
    def get_epsilon(self, delta: float) -> float: ...
    def get_delta(self, epsilon: float) -> float: ...
    @property
    def entries(self) -> List[Tuple[str, int]]: ...
    @property
    def releases(self) -> int: ...
    @property
    def total_variation(self) -> float: ...
    @property
    def rdp(self) -> List[float]: ...
    @property
    def orders(self) -> List[float]: ...

def dpsgd_noise_multiplier(
    q: float,
    steps: int,
    epsilon: float,
    delta: float,
    *,
    accountant: Union[str, AccountantKind] = "pld",
    orders: Optional[Sequence[float]] = None,
    value_discretization_interval: float = 1e-4,
    tail_mass_truncation: float = 1e-15,
    discretization: Discretization = Discretization.CONNECT_DOTS,
    eps_error: float = 0.01,
    delta_error: Optional[float] = None,
    relative_tolerance: float = 1e-6,
    coarsen_above: float = 10.0,
) -> float:
    """The smallest DP-SGD noise multiplier meeting (epsilon, delta)."""

def smallest_noise_multiplier(
    make_event: Callable[[float], _AnyEvent],
    count: int,
    epsilon: float,
    delta: float,
    *,
    accountant: Union[str, AccountantKind] = "pld",
    orders: Optional[Sequence[float]] = None,
    value_discretization_interval: float = 1e-4,
    tail_mass_truncation: float = 1e-15,
    discretization: Discretization = Discretization.CONNECT_DOTS,
    eps_error: float = 0.01,
    delta_error: Optional[float] = None,
    relative_tolerance: float = 1e-6,
    coarsen_above: float = 10.0,
) -> float:
    """The smallest sigma such that count runs of make_event(sigma) meet (epsilon, delta)."""
