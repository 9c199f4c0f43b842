"""`Detections`: the boxes one model pass found, as arrays with stated shapes.

Modelled on supervision's `Detections`: one dataclass of aligned numpy arrays,
validated on construction and filtered with boolean masks
(`detections[detections.confidence > 0.5]`). The engine never sees these arrays; the
pipeline turns them into engine `Card`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .arrays import Float32Array, IntArray

__all__ = ["Detections"]


@dataclass(frozen=True)
class Detections:
    """N detections: `xyxy` (N, 4) float32 pixel corners, `confidence` (N,) float32,
    `class_id` (N,) int64. `names` maps class ids to class names."""

    xyxy: Float32Array
    confidence: Float32Array
    class_id: IntArray
    names: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4)
        confidence = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        class_id = np.asarray(self.class_id, dtype=np.int64).reshape(-1)
        if not len(xyxy) == len(confidence) == len(class_id):
            raise ValueError(
                f"detections need aligned arrays: {len(xyxy)} boxes, "
                f"{len(confidence)} confidences, {len(class_id)} class ids"
            )
        if len(xyxy) and np.any(xyxy[:, 2:] < xyxy[:, :2]):
            raise ValueError("boxes must be xyxy with x2 >= x1 and y2 >= y1")
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "class_id", class_id)

    @classmethod
    def empty(cls, names: tuple[str, ...] = ()) -> Detections:
        return cls(
            np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64), names
        )

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(
        self, index: npt.NDArray[np.bool_] | npt.NDArray[np.int64] | slice
    ) -> Detections:
        """Select by a boolean mask, an index array or a slice; always a `Detections`."""
        return Detections(
            self.xyxy[index], self.confidence[index], self.class_id[index], self.names
        )

    @property
    def class_names(self) -> list[str]:
        return [self.names[i] if 0 <= i < len(self.names) else str(i) for i in self.class_id]

    @property
    def centers(self) -> Float32Array:
        """(N, 2) box centres."""
        return ((self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2).astype(np.float32)

    @property
    def areas(self) -> Float32Array:
        wh = self.xyxy[:, 2:] - self.xyxy[:, :2]
        return (wh[:, 0] * wh[:, 1]).astype(np.float32)

    def of_class(self, name: str) -> Detections:
        if name not in self.names:
            return self[np.zeros(len(self), dtype=bool)]
        return self[self.class_id == self.names.index(name)]
