"""Ground truth as readings: the oracle that tests the card logic without a model.

A generated scene's JSON (`shanghai data generate --kind roundend` or `scenes`, in
`<out>/<kind>/<split>/meta/*.json`) records every card's visible-pixel box and every
index with its state. The oracle turns exactly what a perfect detector and reader
would report into `IndexReadings` and card boxes: indices labelled `visible` (the ones
the models are trained to find), named by the card they belong to, confidence 1;
boxes of the face-up cards that have one. Everything after that is the real pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from shanghai.vision.readings import IndexReadings

__all__ = ["truth_readings"]


def _index_box(quad: Any, width: int, height: int) -> tuple[float, float, float, float]:
    pts = np.asarray(quad, dtype=np.float64).reshape(-1, 2)
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    return (max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1))


def truth_readings(
    meta: Mapping[str, Any],
) -> tuple[IndexReadings, npt.NDArray[np.float32]]:
    """(readings, (M, 4) card boxes) that a perfect model would give for this scene."""
    width, height = int(meta["width"]), int(meta["height"])
    boxes: list[tuple[float, float, float, float]] = []
    names: list[str] = []
    card_boxes: list[list[float]] = []
    for card in meta["cards"]:
        if not card.get("face_up", True):
            continue
        if card.get("box_xyxy") is not None:
            card_boxes.append([float(v) for v in card["box_xyxy"]])
        for index in card.get("indices", ()):
            if index["state"] == "visible":
                boxes.append(_index_box(index["quad"], width, height))
                names.append(str(card["card"]))
    readings = IndexReadings(
        np.asarray(boxes, dtype=np.float32).reshape(-1, 4),
        tuple(names),
        np.ones(len(names), np.float32),
    )
    return readings, np.asarray(card_boxes, dtype=np.float32).reshape(-1, 4)
