"""Running exported YOLO models with ONNX Runtime, without PyTorch or ultralytics.

Preprocessing and decoding follow ultralytics 8.4 so results match its `predict`:
- detect: letterbox to the model's square input (resize keeping the aspect ratio,
  pad with grey 114 centred, `round(d - 0.1)` / `round(d + 0.1)` split), BGR->RGB,
  /255, NCHW; the output (1, 4 + nc, anchors) holds centre-xywh and class scores;
  confidence filter, class-aware NMS (boxes offset by class x 7680), boxes mapped back
  through the letterbox and clipped.
- classify: RGB, resize the shortest side to the model size (PIL bilinear, as
  torchvision does for PIL images), centre crop, /255; the first output is
  probabilities. A reader may carry a second output, `embedding` (the pooled features
  entering the head's final Linear, added by `tools/reader_embedding.py`), which a
  taught deck reads by (`deck_head.DeckHead`); a reader without it still loads.

Class names, input size and task come from the metadata ultralytics writes into the
ONNX file, so the files carry their own class lists.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from PIL import Image

from .arrays import Frame
from .detections import Detections
from .model_files import ModelSettingsError

__all__ = [
    "EMBEDDING_OUTPUT",
    "Letterbox",
    "OnnxClassifier",
    "OnnxDetector",
    "letterbox",
    "nms",
]

MAX_WH = 7680.0
EMBEDDING_OUTPUT = "embedding"
"""Name of a reader's optional second output: (N, D) pooled features."""


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How a frame was fitted into the model input: scale, then offset (left, top)."""

    gain: float
    left: int
    top: int


def letterbox(
    image: Frame, size: tuple[int, int], pad_value: int = 114, *, stride: int | None = None
) -> tuple[Frame, Letterbox]:
    """Resize keeping the aspect ratio and pad to `size` (height, width), centred.

    With `stride`, pad only up to the next multiple of it (ultralytics' rectangular
    "auto" mode for dynamic-shape models): a 16:9 frame is not padded to a square.
    """
    h, w = image.shape[:2]
    gain = min(size[0] / h, size[1] / w)
    new_w, new_h = max(round(w * gain), 1), max(round(h * gain), 1)
    dw, dh = (size[1] - new_w) / 2, (size[0] - new_h) / 2
    if stride is not None:
        dw, dh = ((size[1] - new_w) % stride) / 2, ((size[0] - new_h) % stride) / 2
    if (w, h) != (new_w, new_h):
        image = np.asarray(
            cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR), dtype=np.uint8
        )
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    padded = np.asarray(
        cv2.copyMakeBorder(
            image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(pad_value,) * 3
        ),
        dtype=np.uint8,
    )
    return padded, Letterbox(gain, left, top)


def nms(
    boxes: npt.NDArray[np.float32], scores: npt.NDArray[np.float32], iou: float
) -> npt.NDArray[np.int64]:
    """Greedy non-maximum suppression; returns kept indices by descending score."""
    order = np.argsort(-scores, kind="stable")
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = (x2 - x1).clip(0) * (y2 - y1).clip(0)
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        xx1 = np.maximum(x1[i], x1[rest])
        yy1 = np.maximum(y1[i], y1[rest])
        xx2 = np.minimum(x2[i], x2[rest])
        yy2 = np.minimum(y2[i], y2[rest])
        inter = (xx2 - xx1).clip(0) * (yy2 - yy1).clip(0)
        overlap = inter / (areas[i] + areas[rest] - inter + 1e-9)
        order = rest[overlap <= iou]
    return np.asarray(keep, dtype=np.int64)


def _session(path: Path, threads: int | None) -> ort.InferenceSession:
    if not path.is_file():
        raise FileNotFoundError(f"model file {path} not found")
    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _metadata(session: ort.InferenceSession) -> dict[str, str]:
    return dict(session.get_modelmeta().custom_metadata_map)


def _names(meta: dict[str, str]) -> tuple[str, ...]:
    raw = ast.literal_eval(meta.get("names", "{}"))
    return tuple(str(raw[i]) for i in sorted(raw))


class OnnxDetector:
    """A YOLO detect model exported to ONNX.

    A static export runs at its fixed input size. A dynamic export runs each frame at
    `imgsz` (its long side, default: the frame's long side up to `max_imgsz`): the
    locator is trained on tiles at native scale, so it must see frames near their
    native resolution for card indices to keep their trained size.
    """

    def __init__(
        self, path: str | Path, *, threads: int | None = None, max_imgsz: int = 1280
    ) -> None:
        self.session = _session(Path(path), threads)
        meta = _metadata(self.session)
        self.names = _names(meta)
        self.stride = int(meta.get("stride", "32"))
        shape = self.session.get_inputs()[0].shape
        self.dynamic = not (isinstance(shape[2], int) and isinstance(shape[3], int))
        self.input_size = (max_imgsz, max_imgsz) if self.dynamic else (int(shape[2]), int(shape[3]))
        self.max_imgsz = max_imgsz
        self.input_name = self.session.get_inputs()[0].name

    def size_for(self, frame_shape: tuple[int, ...], imgsz: int | None = None) -> tuple[int, int]:
        """Input (height, width) for a frame: fixed, or its long side rounded to the stride."""
        if not self.dynamic:
            return self.input_size
        if imgsz is None:
            imgsz = min(max(frame_shape[:2]), self.max_imgsz)
        imgsz = max(self.stride, int(np.ceil(imgsz / self.stride)) * self.stride)
        return imgsz, imgsz

    def __call__(
        self,
        image: Frame,
        *,
        conf: float = 0.25,
        iou: float = 0.7,
        max_det: int = 300,
        imgsz: int | None = None,
    ) -> Detections:
        size = self.size_for(image.shape, imgsz)
        padded, box = letterbox(image, size, stride=self.stride if self.dynamic else None)
        blob = cv2.dnn.blobFromImage(padded, 1 / 255.0, swapRB=True)
        (output,) = self.session.run(None, {self.input_name: blob})
        return self.decode(output[0], box, image.shape[:2], conf=conf, iou=iou, max_det=max_det)

    def decode(
        self,
        output: npt.NDArray[np.float32],
        box: Letterbox,
        frame_shape: tuple[int, ...],
        *,
        conf: float,
        iou: float,
        max_det: int,
    ) -> Detections:
        """(4 + nc, anchors) raw output -> detections in frame pixels."""
        scores_all = output[4:].T
        class_id = scores_all.argmax(1)
        scores = scores_all[np.arange(len(class_id)), class_id]
        keep = scores > conf
        xywh, scores, class_id = output[:4].T[keep], scores[keep], class_id[keep]
        xyxy = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], 1)
        if len(xyxy) > 30000:
            top = np.argsort(-scores)[:30000]
            xyxy, scores, class_id = xyxy[top], scores[top], class_id[top]
        kept = nms(xyxy + class_id[:, None] * MAX_WH, scores, iou)[:max_det]
        xyxy, scores, class_id = xyxy[kept], scores[kept], class_id[kept]
        xyxy = (xyxy - [box.left, box.top, box.left, box.top]) / box.gain
        h, w = frame_shape[:2]
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, w)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, h)
        return Detections(xyxy.astype(np.float32), scores, class_id.astype(np.int64), self.names)


class OnnxClassifier:
    """A YOLO classify model exported to ONNX (dynamic batch preferred)."""

    def __init__(self, path: str | Path, *, threads: int | None = None) -> None:
        self.session = _session(Path(path), threads)
        meta = _metadata(self.session)
        self.names = _names(meta)
        shape = self.session.get_inputs()[0].shape
        # A dynamic export names its axes; the trained size is in the metadata then.
        size = shape[2] if isinstance(shape[2], int) else ast.literal_eval(meta["imgsz"])[0]
        self.size = int(size)
        batch = shape[0]
        self.max_batch = batch if isinstance(batch, int) and batch > 0 else 256
        self.input_name = self.session.get_inputs()[0].name
        outputs = [o.name for o in self.session.get_outputs()]
        self.output_names = [outputs[0]] + [n for n in outputs[1:] if n == EMBEDDING_OUTPUT]
        """The probabilities' output, then the embedding's when the reader has one."""

    @classmethod
    def with_classes(
        cls, path: Path, classes: tuple[str, ...], *, threads: int | None = None
    ) -> OnnxClassifier:
        """A classifier that must have exactly `classes`, in order (a check's model:
        a file named in the wrong table would be read by class id as nonsense).
        Raises `ModelSettingsError` otherwise."""
        model = cls(path, threads=threads)
        if tuple(model.names) != classes:
            raise ModelSettingsError(
                f"{path.name}: classes {list(model.names)}, expected {list(classes)}"
            )
        return model

    def preprocess(self, crop: Frame) -> npt.NDArray[np.float32]:
        rgb = Image.fromarray(cv2.cvtColor(crop, cv2.COLOR_BGR2RGB))
        w, h = rgb.size
        scale = self.size / min(w, h)
        new = (max(self.size, round(w * scale)), max(self.size, round(h * scale)))
        rgb = rgb.resize(new, Image.Resampling.BILINEAR)
        left, top = round((new[0] - self.size) / 2), round((new[1] - self.size) / 2)
        rgb = rgb.crop((left, top, left + self.size, top + self.size))
        return np.asarray(rgb, dtype=np.float32).transpose(2, 0, 1) / 255.0

    @property
    def has_embedding(self) -> bool:
        """Whether the reader gives its pooled features too (`EMBEDDING_OUTPUT`)."""
        return len(self.output_names) > 1

    def __call__(self, crops: list[Frame]) -> npt.NDArray[np.float32]:
        """(N, classes) probabilities for N BGR crops."""
        return self._run(crops, embed=False)[0]

    def read(
        self, crops: list[Frame]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
        """(N, classes) probabilities and (N, D) embeddings (None when the reader has no
        `embedding` output)."""
        return self._run(crops, embed=self.has_embedding)

    def _run(
        self, crops: list[Frame], *, embed: bool
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
        if not crops:
            width = self.session.get_outputs()[1].shape[1] if embed else 0
            size = width if isinstance(width, int) else 0
            return np.zeros((0, len(self.names)), np.float32), (
                np.zeros((0, size), np.float32) if embed else None
            )
        wanted = self.output_names if embed else self.output_names[:1]
        probs_out: list[npt.NDArray[np.float32]] = []
        embed_out: list[npt.NDArray[np.float32]] = []
        for start in range(0, len(crops), self.max_batch):
            chunk = crops[start : start + self.max_batch]
            blob = np.stack([self.preprocess(c) for c in chunk])
            if self.max_batch != 256 and len(chunk) < self.max_batch:  # static batch: pad
                blob = np.concatenate(
                    [blob, np.zeros((self.max_batch - len(chunk), *blob.shape[1:]), np.float32)]
                )
            outputs = self.session.run(wanted, {self.input_name: blob})
            probs_out.append(outputs[0][: len(chunk)])
            if embed:
                embed_out.append(outputs[1][: len(chunk)])
        probs = np.concatenate(probs_out).astype(np.float32)
        return probs, (np.concatenate(embed_out).astype(np.float32) if embed else None)
