"""Privacy accounting: events, the RDP, PLD and PRV accountants, the odometer
and noise calibration, from privet's C++ headers (privet/accounting/*.hpp).

An event describes a release (the noise and how it was applied); an
accountant composes events and converts the composition to (epsilon, delta)::

    from privet import accounting as acc
    a = acc.PldAccountant()
    a.compose(acc.SubsampledGaussianEvent(q=0.01, noise_multiplier=1.1), 10_000)
    a.get_epsilon(1e-5)          # 5.1927...

Every accountant is pessimistic: the epsilon (or delta) it reports is never
below the true one. An answer an accountant cannot give (an event it has no
representation for, a delta at or below what its truncation leaves at
+infinity) raises ``privet.InvalidParameter`` with privet's reason; nothing is
silently replaced by another accountant's answer. Long calls release the GIL.

What the mechanisms report with constant-time noise (their default),
:class:`PureDpWithinTv` and :class:`ZcdpWithinTv`, are events like the
others: every accountant and the odometer compose the exact base and keep
the total variation beside it (``total_variation``), and ``get_epsilon`` /
``get_delta`` hold for the runs made, with (1 + e^eps) times that distance
within delta (privet/accounting/odometer.hpp). ``compose_basic`` and
``compose_zcdp`` compose guarantees directly: bases by their rule, distances
added.
"""

from __future__ import annotations

from typing import Optional, Sequence

from ._privet import InvalidParameter  # noqa: F401  (documented here)
from ._privet.accounting import (  # noqa: F401
    AccountantKind,
    ApproxDp,
    ComposedEvent,
    Discretization,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    FixedSizeSubsampledGaussianEvent,
    GaussianEvent,
    Gdp,
    LaplaceEvent,
    MixtureOfGaussiansEvent,
    Odometer,
    OdometerReport,
    PrvBounds,
    PureDp,
    RandomizedResponseEvent,
    RandomizedResponseSpecialEvent,
    BoundedRangeEvent,
    TreeAggregationEvent,
    RdpCurve,
    SelfComposedEvent,
    SubsampledGaussianEvent,
    SubsampledGaussianReplaceOneEvent,
    SubsampledLaplaceEvent,
    TruncatedSubsampledGaussianEvent,
    Zcdp,
    _Accountant,
    compose_basic,
    compose_zcdp,
    default_rdp_orders,
    dpsgd_noise_multiplier,
    flatten,
    rdp_curve,
    repeat_and_select,
    smallest_noise_multiplier,
    truncated_negative_binomial_gamma,
    truncated_negative_binomial_mean,
)
from ._privet.mechanisms import PureDpWithinTv, ZcdpWithinTv  # noqa: F401  (the same classes)

__all__ = [
    "AccountantKind",
    "ApproxDp",
    "BoundedRangeEvent",
    "ComposedEvent",
    "Discretization",
    "DiscreteGaussianEvent",
    "DiscreteLaplaceEvent",
    "Event",
    "FixedSizeSubsampledGaussianEvent",
    "GaussianEvent",
    "Gdp",
    "LaplaceEvent",
    "MixtureOfGaussiansEvent",
    "Odometer",
    "OdometerReport",
    "PldAccountant",
    "PrvAccountant",
    "PrvBounds",
    "PureDp",
    "PureDpWithinTv",
    "RandomizedResponseEvent",
    "RandomizedResponseSpecialEvent",
    "RdpAccountant",
    "RdpCurve",
    "SelfComposedEvent",
    "SubsampledGaussianEvent",
    "TreeAggregationEvent",
    "SubsampledGaussianReplaceOneEvent",
    "SubsampledLaplaceEvent",
    "TruncatedSubsampledGaussianEvent",
    "Zcdp",
    "ZcdpWithinTv",
    "compose_basic",
    "compose_zcdp",
    "default_rdp_orders",
    "dpsgd_noise_multiplier",
    "flatten",
    "rdp_curve",
    "repeat_and_select",
    "smallest_noise_multiplier",
    "truncated_negative_binomial_gamma",
    "truncated_negative_binomial_mean",
]

#: Every class compose() and record() accept.
Event = (
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
    PureDpWithinTv,
    ZcdpWithinTv,
    RdpCurve,
    SelfComposedEvent,
    ComposedEvent,
)


class RdpAccountant(_Accountant):
    """The RDP accountant (privet/accounting/rdp_accountant.hpp): each event's
    Renyi DP curve on fixed orders, added, and converted to (epsilon, delta)
    by the improved conversion (Balle et al. 2020). (epsilon, delta) events
    with delta > 0 have no curve and join by basic composition."""

    def __init__(self, orders: Optional[Sequence[float]] = None) -> None:
        """An empty accountant on ``orders`` (default: default_rdp_orders());
        InvalidParameter unless they are >= 1 (+inf allowed) and increasing."""
        super().__init__(AccountantKind.RDP, orders=None if orders is None else list(orders))


class PldAccountant(_Accountant):
    """The PLD accountant (privet/accounting/pld.hpp): privacy loss
    distributions on a grid of step ``value_discretization_interval``,
    composed by FFT with every approximation pessimistic. zCDP events and
    fixed-size samples have no PLD here (use RdpAccountant)."""

    def __init__(
        self,
        value_discretization_interval: float = 1e-4,
        tail_mass_truncation: float = 1e-15,
        discretization: Discretization = Discretization.CONNECT_DOTS,
    ) -> None:
        """An empty accountant with this grid (defaults: dp_accounting's)."""
        super().__init__(
            AccountantKind.PLD,
            value_discretization_interval=value_discretization_interval,
            tail_mass_truncation=tail_mass_truncation,
            discretization=discretization,
        )


class PrvAccountant(_Accountant):
    """The PRV accountant (Gopi, Lee & Wutschitz 2021; privet/accounting/prv.hpp):
    get_epsilon / get_delta return the certified upper bound;
    get_epsilon_bounds / get_delta_bounds give (lower, estimate, upper)."""

    def __init__(self, eps_error: float = 0.01, delta_error: Optional[float] = None) -> None:
        """An empty accountant with this accuracy (delta_error unset: delta / 1000
        per query, 1e-10 for get_delta)."""
        super().__init__(AccountantKind.PRV, eps_error=eps_error, delta_error=delta_error)
