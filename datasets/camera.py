"""A pinhole camera over the table: the homography from table millimetres to pixels.

The table is the plane z = 0 (millimetres, z up). The camera looks at a target point
from `distance` mm, tilted `tilt` degrees from straight down and turned `yaw` degrees
around the vertical. Everything on the table (cloth, cards, clutter) is mapped by the
same homography, so perspective, foreshortening and scale agree across the scene.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .faces import CARD_H_MM

__all__ = ["IMAGE_SIZES", "Camera", "sample_camera", "scale_kind"]

Matrix = npt.NDArray[np.float64]
"""A 3x3 homography."""

IMAGE_SIZES: tuple[tuple[int, int], ...] = (
    (640, 480),
    (800, 600),
    (960, 720),
    (1024, 768),
    (1280, 720),
    (1280, 960),
    (1600, 1200),
    (1920, 1080),
    (480, 640),
    (720, 960),
    (1080, 1440),
)
"""(width, height) of generated frames: webcams (landscape) and phones (portrait)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Camera:
    """Intrinsics and pose; `homography` maps table mm (x, y, 1) to pixels."""

    width: int
    height: int
    focal_px: float
    tilt_deg: float
    yaw_deg: float
    distance_mm: float
    target_mm: tuple[float, float]

    @property
    def homography(self) -> Matrix:
        tilt, yaw = math.radians(self.tilt_deg), math.radians(self.yaw_deg)
        target = np.array([*self.target_mm, 0.0])
        away = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        centre = target + self.distance_mm * (
            math.sin(tilt) * away + np.array([0, 0, math.cos(tilt)])
        )
        forward = (target - centre) / np.linalg.norm(target - centre)
        right = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
        down = np.cross(forward, right)
        rotation = np.stack([right, down, forward])
        translation = -rotation @ centre
        # The image x axis is mirrored. Card sprites are placed on the table with their
        # pixel rows running along the table's +y (layouts.pose_matrix), which seen from
        # above (z up) is a reflection; mirroring the view undoes it, so every card reads
        # the right way round (index top-left, glyphs unmirrored) while the layouts keep
        # the overlaps they were designed with. The table itself has no handedness.
        k = np.array(
            [[-self.focal_px, 0, self.width / 2], [0, self.focal_px, self.height / 2], [0, 0, 1]]
        )
        # Not normalised: the third coordinate is the depth in front of the camera, so a
        # negative one reliably means "behind the camera".
        projection = k @ np.column_stack([rotation[:, 0], rotation[:, 1], translation])
        return np.asarray(projection, dtype=np.float64)

    def card_height_px(self) -> float:
        """Roughly how tall a card at the target looks (before foreshortening)."""
        return self.focal_px * CARD_H_MM / self.distance_mm


def scale_kind(camera: Mapping[str, Any]) -> str:
    """How close a scene is, from its metadata's `camera` (`focal_px`, `distance_mm`):
    `close-up` (a card at the target >= 220 px tall: one hand held to the camera),
    `table` (90-220 px) or `whole table` (< 90 px). Benchmarks and tests report per kind
    because the model's accuracy falls with the card's size in pixels."""
    card_px = float(camera["focal_px"]) * CARD_H_MM / float(camera["distance_mm"])
    if card_px >= 220:
        return "close-up"
    return "table" if card_px >= 90 else "whole table"


def sample_camera(
    rng: np.random.Generator,
    size: tuple[int, int],
    target_mm: tuple[float, float],
    *,
    card_px: tuple[float, float] | None = None,
    max_tilt: float = 55.0,
) -> Camera:
    """A random camera: straight above to steep, close-up of a hand to a whole table.

    `card_px` bounds the card height in pixels at the target (log-uniform); by default
    from about 70 px (a whole table in a small frame, index about 12 px tall) to most of
    the frame height (a close-up).
    """
    width, height = size
    hfov = math.radians(rng.uniform(48, 72))
    focal = (width / 2) / math.tan(hfov / 2)
    vfov_half = math.degrees(math.atan((height / 2) / focal))
    low, high = card_px if card_px is not None else (70.0, 0.8 * min(width, height))
    low = min(low, high)
    wanted = math.exp(rng.uniform(math.log(low), math.log(high)))
    tilt_cap = min(max_tilt, 76.0 - vfov_half)
    tilt = tilt_cap * math.sqrt(rng.random()) if rng.random() < 0.8 else rng.uniform(0, 8)
    return Camera(
        width=width,
        height=height,
        focal_px=focal,
        tilt_deg=tilt,
        yaw_deg=rng.uniform(0, 360),
        distance_mm=focal * CARD_H_MM / wanted,
        target_mm=target_mm,
    )
