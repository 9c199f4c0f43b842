"""The upright check (`vision.upright`): a Rook 6 or 9 read again on its index turned
upright by the card's pose, the `[upright]` settings, and a scan that splits the
reader's 6-or-9 doubt by it."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from mini_table import MiniTable, TableReader
from model_stand_ins import shipped_locator_and_reader, stand_in_files
from upright_marks import marked_frame

from shanghai.datasets.crops import write_upright_crops
from shanghai.datasets.sampling import sample_scene
from shanghai.datasets.splits import split_looks
from shanghai.engine.cards import Card
from shanghai.engine.variant_files import find_variant
from shanghai.vision import model_files
from shanghai.vision.arrays import Frame
from shanghai.vision.model_files import (
    ModelFiles,
    ModelMissingError,
    ModelSettingsError,
    write_settings,
)
from shanghai.vision.onnx_models import OnnxClassifier
from shanghai.vision.pipeline import models_installed
from shanghai.vision.scan import PhotoKind, PhotoScanner
from shanghai.vision.snapshot import SeenCard
from shanghai.vision.upright import (
    UPRIGHT_CLASSES,
    PairSplit,
    UprightCheck,
    index_up,
    split_pair,
    turned_card,
    upright_crop,
)

ROOK = find_variant("rook").rules(4)
needs_models = pytest.mark.skipif(not models_installed(), reason="card models not installed")


@pytest.mark.parametrize(
    ("name", "partner"),
    [("6R", "9R"), ("9G", "6G"), ("6Y", "9Y"), ("9B", "6B"), ("8R", None), ("6h", None)],
)
def test_only_a_rook_6_or_9_has_a_turned_partner(name: str, partner: str | None) -> None:
    found = turned_card(Card.parse(name))
    assert (None if found is None else str(found)) == partner


def test_two_views_that_agree_make_a_read_surer() -> None:
    turned, reading = split_pair(PairSplit(pair=0.98, reader=0.64, upright=0.995))
    assert not turned and 0.97 < reading <= 0.98
    # Both views for the partner: the card is its partner, as sure.
    turned, reading = split_pair(PairSplit(pair=1.0, reader=0.4, upright=0.01))
    assert turned and reading > 0.98


def test_a_plain_upright_view_outweighs_a_doubting_reader() -> None:
    turned, reading = split_pair(PairSplit(pair=1.0, reader=0.64, upright=0.002))
    assert turned and reading > 0.99
    # A sure reader outweighs an upright view that only leans the other way.
    turned, reading = split_pair(PairSplit(pair=0.9, reader=0.999, upright=0.3))
    assert not turned and 0.89 < reading <= 0.9


def test_two_plain_views_that_disagree_leave_the_read_at_half_the_pair() -> None:
    _, reading = split_pair(PairSplit(pair=1.0, reader=0.999, upright=0.001))
    assert reading == pytest.approx(0.5)


Box4 = tuple[float, float, float, float]


def _seen(index_xyxy: list[Box4], axis: tuple[float, float] | None = None) -> SeenCard:
    box = (100.0, 100.0, 163.0, 188.0)
    return SeenCard(Card.parse("6R"), 0.9, box, index_xyxy=tuple(index_xyxy), axis=axis)


def test_an_index_is_up_towards_its_own_corner() -> None:
    # An upright card 63 x 88 at (100, 100): its top-left index points up, the
    # bottom-right one (printed the other way up) down.
    top, bottom = (102.0, 103.0, 111.0, 123.0), (152.0, 165.0, 161.0, 185.0)
    card = _seen([top, bottom])
    assert np.allclose(index_up(card, 0), (0.0, -1.0), atol=0.15)
    assert np.allclose(index_up(card, 1), (0.0, 1.0), atol=0.15)
    # With a fitted axis, the axis says it exactly: down the card from a lone index.
    lone = _seen([top], axis=(0.0, 1.0))
    assert np.allclose(index_up(lone, 0), (0.0, -1.0))
    both = _seen([top, bottom], axis=(0.0, -1.0))
    assert np.allclose(index_up(both, 0), (0.0, -1.0))
    assert np.allclose(index_up(both, 1), (0.0, 1.0))
    # One index, no axis and no box of its own: nothing tells.
    assert index_up(SeenCard(Card.parse("6R"), 0.9, top, index_xyxy=(top,)), 0) is None


@pytest.mark.parametrize("angle", [0.0, 90.0, 145.0, 270.0])
def test_the_upright_crop_turns_up_to_the_top(angle: float) -> None:
    image = np.full((300, 300, 3), 230, np.uint8)
    a = math.radians(angle)
    up = np.array([math.sin(a), -math.cos(a)])  # (0, -1) turned `angle` clockwise
    mark = (150 + 40 * up[0], 150 + 40 * up[1])
    cv2.circle(image, (round(mark[0]), round(mark[1])), 8, (20, 20, 20), -1)
    crop = upright_crop(image, (150.0, 150.0), 120.0, up)
    dark = crop.mean(axis=2) < 100
    ys, xs = np.nonzero(dark)
    assert len(ys) and ys.mean() < 20 and abs(xs.mean() - 32) < 4


class TopMark:
    """Stands in for the upright classifier: a crop with a dark mark in its top half is
    a 6 (the mark is the glyph's top, painted by `upright_marks.marked_frame`), else a 9."""

    names = UPRIGHT_CLASSES

    def __call__(self, crops: list[Frame]) -> np.ndarray:  # type: ignore[type-arg]
        out = []
        for crop in crops:
            grey = crop.mean(axis=2)
            six = grey[: len(grey) // 2].min() < grey[len(grey) // 2 :].min()
            out.append([0.99, 0.01] if six else [0.01, 0.99])
        return np.asarray(out, np.float32)


COLOURS = "RGBY"


class Doubting:
    """Stands in for the reader: every crop is the 6 of each colour at `six`, its 9 at
    the rest (the check reads only the pair of the card's own colour)."""

    names = tuple(f"{rank}{colour}" for colour in COLOURS for rank in (6, 9))

    def __init__(self, six: float) -> None:
        self.six = six

    def __call__(self, crops: list[Frame]) -> np.ndarray:  # type: ignore[type-arg]
        row = np.array([self.six, 1 - self.six] * len(COLOURS), np.float32)
        return np.tile(row, (len(crops), 1))


def _six_table() -> MiniTable:
    table = MiniTable()
    for k, angle in enumerate([0.0, 90.0, 180.0, 250.0]):
        table.card(f"6{COLOURS[k]}", 180 + 280 * k, 450, angle)
    return table


def _scan(table: MiniTable, frame: Frame, check: UprightCheck | None) -> list[tuple[str, bool]]:
    scanner = PhotoScanner(TableReader(table), upright=check)
    snapshot = scanner.scan(frame, rules=ROOK, kind=PhotoKind.HAND)
    return [(str(c.card), c.sure) for c in sorted(snapshot.cards, key=lambda c: c.center[0])]


def test_a_scan_reads_a_doubted_6_the_way_its_upright_index_shows() -> None:
    table = _six_table()
    reader = Doubting(0.6)
    check = UprightCheck(TopMark(), reader, reader.names)
    # Every glyph shows a 6 upright, whichever way the card lies: 6R, surer than read.
    assert _scan(table, marked_frame(table, 1.0), check) == [(f"6{c}", True) for c in COLOURS]
    # Every glyph shows a 9 upright: the reader's doubt turns to the 9.
    assert _scan(table, marked_frame(table, -1.0), check) == [(f"9{c}", True) for c in COLOURS]
    # No upright check: the reads stand.
    assert _scan(table, marked_frame(table, -1.0), None) == [(f"6{c}", True) for c in COLOURS]


def test_a_sure_read_the_upright_view_disputes_ismarked_frame() -> None:
    table = _six_table()
    reader = Doubting(0.99)
    check = UprightCheck(TopMark(), reader, reader.names)
    # The reader is as plain as the upright view (0.99): the name stays, marked.
    assert _scan(table, marked_frame(table, -1.0), check) == [(f"6{c}", False) for c in COLOURS]


def test_a_pair_the_reader_learnt_itself_is_left_to_it() -> None:
    """A taught deck's own reader learnt its 6s and 9s on the deck's own scenes: where
    it read both cards of a pair, the upright check (which never saw the deck) does not
    turn its reads; a pair it learnt only half of is still checked."""
    table = _six_table()
    reader = Doubting(0.6)
    learnt = frozenset(f"{rank}{c}" for c in COLOURS for rank in (6, 9))
    check = UprightCheck(TopMark(), reader, reader.names, learnt=learnt)
    assert not any(check.checks(Card.parse(f"6{c}")) for c in COLOURS)
    assert not check.checks(Card.parse("7R"))  # not a Rook 6 or 9 at all
    reads = _scan(table, marked_frame(table, -1.0), check)
    assert [name for name, _ in reads] == [f"6{c}" for c in COLOURS]
    half = UprightCheck(TopMark(), reader, reader.names, learnt=frozenset({"6R", "6G"}))
    assert half.checks(Card.parse("6R"))
    assert [n for n, _ in _scan(table, marked_frame(table, -1.0), half)] == [
        f"9{c}" for c in COLOURS
    ]


def test_the_settings_name_the_upright_model(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    stand_in_files(folder, model_files.DETECTOR_FILE, model_files.READER_FILE, "up.onnx")
    write_settings(folder, min_read=0.4, sure_read=0.7, upright="up.onnx")
    assert ModelFiles.load(folder).upright == folder / "up.onnx"
    write_settings(folder, min_read=0.4, sure_read=0.7)
    assert ModelFiles.load(folder).upright is None
    path = write_settings(folder, min_read=0.4, sure_read=0.7, upright="gone.onnx")
    with pytest.raises(ModelMissingError, match=r"gone\.onnx"):
        ModelFiles.load(folder)
    path.write_text(path.read_text().replace('"gone.onnx"', '"../up.onnx"'))
    with pytest.raises(ModelSettingsError, match="file name"):
        ModelFiles.load(folder)


@needs_models
def test_an_upright_model_of_other_classes_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    shipped_locator_and_reader(folder)
    # The reader named as the upright model: its classes are card names, not 6 and 9.
    write_settings(folder, min_read=0.4, sure_read=0.7, upright=model_files.READER_FILE)
    with pytest.raises(ModelSettingsError, match="expected \\['6', '9'\\]"):
        UprightCheck.load(ModelFiles.load(folder), Doubting(0.5), Doubting.names)


@needs_models
def test_the_shipped_upright_model_tells_generated_6s_from_9s(tmp_path: Path) -> None:
    """Real inference on upright crops the data generator cuts from Rook scenes of the
    validation looks (never trained on): the shipped classifier names most right."""
    files = ModelFiles.load()
    assert files.upright is not None
    model = OnnxClassifier(files.upright)
    looks = split_looks("val")
    made = 0
    for seed in range(40):
        rng = np.random.default_rng([77, seed])
        scene = sample_scene(rng, "val", looks, size=(960, 720), rook_share=1.0)
        made += sum(write_upright_crops(tmp_path, "val", f"s{seed}", scene, rng).values())
        if made >= 30:
            break
    crops = [(p.parent.name, cv2.imread(str(p))) for p in sorted(tmp_path.glob("val/*/*.png"))]
    assert len(crops) >= 30
    probabilities = model([crop for _, crop in crops])
    right = sum(
        UPRIGHT_CLASSES[int(np.argmax(p))] == rank
        for (rank, _), p in zip(crops, probabilities, strict=True)
    )
    assert right >= 0.9 * len(crops)


def test_an_index_with_no_up_of_its_own_borrows_its_neighbours() -> None:
    """A covered 6 whose outline was not found (its box is its index's) lies the way
    up of the card beside it in the row; far from every card, nothing tells."""
    reader = Doubting(0.6)
    check = UprightCheck(TopMark(), reader, reader.names)
    frame = np.full((400, 600, 3), 200, np.uint8)
    beside = _seen([(102.0, 103.0, 111.0, 123.0), (152.0, 165.0, 161.0, 185.0)])
    near_box = (120.0, 103.0, 129.0, 123.0)
    near = SeenCard(Card.parse("6G"), 0.9, near_box, index_xyxy=(near_box,))
    far_box = (500.0, 300.0, 509.0, 320.0)
    far = SeenCard(Card.parse("6B"), 0.9, far_box, index_xyxy=(far_box,))
    assert index_up(near, 0) is None
    splits = check.splits(frame, [beside, near, far])
    assert splits[1] is not None and splits[2] is None
