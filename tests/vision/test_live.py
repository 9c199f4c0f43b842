"""Live video through the change gate: still frames run no model, a hand passing over
keeps the cards under it, a swapped card's label follows, and the change shows soon after
the table settles. The models are a stand-in that names a card by its colour."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from shanghai.datasets.decks import code_looks, face_of
from shanghai.engine.cards import Card
from shanghai.vision.live import LiveTable, settled_tracker
from shanghai.vision.motion import Look, MotionGate
from shanghai.vision.snapshot import SeenCard, TableSnapshot

FPS = 30.0
SLOTS = [(200, 200, 300, 340), (400, 200, 500, 340), (600, 200, 700, 340)]
COLOURS = {"7h": (40, 40, 220), "Qs": (220, 60, 40), "Kd": (40, 220, 230)}
FELT = (50, 110, 45)
NOISE = [np.random.default_rng(k).normal(0, 3, (720, 1280, 3)).astype(np.int16) for k in range(4)]
"""Sensor noise (sigma 3 levels), drawn once."""


class ColourReader:
    """Stands in for the models: a slot whose middle shows a card colour holds that card."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, frame: np.ndarray) -> TableSnapshot:  # type: ignore[type-arg]
        self.calls += 1
        cards = []
        for x0, y0, x1, y1 in SLOTS:
            middle = frame[y0 + 40 : y1 - 40, x0 + 30 : x1 - 30].reshape(-1, 3).mean(axis=0)
            for name, colour in COLOURS.items():
                if np.abs(middle - colour).max() < 30:
                    box = (float(x0), float(y0), float(x1), float(y1))
                    cards.append(SeenCard(Card.parse(name), 0.9, box))
        return TableSnapshot(frame.shape[1], frame.shape[0], tuple(cards), ())


def table(cards: list[str | None], rng: np.random.Generator, hand_x: float | None = None):  # type: ignore[no-untyped-def]
    """A 1280x720 frame: `cards` in `SLOTS`, sensor noise, and a hand whose middle is
    at `hand_x` (pixels) when given."""
    image = np.empty((720, 1280, 3), np.uint8)
    image[:] = FELT
    for name, (x0, y0, x1, y1) in zip(cards, SLOTS, strict=False):
        if name is not None:
            image[y0:y1, x0:x1] = COLOURS[name]
    if hand_x is not None:
        x = int(hand_x)
        image[150:720, max(0, x - 90) : max(0, x + 90)] = (120, 160, 210)
    noise = NOISE[int(rng.integers(len(NOISE)))]
    noisy = image.astype(np.int16) + noise
    return np.clip(noisy, 0, 255).astype(np.uint8)


def run(live: LiveTable, frames: list[np.ndarray]) -> list:  # type: ignore[type-arg]
    return [live.update(frame, k / FPS) for k, frame in enumerate(frames)]


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def gated(reader: ColourReader) -> LiveTable:
    return LiveTable.gated(reader, hold=0.0)  # as `watch` reads


def test_a_still_table_is_read_once(rng: np.random.Generator) -> None:
    reader = ColourReader()
    live = gated(reader)
    states = run(live, [table(["7h", "Qs"], rng) for _ in range(60)])
    assert reader.calls == 1
    assert states[-1].smoothed.stable and states[-1].smoothed.names == ["7h", "Qs"]
    assert sum(s.changed_and_stable for s in states) == 1
    assert states[-1].look is Look.STILL
    assert states[-1].read_frame == 1  # the first frame is read at once


def test_every_frame_reads_every_frame(rng: np.random.Generator) -> None:
    reader = ColourReader()
    run(LiveTable.every_frame(reader, 0.1), [table(["7h"], rng) for _ in range(10)])
    assert reader.calls == 10


def test_a_hand_passing_keeps_the_cards_and_a_swapped_card_follows(
    rng: np.random.Generator,
) -> None:
    """One second still, a hand sweeps over in half a second swapping Qs for Kd and
    laying 7h in the third slot, then the table holds still."""
    reader = ColourReader()
    live = gated(reader)
    frames = [table(["7h", "Qs"], rng) for _ in range(30)]
    sweep = 15
    for k in range(sweep):
        after = k >= sweep // 2
        cards: list[str | None] = ["7h", "Kd", "7h"] if after else ["7h", "Qs"]
        frames.append(table(cards, rng, hand_x=100 + k * 900 / (sweep - 1)))
    settled_at = len(frames)
    frames += [table(["7h", "Kd", "7h"], rng) for _ in range(45)]
    states = run(live, frames)
    moving = states[30 : 30 + sweep]
    assert all(s.look is Look.MOVING for s in moving)
    assert all(s.smoothed.names == ["7h", "Qs"] for s in moving)  # the hand hid nothing
    assert states[-1].smoothed.names == ["7h", "7h", "Kd"]
    assert [c.card for c in states[-1].snapshot.cards] == [
        Card.parse(c) for c in ("7h", "Kd", "7h")
    ]
    shown = next(
        k
        for k, s in enumerate(states)
        if k >= settled_at and s.smoothed.names == ["7h", "7h", "Kd"] and s.smoothed.stable
    )
    assert (shown - settled_at) / FPS <= 0.7
    assert reader.calls <= 3  # the first table, the settled change (and perhaps one more)
    printed = [s.smoothed.names for s in states if s.changed_and_stable]
    assert printed == [["7h", "Qs"], ["7h", "7h", "Kd"]]


def test_a_hand_long_after_the_last_read_is_still_waited_out(
    rng: np.random.Generator,
) -> None:
    """Four seconds still (longer than the gate's patience), then a hand passes."""
    reader = ColourReader()
    live = gated(reader)
    frames = [table(["7h", "Qs"], rng) for _ in range(120)]
    frames += [table(["7h", "Qs"], rng, hand_x=100 + k * 60) for k in range(15)]
    frames += [table(["7h", "Qs"], rng) for _ in range(15)]
    states = run(live, frames)
    assert reader.calls == 1
    assert all(s.smoothed.names == ["7h", "Qs"] for s in states[1:])


def test_a_shaking_camera_is_not_a_change(rng: np.random.Generator) -> None:
    reader = ColourReader()
    live = gated(reader)
    frames = [np.roll(table(["7h", "Qs"], rng), k % 3, axis=1) for k in range(45)]
    run(live, frames)
    assert reader.calls == 1


def printed_table(names: list[str]) -> np.ndarray:  # type: ignore[type-arg]
    """A 1280x720 frame of real card faces (the generator's first drawn deck) in `SLOTS`."""
    look = code_looks()[0]
    image = np.empty((720, 1280, 3), np.uint8)
    image[:] = FELT
    for (x0, y0, x1, y1), name in zip(SLOTS, names, strict=True):
        rgba = cv2.resize(face_of(look, Card.parse(name)).rgba, (x1 - x0, y1 - y0))
        image[y0:y1, x0:x1] = cv2.cvtColor(rgba[..., :3], cv2.COLOR_RGB2BGR)
    return image


def test_printed_cards_under_a_hand_held_phone_are_not_a_change(
    rng: np.random.Generator,
) -> None:
    """Real faces (fine print, which aliases when shrunk) moved by up to 1.5 pixels each
    frame: the first frame is read and no other, until a card is swapped."""
    before, after = printed_table(["Kc", "Qh", "7s"]), printed_table(["Jd", "Qh", "7s"])
    reader = ColourReader()
    live = gated(reader)
    frames = []
    for k in range(60):
        dx, dy = rng.uniform(-1.5, 1.5, 2)
        move = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        image = before if k < 45 else after
        shaken = cv2.warpAffine(image, move, (1280, 720), borderMode=cv2.BORDER_REPLICATE)
        frames.append(cv2.imdecode(cv2.imencode(".jpg", shaken)[1], cv2.IMREAD_COLOR))
    states = run(live, frames)
    assert reader.calls == 2
    assert [s.look for s in states[45:]].count(Look.SETTLED) == 1


def test_exposure_drift_is_not_a_change(rng: np.random.Generator) -> None:
    reader = ColourReader()
    live = gated(reader)
    frames = []
    for k in range(45):
        image = table(["7h", "Qs"], rng).astype(np.float32) * (1 + 0.004 * k)
        frames.append(np.clip(image, 0, 255).astype(np.uint8))
    run(live, frames)
    assert reader.calls == 1


def test_a_picture_that_never_holds_still_is_read_now_and_then(
    rng: np.random.Generator,
) -> None:
    reader = ColourReader()
    live = LiveTable(reader, settled_tracker(0.0), MotionGate(patience=1.0))
    # The table alone, then a hand waving over it for 2.5 s. (A frame that shows the
    # hand back within a pixel or two of where it was read is the picture read: still.)
    frames = [table(["7h"], rng)]
    frames += [table(["7h"], rng, hand_x=900 + 200 * np.sin(k)) for k in range(1, 75)]
    run(live, frames)
    assert 2 <= reader.calls <= 3


def test_gate_checks_its_settings() -> None:
    with pytest.raises(ValueError):
        MotionGate(threshold=0)


def test_a_lay_down_replaced_after_six_seconds_is_followed(rng: np.random.Generator) -> None:
    """Issue 19: `watch --json` kept the first table to the end of such a video."""
    reader = ColourReader()
    live = gated(reader)
    frames = [table(["7h", "Qs"], rng) for _ in range(180)]
    frames += [table(["Kd", None, "Kd"], rng) for _ in range(180)]
    states = run(live, frames)
    printed = [(k / FPS, s.smoothed.names) for k, s in enumerate(states) if s.changed_and_stable]
    assert [names for _, names in printed] == [["7h", "Qs"], ["Kd", "Kd"]]
    assert printed[1][0] - 6.0 <= 0.7
    assert reader.calls == 2
