"""Live video: snapshots smoothed over time, with how stable the table state is.

Each frame's snapshot feeds `TableTracker` (a card flickering in one frame does not
change the state; the state is stable after it holds `hold_seconds`). `LiveTable`
reports a `LiveState`: the latest snapshot (melds, hands, verdicts), the smoothed cards,
and the stability; `changed_and_stable` is what a watcher prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .arrays import Frame
from .smoothing import SmoothedState, TableTracker
from .snapshot import TableSnapshot

__all__ = ["LiveState", "LiveTable"]


@dataclass(frozen=True, slots=True)
class LiveState:
    snapshot: TableSnapshot
    smoothed: SmoothedState
    changed_and_stable: bool
    """True once per new stable state: the set of cards changed and has now held."""


@dataclass
class LiveTable:
    """Feed frames with timestamps (seconds); `pipeline` maps a frame to a snapshot."""

    pipeline: Callable[[Frame], TableSnapshot]
    tracker: TableTracker = field(default_factory=TableTracker)
    _reported: tuple[str, ...] | None = None

    def update(self, frame: Frame, timestamp: float) -> LiveState:
        snapshot = self.pipeline(frame)
        return self.observe(snapshot, timestamp)

    def observe(self, snapshot: TableSnapshot, timestamp: float) -> LiveState:
        smoothed = self.tracker.update(snapshot.cards, timestamp)
        signature = tuple(smoothed.names)
        fresh = smoothed.stable and signature != self._reported
        if fresh:
            self._reported = signature
        return LiveState(snapshot, smoothed, fresh)
