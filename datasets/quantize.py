"""Int8 quantization of the exported locator and reader, for speed and size on the CPU.

The locator runs near a webcam frame's full resolution (see models/MODEL_CARD.md), and
on a 2-core CPU that is most of a frame's time. ONNX Runtime's static int8
quantization (QDQ, per-channel weights, activations calibrated on generated tiles) runs
the convolutions with VNNI integer instructions where the CPU has them.

Only the backbone and neck are quantized. The detect head ends in one tensor that holds
box coordinates in pixels (up to the input size) next to class scores in 0..1; one int8
scale for both wipes out the scores (measured: no detection left at all), so every
node of the head after its last convolutions stays in float.

Weights are quantized to 7 bits (`reduce_range`, -64..64), not 8. x86 CPUs without VNNI
(AVX2 only: most AMD CPUs before Zen 4, Intel before Ice Lake) multiply uint8
activations by int8 weights with an instruction that adds pairs of products into a
16-bit sum and saturates there (255 x 127 x 2 overflows it; 255 x 64 x 2 does not), so a
full-range int8 model reads differently on them than on the CPU it was measured on.
Measured on an AVX2-only AMD EPYC (2026-11-27): the tenth model's full-range files found
no card outline on 72 of the 296 real-dev photos and read 30.4% of them exact, against
61.1% for the float models and 61.8% for the same weights at 7 bits (the float numbers
the int8 ones must match; models/MODEL_CARD.md).

The reader is quantized the same way, calibrated on generated index crops with the
runtime's own preprocessing: a quarter of the float file's size (6.8 -> 2.4 MB) at the
same validation top-1 (measured in models/MODEL_CARD.md). Its head (pooling, the linear
layer, softmax) stays in float too, so the probabilities that the read floor gates on
are not rounded to 1/255 steps.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.vision.arrays import Frame
from shanghai.vision.onnx_models import OnnxClassifier, letterbox

__all__ = [
    "INT8_WEIGHT_REACH",
    "calibration_images",
    "int8_weight_reach",
    "quantize_detector",
    "quantize_reader",
]

INT8_WEIGHT_REACH = 64
"""The largest |int8 weight| that cannot saturate a CPU without VNNI (module docstring)."""


def calibration_images(folder: Path, count: int = 32, *, suffix: str = ".jpg") -> list[Path]:
    """`count` images spread evenly over the `suffix` files under `folder` (e.g. the
    generated tiles' JPEGs, or the reader crops' PNGs)."""
    found = sorted(folder.rglob(f"*{suffix}"))
    if not found:
        raise FileNotFoundError(f"{folder}: no {suffix} images to calibrate with")
    step = max(1, len(found) // count)
    return found[::step][:count]


def _head_nodes(model_path: Path) -> list[str]:
    """Names of the head's nodes that are not convolutions: a detector's decoding, a
    classifier's pooling, linear layer and softmax."""
    import onnx

    graph = onnx.load(str(model_path)).graph
    convs = [n for n in graph.node if n.op_type == "Conv"]
    if not convs:
        raise ValueError(f"{model_path}: no convolutions: not a YOLO model")
    head = convs[-1].name.split("/")[1]  # ultralytics names nodes /model.<layer>/...
    return [n.name for n in graph.node if n.name.split("/")[1:2] == [head] and n.op_type != "Conv"]


def _read(path: Path) -> Frame:
    image = cv2.imread(str(path))
    if image is None:
        raise ValueError(f"{path}: not an image")
    return np.asarray(image, dtype=np.uint8)


class _Calibration:
    """ONNX Runtime's calibration reader protocol: one input blob per `get_next`."""

    def __init__(self, blobs: Iterator[dict[str, npt.NDArray[np.float32]]]) -> None:
        self._blobs = blobs

    def get_next(self) -> dict[str, npt.NDArray[np.float32]] | None:
        return next(self._blobs, None)


def _letterboxed(path: Path, imgsz: int) -> npt.NDArray[np.float32]:
    padded, _ = letterbox(_read(path), (imgsz, imgsz), stride=32)
    return np.asarray(cv2.dnn.blobFromImage(padded, 1 / 255.0, swapRB=True), np.float32)


def quantize_detector(model: Path, to: Path, images: Sequence[Path], *, imgsz: int = 416) -> Path:
    """Write an int8 copy of the float locator `model` to `to`; returns `to`."""
    name = _input_name(model)
    blobs = ({name: _letterboxed(path, imgsz)} for path in images)
    return _quantize(model, to, _Calibration(blobs))


def quantize_reader(model: Path, to: Path, crops: Sequence[Path]) -> Path:
    """Write an int8 copy of the float reader `model` to `to`, calibrated on index
    `crops` preprocessed exactly as the runtime does; returns `to`.

    One crop per calibration step: the percentile calibrator stacks every step's
    activations into one array, which fails on a shorter last batch."""
    reader = OnnxClassifier(model, threads=1)
    blobs = ({reader.input_name: reader.preprocess(_read(path))[None]} for path in crops)
    # Percentile calibration (clipping the rarest 0.001% of activations) scored best of
    # min-max, percentile and entropy on validation scenes' index crops, all within 0.6
    # points of the float reader (models/MODEL_CARD.md).
    return _quantize(model, to, _Calibration(blobs), percentile=True)


def int8_weight_reach(model: Path) -> int:
    """The largest |int8 weight| in an ONNX file (0 without int8 weights): at most
    `INT8_WEIGHT_REACH` for a file that reads alike on every x86 CPU."""
    import onnx
    from onnx import numpy_helper

    weights = [
        numpy_helper.to_array(t)
        for t in onnx.load(str(model)).graph.initializer
        if t.data_type == onnx.TensorProto.INT8
    ]
    return max((int(np.abs(w.astype(np.int16)).max()) for w in weights if w.size), default=0)


def _input_name(model: Path) -> str:
    import onnxruntime as ort

    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    return str(session.get_inputs()[0].name)


def _quantize(
    model: Path, to: Path, calibration: _Calibration, *, percentile: bool = False
) -> Path:
    """Static QDQ int8 (per-channel weights) of everything but the head's decoding."""
    from onnxruntime.quantization import (
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    method = CalibrationMethod.Percentile if percentile else CalibrationMethod.MinMax
    to.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        # Symbolic shape inference cannot follow the dynamic input; ONNX's own can.
        quant_pre_process(str(model), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(to),
            calibration,
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=True,
            nodes_to_exclude=_head_nodes(prepared),
            calibrate_method=method,
        )
    _copy_metadata(model, to)
    return to


def _copy_metadata(source: Path, target: Path) -> None:
    """Keep ultralytics' metadata (class names, stride, input size) that the runtime
    reads, whether or not the quantizer carried it over."""
    import onnx

    meta = {p.key: p.value for p in onnx.load(str(source)).metadata_props}
    model = onnx.load(str(target))
    have = {p.key for p in model.metadata_props}
    for key, value in meta.items():
        if key not in have:
            model.metadata_props.add(key=key, value=value)
    onnx.save(model, str(target))
