"""Int8 quantization of the exported locator, for speed on the CPU.

The locator runs near a webcam frame's full resolution (see models/MODEL_CARD.md), and
on a 2-core CPU that is most of a frame's time. ONNX Runtime's static int8
quantization (QDQ, per-channel weights, activations calibrated on generated tiles) runs
the convolutions with VNNI integer instructions where the CPU has them.

Only the backbone and neck are quantized. The detect head ends in one tensor that holds
box coordinates in pixels (up to the input size) next to class scores in 0..1; one int8
scale for both wipes out the scores (measured: no detection left at all), so every
node of the head after its last convolutions stays in float.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.vision.onnx_models import letterbox

__all__ = ["calibration_images", "quantize_detector"]


def calibration_images(folder: Path, count: int = 32) -> list[Path]:
    """`count` images spread evenly over the JPEGs under `folder` (e.g. generated tiles)."""
    found = sorted(folder.rglob("*.jpg"))
    if not found:
        raise FileNotFoundError(f"{folder}: no .jpg images to calibrate with")
    step = max(1, len(found) // count)
    return found[::step][:count]


def _head_nodes(model_path: Path) -> list[str]:
    """Names of the detect head's nodes that are not convolutions (the decoding)."""
    import onnx

    graph = onnx.load(str(model_path)).graph
    convs = [n for n in graph.node if n.op_type == "Conv"]
    if not convs:
        raise ValueError(f"{model_path}: no convolutions: not a YOLO detector")
    head = convs[-1].name.split("/")[1]  # ultralytics names nodes /model.<layer>/...
    return [n.name for n in graph.node if n.name.split("/")[1:2] == [head] and n.op_type != "Conv"]


class _Calibration:
    """ONNX Runtime's calibration reader protocol over letterboxed images."""

    def __init__(self, input_name: str, images: Sequence[Path], imgsz: int) -> None:
        self._blobs: Iterator[dict[str, npt.NDArray[np.float32]]] = (
            {input_name: self._blob(path, imgsz)} for path in images
        )

    @staticmethod
    def _blob(path: Path, imgsz: int) -> npt.NDArray[np.float32]:
        image = cv2.imread(str(path))
        if image is None:
            raise ValueError(f"{path}: not an image")
        padded, _ = letterbox(image, (imgsz, imgsz), stride=32)
        return np.asarray(cv2.dnn.blobFromImage(padded, 1 / 255.0, swapRB=True), np.float32)

    def get_next(self) -> dict[str, npt.NDArray[np.float32]] | None:
        return next(self._blobs, None)


def quantize_detector(model: Path, to: Path, images: Sequence[Path], *, imgsz: int = 416) -> Path:
    """Write an int8 copy of the float locator `model` to `to`; returns `to`."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    to.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        # Symbolic shape inference cannot follow the dynamic input; ONNX's own can.
        quant_pre_process(str(model), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(to),
            _Calibration(name, images, imgsz),  # type: ignore[arg-type]
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=_head_nodes(prepared),
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
