"""The scene composer: a layout, a camera and a table surface in, a photo-like frame and
the card-ownership mask out.

Each sprite (card face, card back, clutter) is warped with one homography from its own
pixels to the frame (`camera.homography @ placement.to_table()`), only over its
bounding box, and alpha-blended; the mask gets the card's id where the card covers
more than half a pixel. Faces come from the per-process cache, so a scene costs a few
small warps per card, the table texture, and the camera effects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.vision.arrays import Frame

from .backgrounds import table_texture
from .camera import Camera
from .clutter import PX_PER_MM
from .decks import back_of, face_of
from .effects import apply_effects, jpeg_roundtrip
from .faces import FACE_H, FACE_W
from .labels import CardLabel, Quad, Window, measure_labels
from .layouts import Layout, Placement, pose_matrix

__all__ = ["OCCLUDER_ID", "Rendered", "render_scene"]

OCCLUDER_ID = -1
"""Mask value of clutter (pens, chips, fingers): it hides cards but is not one."""
TEXTURE_MAX_PX = 900

Matrix = npt.NDArray[np.float64]


@dataclass(slots=True)
class Rendered:
    """A finished frame with what is needed to label any window of it.

    `image` is BGR uint8 (H, W, 3) exactly as the written JPEG decodes; `mask` is int32
    (H, W): 0 table, `i + 1` for `placements[i]`, -1 clutter. Quads are full-frame
    pixels (None for a card that falls behind the camera).
    """

    image: Frame
    jpeg: bytes
    mask: npt.NDArray[np.int32]
    placements: list[Placement]
    card_quads: list[Quad | None]
    index_quads: list[list[Quad]]
    camera: Camera
    background: str
    blur_px: float = 0.0

    def labels(self, window: Window | None = None) -> list[CardLabel]:
        return measure_labels(
            self.placements,
            self.card_quads,
            self.index_quads,
            self.mask,
            self.image,
            window,
            blur_px=self.blur_px,
        )


def _project(m: Matrix, points: npt.NDArray[np.float64]) -> npt.NDArray[np.float64] | None:
    """Project (N, 2) points; None if any lies behind the camera."""
    homo = np.column_stack([points, np.ones(len(points))]) @ m.T
    if np.any(homo[:, 2] <= 1e-6):
        return None
    return homo[:, :2] / homo[:, 2:3]


def _draw_table(camera: Camera, family: str, rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """The table surface as seen by the camera, (H, W, 3) float32 RGB."""
    h_img = camera.homography
    corners = np.array(
        [[0, 0], [camera.width, 0], [camera.width, camera.height], [0, camera.height]], np.float64
    )
    back = np.column_stack([corners, np.ones(4)]) @ np.linalg.inv(h_img).T
    on_table = back[:, :2] / back[:, 2:3]
    centre = on_table.mean(axis=0)
    extent = float(np.linalg.norm(on_table - centre, axis=1).max()) * 2.05
    size = TEXTURE_MAX_PX
    mm_per_px = extent / size
    texture = table_texture(family, rng, size, mm_per_px)
    to_table = pose_matrix(centre[0], centre[1], rng.uniform(0, 360), mm_per_px, size, size)
    table = cv2.warpPerspective(
        texture,
        h_img @ to_table,
        (camera.width, camera.height),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )
    return table.astype(np.float32)


def _mip(rgba: npt.NDArray[np.uint8], m: Matrix) -> tuple[npt.NDArray[np.uint8], Matrix]:
    """Shrink a sprite first when it is drawn much smaller, so the warp does not alias."""
    h, w = rgba.shape[:2]
    corners = _project(m, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
    if corners is None:
        return rgba, m
    x, y = corners[:, 0], corners[:, 1]
    area = abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) / 2
    scale = math.sqrt(area / (w * h))
    if scale >= 0.6:
        return rgba, m
    f = max(scale * 1.4, 0.02)
    small = np.asarray(
        cv2.resize(
            rgba, (max(2, round(w * f)), max(2, round(h * f))), interpolation=cv2.INTER_AREA
        ),
        dtype=np.uint8,
    )
    fx, fy = small.shape[1] / w, small.shape[0] / h
    return small, m @ np.diag([1 / fx, 1 / fy, 1.0])


def _paste(
    canvas: npt.NDArray[np.float32],
    mask: npt.NDArray[np.int32],
    rgba: npt.NDArray[np.uint8],
    m: Matrix,
    ident: int,
    rng: np.random.Generator,
    *,
    shadow: float,
    gain: float = 1.0,
) -> None:
    """Warp `rgba` by `m` (sprite px -> frame px) onto `canvas` and paint `ident` in `mask`."""
    rgba, m = _mip(rgba, m)
    h, w = rgba.shape[:2]
    corners = _project(m, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
    if corners is None:
        return
    # A sprite close to the camera's plane projects to millions of pixels; the shadow's
    # offset and blur scale with its size, and a blur kernel that wide once took the
    # generator to 20+ GB and a segfault. Nothing beyond the frame shows, so cap it there.
    size = min(float(np.linalg.norm(corners[2] - corners[0])), 2.0 * float(np.hypot(*mask.shape)))
    pad = int(size * 0.04) + 2
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + pad
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, canvas.shape[1]), min(y1, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    local = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ m
    warped = cv2.warpPerspective(
        rgba,
        local,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    alpha = warped[..., 3].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1]
    if shadow > 0:
        offset = size * 0.012
        dx, dy = rng.normal(offset, offset / 2), rng.normal(offset, offset / 2)
        shift = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        shifted = cv2.warpAffine(alpha, shift, (alpha.shape[1], alpha.shape[0]))
        k = max(3, int(size * 0.02)) | 1
        roi *= (1 - shadow * cv2.GaussianBlur(shifted, (k, k), 0))[..., None]
    a = alpha[..., None]
    roi[:] = roi * (1 - a) + warped[..., :3].astype(np.float32) * gain * a
    mask[y0:y1, x0:x1][alpha > 0.5] = ident


def render_scene(
    layout: Layout,
    camera: Camera,
    background: str,
    rng: np.random.Generator,
    *,
    effects: bool = True,
    jpeg_quality: int | None = None,
) -> Rendered:
    """Draw the layout as the camera sees it, then the room's light and the camera's
    flaws; the returned image is the decoded JPEG that gets written."""
    h_cam = camera.homography
    canvas = _draw_table(camera, background, rng)
    mask = np.zeros((camera.height, camera.width), np.int32)

    def paste_clutter(above: bool) -> None:
        for item in layout.clutter:
            if item.above_cards != above:
                continue
            h, w = item.rgba.shape[:2]
            m = h_cam @ pose_matrix(item.x_mm, item.y_mm, item.angle_deg, 1 / PX_PER_MM, w, h)
            _paste(canvas, mask, item.rgba, m, OCCLUDER_ID, rng, shadow=rng.uniform(0.2, 0.5))

    paste_clutter(above=False)
    card_quads: list[Quad | None] = []
    index_quads: list[list[Quad]] = []
    face_corners = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float64)
    for i, placement in enumerate(layout.placements):
        m = h_cam @ placement.to_table()
        card_quads.append(_project(m, face_corners))
        quads: list[Quad] = []
        if placement.face_up:
            face = face_of(placement.look, placement.card)
            rgba = face.rgba
            for bx0, by0, bx1, by1 in face.index_boxes:
                q = _project(m, np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]]))
                if q is not None:
                    quads.append(q)
        else:
            rgba = back_of(placement.look)
        index_quads.append(quads)
        _paste(
            canvas,
            mask,
            rgba,
            m,
            i + 1,
            rng,
            shadow=rng.uniform(0.1, 0.45),
            gain=rng.uniform(0.9, 1.04),
        )
    paste_clutter(above=True)

    frame = np.asarray(
        cv2.cvtColor(np.clip(canvas, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR), dtype=np.uint8
    )
    blur_px = 0.0
    if effects:
        frame, blur_px = apply_effects(frame, rng)
    quality = jpeg_quality if jpeg_quality is not None else int(rng.integers(45, 96))
    image, jpeg = jpeg_roundtrip(frame, quality)
    return Rendered(
        image=image,
        jpeg=jpeg,
        mask=mask,
        placements=list(layout.placements),
        card_quads=card_quads,
        index_quads=index_quads,
        camera=camera,
        background=background,
        blur_px=blur_px,
    )
