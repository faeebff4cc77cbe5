"""dp_accounting's RDP accountant (``dp_accounting.rdp.rdp_privacy_accountant``)
over privet's (privet.accounting.RdpAccountant: curves on fixed orders, the
improved (epsilon, delta) conversion of Balle et al. 2020)."""

from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import numpy as np

from privet import accounting as _acc
from .._native import NativeAccountant
from ..privacy_accountant import NeighboringRelation

__all__ = ["NeighborRel", "RdpAccountant", "compute_delta", "compute_epsilon"]

NeighborRel = NeighboringRelation


class RdpAccountant(NativeAccountant):
    """Renyi DP accounting on ``orders`` (default: privet's, which are
    dp_accounting's: 1.1 to 10.9 by 0.1, 11 to 63, 128, 256, 512, 1024, plus
    1.01, 1.02 and 1.05). Orders must be >= 1 (1: the KL divergence; inf:
    the max divergence) in any order, repeats allowed, as in dp_accounting
    (privet.InvalidParameter otherwise)."""

    _kind = "rdp"

    def __init__(
        self,
        orders: Optional[Sequence[float]] = None,
        neighboring_relation: NeighboringRelation = NeighborRel.ADD_OR_REMOVE_ONE,
    ) -> None:
        # dp_accounting takes the orders in any order and with repeats;
        # privet's accountant runs on them sorted and distinct, and _orders /
        # _rdp are reported in the caller's order.
        user = None if orders is None else [float(a) for a in orders]
        distinct = None if user is None else sorted(set(user))
        native = _acc.RdpAccountant(distinct)
        super().__init__(neighboring_relation, native)
        self._user_orders = np.asarray(native.orders if user is None else user)
        self._index = np.searchsorted(np.asarray(native.orders), self._user_orders)

    @property
    def _orders(self) -> np.ndarray:
        return self._user_orders.copy()

    @property
    def _rdp(self) -> np.ndarray:
        if self._non_private:
            return np.full(len(self._user_orders), np.inf)
        return np.asarray(self._native.rdp)[self._index]

    @property
    def _extra_delta(self) -> float:
        """The probability that some EpsilonDeltaDpEvent revealed its input,
        1 - prod (1 - delta_i)^count_i (dp_accounting's attribute)."""
        return -math.expm1(self._log_keep)

    def get_epsilon(self, target_delta: float) -> float:
        """The epsilon privet certifies at ``target_delta``; inf when the
        EpsilonDeltaDpEvents' deltas alone reach it (as dp_accounting)."""
        if 0 < target_delta < 1 and not self._non_private and target_delta <= self._extra_delta:
            return math.inf
        return super().get_epsilon(target_delta)

    def _epsilon_at_zero_delta(self) -> float:
        return 0.0 if not np.any(self._rdp) else float("inf")


def compute_epsilon(
    orders: Sequence[float], rdp: Sequence[float], delta: float
) -> Tuple[float, float]:
    """(epsilon, optimal order) for ``delta`` from an RDP curve, by privet's
    improved conversion (Balle et al. 2020). delta 0 gives +inf unless the
    curve is 0 everywhere; delta >= 1 gives 0. Orders must be >= 1 (inf
    allowed) and increasing (privet.InvalidParameter otherwise)."""
    curve = _acc.RdpCurve([float(a) for a in orders], [float(e) for e in rdp])
    if delta >= 1:
        return 0.0, curve.orders[0]
    if delta <= 0:
        if delta < 0:
            raise ValueError(f"delta must be >= 0, not {delta}")
        return (0.0 if not any(curve.epsilons) else float("inf")), curve.orders[0]
    return curve.epsilon(delta)


def compute_delta(
    orders: Sequence[float], rdp: Sequence[float], epsilon: float
) -> Tuple[float, float]:
    """(delta, optimal order) at ``epsilon`` >= 0 from an RDP curve, by privet's
    improved conversion, capped at 1."""
    curve = _acc.RdpCurve([float(a) for a in orders], [float(e) for e in rdp])
    return curve.delta(epsilon)


def _truncated_negative_binomial_mean(gamma: float, shape: float) -> float:
    """dp_accounting's private helper, here privet's
    privet.accounting.truncated_negative_binomial_mean (Papernot & Steinke
    2022, Definition 1)."""
    return _acc.truncated_negative_binomial_mean(float(gamma), float(shape))


def _gamma_truncated_negative_binomial(shape: float, mean: float) -> float:
    """dp_accounting's private helper, here privet's
    privet.accounting.truncated_negative_binomial_gamma (rounded down)."""
    return _acc.truncated_negative_binomial_gamma(float(shape), float(mean))


# ---- dp_accounting's private helpers, which its tests call directly ---------
# Each is answered by privet's accountant (the same certified curves as
# RdpAccountant's), not by a second implementation.


def _compute_rdp_poisson_subsampled_gaussian(
    q: float, noise_multiplier: float, orders: Sequence[float]
) -> np.ndarray:
    """The RDP curve, at ``orders``, of the Gaussian mechanism with
    ``noise_multiplier`` on a Poisson sample of rate ``q`` (add/remove)."""
    from .. import dp_event as _ev

    orders = np.atleast_1d(np.asarray(orders, dtype=float))
    if q == 0:
        return np.zeros(len(orders))
    accountant = RdpAccountant(orders)
    accountant.compose(_ev.PoissonSampledDpEvent(q, _ev.GaussianDpEvent(noise_multiplier)))
    return accountant._rdp


def _compute_log_a(q: float, sigma: float, alpha: float) -> float:
    """log A_alpha = (alpha - 1) RDP(alpha) of the Poisson-subsampled
    Gaussian (Mironov, Talwar & Zhang 2019's A)."""
    rdp = float(_compute_rdp_poisson_subsampled_gaussian(q, sigma, [alpha])[0])
    return (alpha - 1) * rdp


def _compute_log_a_int(q: float, sigma: float, alpha: int) -> float:
    """_compute_log_a at an integer order."""
    return _compute_log_a(q, sigma, float(alpha))


def _compute_log_a_frac(q: float, sigma: float, alpha: float) -> float:
    """_compute_log_a at a fractional order (privet's series bounds and adds
    its tail, so it never stops early)."""
    return _compute_log_a(q, sigma, float(alpha))


def _compute_randomized_response_rdp(
    noise_parameter: float,
    num_buckets: int,
    orders: Sequence[float],
    neighboring_relation: NeighboringRelation,
) -> np.ndarray:
    """The RDP curve of randomised response (with probability
    ``noise_parameter`` a uniform bucket of ``num_buckets``, else the true
    one) at ``orders`` > 1, under REPLACE_ONE or REPLACE_SPECIAL."""
    from .. import dp_event as _ev

    if not 0 <= noise_parameter <= 1:
        raise ValueError(f"noise_parameter must be in [0, 1], got {noise_parameter}.")
    if num_buckets < 1:
        raise ValueError(f"num_buckets must be >= 1, got {num_buckets}.")
    orders = np.atleast_1d(np.asarray(orders, dtype=float))
    if np.any(orders <= 1):
        raise ValueError(f"Renyi divergence order alpha must be > 1, got {orders}.")
    if noise_parameter == 1 or num_buckets == 1:
        return np.zeros(len(orders))
    if noise_parameter == 0:
        return np.full(len(orders), np.inf)
    accountant = RdpAccountant(orders, neighboring_relation)
    accountant.compose(_ev.RandomizedResponseDpEvent(noise_parameter, num_buckets))
    return accountant._rdp


def _effective_gaussian_noise_multiplier(event, accept_zcdp: bool = False):
    """The noise multiplier of the one Gaussian a composition of Gaussians
    equals, (sum sigma_i^-2)^(-1/2); with ``accept_zcdp``, a zCDP event
    rho (xi = 0) counts as sigma = (2 rho)^(-1/2). Anything else is returned
    as the offending sub-event, as in dp_accounting."""
    from .. import dp_event as _ev

    def precision(e):
        # sum sigma^-2, or the offending event.
        if isinstance(e, _ev.GaussianDpEvent):
            return e.noise_multiplier**-2 if e.noise_multiplier > 0 else math.inf
        if accept_zcdp and isinstance(e, _ev.ZCDpEvent) and e.xi == 0:
            return 2 * e.rho
        if isinstance(e, _ev.SelfComposedDpEvent):
            inner = precision(e.event)
            return inner * e.count if isinstance(inner, float) else inner
        if isinstance(e, _ev.ComposedDpEvent):
            total = 0.0
            for sub in e.events:
                p = precision(sub)
                if not isinstance(p, float):
                    return p
                total += p
            return total
        return e

    p = precision(event)
    if not isinstance(p, float):
        return p
    return p**-0.5 if p > 0 else math.inf
