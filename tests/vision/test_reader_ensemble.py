"""A reader ensemble (`[reader] ensemble` in models.toml): more readers whose
probabilities are averaged with the reader's, checked on load, used by every reading
path (plain, taught deck) and named in the models' name."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from shanghai.vision import model_files
from shanghai.vision.model_files import (
    ModelFiles,
    ModelMissingError,
    ModelSettingsError,
    default_models_dir,
    write_settings,
)
from shanghai.vision.onnx_models import OnnxClassifier
from shanghai.vision.pipeline import CardModels, models_installed

SHIPPED = default_models_dir()
needs_models = pytest.mark.skipif(not models_installed(), reason="card models not installed")
PARTNER = "cards-reader-2.onnx"


def _crops(n: int, seed: int = 0) -> list[np.ndarray]:
    """Index-like crops: a red digit on a light card, turned a little."""
    rng = np.random.default_rng(seed)
    crops = []
    for _ in range(n):
        crop = np.full((64, 64, 3), int(rng.integers(200, 250)), np.uint8)
        cv2.putText(crop, str(int(rng.integers(2, 10))), (14, 48), 0, 1.6, (0, 0, 200), 3)
        turn = cv2.getRotationMatrix2D((32, 32), float(rng.uniform(-20, 20)), 1.0)
        crops.append(cv2.warpAffine(crop, turn, (64, 64), borderValue=(230, 230, 230)))
    return crops


def _tempered_reader(to: Path, *, temperature: float = 2.0, swap_names: bool = False) -> Path:
    """The shipped reader with its probabilities re-tempered (softmax(log p / T)): a
    second reader that reads the same names with other confidences. With `swap_names`
    its first two class names change places (a reader of another class order)."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper

    model = onnx.load(str(SHIPPED / model_files.READER_FILE))
    softmax = next(n for n in model.graph.node if "output0" in n.output)
    softmax.output[0] = "plain_probabilities"
    scale = helper.make_tensor("inverse_temperature", onnx.TensorProto.FLOAT, [], [1 / temperature])
    model.graph.initializer.append(scale)
    model.graph.node.extend(
        [
            helper.make_node("Log", ["plain_probabilities"], ["log_probabilities"]),
            helper.make_node("Mul", ["log_probabilities", "inverse_temperature"], ["tempered"]),
            helper.make_node("Softmax", ["tempered"], ["output0"], axis=1),
        ]
    )
    if swap_names:
        meta = next(p for p in model.metadata_props if p.key == "names")
        names = ast.literal_eval(meta.value)
        names[0], names[1] = names[1], names[0]
        meta.value = repr(names)
    onnx.save(model, str(to))
    return to


def _folder(tmp_path: Path, *, swap_names: bool = False) -> Path:
    folder = tmp_path / "ensemble"
    folder.mkdir()
    for name in (model_files.DETECTOR_FILE, model_files.READER_FILE):
        shutil.copyfile(SHIPPED / name, folder / name)
    _tempered_reader(folder / PARTNER, swap_names=swap_names)
    files = ModelFiles.load()
    write_settings(
        folder,
        min_read=files.min_read,
        sure_read=files.sure_read,
        sure_name=files.sure_name,
        ensemble=[PARTNER],
    )
    return folder


def test_the_settings_name_the_ensemble(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    for name in (model_files.DETECTOR_FILE, model_files.READER_FILE, PARTNER):
        (folder / name).write_bytes(b"stand-in")
    write_settings(folder, min_read=0.4, sure_read=0.7, ensemble=[PARTNER])
    assert ModelFiles.load(folder).ensemble == (folder / PARTNER,)
    write_settings(folder, min_read=0.4, sure_read=0.7)
    assert ModelFiles.load(folder).ensemble == ()
    assert ModelFiles.load().ensemble == ModelFiles.load(SHIPPED).ensemble


@pytest.mark.parametrize(
    ("line", "error", "match"),
    [
        ('ensemble = ["cards-reader-3.onnx"]', ModelMissingError, "cards-reader-3.onnx"),
        ('ensemble = ["cards-reader.onnx"]', ModelSettingsError, "names a reader twice"),
        (f'ensemble = ["{PARTNER}", "{PARTNER}"]', ModelSettingsError, "names a reader twice"),
        ('ensemble = "cards-reader-2.onnx"', ModelSettingsError, "list of file names"),
        ('ensemble = ["../cards-reader-2.onnx"]', ModelSettingsError, "list of file names"),
    ],
)
def test_a_bad_ensemble_is_refused_on_load(
    tmp_path: Path, line: str, error: type[Exception], match: str
) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    for name in (model_files.DETECTOR_FILE, model_files.READER_FILE, PARTNER):
        (folder / name).write_bytes(b"stand-in")
    write_settings(folder, min_read=0.4, sure_read=0.7)
    text = (folder / "models.toml").read_text()
    reader_line = f'file = "{model_files.READER_FILE}"'
    (folder / "models.toml").write_text(text.replace(reader_line, f"{reader_line}\n{line}"))
    with pytest.raises(error, match=match):
        ModelFiles.load(folder)


@needs_models
def test_the_reading_is_the_mean_of_the_readers(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    crops = _crops(16)
    alone = CardModels()
    both = CardModels(folder)
    partner = OnnxClassifier(folder / PARTNER)
    turned = [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
    partner_both_ways = (partner(crops) + partner(turned)) / 2
    expected = (alone.classify(crops) + partner_both_ways) / 2
    got = both.classify(crops)
    assert np.allclose(got, expected, atol=1e-6)
    assert np.allclose(got.sum(axis=1), 1.0, atol=1e-5)
    # The tempered partner is less sure: the mean is not the reader's reading.
    assert not np.allclose(got, alone.classify(crops), atol=1e-3)
    assert got.max(axis=1).mean() < alone.classify(crops).max(axis=1).mean()
    assert PARTNER in both.name and PARTNER not in alone.name
    # A taught deck's head reads the first reader's embedding; the probabilities it
    # mixes with are the ensemble's.
    probabilities, features = both.features(crops)
    assert np.allclose(probabilities, got, atol=1e-6)
    assert np.allclose(features, alone.features(crops)[1], atol=1e-6)
    assert both.classify([]).shape == (0, len(alone.reader.names))


@needs_models
def test_a_partner_of_other_classes_is_refused(tmp_path: Path) -> None:
    folder = _folder(tmp_path, swap_names=True)
    with pytest.raises(ModelSettingsError, match=f"{PARTNER}: its classes"):
        CardModels(folder)
