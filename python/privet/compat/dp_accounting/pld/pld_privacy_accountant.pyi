"""Types of privet.compat.dp_accounting.pld.pld_privacy_accountant."""

from typing import Optional, Union

import numpy as np

from ..privacy_accountant import NeighboringRelation, PrivacyAccountant

NeighborRel = NeighboringRelation

class PLDAccountant(PrivacyAccountant):
    def __init__(
        self,
        neighboring_relation: NeighboringRelation = ...,
        value_discretization_interval: float = 1e-4,
    ) -> None: ...
    def get_epsilon(self, target_delta: float) -> float: ...
    def get_delta(self, target_epsilon: float) -> float: ...
    def get_true_positive_rates(
        self, false_positive_rates: Union[float, np.ndarray], deltas: Optional[np.ndarray] = None
    ) -> Union[float, np.ndarray]: ...
    def get_gdp_parameter_estimate(
        self, false_positive_rates: Optional[np.ndarray] = None, deltas: Optional[np.ndarray] = None
    ) -> float: ...
