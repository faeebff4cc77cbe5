"""Types of privet.compat.dp_accounting.rdp.rdp_privacy_accountant."""

from typing import Optional, Sequence, Tuple

from ..privacy_accountant import NeighboringRelation, PrivacyAccountant

NeighborRel = NeighboringRelation

class RdpAccountant(PrivacyAccountant):
    def __init__(
        self,
        orders: Optional[Sequence[float]] = None,
        neighboring_relation: NeighboringRelation = ...,
    ) -> None: ...
    def get_epsilon(self, target_delta: float) -> float: ...
    def get_delta(self, target_epsilon: float) -> float: ...

def compute_epsilon(orders: Sequence[float], rdp: Sequence[float], delta: float) -> Tuple[float, float]: ...
def compute_delta(orders: Sequence[float], rdp: Sequence[float], epsilon: float) -> Tuple[float, float]: ...
