"""dp_accounting's ``DpEventBuilder``: accumulates events into one."""

from __future__ import annotations

from . import dp_event

__all__ = ["DpEventBuilder"]


class DpEventBuilder:
    """Collects (event, count) pairs; build() returns their composition
    (NoOpDpEvent when empty, the event itself when there is one)."""

    def __init__(self) -> None:
        self._parts: list = []

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> None:
        """Adds ``count`` runs of ``event``; TypeError unless it is a DpEvent,
        ValueError unless count >= 1."""
        if not isinstance(event, dp_event.DpEvent):
            raise TypeError(f"`event` must be a DpEvent, not {type(event).__name__}")
        if not isinstance(count, int) or count < 1:
            raise ValueError(f"count must be a positive integer, not {count!r}")
        if isinstance(event, dp_event.NoOpDpEvent):
            return
        if self._parts and self._parts[-1][0] == event:
            self._parts[-1] = (event, self._parts[-1][1] + count)
        else:
            self._parts.append((event, count))

    def build(self) -> dp_event.DpEvent:
        """The composition of everything added."""
        events = [e if n == 1 else dp_event.SelfComposedDpEvent(e, n) for e, n in self._parts]
        if not events:
            return dp_event.NoOpDpEvent()
        if len(events) == 1:
            return events[0]
        return dp_event.ComposedDpEvent(events)
