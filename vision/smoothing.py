"""Temporal smoothing for live video: a card that flickers in one frame does not change
the table state.

Each physical card seen is followed as a track (matched frame to frame by position).
A track counts as present once it has been seen in `min_hits` of the last `window`
frames and stays present until it has been missed in `leave_after` frames in a row
(default: `window`), so random missed detections never remove a card; its identity is the
confidence-weighted vote of its recent readings, so one misread frame cannot flip
`7h` to `7d`. The table state is "stable" once the set of present cards has not
changed for `hold_seconds`; `stability` says how far along that is (0..1).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from shanghai.engine.cards import Card

from .snapshot import SeenCard

__all__ = ["SmoothedState", "TableTracker"]


@dataclass
class _Track:
    ident: int
    last: SeenCard
    seen: deque[bool]
    votes: deque[tuple[Card, float]]
    present: bool = False

    def identity(self) -> tuple[Card, float]:
        """Confidence-weighted vote over recent readings; returns (name, mean share)."""
        weights: dict[Card, float] = {}
        for name, confidence in self.votes:
            weights[name] = weights.get(name, 0.0) + confidence
        name, weight = max(weights.items(), key=lambda item: item[1])
        total = sum(weights.values()) or 1.0
        return name, weight / total


@dataclass(frozen=True, slots=True)
class SmoothedState:
    cards: tuple[SeenCard, ...]
    """The cards present: each the last sighting of its track, with the voted face,
    that face's mean confidence and the track's `track_id`."""
    changed: bool
    stable: bool
    stable_for: float
    stability: float
    """0..1: the share of `hold_seconds` the current card set has held."""

    @property
    def names(self) -> list[str]:
        return sorted(str(c.card) for c in self.cards)


@dataclass
class TableTracker:
    """Feed it each frame's observations with a timestamp (seconds); read the state."""

    window: int = 5
    min_hits: int = 3
    hold_seconds: float = 1.0
    leave_after: int | None = None
    """Consecutive misses that remove a present card (default: `window`)."""
    match_distance: float = 0.6
    """Largest centre distance for a match, as a fraction of the card's box size."""
    _tracks: list[_Track] = field(default_factory=list)
    _next_id: int = 0
    _signature: tuple[str, ...] = ()
    _since: float | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.min_hits <= self.window:
            raise ValueError("need 1 <= min_hits <= window")
        if self.leave_after is None:
            self.leave_after = self.window
        if not 1 <= self.leave_after <= self.window:
            raise ValueError("need 1 <= leave_after <= window")
        if self.hold_seconds < 0:
            raise ValueError("hold_seconds must be >= 0")

    def update(self, observations: Sequence[SeenCard], timestamp: float) -> SmoothedState:
        matched = self._match(observations)
        for track in self._tracks:
            obs = matched.get(track.ident)
            track.seen.append(obs is not None)
            if obs is not None:
                track.last = obs
                track.votes.append((obs.card, obs.confidence))
            if not track.present and sum(track.seen) >= self.min_hits:
                track.present = True
            elif track.present and self._missed_in_a_row(track):
                track.present = False
        self._tracks = [t for t in self._tracks if t.present or any(t.seen)]
        return self._state(timestamp)

    def forget_tracks(self) -> None:
        """Drop every track (the next update starts them afresh) but keep the state's
        signature and since when, so the same cards seen again stay stable. Behind a
        change gate each read is of a still picture, a fresh account of the table."""
        self._tracks = []

    def _missed_in_a_row(self, track: _Track) -> bool:
        assert self.leave_after is not None
        recent = list(track.seen)[-self.leave_after :]
        return len(recent) == self.leave_after and not any(recent)

    def _match(self, observations: Sequence[SeenCard]) -> dict[int, SeenCard]:
        """Greedy nearest matching; a reading with the track's current name wins ties."""
        pairs: list[tuple[float, int, int]] = []
        for oi, obs in enumerate(observations):
            ox, oy = obs.center
            for ti, track in enumerate(self._tracks):
                tx, ty = track.last.center
                distance = float(np.hypot(ox - tx, oy - ty)) / max(obs.size, 1.0)
                if distance <= self.match_distance:
                    penalty = 0.0 if obs.card == track.identity()[0] else 0.25
                    pairs.append((distance + penalty, oi, ti))
        pairs.sort()
        used_obs: set[int] = set()
        used_tracks: set[int] = set()
        out: dict[int, SeenCard] = {}
        for _, oi, ti in pairs:
            if oi in used_obs or ti in used_tracks:
                continue
            used_obs.add(oi)
            used_tracks.add(ti)
            out[self._tracks[ti].ident] = observations[oi]
        for oi, obs in enumerate(observations):
            if oi not in used_obs:
                track = _Track(
                    self._next_id, obs, deque(maxlen=self.window), deque(maxlen=self.window)
                )
                self._next_id += 1
                self._tracks.append(track)
                out[track.ident] = obs
        return out

    def _state(self, timestamp: float) -> SmoothedState:
        cards = []
        for track in self._tracks:
            if not track.present:
                continue
            name, _ = track.identity()
            confidence = float(np.mean([c for n, c in track.votes if n == name]))
            cards.append(
                replace(track.last, card=name, confidence=confidence, track_id=track.ident)
            )
        cards.sort(key=lambda c: (c.xyxy[1], c.xyxy[0]))
        signature = tuple(sorted(str(c.card) for c in cards))
        changed = signature != self._signature or self._since is None
        if changed:
            self._signature = signature
            self._since = timestamp
        assert self._since is not None
        held = timestamp - self._since
        stability = 1.0 if self.hold_seconds == 0 else min(1.0, held / self.hold_seconds)
        return SmoothedState(tuple(cards), changed, held >= self.hold_seconds, held, stability)
