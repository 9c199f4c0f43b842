"""Files on disk, in the layouts ultralytics reads, plus a JSON of the full truth.

Detector data (`scenes`, `tiles`, `roundend`):
    <root>/data.yaml
    <root>/<split>/images/<stem>.jpg
    <root>/<split>/labels/<stem>.txt     one `class cx cy w h` line per box (normalised)
    <root>/<split>/meta/<stem>.json      every card: name, quads, visibility, zone ...
Reader data (`crops`):
    <root>/<split>/<card class>/<stem>.png   class folders named by engine notation
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import CARD_CLASSES

from .labels import (
    BLUR_MAX_SHARE,
    CARD_VISIBLE_MIN,
    CLASS_NAMES,
    CONTRAST_MIN,
    HIDDEN_MAX,
    INDEX_MIN_SIZE_PX,
    VISIBLE_MIN,
    CardLabel,
)
from .scene import Rendered

__all__ = ["labels_json", "write_crop", "write_data_yaml", "write_detect_item"]


def _round_quad(quad: npt.NDArray[np.float64]) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in quad]


def labels_json(labels: Sequence[CardLabel]) -> list[dict[str, Any]]:
    """Every card the frame (or tile) shows any of, face up or down."""
    out = []
    for label in labels:
        p = label.placement
        out.append(
            {
                "id": label.ident,
                "card": str(p.card),
                "look": p.look.name,
                "face_up": p.face_up,
                "zone": p.zone,
                "owner": p.owner,
                "meld": p.meld,
                "position": p.position,
                "quad": _round_quad(label.quad),
                "visible": round(label.visible, 4),
                "box_xyxy": list(label.box_xyxy) if label.box_xyxy else None,
                "indices": [
                    {
                        "quad": _round_quad(ix.quad),
                        "visible": round(ix.visible, 4),
                        "state": ix.state,
                    }
                    for ix in label.indices
                ],
            }
        )
    return out


def scene_header(rendered: Rendered, *, width: int, height: int) -> dict[str, Any]:
    """What produced the frame: camera, surface, looks, and the label thresholds."""
    cam = rendered.camera
    return {
        "width": width,
        "height": height,
        "background": rendered.background,
        "looks": sorted({p.look.name for p in rendered.placements}),
        "camera": {
            "width": cam.width,
            "height": cam.height,
            "focal_px": round(cam.focal_px, 2),
            "tilt_deg": round(cam.tilt_deg, 2),
            "yaw_deg": round(cam.yaw_deg, 2),
            "distance_mm": round(cam.distance_mm, 1),
        },
        "thresholds": {
            "index_visible_min": VISIBLE_MIN,
            "index_hidden_max": HIDDEN_MAX,
            "index_min_size_px": INDEX_MIN_SIZE_PX,
            "index_contrast_min": CONTRAST_MIN,
            "index_blur_max_share": BLUR_MAX_SHARE,
            "card_visible_min": CARD_VISIBLE_MIN,
        },
    }


def write_detect_item(
    root: Path, split: str, stem: str, jpeg: bytes, lines: Sequence[str], meta: dict[str, Any]
) -> None:
    """One detector image, its YOLO label file and its JSON truth."""
    for sub in ("images", "labels", "meta"):
        (root / split / sub).mkdir(parents=True, exist_ok=True)
    (root / split / "images" / f"{stem}.jpg").write_bytes(jpeg)
    (root / split / "labels" / f"{stem}.txt").write_text("".join(f"{line}\n" for line in lines))
    (root / split / "meta" / f"{stem}.json").write_text(json.dumps(meta, indent=1))


def encode_jpeg(image: npt.NDArray[np.uint8], quality: int = 92) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return data.tobytes()


def write_crop(
    root: Path,
    split: str,
    card_class: str,
    stem: str,
    crop: npt.NDArray[np.uint8],
    classes: Collection[str] = CARD_CLASSES,
) -> None:
    """One classifier crop in ultralytics classify layout; the class must be one of
    `classes` (default the engine's card names, for the reader)."""
    if card_class not in classes:
        raise ValueError(f"{card_class!r} is not one of the classifier's classes")
    folder = root / split / card_class
    folder.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(".png", crop)
    if not ok:
        raise RuntimeError("PNG encoding failed")
    (folder / f"{stem}.png").write_bytes(data.tobytes())


def write_data_yaml(root: Path) -> Path:
    """The ultralytics dataset file. No `path:` key: ultralytics then takes the folder
    holding the yaml as the root, so the dataset can be moved as a whole. All three
    splits are named (ultralytics insists on train and val) even where a run wrote
    only some of them."""
    lines = [f"# Generated by `shanghai data generate`; classes: {', '.join(CLASS_NAMES)}"]
    lines += [f"{split}: {split}/images" for split in ("train", "val", "test")]
    lines.append("names:")
    lines += [f"  {i}: {name}" for i, name in enumerate(CLASS_NAMES)]
    path = root / "data.yaml"
    root.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path
