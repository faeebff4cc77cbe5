"""dp_accounting's PLD accountant (``dp_accounting.pld.pld_privacy_accountant``)
over privet's (privet.accounting.PldAccountant: privacy loss distributions on
a grid, composed by FFT, every approximation pessimistic)."""

from __future__ import annotations

import math
import numbers
from typing import Optional, Union

import numpy as np

from privet import accounting as _acc
from .._native import NativeAccountant
from ..privacy_accountant import NeighboringRelation

__all__ = ["NeighborRel", "PLDAccountant"]

NeighborRel = NeighboringRelation


class PLDAccountant(NativeAccountant):
    """PLD accounting with grid step ``value_discretization_interval``
    (default 1e-4, as dp_accounting's)."""

    _kind = "pld"

    def __init__(
        self,
        neighboring_relation: NeighboringRelation = NeighborRel.ADD_OR_REMOVE_ONE,
        value_discretization_interval: float = 1e-4,
    ) -> None:
        native = _acc.PldAccountant(value_discretization_interval=value_discretization_interval)
        super().__init__(neighboring_relation, native)

    @property
    def _contains_non_dp_event(self) -> bool:
        """Whether a non-private event was composed (dp_accounting's attribute,
        read by its tests)."""
        return self._non_private

    def _epsilon_at_zero_delta(self) -> float:
        # The smallest epsilon whose delta is exactly 0: finite only when the
        # composition has no mass at +infinity (pure DP, truncation aside).
        hi = 1.0
        while self._native.get_delta(hi) > 0:
            hi *= 2
            if hi > 1e6:
                return math.inf
        lo = 0.0
        for _ in range(100):
            mid = (lo + hi) / 2
            if not lo < mid < hi:
                break
            if self._native.get_delta(mid) > 0:
                lo = mid
            else:
                hi = mid
        return hi

    def get_true_positive_rates(
        self,
        false_positive_rates: Union[float, np.ndarray],
        deltas: Optional[np.ndarray] = None,
    ) -> Union[float, np.ndarray]:
        """An upper bound on the true positive rate of any membership test at
        each false positive rate: the smallest, over the (epsilon, delta)
        pairs of ``deltas`` (default: 0 and 3,000 log-spaced from 1e-13 to
        1), of min(e^eps fpr + delta, 1 - e^-eps (1 - fpr - delta)), with
        privet's certified epsilons (one sweep of the PLD in C++)."""
        scalar = isinstance(false_positive_rates, numbers.Number)
        rates = np.atleast_1d(np.asarray(false_positive_rates, dtype=float))
        if self._non_private:
            out = np.ones_like(rates)
        else:
            d = None if deltas is None else np.asarray(deltas, dtype=float).ravel().tolist()
            out = np.asarray(
                self._native.true_positive_rates(rates.ravel().tolist(), d), dtype=float
            ).reshape(rates.shape)
        return float(out[0]) if scalar else out

    def get_gdp_parameter_estimate(
        self,
        false_positive_rates: Optional[np.ndarray] = None,
        deltas: Optional[np.ndarray] = None,
    ) -> float:
        """An estimate (neither an upper nor a lower bound) of the mu-GDP
        parameter: the largest Phi^-1(TPR) - Phi^-1(fpr) over the rates
        (default: 500 log-spaced from 1e-12 to 1/2) that are at most 1/2 and
        above the composed PLD's mass at +infinity. privet's mass at
        +infinity holds its certified round-off and truncation allowances
        (1e-11 to 1e-9), so rates at or below it are skipped, where
        dp_accounting answers inf as soon as its mass exceeds the smallest
        rate."""
        if self._non_private:
            return math.inf
        f = None
        if false_positive_rates is not None:
            f = np.asarray(false_positive_rates, dtype=float).ravel().tolist()
        d = None if deltas is None else np.asarray(deltas, dtype=float).ravel().tolist()
        return float(self._native.gdp_parameter_estimate(f, d))
