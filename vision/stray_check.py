"""Whether a located index that names no card is an index at all: the stray check.

The scan warns of a card corner seen but not read (`scan._stray_corners`, the `corner`
warning): an index located on no card read is most often the sliver of a card pushed
under the others, whose points would otherwise go missing in silence. But the locator
also takes court art, pips and blank card corners for an index; on validation hands read
right, `corner` was the warning most often raised for nothing (36 of 89 hands right but
flagged on 800, seeds 3101 + 3103, eighteenth session). A small classifier on a square
a little wider than the index box tells an index (even a covered sliver of one) from
the rest of a card; a stray it plainly calls no index is not warned of.

This module is the one definition of the stray crop and its classes, shared by the
runtime and the training data (`shanghai.datasets.stray_crops`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .arrays import Box, Frame
from .crops import square_crop
from .face_kind import KindModel
from .model_files import ModelFiles
from .onnx_models import OnnxClassifier

__all__ = ["STRAY_CLASSES", "STRAY_CONTEXT", "STRAY_SIZE", "StrayCheck", "stray_crop"]

STRAY_CONTEXT = 2.0
"""The stray crop's side in index sizes: the index and half an index of card around it
each way, enough to see whether it lies at a card's corner or inside its picture."""
STRAY_SIZE = 64
STRAY_CLASSES: tuple[str, ...] = ("index", "other")
"""The classifier's classes, in class-id order (ultralytics sorts its folders)."""


def stray_crop(
    image: Frame,
    index_xyxy: Box,
    *,
    context: float = STRAY_CONTEXT,
    shift: tuple[float, float] = (0.0, 0.0),
) -> Frame:
    """The stray classifier's input: the square `context` index sizes wide around a
    located index box (`crops.square_crop`)."""
    return square_crop(image, index_xyxy, size=STRAY_SIZE, context=context, shift=shift)


@dataclass(frozen=True)
class StrayCheck:
    """The stray classifier of a models folder (`ModelFiles.stray`) and its level: a
    stray whose p(index) is under `least` is no card's corner."""

    model: KindModel
    least: float

    @classmethod
    def load(cls, files: ModelFiles, *, threads: int | None = None) -> StrayCheck | None:
        """The folder's stray check; None when its `models.toml` names none. Raises
        `ModelSettingsError` for a model whose classes are not `STRAY_CLASSES`."""
        if files.stray is None:
            return None
        model = OnnxClassifier.with_classes(files.stray, STRAY_CLASSES, threads=threads)
        return cls(model, files.stray_least)

    def index_odds(self, frame: Frame, boxes: Sequence[Box]) -> list[float]:
        """p(index) for each located box of the frame."""
        if not boxes:
            return []
        probabilities = self.model([stray_crop(frame, box) for box in boxes])
        return [float(p) for p in probabilities[:, STRAY_CLASSES.index("index")]]

    def kept(self, frame: Frame, boxes: Sequence[Box]) -> tuple[Box, ...]:
        """The boxes that may be a card's index (p(index) at least `least`)."""
        odds = self.index_odds(frame, boxes)
        return tuple(box for box, p in zip(boxes, odds, strict=True) if p >= self.least)
