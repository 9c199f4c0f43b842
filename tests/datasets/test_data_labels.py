"""Labels follow the pixels: hidden, half-hidden and out-of-frame indices are handled as
docs/datasets.md specifies, and every labelled index shows its card's ink."""

from __future__ import annotations

import numpy as np
import pytest

from shanghai.datasets.camera import Camera, sample_camera
from shanghai.datasets.decks import code_looks
from shanghai.datasets.labels import (
    CARD_VISIBLE_MIN,
    CardLabel,
    measure_labels,
    visible_fraction,
    yolo_lines,
)
from shanghai.datasets.layouts import Layout, Placement, TableDecks, sample_layout
from shanghai.datasets.scene import Rendered, render_scene
from shanghai.engine.cards import Card

LOOK = code_looks()[0]  # code-classic
CAMERA = Camera(
    width=640,
    height=480,
    focal_px=600.0,
    tilt_deg=0.0,
    yaw_deg=0.0,
    distance_mm=700.0,
    target_mm=(0.0, 0.0),
)


def _card(text: str, x: float, y: float, angle: float = 0.0) -> Placement:
    return Placement(
        card=Card.parse(text),
        look=LOOK,
        face_up=True,
        x_mm=x,
        y_mm=y,
        angle_deg=angle,
        zone="loose",
    )


def _render(*placements: Placement, camera: Camera = CAMERA) -> Rendered:
    layout = Layout(placements=list(placements))
    return render_scene(
        layout, camera, "plain", np.random.default_rng(0), effects=False, jpeg_quality=95
    )


def _grey(image: np.ndarray, quad: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """Grey levels in the quad's box (only where `keep`, a frame-sized bool mask, holds)."""
    h, w = image.shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int), 0, [w, h])
    grey = image[y0:y1, x0:x1].astype(np.float64).mean(axis=2)
    return grey if keep is None else grey[keep[y0:y1, x0:x1]]


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel() - a.mean(), b.ravel() - b.mean()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9))


def _by_card(labels: list[CardLabel], text: str) -> CardLabel:
    return next(label for label in labels if str(label.placement.card) == text)


def test_visible_fraction_counts_cover_and_frame_edge() -> None:
    mask = np.zeros((100, 100), np.int32)
    mask[20:60, 20:60] = 7
    square = np.array([[20, 20], [60, 20], [60, 60], [20, 60]], np.float64)
    assert visible_fraction(square, mask, 7) == pytest.approx(1.0, abs=0.06)
    mask[20:60, 40:60] = 9  # another card covers the right half
    assert visible_fraction(square, mask, 7) == pytest.approx(0.5, abs=0.06)
    off_frame = square + np.array([70.0, 0.0])  # x from 90 to 130: three quarters outside
    mask[:, :] = 7
    assert visible_fraction(off_frame, mask, 7) == pytest.approx(0.25, abs=0.06)


@pytest.mark.parametrize(("rows", "boxed"), [(6, True), (1, False)])
def test_a_card_showing_only_an_edge_is_a_card_a_hairline_is_not(rows: int, boxed: bool) -> None:
    """A card under another in a loose pile showing a tenth of itself is labelled a card
    (so the locator learns to find it and the scan can say a card was not read); an edge
    of one pixel row in sixty is not."""
    quad = np.array([[20, 20], [60, 20], [60, 80], [20, 80]], np.float64)  # 40 x 60 px
    mask = np.zeros((100, 100), np.int32)
    mask[20:80, 20:60] = 2  # the top card covers the one under it ...
    mask[20 : 20 + rows, 20:60] = 1  # ... all but its top `rows` rows
    placements = [_card("7h", 0, 0), _card("Kc", 0, 0)]
    labels = measure_labels(
        placements, [quad, quad], [[], []], mask, np.zeros((100, 100, 3), np.uint8)
    )
    under = _by_card(labels, "7h")
    assert under.visible == pytest.approx(rows / 60, abs=0.02)
    assert (under.visible >= CARD_VISIBLE_MIN) is boxed
    if boxed:
        assert under.box_xyxy == (20, 20, 60, 20 + rows)
    else:
        assert under.box_xyxy is None
    assert _by_card(labels, "Kc").box_xyxy == (20, 20 + rows, 60, 80)


def test_an_index_under_another_card_is_hidden_and_not_labelled() -> None:
    # B covers A's top-left index (about 30-21 mm left and 43-23 mm above A's centre).
    rendered = _render(_card("7h", 0, 0), _card("Kc", -45, -62))
    labels = rendered.labels()
    a, b = _by_card(labels, "7h"), _by_card(labels, "Kc")
    assert [ix.state for ix in a.indices] == ["hidden", "visible"]
    assert [ix.state for ix in b.indices] == ["visible", "visible"]
    lines = yolo_lines(labels, 640, 480)
    assert sum(line.startswith("1 ") for line in lines) == 3
    assert sum(line.startswith("0 ") for line in lines) == 2
    # The pixels agree: the hidden index does not look like A's index drawn alone.
    alone = _render(_card("7h", 0, 0))
    hidden, shown = a.indices
    assert _correlation(_grey(rendered.image, hidden.quad), _grey(alone.image, hidden.quad)) < 0.5
    assert _correlation(_grey(rendered.image, shown.quad), _grey(alone.image, shown.quad)) > 0.95


def test_a_half_covered_index_is_partial_and_not_labelled() -> None:
    rendered = _render(_card("7h", 0, 0), _card("Kc", -57.5, -62))
    a = _by_card(rendered.labels(), "7h")
    top = a.indices[0]
    assert top.state == "partial"
    assert 0.25 <= top.visible < 0.75
    assert sum(line.startswith("1 ") for line in yolo_lines(rendered.labels(), 640, 480)) == 3


def test_an_index_outside_the_frame_is_not_visible() -> None:
    # A card centred 10 px inside the top-right corner: its first index lies beyond the
    # right edge, its second inside the frame.
    point = np.linalg.inv(CAMERA.homography) @ np.array([CAMERA.width - 10.0, 20.0, 1.0])
    x, y = point[:2] / point[2]
    rendered = _render(_card("Qs", x, y))
    (label,) = rendered.labels()
    assert label.indices[0].state == "hidden"
    assert label.indices[1].state == "visible"
    assert label.box_xyxy is not None
    assert label.box_xyxy[1] == 0 and label.box_xyxy[2] == CAMERA.width


def test_a_tile_edge_hides_an_index_like_the_frame_edge() -> None:
    rendered = _render(_card("9d", 0, 0))
    full = rendered.labels()[0]
    assert [ix.state for ix in full.indices] == ["visible", "visible"]
    first, second = full.indices[0].quad, full.indices[1].quad
    assert first[:, 1].max() < second[:, 1].min()  # the first index lies above the second
    top = int(first[:, 1].min()) + 3
    cut = rendered.labels((0, top, 640, 480))[0]  # the tile starts inside the first index
    assert cut.indices[0].state in ("partial", "hidden")
    assert cut.indices[1].state == "visible"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_labelled_index_shows_its_cards_ink(seed: int) -> None:
    """Random tables: each index labelled visible looks like that card drawn alone, on
    the pixels the mask gives to that card (up to a quarter may lie under others)."""
    rng = np.random.default_rng(seed)
    decks = TableDecks(rng, [LOOK, code_looks()[2]], copies=2)
    layout = sample_layout(rng, decks)
    layout.clutter.clear()
    camera = sample_camera(rng, (800, 600), layout.focus_mm[0], card_px=(120, 300))
    rendered = render_scene(layout, camera, "felt", rng, effects=False, jpeg_quality=95)
    checked = 0
    for label in rendered.labels():
        for ix in label.indices:
            if ix.state != "visible":
                continue
            alone = render_scene(
                Layout(placements=[label.placement]),
                camera,
                "felt",
                np.random.default_rng(0),
                effects=False,
                jpeg_quality=95,
            )
            own = rendered.mask == label.ident
            score = _correlation(
                _grey(rendered.image, ix.quad, own), _grey(alone.image, ix.quad, own)
            )
            assert score > 0.8, f"{label.placement.card}: index labelled visible but r={score:.2f}"
            checked += 1
    assert checked >= 2
