"""Types of privet.compat.dp_accounting.privacy_accountant."""

import abc
import enum
from typing import Optional, TypeVar

from .dp_event import DpEvent

_A = TypeVar("_A", bound="PrivacyAccountant")

class NeighboringRelation(enum.Enum):
    ADD_OR_REMOVE_ONE = 1
    REPLACE_ONE = 2
    REPLACE_SPECIAL = 3

class UnsupportedEventError(Exception): ...

class PrivacyAccountant(metaclass=abc.ABCMeta):
    class CompositionErrorDetails:
        invalid_event: Optional[DpEvent]
        error_message: Optional[str]
        def __init__(self, invalid_event: Optional[DpEvent], error_message: Optional[str]) -> None: ...
    def __init__(self, neighboring_relation: NeighboringRelation) -> None: ...
    @property
    def neighboring_relation(self) -> NeighboringRelation: ...
    def supports(self, event: DpEvent) -> bool: ...
    def compose(self: _A, event: DpEvent, count: int = 1) -> _A: ...
    @property
    def ledger(self) -> DpEvent: ...
    @abc.abstractmethod
    def get_epsilon(self, target_delta: float) -> float: ...
    def get_delta(self, target_epsilon: float) -> float: ...
