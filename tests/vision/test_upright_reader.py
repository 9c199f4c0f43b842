"""The upright reader (`vision.upright_reader`): every card read again on its indices
turned upright by the card's pose, its probabilities multiplied with the reader's; the
`[upright] reader` settings; real inference of the shipped upright reader."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from mini_table import MiniTable, TableReader
from model_stand_ins import shipped_locator_and_reader, stand_in_files
from upright_marks import marked_frame

from shanghai.datasets.crops import write_upright_index_crops
from shanghai.datasets.sampling import sample_scene
from shanghai.datasets.splits import split_looks
from shanghai.engine.variant_files import find_variant
from shanghai.vision import model_files
from shanghai.vision.arrays import Frame
from shanghai.vision.model_files import ModelFiles, ModelSettingsError, write_settings
from shanghai.vision.onnx_models import OnnxClassifier
from shanghai.vision.pipeline import models_installed
from shanghai.vision.scan import PhotoKind, PhotoScanner
from shanghai.vision.upright_reader import UprightReader, combine

ROOK = find_variant("rook").rules(4)
needs_models = pytest.mark.skipif(not models_installed(), reason="card models not installed")
NAMES = ("6R", "9R", "12R", "2R")


def test_two_views_that_agree_make_a_read_surer() -> None:
    both = combine(np.array([0.7, 0.2, 0.1, 0.0]), np.array([0.9, 0.05, 0.05, 0.0]))
    assert both.argmax() == 0 and both[0] > 0.92
    assert both.sum() == pytest.approx(1.0)
    # Each view counts less than a whole witness: the plain product is surer still.
    assert combine(np.array([0.7, 0.3]), np.array([0.9, 0.1]), weight=1.0)[0] > both[0]
    # At half weight (the geometric mean), a view seen twice is only itself.
    view = np.array([0.6, 0.3, 0.1, 0.0])
    assert combine(view, view, weight=0.5) == pytest.approx(view)


def test_a_plain_upright_view_decides_a_doubting_read() -> None:
    both = combine(np.array([0.55, 0.45, 0.0, 0.0]), np.array([0.01, 0.99, 0.0, 0.0]))
    assert both.argmax() == 1 and both[1] > 0.95


def test_two_plain_views_that_disagree_leave_the_read_in_doubt() -> None:
    both = combine(np.array([0.99, 0.01, 0.0, 0.0]), np.array([0.01, 0.99, 0.0, 0.0]))
    assert both.max() == pytest.approx(0.5)
    # Views that share no class tell nothing.
    assert not combine(np.array([1.0, 0.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0, 0.0])).any()


class Leaning:
    """Stands in for the reader: every crop is a 6R at `six`, a 9R at the rest."""

    names = NAMES

    def __init__(self, six: float) -> None:
        self.six = six

    def __call__(self, crops: list[Frame]) -> np.ndarray:  # type: ignore[type-arg]
        return np.tile(np.array([self.six, 1 - self.six, 0, 0], np.float32), (len(crops), 1))


class UprightMark:
    """Stands in for the upright reader: a crop with the painted dot in its top half
    (`upright_marks.marked_frame`) is a 6R, else a 9R, at 0.99."""

    names = NAMES

    def __call__(self, crops: list[Frame]) -> np.ndarray:  # type: ignore[type-arg]
        out = []
        for crop in crops:
            grey = crop.mean(axis=2)
            six = grey[: len(grey) // 2].min() < grey[len(grey) // 2 :].min()
            out.append([0.99, 0.01, 0, 0] if six else [0.01, 0.99, 0, 0])
        return np.asarray(out, np.float32)


def _red_sixes() -> MiniTable:
    table = MiniTable()
    for k, angle in enumerate([0.0, 90.0, 180.0, 250.0]):
        table.card("6R", 180 + 280 * k, 450, angle)
    return table


def _scan(
    table: MiniTable, frame: Frame, reader: UprightReader | None, *, taught: bool = False
) -> list[tuple[str, bool]]:
    models = TableReader(table)
    models.taught = taught
    scanner = PhotoScanner(models, upright_reader=reader)
    snapshot = scanner.scan(frame, rules=ROOK, kind=PhotoKind.HAND)
    return [(str(c.card), c.sure) for c in sorted(snapshot.cards, key=lambda c: c.center[0])]


def test_a_scan_reads_each_card_the_way_its_upright_index_shows() -> None:
    table = _red_sixes()
    reader = UprightReader(UprightMark(), Leaning(0.55), NAMES)
    # Every glyph shows a 6 upright, whichever way the card lies.
    assert _scan(table, marked_frame(table, 1.0), reader) == [("6R", True)] * 4
    # Every glyph shows a 9 upright: the reader's doubt turns to the 9.
    assert _scan(table, marked_frame(table, -1.0), reader) == [("9R", True)] * 4
    # Without the upright reader, or with a taught deck, the reads stand.
    assert _scan(table, marked_frame(table, -1.0), None) == [("6R", True)] * 4
    assert _scan(table, marked_frame(table, -1.0), reader, taught=True) == [("6R", True)] * 4


def test_a_sure_read_the_upright_view_disputes_is_marked() -> None:
    table = _red_sixes()
    reader = UprightReader(UprightMark(), Leaning(0.99), NAMES)
    found = _scan(table, marked_frame(table, -1.0), reader)
    assert [sure for _, sure in found] == [False] * 4


def test_the_settings_name_the_upright_reader(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    stand_in_files(folder, model_files.DETECTOR_FILE, model_files.READER_FILE, "r.onnx", "u.onnx")
    write_settings(folder, min_read=0.4, sure_read=0.7, upright_reader="r.onnx")
    files = ModelFiles.load(folder)
    assert files.upright_reader == folder / "r.onnx" and files.upright is None
    write_settings(folder, min_read=0.4, sure_read=0.7, upright="u.onnx", upright_reader="r.onnx")
    files = ModelFiles.load(folder)
    assert (files.upright, files.upright_reader) == (folder / "u.onnx", folder / "r.onnx")
    path = write_settings(folder, min_read=0.4, sure_read=0.7)
    path.write_text(path.read_text() + "\n[upright]\n")
    with pytest.raises(ModelSettingsError, match="names no file and no reader"):
        ModelFiles.load(folder)


@needs_models
def test_an_upright_reader_of_other_classes_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    shipped_locator_and_reader(folder)
    # The 6-or-9 check named as the upright reader: its classes are not the reader's.
    six_or_nine = model_files.default_models_dir() / model_files.UPRIGHT_FILE
    (folder / "six-or-nine.onnx").write_bytes(six_or_nine.read_bytes())
    write_settings(folder, min_read=0.4, sure_read=0.7, upright_reader="six-or-nine.onnx")
    reader = OnnxClassifier(folder / model_files.READER_FILE)
    with pytest.raises(ModelSettingsError, match="expected"):
        UprightReader.load(ModelFiles.load(folder), Leaning(0.5), reader.names)


@needs_models
def test_the_shipped_upright_reader_reads_upright_indices_better_than_the_reader(
    tmp_path: Path,
) -> None:
    """Real inference on upright index crops the data generator cuts from scenes of the
    validation looks (never trained on): the upright reader names most of them right,
    and more than the shipped reader does reading the same crops both ways up."""
    files = ModelFiles.load()
    assert files.upright_reader is not None
    upright, reader = OnnxClassifier(files.upright_reader), OnnxClassifier(files.reader)
    looks = split_looks("val")
    made = 0
    for seed in range(40):
        rng = np.random.default_rng([78, seed])
        scene = sample_scene(rng, "val", looks, size=(1600, 1200), rook_share=0.5)
        made += sum(write_upright_index_crops(tmp_path, "val", f"s{seed}", scene, rng).values())
        if made >= 120:
            break
    crops = [(p.parent.name, cv2.imread(str(p))) for p in sorted(tmp_path.glob("val/*/*.png"))]
    assert len(crops) >= 120
    images = [crop for _, crop in crops]
    turned = [np.ascontiguousarray(crop[::-1, ::-1]) for crop in images]

    def right(model: OnnxClassifier, probabilities: np.ndarray) -> int:  # type: ignore[type-arg]
        best = probabilities.argmax(axis=1)
        return sum(model.names[int(k)] == name for (name, _), k in zip(crops, best, strict=True))

    by_upright = right(upright, upright(images))
    by_reader = right(reader, (reader(images) + reader(turned)) / 2)
    assert by_upright >= 0.7 * len(crops)
    assert by_upright > by_reader


@needs_models
def test_a_trained_folder_keeps_the_shipped_checks_and_upright_reader(tmp_path: Path) -> None:
    """`shanghai train` writes settings beside its new locator and reader: the shipped
    face check, upright check, upright reader and stray check are copied and named
    there."""
    from shanghai.cli.train_commands import _write_settings

    folder = tmp_path / "trained"
    shipped_locator_and_reader(folder)
    _write_settings(folder)
    files, shipped = ModelFiles.load(folder), ModelFiles.load()
    for mine, theirs in (
        (files.face, shipped.face),
        (files.upright, shipped.upright),
        (files.upright_reader, shipped.upright_reader),
        (files.stray, shipped.stray),
    ):
        assert (mine is None) == (theirs is None)
        if mine is not None and theirs is not None:
            assert mine.parent == folder and mine.read_bytes() == theirs.read_bytes()
    assert files.stray_least == shipped.stray_least
