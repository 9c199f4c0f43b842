"""The training command end to end on a handful of generated images (one epoch), and
parity of our ONNX Runtime path with ultralytics on the models it produced.

This never trains the shipped model; it proves the path from `data generate` to the
ONNX files works offline, and that `vision.onnx_models` decodes like ultralytics.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from shanghai.datasets.quantize import INT8_WEIGHT_REACH, int8_weight_reach
from shanghai.engine.cards import CARD_CLASSES
from shanghai.vision.onnx_models import OnnxClassifier, OnnxDetector

# ultralytics patches PIL.Image.open when imported, which would change what other tests
# see. So it is imported only inside these tests (never at collection, which happens even
# when the marker is deselected), and `make test` runs `-m train` in its own process.
pytestmark = [
    pytest.mark.train,
    pytest.mark.skipif(
        importlib.util.find_spec("ultralytics") is None, reason="needs the `train` extra"
    ),
]

SHANGHAI = [sys.executable, "-m", "shanghai.cli.main"]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([*SHANGHAI, *args], capture_output=True, text=True, timeout=900, cwd=cwd)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("train")
    data = root / "data"
    for kind, n in (("tiles", 10), ("crops", 10)):
        _run(
            "data",
            "generate",
            "--out",
            str(data),
            "--kind",
            kind,
            "--n",
            str(n),
            "--seed",
            "5",
            "--workers",
            "1",
            "--tile",
            "160",
            "--quiet",
            cwd=root,
        )
    _run(
        "train", "all", "--data", str(data), "--runs", str(root / "runs"),
        "--to", str(root / "models"), "--workers", "0",
        "--det-imgsz", "160", "--det-epochs", "1", "--det-batch", "8",
        "--read-imgsz", "32", "--read-epochs", "1", "--read-batch", "32",
        cwd=root,
    )  # fmt: skip
    return root


def test_training_ships_onnx_and_pt(shipped: Path) -> None:
    models = shipped / "models"
    for name in ("cards-detector", "cards-reader"):
        assert (models / f"{name}.onnx").stat().st_size > 10_000
        assert (models / f"{name}.pt").stat().st_size > 10_000
    detector = OnnxDetector(models / "cards-detector.onnx")
    assert detector.names == ("card", "index")
    assert detector.dynamic and detector.size_for((160, 160)) == (160, 160)
    assert detector.size_for((720, 1280)) == (1280, 1280)
    reader = OnnxClassifier(models / "cards-reader.onnx")
    assert reader.names and set(reader.names) <= set(CARD_CLASSES)


def _tiles(shipped: Path, count: int) -> list[np.ndarray]:
    paths = sorted((shipped / "data" / "tiles").rglob("*.jpg"))[:count]
    assert paths
    return [cv2.imread(str(p)) for p in paths]


def test_detector_preprocessing_and_raw_outputs_match_pytorch(shipped: Path) -> None:
    """Our letterbox equals ultralytics' LetterBox, and ONNX Runtime on our input gives
    the raw outputs PyTorch gives with the `.pt` weights."""
    import torch
    from ultralytics import YOLO
    from ultralytics.data.augment import LetterBox

    from shanghai.vision.onnx_models import letterbox

    ours = OnnxDetector(shipped / "models" / "cards-detector.onnx")
    model = YOLO(str(shipped / "models" / "cards-detector.pt")).model.float().eval()
    for image in [*_tiles(shipped, 2), _tiles(shipped, 1)[0][:120, :]]:  # one non-square
        size = ours.size_for(image.shape, 160)
        padded, _ = letterbox(image, size, stride=32)
        reference = LetterBox(size, auto=True, stride=32)(image=image)
        assert np.array_equal(padded, reference)
        blob = cv2.dnn.blobFromImage(padded, 1 / 255.0, swapRB=True)
        (onnx_out,) = ours.session.run(None, {ours.input_name: blob})
        with torch.no_grad():
            torch_out = model(torch.from_numpy(blob))
        torch_out = (torch_out[0] if isinstance(torch_out, (list, tuple)) else torch_out).numpy()
        assert onnx_out.shape == torch_out.shape
        assert np.allclose(onnx_out, torch_out, atol=2e-3, rtol=1e-3)


def test_detector_decoding_matches_ultralytics_predict(shipped: Path) -> None:
    """Box for box the same as ultralytics predict on the same ONNX file, at a low
    threshold so there are many boxes to compare."""
    from ultralytics import YOLO

    path = shipped / "models" / "cards-detector.onnx"
    ours = OnnxDetector(path)
    theirs = YOLO(str(path), task="detect")
    compared = 0
    for image in _tiles(shipped, 4):
        mine = ours(image, conf=0.001, iou=0.7, imgsz=160)
        result = theirs.predict(image, imgsz=160, conf=0.001, iou=0.7, verbose=False)[0]
        boxes = result.boxes.xyxy.cpu().numpy()
        assert len(mine) == len(boxes)
        order_mine = np.lexsort((mine.xyxy[:, 0], -mine.confidence))
        order_theirs = np.lexsort((boxes[:, 0], -result.boxes.conf.cpu().numpy()))
        assert np.allclose(mine.xyxy[order_mine], boxes[order_theirs], atol=0.05)
        assert np.array_equal(
            mine.class_id[order_mine], result.boxes.cls.cpu().numpy().astype(int)[order_theirs]
        )
        compared += len(boxes)
    assert compared > 0, "the smoke model produced no boxes at all to compare"


def test_reader_parity_with_ultralytics(shipped: Path) -> None:
    from ultralytics import YOLO

    ours = OnnxClassifier(shipped / "models" / "cards-reader.onnx")
    theirs = YOLO(str(shipped / "models" / "cards-reader.pt"), task="classify")
    crops = [cv2.imread(str(p)) for p in sorted((shipped / "data" / "crops").rglob("*.png"))[:16]]
    assert crops
    mine = ours(crops)
    for crop, probs in zip(crops, mine, strict=True):
        result = theirs.predict(crop, imgsz=32, verbose=False)[0]
        reference = result.probs.data.cpu().numpy()
        assert ours.names == tuple(result.names[i] for i in sorted(result.names))
        assert int(probs.argmax()) == int(reference.argmax())
        assert np.allclose(probs, reference, atol=0.02)


def test_model_benchmark_runs_on_the_smoke_model(
    shipped: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The accuracy/latency benchmark runs end to end (figures are meaningless here)."""
    path = Path(__file__).parents[1] / "benchmarks" / "model_eval.py"
    spec = importlib.util.spec_from_file_location("model_eval", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["model_eval"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    module.main(
        ["--data", str(shipped / "eval"), "--n", "2", "--models", str(shipped / "models"),
         "--latency-runs", "2"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "card identity on 2 held-out test scenes" in out
    assert "mAP50-95" in out and "faster than ultralytics" in out
    assert "cards as the pipeline returns them" in out


def test_checkpoints_keep_their_history_without_polars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the lent GPU machine polars is absent; the trainer still reads results.csv."""
    from ultralytics.engine.trainer import BaseTrainer

    from shanghai.datasets import training

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "polars" else real_find_spec(name, *a),
    )
    monkeypatch.setattr(BaseTrainer, "read_results_csv", BaseTrainer.read_results_csv)
    training._results_without_polars()
    csv_file = tmp_path / "results.csv"
    csv_file.write_text("epoch, time, metrics/mAP50(B)\n1, 2.5, 0.25\n2, 5.0, 0.5\n")
    trainer = type("T", (), {"csv": csv_file})()
    assert BaseTrainer.read_results_csv(trainer) == {
        "epoch": [1.0, 2.0],
        "time": [2.5, 5.0],
        "metrics/mAP50(B)": [0.25, 0.5],
    }
    trainer.csv = tmp_path / "missing.csv"
    assert BaseTrainer.read_results_csv(trainer) == {}


@pytest.fixture(scope="module")
def int8_export(shipped: Path) -> Path:
    models = shipped / "models"
    _run(
        "train", "export", "--detector", str(models / "cards-detector.pt"),
        "--reader", str(models / "cards-reader.pt"), "--to", str(shipped / "int8"),
        "--det-imgsz", "160", "--read-imgsz", "32",
        "--int8", "--calibrate", str(shipped / "data" / "tiles"),
        "--calibrate-crops", str(shipped / "data" / "crops" / "train"),
        cwd=shipped,
    )  # fmt: skip
    return shipped / "int8"


def test_int8_export_keeps_the_head_in_float(shipped: Path, int8_export: Path) -> None:
    """`train export --int8`: the backbone runs in int8, the decoding head in float (one
    int8 scale for pixel boxes and 0..1 scores together would erase the scores)."""
    import onnx

    models = shipped / "models"
    path = int8_export / "cards-detector.onnx"
    nodes = onnx.load(str(path)).graph.node
    convs = [i for i, n in enumerate(nodes) if n.op_type == "Conv"]
    quantized = [i for i, n in enumerate(nodes) if n.op_type == "QuantizeLinear"]
    assert len(quantized) > len(convs) // 2  # most of the network is int8
    producer = {out: n for n in nodes for out in n.output}
    head = nodes[convs[-1]].name.split("/")[1]  # ultralytics: /model.<layer>/...
    # the head's own Sigmoid (not a SiLU inside a conv block) makes the class scores
    (scores,) = [n for n in nodes if n.op_type == "Sigmoid" and n.name == f"/{head}/Sigmoid"]
    assert producer[scores.input[0]].op_type != "DequantizeLinear"
    int8 = OnnxDetector(path)
    float32 = OnnxDetector(models / "cards-detector.onnx")
    assert int8.names == float32.names and int8.stride == float32.stride and int8.dynamic
    tile = _tiles(shipped, 1)[0]
    blob = cv2.dnn.blobFromImage(cv2.resize(tile, (160, 160)), 1 / 255.0, swapRB=True)
    (a,) = float32.session.run(None, {float32.input_name: blob})
    (b,) = int8.session.run(None, {int8.input_name: blob})
    assert a.shape == b.shape
    assert np.abs(a[0, :4] - b[0, :4]).mean() < 0.05 * 160  # boxes within a few pixels
    # 7-bit weights: the same reads on CPUs without VNNI (datasets/quantize.py)
    assert int8_weight_reach(path) == INT8_WEIGHT_REACH


def test_int8_reader_keeps_its_head_in_float(shipped: Path, int8_export: Path) -> None:
    """The int8 reader: convolutions quantized, the linear layer and softmax in float (the
    read floor gates on those probabilities), same classes, probabilities close to float."""
    import onnx

    path = int8_export / "cards-reader.onnx"
    nodes = onnx.load(str(path)).graph.node
    convs = [n for n in nodes if n.op_type == "Conv"]
    quantized = [n for n in nodes if n.op_type == "QuantizeLinear"]
    assert len(quantized) > len(convs) // 2
    producer = {out: n for n in nodes for out in n.output}
    head = convs[-1].name.split("/")[1]  # ultralytics: /model.<layer>/...
    (softmax,) = [n for n in nodes if n.op_type == "Softmax" and n.name == f"/{head}/Softmax"]
    assert producer[softmax.input[0]].op_type == "Gemm"  # float logits, not dequantized ones
    int8 = OnnxClassifier(path)
    float32 = OnnxClassifier(shipped / "models" / "cards-reader.onnx")
    assert int8.names == float32.names and int8.size == float32.size
    crops = [cv2.imread(str(p)) for p in sorted((shipped / "data" / "crops").rglob("*.png"))[:16]]
    a, b = float32(crops), int8(crops)
    assert a.shape == b.shape and np.allclose(b.sum(axis=1), 1.0, atol=1e-4)
    assert np.abs(a - b).max() < 0.1
    assert int8_weight_reach(path) == INT8_WEIGHT_REACH


def test_a_reader_stage_fine_tunes_on_mixed_folders_with_its_own_schedule(
    shipped: Path,
) -> None:
    """The shipped reader's last stage as a command: the trained reader goes on over
    the crops of two data folders, with a low, cosine-decaying learning rate that
    reaches ultralytics as given (its own defaults would start 6 times higher)."""
    import yaml

    runs = shipped / "stage-runs"
    _run(
        "train", "reader", "--data", str(shipped / "data"), str(shipped / "data"),
        "--runs", str(runs), "--workers", "0", "--read-imgsz", "32", "--read-epochs", "1",
        "--read-batch", "32", "--read-init", str(shipped / "models" / "cards-reader.pt"),
        "--read-lr0", "0.0005", "--read-warmup", "0.4", "--read-cos-lr", "--read-lrf", "0.05",
        cwd=shipped,
    )  # fmt: skip
    args = yaml.safe_load((runs / "reader" / "args.yaml").read_text())
    assert (args["lr0"], args["warmup_epochs"], args["lrf"]) == (0.0005, 0.4, 0.05)
    assert args["cos_lr"] is True and args["optimizer"] == "AdamW" and args["pretrained"]
    train = list((runs / "reader-data" / "train").rglob("*.png"))
    assert len(train) == 2 * len(list((shipped / "data" / "crops" / "train").rglob("*.png")))
    assert (runs / "reader" / "weights" / "best.pt").is_file()


def test_a_reader_alone_exports_beside_the_shipped_locator(shipped: Path) -> None:
    """A reader stage leaves the locator as it is: exporting the reader alone gives a
    folder the runtime loads, with the shipped locator copied in."""
    from shanghai.vision.model_files import ModelFiles

    to = shipped / "reader-only"
    out = _run(
        "train", "export", "--reader", str(shipped / "models" / "cards-reader.pt"),
        "--to", str(to), "--read-imgsz", "32", cwd=shipped,
    ).stdout  # fmt: skip
    assert "exported cards-reader.onnx (float)" in out and "the shipped detector" in out
    files = ModelFiles.load(to)
    assert files.detector.read_bytes() == ModelFiles.load().detector.read_bytes()
    assert (
        OnnxClassifier(files.reader).names
        == OnnxClassifier(shipped / "models" / "cards-reader.onnx").names
    )
