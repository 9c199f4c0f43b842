"""Temporal smoothing: flicker does not change the state; stability needs time."""

from __future__ import annotations

import random

import pytest

from shanghai.engine.cards import Card
from shanghai.vision.smoothing import TableTracker
from shanghai.vision.snapshot import SeenCard


def obs(card: str, x: float, y: float, confidence: float = 0.9) -> SeenCard:
    return SeenCard(Card.parse(card), confidence, (x, y, x + 40, y + 60))


TABLE = [obs("7h", 100, 100), obs("7s", 160, 100), obs("7c", 220, 100)]


def run(tracker: TableTracker, frames: list[list[SeenCard]], fps: float = 10.0):
    states = []
    for i, frame in enumerate(frames):
        states.append(tracker.update(frame, i / fps))
    return states


def test_cards_appear_only_after_min_hits() -> None:
    tracker = TableTracker(window=5, min_hits=3, hold_seconds=0.5)
    states = run(tracker, [TABLE] * 3)
    assert states[0].names == [] and states[1].names == []
    assert states[2].names == ["7c", "7h", "7s"]


def test_a_card_missing_for_one_frame_does_not_leave() -> None:
    tracker = TableTracker(window=5, min_hits=3, hold_seconds=0.5)
    frames = [TABLE] * 6 + [TABLE[:2]] + [TABLE] * 3
    states = run(tracker, frames)
    assert all(s.names == ["7c", "7h", "7s"] for s in states[2:])


def test_a_misread_frame_does_not_flip_identity() -> None:
    tracker = TableTracker(window=5, min_hits=3, hold_seconds=0.5)
    misread = [obs("7h", 100, 100), obs("7s", 160, 100), obs("7d", 221, 101, 0.6)]
    states = run(tracker, [TABLE] * 5 + [misread] + [TABLE] * 3)
    assert all(s.names == ["7c", "7h", "7s"] for s in states[2:])


def test_a_removed_card_leaves_after_enough_misses() -> None:
    tracker = TableTracker(window=5, min_hits=3, hold_seconds=0.5)
    states = run(tracker, [TABLE] * 5 + [TABLE[:2]] * 5)
    assert states[-1].names == ["7h", "7s"]
    assert states[5].names == ["7c", "7h", "7s"]  # not removed on the first miss


def test_two_identical_cards_are_two_tracks() -> None:
    tracker = TableTracker(window=3, min_hits=2, hold_seconds=0.1)
    frame = [obs("7h", 100, 100), obs("7h", 400, 100)]
    states = run(tracker, [frame] * 3)
    assert states[-1].names == ["7h", "7h"]


def test_stability_grows_and_resets_on_change() -> None:
    tracker = TableTracker(window=3, min_hits=2, hold_seconds=1.0)
    states = run(tracker, [TABLE] * 15, fps=10)
    assert not states[2].stable and states[2].stability < 0.2
    assert states[13].stable and states[13].stability == 1.0
    new = tracker.update([*TABLE, obs("8d", 300, 300)], 1.5)
    new = tracker.update([*TABLE, obs("8d", 300, 300)], 1.6)
    assert new.names == ["7c", "7h", "7s", "8d"]
    assert new.changed or not new.stable
    assert new.stability < 0.2


def test_noisy_stream_converges_to_the_truth() -> None:
    rng = random.Random(3)
    tracker = TableTracker(window=7, min_hits=4, hold_seconds=0.5)
    last = None
    for i in range(80):
        frame = []
        for o in TABLE:
            if rng.random() < 0.2:
                continue  # missed detection
            name = str(o.card) if rng.random() > 0.15 else "7d"  # misread
            x, y = o.xyxy[0] + rng.uniform(-3, 3), o.xyxy[1] + rng.uniform(-3, 3)
            frame.append(obs(name, x, y, rng.uniform(0.5, 0.95)))
        last = tracker.update(frame, i / 15)
    assert last is not None and last.names == ["7c", "7h", "7s"] and last.stable


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        TableTracker(window=2, min_hits=3)
