"""The stray check (`vision.stray_check`): a corner located but not read that the
classifier calls no index (card art) raises no `corner` warning; its crop, its
`[stray]` settings, and the shipped model on generated photos."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mini_table import MiniTable, WithUnread
from model_stand_ins import (
    shipped_locator_and_reader,
    shipped_with_candidate_stray,
    stand_in_files,
)

from shanghai.engine.variant_files import find_variant
from shanghai.vision import model_files
from shanghai.vision.arrays import Frame
from shanghai.vision.model_files import (
    ModelFiles,
    ModelMissingError,
    ModelSettingsError,
    write_settings,
)
from shanghai.vision.pipeline import models_installed
from shanghai.vision.scan import PhotoKind, PhotoScanner
from shanghai.vision.stray_check import STRAY_CLASSES, STRAY_SIZE, StrayCheck, stray_crop

RULES = find_variant("shanghai").rules(4)
FRAME = np.random.default_rng(11).integers(0, 120, (900, 1200, 3), dtype=np.uint8)
"""A dark textured photo: a stand-in model below calls a bright crop an index."""
needs_models = pytest.mark.skipif(not models_installed(), reason="card models not installed")


class BrightIsIndex:
    """Stands in for the stray model: a crop whose centre is bright is an index."""

    names = STRAY_CLASSES

    def __init__(self) -> None:
        self.seen = 0

    def __call__(self, crops: list[Frame]) -> np.ndarray:  # type: ignore[type-arg]
        self.seen += len(crops)
        a, b = STRAY_SIZE // 2 - 2, STRAY_SIZE // 2 + 2
        bright = np.array([float(c[a:b, a:b].mean()) > 200 for c in crops])
        p = np.where(bright, 0.95, 0.02).astype(np.float32)
        return np.stack([p, 1 - p], axis=1)


def test_the_stray_crop_is_a_square_around_the_box() -> None:
    image = np.zeros((300, 300, 3), np.uint8)
    image[140:160, 145:155] = 255
    crop = stray_crop(image, (145.0, 140.0, 155.0, 160.0))
    assert crop.shape == (STRAY_SIZE, STRAY_SIZE, 3)
    # the box's 20 px side is half the crop's (context 2): white in the middle only
    m = STRAY_SIZE // 2
    assert crop[m, m].min() > 200 and crop[2, 2].max() == 0


def _sliver() -> tuple[MiniTable, tuple[float, float, float, float]]:
    """A three-card hand and a located box at its edge the reader could not read."""
    table = MiniTable()
    table.row(["4h", "9c", "Kd"], 600, 450, step=20)
    _, card_xyxy = table.measure()
    x1, y1, x2, y2 = (float(v) for v in card_xyxy.max(axis=0))
    cx, edge = (x1 + x2) / 2, y2 - 0.05 * (y2 - y1)
    return table, (cx - 6, edge - 14, cx + 6, edge + 14)


def _codes(frame: Frame, check: StrayCheck | None, taught: bool = False) -> list[str]:
    table, box = _sliver()
    reader = WithUnread(table, [(box, "7s")])
    if taught:
        reader.taught = True  # type: ignore[misc]
    scanner = PhotoScanner(reader, strays=check)
    snapshot = scanner.scan(frame, rules=RULES, kind=PhotoKind.HAND)
    return [w.code for w in snapshot.warnings]


def _painted(box: tuple[float, float, float, float]) -> Frame:
    frame = FRAME.copy()
    x1, y1, x2, y2 = (round(v) for v in box)
    frame[y1:y2, x1:x2] = 255
    return frame


def test_a_stray_the_check_calls_card_art_raises_no_corner_warning() -> None:
    model = BrightIsIndex()
    assert _codes(FRAME, None) == ["corner"]
    assert _codes(FRAME, StrayCheck(model, 0.5)) == []
    assert model.seen == 1


def test_a_stray_the_check_calls_an_index_is_warned() -> None:
    _, box = _sliver()
    assert _codes(_painted(box), StrayCheck(BrightIsIndex(), 0.5)) == ["corner"]


def test_the_level_decides() -> None:
    assert _codes(FRAME, StrayCheck(BrightIsIndex(), 0.01)) == ["corner"]


def test_a_taught_deck_keeps_every_stray() -> None:
    """The check never saw a taught deck's print: its strays are all warned of."""
    assert _codes(FRAME, StrayCheck(BrightIsIndex(), 0.5), taught=True) == ["corner"]


def test_the_settings_name_the_stray_model_and_its_level(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    stand_in_files(folder, model_files.DETECTOR_FILE, model_files.READER_FILE, "s.onnx")
    write_settings(folder, min_read=0.4, sure_read=0.7, stray="s.onnx", stray_least=0.2)
    files = ModelFiles.load(folder)
    assert files.stray == folder / "s.onnx" and files.stray_least == 0.2
    write_settings(folder, min_read=0.4, sure_read=0.7)
    assert ModelFiles.load(folder).stray is None


@pytest.mark.parametrize(
    ("table", "error", "match"),
    [
        ('[stray]\nfile = "other.onnx"\nleast = 0.1', ModelMissingError, "other.onnx"),
        ('[stray]\nfile = "s.onnx"\nleast = 2', ModelSettingsError, "least"),
        ('[stray]\nfile = "s.onnx"', ModelSettingsError, "least"),
        ("[stray]\nleast = 0.1", ModelSettingsError, "file"),
    ],
)
def test_a_bad_stray_table_is_refused_on_load(
    tmp_path: Path, table: str, error: type[Exception], match: str
) -> None:
    folder = tmp_path / "models"
    stand_in_files(folder, model_files.DETECTOR_FILE, model_files.READER_FILE, "s.onnx")
    path = write_settings(folder, min_read=0.4, sure_read=0.7)
    path.write_text(path.read_text() + "\n" + table + "\n")
    with pytest.raises(error, match=match):
        ModelFiles.load(folder)


@needs_models
def test_a_stray_model_of_other_classes_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    shipped_locator_and_reader(folder)
    write_settings(
        folder, min_read=0.4, sure_read=0.7, stray=model_files.READER_FILE, stray_least=0.1
    )
    with pytest.raises(ModelSettingsError, match="expected \\['index'"):
        StrayCheck.load(ModelFiles.load(folder))


@needs_models
def test_the_candidate_stray_check_drops_more_card_art_than_indices(tmp_path: Path) -> None:
    """The candidate stray check (`models/candidates/cards-stray.onnx`, not switched on:
    measured on test it let hidden corners go silent). What the shipped models locate
    but cannot read on 32 generated validation photos (the generator's `stray-crops`, a
    seed no training or level choice used),
    sorted by where each box truly lies: the check drops (p(index) under its level) at
    most 5% of the boxes on a card's index, and a larger share of those on card art
    than of those on an index. It is a coarse filter: on validation it dropped a third
    of the art and 2% of the indices (models/MODEL_CARD.md, "Stray check")."""
    from shanghai.datasets.generate import GenerateConfig, generate
    from shanghai.vision.sources import read_image

    check = StrayCheck.load(ModelFiles.load(shipped_with_candidate_stray(tmp_path / "models")))
    assert check is not None
    cfg = GenerateConfig(out=tmp_path / "crops", n=32, seed=7401, kind="stray-crops", split="val")
    generate(cfg, progress=False)
    dropped: dict[str, list[bool]] = {}
    for name in STRAY_CLASSES:
        crops = [read_image(path) for path in sorted((cfg.root / "val" / name).glob("*.png"))]
        odds = check.model(crops)[:, STRAY_CLASSES.index("index")] if crops else np.ones(0)
        dropped[name] = [bool(p < check.least) for p in odds]
    index, other = dropped["index"], dropped["other"]
    assert len(index) >= 20 and len(other) >= 3
    assert sum(index) <= 0.05 * len(index)
    assert sum(other) / len(other) > sum(index) / len(index)
