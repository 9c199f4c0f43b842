"""The one overlay (`vision/overlay.py`) the CLI and the server draw over a photo."""

from __future__ import annotations

import numpy as np
from mini_table import MiniTable, TableReader

from shanghai.engine.variant_files import find_variant
from shanghai.vision.overlay import GREEN, ORANGE, RED, SnapshotOverlay
from shanghai.vision.scan import PhotoKind, PhotoScanner

RULES = find_variant("shanghai").rules(4)
FRAME = np.random.default_rng(5).integers(60, 120, (900, 1200, 3), dtype=np.uint8)


def snapshot(confidence: float = 0.9, unreadable: bool = False):  # type: ignore[no-untyped-def]
    table = MiniTable()
    table.row(["7h", "7s", "7c"], 400, 450, step=20)
    table.row(["9d", "9c"], 850, 450, step=20)  # two cards: not a legal set
    if unreadable:
        table.card("Kd", 600, 750, readable=False)
    reader = TableReader(table, confidence)
    return PhotoScanner(reader).scan(FRAME, rules=RULES, kind=PhotoKind.LAY_DOWN)


def edge_colour(image: np.ndarray, box: tuple[float, ...], scale: float = 1.0) -> tuple[int, ...]:  # type: ignore[type-arg]
    """The colour drawn on the middle of a box's bottom edge."""
    x1, _, x2, y2 = (round(v * scale) for v in box)
    return tuple(int(v) for v in image[y2, (x1 + x2) // 2])


def test_cards_take_their_melds_verdict() -> None:
    snap = snapshot()
    drawn = SnapshotOverlay(outlines=False).annotate(FRAME, snap)
    colours = {str(c.card): edge_colour(drawn, c.xyxy) for c in snap.cards}
    assert colours["7h"] == GREEN and colours["7s"] == GREEN
    assert colours["9d"] == RED and colours["9c"] == RED


def test_unsure_reads_and_unread_outlines_are_marked_to_check() -> None:
    snap = snapshot(confidence=0.5, unreadable=True)
    assert snap.unread and not any(c.sure for c in snap.cards)
    drawn = SnapshotOverlay(outlines=False).annotate(FRAME, snap)
    assert all(edge_colour(drawn, c.xyxy) == ORANGE for c in snap.cards)
    assert edge_colour(drawn, snap.unread[0]) == ORANGE


def test_a_large_photo_is_shrunk_and_the_caller_may_colour_the_cards() -> None:
    snap = snapshot()
    drawn = SnapshotOverlay(outlines=False, max_side=600).annotate(
        FRAME, snap, [RED] * len(snap.cards)
    )
    assert drawn.shape == (450, 600, 3)
    assert all(edge_colour(drawn, c.xyxy, 0.5) == RED for c in snap.cards)
    assert FRAME.shape == (900, 1200, 3)  # the photo itself is not drawn on
