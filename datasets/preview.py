"""Contact sheets for a person to look at: scenes with their labels, or every face.

`shanghai data preview` writes one PNG. Colours: green = `card` box with the card's
name, yellow = an index labelled visible, orange = a partly hidden index (not
labelled; ignored in evaluation), red = a hidden index, magenta = too small, blurred or
too faint to read (not labelled).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.vision.arrays import Frame

from .decks import back_of, face_of
from .faces import DeckLook
from .labels import CardLabel

__all__ = ["crops_sheet", "draw_labels", "faces_sheet", "grid", "scenes_sheet"]


def grid(tiles: Sequence[Frame], columns: int, gap: int = 6, fill: int = 40) -> Frame:
    """Tile equally sized BGR images (H, W, 3) into one sheet."""
    rows = math.ceil(len(tiles) / columns)
    h, w = tiles[0].shape[:2]
    sheet = np.full((rows * (h + gap) + gap, columns * (w + gap) + gap, 3), fill, np.uint8)
    for i, tile in enumerate(tiles):
        r, c = divmod(i, columns)
        y, x = gap + r * (h + gap), gap + c * (w + gap)
        sheet[y : y + h, x : x + w] = tile
    return sheet


def _face_tile(rgba: npt.NDArray[np.uint8], boxes: Sequence[tuple[float, ...]], text: str) -> Frame:
    alpha = rgba[..., 3:4].astype(np.float32) / 255.0
    rgb = rgba[..., :3].astype(np.float32) * alpha + 90.0 * (1 - alpha)
    tile = np.asarray(cv2.cvtColor(rgb.astype(np.uint8), cv2.COLOR_RGB2BGR), dtype=np.uint8)
    for x0, y0, x1, y1 in boxes:
        cv2.rectangle(tile, (int(x0), int(y0)), (round(x1), round(y1)), (0, 200, 255), 1)
    cv2.putText(tile, text, (6, tile.shape[0] - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 0, 255), 1)
    return tile


def faces_sheet(look: DeckLook, columns: int = 14) -> Frame:
    """Every face of one look with its measured index boxes drawn, plus its back."""
    tiles = []
    for card in look.cards():
        face = face_of(look, card)
        tiles.append(_face_tile(face.rgba, face.index_boxes, str(card)))
    tiles.append(_face_tile(back_of(look), (), "back"))
    return grid(tiles, columns)


STATE_COLOURS = {
    "visible": (0, 230, 255),
    "partial": (0, 140, 255),
    "hidden": (0, 0, 230),
    "small": (200, 0, 200),
    "blurred": (200, 0, 200),
    "washed_out": (200, 0, 200),
}


def draw_labels(image: Frame, labels: Sequence[CardLabel], scale: float) -> Frame:
    """A copy of `image` scaled by `scale` with the labels drawn over it."""
    out = np.asarray(
        cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), dtype=np.uint8
    )
    for label in labels:
        for ix in label.indices:
            colour = STATE_COLOURS[ix.state]
            cv2.polylines(
                out, [np.round(ix.quad * scale).astype(np.int32)], True, colour, 1, cv2.LINE_AA
            )
        if label.box_xyxy is not None:
            x0, y0, x1, y1 = (int(v * scale) for v in label.box_xyxy)
            cv2.rectangle(out, (x0, y0), (x1, y1), (60, 220, 60), 1)
            cv2.putText(
                out,
                str(label.placement.card),
                (x0 + 2, y0 + 11),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.38,
                (60, 255, 60),
                1,
                cv2.LINE_AA,
            )
    return out


def _letterbox(image: Frame, width: int, height: int) -> Frame:
    tile = np.full((height, width, 3), 30, np.uint8)
    h, w = image.shape[:2]
    y, x = (height - h) // 2, (width - w) // 2
    tile[y : y + h, x : x + w] = image
    return tile


def scenes_sheet(
    seed: int,
    count: int,
    looks: Sequence[DeckLook],
    *,
    kind: str = "scenes",
    tile: tuple[int, int] = (560, 420),
) -> Frame:
    """Items 0..count-1 of `generate --kind KIND --seed SEED`, with labels and a caption."""
    from .generate import item_rng
    from .sampling import sample_scene
    from .splits import split_for_index

    tiles = []
    for index in range(count):
        rng = item_rng(seed, kind, index)
        split = split_for_index(index)
        if kind == "roundend":
            from .roundend import render_round_end

            rendered, _ = render_round_end(rng, split, looks)
        else:
            rendered = sample_scene(rng, split, looks)
        h, w = rendered.image.shape[:2]
        scale = min((tile[0]) / w, (tile[1] - 18) / h)
        drawn = draw_labels(rendered.image, rendered.labels(), scale)
        canvas = _letterbox(drawn, tile[0], tile[1] - 18)
        caption = np.full((18, tile[0], 3), 30, np.uint8)
        names = ",".join(sorted({p.look.name for p in rendered.placements}))
        text = f"#{index} {split} {w}x{h} {rendered.background} {names}"
        cv2.putText(
            caption,
            text[:80],
            (4, 13),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4,
            (230, 230, 230),
            1,
            cv2.LINE_AA,
        )
        tiles.append(np.vstack([caption, canvas]))
    return grid(tiles, columns=min(4, count))


def crops_sheet(seed: int, count: int, looks: Sequence[DeckLook]) -> Frame:
    """The reader's view: index crops of the first scenes of a seed, with their class."""
    from .crops import square_crop
    from .generate import item_rng
    from .labels import index_box
    from .sampling import sample_scene
    from .splits import split_for_index

    tiles: list[Frame] = []
    index = 0
    while len(tiles) < count and index < 200:
        rng = item_rng(seed, "crops", index)
        rendered = sample_scene(rng, split_for_index(index), looks)
        h, w = rendered.image.shape[:2]
        for label in rendered.labels():
            for ix in label.indices:
                if ix.state == "visible" and len(tiles) < count:
                    crop = square_crop(rendered.image, index_box(ix.quad, w, h), size=96)
                    cell = np.full((112, 96, 3), 30, np.uint8)
                    cell[:96] = crop
                    cv2.putText(
                        cell,
                        str(label.placement.card),
                        (3, 108),
                        cv2.FONT_HERSHEY_SIMPLEX,
                        0.4,
                        (230, 230, 230),
                        1,
                        cv2.LINE_AA,
                    )
                    tiles.append(cell)
        index += 1
    return grid(tiles, columns=16)
