"""Model settings travel with the model files (`models.toml`) and are checked on load."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from shanghai.vision import model_files
from shanghai.vision.crops import zoomed_in
from shanghai.vision.model_files import (
    ModelFiles,
    ModelMissingError,
    ModelSettingsError,
    write_settings,
)
from shanghai.vision.pipeline import CardModels, models_installed

SHIPPED = model_files.default_models_dir()
needs_models = pytest.mark.skipif(
    not models_installed(), reason="card models not installed (models/cards-*.onnx)"
)


def copy_models(to: Path, settings: str | None = None) -> Path:
    """The shipped ONNX files in `to`, with `settings` as their models.toml (default:
    the shipped one)."""
    to.mkdir(parents=True, exist_ok=True)
    for model in SHIPPED.glob("*.onnx"):
        shutil.copyfile(model, to / model.name)
    text = settings if settings is not None else (SHIPPED / "models.toml").read_text()
    (to / "models.toml").write_text(text)
    return to


@needs_models
def test_the_shipped_int8_models_read_alike_on_every_x86_cpu() -> None:
    """Their int8 weights reach at most 64 (7 bits): full-range int8 weights saturate
    the 16-bit sums of CPUs without VNNI and read differently there (on an AVX2-only
    CPU the tenth model's full-range locator found no card outline on a quarter of the
    real-dev photos; datasets/quantize.py)."""
    from shanghai.datasets.quantize import INT8_WEIGHT_REACH, int8_weight_reach

    files = ModelFiles.load()
    checks = tuple(f for f in (files.face, files.upright, files.upright_reader) if f is not None)
    for path in (files.detector, files.reader, *files.ensemble, *checks):
        assert 0 < int8_weight_reach(path) <= INT8_WEIGHT_REACH, path.name


def test_the_shipped_settings_load() -> None:
    files = ModelFiles.load()
    assert files.detector.name == "cards-detector.onnx"
    assert files.reader.name == "cards-reader.onnx"
    assert 0 < files.min_read <= files.sure_read < 1


@needs_models
def test_the_levels_come_from_the_folder(tmp_path: Path) -> None:
    """A candidate folder's own levels are used, not the shipped ones."""
    folder = tmp_path / "candidate"
    copy_models(folder)
    write_settings(folder, min_read=0.33, sure_read=0.8, sure_name=0.995, named_read=0.998)
    models = CardModels(folder)
    assert models.min_read == 0.33 and models.sure_read == 0.8
    assert models.sure_name == 0.995 and models.named_read == 0.998
    assert CardModels(folder, min_read=0.5).min_read == 0.5  # a benchmark's sweep


@needs_models
def test_a_model_with_other_classes_is_refused(tmp_path: Path) -> None:
    """Settings that name the locator's classes in another order than the model's (a
    locator whose class 0 is the index) are refused at load, before any wrong read."""
    text = (SHIPPED / "models.toml").read_text()
    swapped = text.replace('classes = ["card", "index"]', 'classes = ["index", "card"]')
    assert swapped != text
    with pytest.raises(ModelSettingsError, match="classes"):
        CardModels(copy_models(tmp_path / "swapped", swapped))


def test_a_locator_without_the_two_classes_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    write_settings(folder, min_read=0.4, sure_read=0.7)
    text = (folder / "models.toml").read_text()
    (folder / "models.toml").write_text(text.replace('"index"', '"corner"'))
    with pytest.raises(ModelSettingsError, match="card and index"):
        ModelFiles.load(folder)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("min_read = 0.4", "min_read = 1.5"), "min_read must be a number"),
        (("sure_read = 0.7", 'sure_read = "high"'), "sure_read must be a number"),
        (("sure_name = 0.999", "sure_name = 2"), "sure_name must be a number"),
        (("min_read = 0.4", "min_read = 0.9"), "above sure_read"),
        (('file = "cards-reader.onnx"', 'file = "../x.onnx"'), "must be a file name"),
        (("[reading]", "[readings]"), r"no \[reading\] table"),
        (("[detector]", "[detector"), "models.toml"),
    ],
)
def test_malformed_settings_say_what_is_wrong(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    write_settings(folder, min_read=0.4, sure_read=0.7, sure_name=0.999)
    text = (folder / "models.toml").read_text()
    assert edit[0] in text
    (folder / "models.toml").write_text(text.replace(edit[0], edit[1]))
    with pytest.raises(ModelSettingsError, match=message):
        ModelFiles.load(folder)


def test_the_name_level_is_optional(tmp_path: Path) -> None:
    """Settings written before the name level existed still load, without one."""
    write_settings(tmp_path, min_read=0.4, sure_read=0.7)
    assert "sure_name" not in (tmp_path / "models.toml").read_text()
    for name in (model_files.DETECTOR_FILE, model_files.READER_FILE):
        (tmp_path / name).write_bytes(b"x")
    assert ModelFiles.load(tmp_path).sure_name is None
    assert ModelFiles.load(tmp_path).named_read is None  # no read named under the floor


def test_the_zooms_are_read_and_written(tmp_path: Path) -> None:
    """`[reader] zooms` round-trips through `write_settings`; left out, no zoom."""
    for name in (model_files.DETECTOR_FILE, model_files.READER_FILE):
        (tmp_path / name).write_bytes(b"x")
    write_settings(tmp_path, min_read=0.4, sure_read=0.7)
    assert ModelFiles.load(tmp_path).zooms == ()
    write_settings(tmp_path, min_read=0.4, sure_read=0.7, zooms=(0.85, 0.9))
    assert ModelFiles.load(tmp_path).zooms == (0.85, 0.9)


@pytest.mark.parametrize("zooms", ["0.85", "[1.2]", "[0.5]", "[0.85, 0.85]", "[true]", '["0.9"]'])
def test_bad_zooms_are_refused(tmp_path: Path, zooms: str) -> None:
    write_settings(tmp_path, min_read=0.4, sure_read=0.7, zooms=(0.9,))
    text = (tmp_path / "models.toml").read_text()
    (tmp_path / "models.toml").write_text(text.replace("zooms = [0.9]", f"zooms = {zooms}"))
    with pytest.raises(ModelSettingsError, match="zooms must be a list of distinct shares"):
        ModelFiles.load(tmp_path)


@needs_models
def test_with_zooms_each_crop_is_read_as_cut_and_zoomed_in(tmp_path: Path) -> None:
    """The reading is the mean of the crop and its central share, each both ways up."""
    text = (SHIPPED / "models.toml").read_text()
    line = f'file = "{model_files.READER_FILE}"'
    zoomed = copy_models(tmp_path / "zoomed", text.replace(line, f"{line}\nzooms = [0.8]"))
    plain, with_zoom = CardModels(), CardModels(zoomed)
    assert with_zoom.files.zooms == (0.8,)
    rng = np.random.default_rng(3)
    crops = []
    for _ in range(6):
        crop = np.full((64, 64, 3), int(rng.integers(200, 250)), np.uint8)
        cv2.putText(crop, str(int(rng.integers(2, 10))), (14, 48), 0, 1.6, (0, 0, 200), 3)
        crops.append(crop)
    expected = (plain.classify(crops) + plain.classify([zoomed_in(c, 0.8) for c in crops])) / 2
    got = with_zoom.classify(crops)
    assert np.allclose(got, expected, atol=1e-6)
    assert not np.allclose(got, plain.classify(crops), atol=1e-4)
    # A taught head's rows it does not replace keep this reading (`features`).
    assert np.allclose(with_zoom.features(crops)[0], got, atol=1e-6)


def test_what_is_missing_is_named(tmp_path: Path) -> None:
    """No models: the locator file is named; models without settings: the settings."""
    with pytest.raises(ModelMissingError, match=re.escape("cards-detector.onnx")):
        ModelFiles.load(tmp_path)
    (tmp_path / "cards-detector.onnx").write_bytes(b"x")
    with pytest.raises(ModelMissingError, match=re.escape("models.toml")):
        ModelFiles.load(tmp_path)
    write_settings(tmp_path, min_read=0.4, sure_read=0.7)
    with pytest.raises(ModelMissingError, match=re.escape("cards-reader.onnx")):
        ModelFiles.load(tmp_path)
    assert not ModelFiles.installed(tmp_path)
