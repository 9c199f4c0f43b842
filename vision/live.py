"""Live video: snapshots smoothed over time, with how stable the table state is.

Each frame's snapshot feeds `TableTracker` (a card flickering in one frame does not
change the state; the state is stable after it holds `hold_seconds`). `LiveTable`
reports a `LiveState`: the latest snapshot (melds, hands, verdicts), the smoothed cards,
and the stability; `changed_and_stable` is what a watcher prints.

With a `motion.MotionGate` (what `shanghai watch` uses), the models run only where the
table changed: a frame like the last one read keeps its reads (no model runs); a frame
in motion (a hand over the table) keeps the last cards and does not feed the tracker, so
the cards under the hand stay; once the change has held still, that frame is read and
the state follows it. A pipeline that reads with the scan contract passes `reread` on
to `PhotoScanner.scan`, which then locates only the part of the frame the gate saw
change (`regions.reread`): the change shows quickly; once the table has held still for
`refresh_after` seconds more, it is read whole once. Without a gate, every frame is read
(`every_frame`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .arrays import BoolArray, Frame
from .motion import Look, MotionGate
from .regions import Reread
from .smoothing import SmoothedState, TableTracker
from .snapshot import TableSnapshot

__all__ = ["LiveState", "LiveTable", "settled_tracker"]

NOTHING_YET = SmoothedState((), changed=False, stable=False, stable_for=0.0, stability=0.0)


def settled_tracker(hold: float) -> TableTracker:
    """The tracker behind a change gate: each read is of a picture that held still, a
    fresh account of the table (`LiveTable` drops the tracks at each read), so one read
    puts a card on the table or takes it off (`min_hits`, `leave_after` 1); the state is
    stable once its cards have held `hold` seconds."""
    return TableTracker(min_hits=1, leave_after=1, hold_seconds=hold)


@dataclass(frozen=True, slots=True)
class LiveState:
    snapshot: TableSnapshot
    """The cards of the last frame read (with a gate: possibly an earlier frame of the
    same still picture)."""
    smoothed: SmoothedState
    changed_and_stable: bool
    """True once per new stable state: the set of cards changed and has now held."""
    look: Look = Look.SETTLED
    """What the gate made of the frame (`settled`: it was read)."""
    read_frame: int = 0
    """Number (from 1) of the frame `snapshot` was read from."""


@dataclass
class LiveTable:
    """Feed frames with timestamps (seconds); `pipeline` maps a frame to a snapshot.
    `gate`: read only settled changes (see the module doc); None reads every frame."""

    pipeline: Callable[[Frame], TableSnapshot]
    tracker: TableTracker = field(default_factory=TableTracker)
    gate: MotionGate | None = None
    reads: int = 0
    """Frames read by `pipeline` so far (the models' calls)."""
    reread: Reread = field(default_factory=Reread)
    """Where the gate saw the frame to read change (for `PhotoScanner.scan(reread=)`)."""
    refresh_after: float = 1.0
    """Seconds a table must hold still after a read of a part before it is read whole
    once: a part's read is quick, but the rest keeps the older reads, and the locator's
    reads of a card can change with a change elsewhere in the frame (it looks at the
    whole frame), so without it the stable state drifted from a still scan's (4-9 of 20
    cards on the live benchmark's busy table, against 5 between two still scans)."""
    _refresh_at: float | None = None
    frames: int = 0
    _reported: tuple[str, ...] | None = None
    _last: TableSnapshot | None = None
    _last_frame: int = 0
    _smoothed: SmoothedState | None = None

    @classmethod
    def every_frame(cls, pipeline: Callable[[Frame], TableSnapshot], hold: float) -> LiveTable:
        return cls(pipeline, TableTracker(hold_seconds=hold))

    @classmethod
    def gated(
        cls,
        pipeline: Callable[[Frame], TableSnapshot],
        hold: float,
        settle: float = 0.2,
        reread: Reread | None = None,
    ) -> LiveTable:
        """Reads only settled changes (`motion.MotionGate` with `settle` seconds);
        `reread`: the memory `pipeline` passes to `PhotoScanner.scan`."""
        gate = MotionGate(settle_seconds=settle)
        return cls(pipeline, settled_tracker(hold), gate, reread=reread or Reread())

    def update(self, frame: Frame, timestamp: float) -> LiveState:
        self.frames += 1
        verdict = None if self.gate is None else self.gate.look(frame, timestamp)
        look = Look.SETTLED if verdict is None else verdict.look
        if look is Look.SETTLED:
            return self._read(frame, timestamp, None if verdict is None else verdict.changed_cells)
        if look is Look.STILL and self._refresh_at is not None and timestamp >= self._refresh_at:
            return self._read(frame, timestamp, None)  # the whole table, once, after a part
        if self._last is None:  # nothing read yet: no cards, and nothing stable
            return LiveState(_empty(frame), NOTHING_YET, False, look, 0)
        if look is Look.MOVING and self._smoothed is not None:
            return self._state(self._last, self._smoothed, look)
        return self._observe(self._last, timestamp, look)

    def _read(self, frame: Frame, timestamp: float, changed: BoolArray | None) -> LiveState:
        """Read `frame` (only where `changed`, when the pipeline reads by parts), and
        make it the state; a read of a part is followed by a whole read `refresh_after`
        seconds later if the table holds still."""
        self.reread.changed = changed
        snapshot = self.pipeline(frame)
        self.reads += 1
        if self.gate is not None:
            self.tracker.forget_tracks()
            self.gate.accept()
        self._last, self._last_frame = snapshot, self.frames
        regional = self.reread.region is not None and changed is not None
        self._refresh_at = timestamp + self.refresh_after if regional else None
        return self._observe(snapshot, timestamp, Look.SETTLED)

    @property
    def last(self) -> TableSnapshot | None:
        """The snapshot of the last frame read (None before the first)."""
        return self._last

    def observe(self, snapshot: TableSnapshot, timestamp: float) -> LiveState:
        """Feed a snapshot read elsewhere (the server's scans)."""
        self.frames += 1
        self._last, self._last_frame = snapshot, self.frames
        return self._observe(snapshot, timestamp, Look.SETTLED)

    def _observe(self, snapshot: TableSnapshot, timestamp: float, look: Look) -> LiveState:
        smoothed = self.tracker.update(snapshot.cards, timestamp)
        self._smoothed = smoothed
        return self._state(snapshot, smoothed, look)

    def _state(self, snapshot: TableSnapshot, smoothed: SmoothedState, look: Look) -> LiveState:
        signature = tuple(smoothed.names)
        fresh = smoothed.stable and signature != self._reported
        if fresh:
            self._reported = signature
        return LiveState(snapshot, smoothed, fresh, look, self._last_frame)


def _empty(frame: Frame) -> TableSnapshot:
    return TableSnapshot(int(frame.shape[1]), int(frame.shape[0]), (), ())
