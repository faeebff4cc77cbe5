"""dp_accounting's accountant interface (``dp_accounting.privacy_accountant``):
NeighboringRelation, UnsupportedEventError and the PrivacyAccountant base
class whose compose() checks an event before recording it."""

from __future__ import annotations

import abc
import dataclasses
import enum
from typing import Any, Optional

from . import dp_event, dp_event_builder

__all__ = ["NeighboringRelation", "PrivacyAccountant", "UnsupportedEventError"]


class NeighboringRelation(enum.Enum):
    """Which datasets are neighbours."""

    ADD_OR_REMOVE_ONE = 1
    REPLACE_ONE = 2
    #: A record replaced by a special one (e.g. the zero record).
    REPLACE_SPECIAL = 3


class UnsupportedEventError(Exception):
    """compose() was given an event the accountant cannot analyse."""


class PrivacyAccountant(metaclass=abc.ABCMeta):
    """Base of the accountants: compose events, then ask for epsilon or delta."""

    @dataclasses.dataclass(frozen=True)
    class CompositionErrorDetails:
        """The sub-event an accountant cannot analyse and why."""

        invalid_event: Optional[dp_event.DpEvent]
        error_message: Optional[str]

    def __init__(self, neighboring_relation: NeighboringRelation) -> None:
        self._neighboring_relation = neighboring_relation
        self._ledger = dp_event_builder.DpEventBuilder()

    @property
    def neighboring_relation(self) -> NeighboringRelation:
        """The neighbouring relation the accountant was built for."""
        return self._neighboring_relation

    def supports(self, event: dp_event.DpEvent) -> bool:
        """Whether compose() would accept ``event``."""
        return self._maybe_compose(event, 0, False) is None

    @abc.abstractmethod
    def _maybe_compose(
        self, event: dp_event.DpEvent, count: int, do_compose: bool
    ) -> Optional["PrivacyAccountant.CompositionErrorDetails"]:
        """Checks ``event`` (and records ``count`` runs of it if do_compose);
        None on success, otherwise the offending sub-event and the reason."""

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> Any:
        """Records ``count`` runs of ``event`` and returns the accountant.
        UnsupportedEventError (naming the offending sub-event) if it cannot."""
        if not isinstance(event, dp_event.DpEvent):
            raise TypeError(f"`event` must be `DpEvent`. Found {type(event)}.")
        error = self._maybe_compose(event, count, False)
        if error is not None:
            raise UnsupportedEventError(
                f"Unsupported event: {event}. Error: [{error.error_message}] "
                f"caused by subevent {error.invalid_event}."
            )
        self._maybe_compose(event, count, True)
        self._ledger.compose(event, count)
        return self

    @property
    def ledger(self) -> dp_event.DpEvent:
        """Everything composed so far, as one event."""
        return self._ledger.build()

    @abc.abstractmethod
    def get_epsilon(self, target_delta: float) -> float:
        """The epsilon of everything composed, at ``target_delta``."""

    def get_delta(self, target_epsilon: float) -> float:
        """The delta of everything composed, at ``target_epsilon``
        (NotImplementedError unless the accountant provides it)."""
        raise NotImplementedError()
