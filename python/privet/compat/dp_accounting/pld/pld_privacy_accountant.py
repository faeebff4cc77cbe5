"""dp_accounting's PLD accountant (``dp_accounting.pld.pld_privacy_accountant``)
over privet's (privet.accounting.PldAccountant: privacy loss distributions on
a grid, composed by FFT, every approximation pessimistic)."""

from __future__ import annotations

import math

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
