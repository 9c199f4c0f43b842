"""Standard decks from permissively licensed npm packages, rendered offline.

`shanghai data fetch-decks` unpacks the pinned packages into the cache folder
(`<cache>/npm/<folder>/package/...`); nothing third-party is committed. The art has no
index coordinates, so each face's index boxes are measured from its pixels: the ink
inside a per-deck search region at the corner, keeping only connected blobs that lie
wholly inside it (the court art and border lines cross the region's edge and drop out).
Where art touches the index (a few court cards), the deck's usual index box is used.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from shanghai.engine.cards import JOKER, Card, DeckFamily, Suit, standard_deck

from .backs import BackStyle, render_back
from .drawing import Box, rounded_alpha, union_box
from .faces import FACE_H, FACE_W, CardFace, DeckLook

__all__ = ["NPM_DECKS", "NpmDeck", "NpmLook", "measure_index_box", "npm_looks"]


@dataclass(frozen=True, slots=True, kw_only=True)
class NpmDeck:
    """One pinned npm package and where its unpacked files live in the cache."""

    package: str
    version: str
    licence: str
    folder: str

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"

    def root(self, cache_dir: Path) -> Path:
        return cache_dir / "npm" / self.folder / "package"


SVG_CARDS = NpmDeck(package="svg-cards", version="4.0.2", licence="LGPL-2.1", folder="svg-cards")
HERUKA = NpmDeck(
    package="@heruka_urgyen/react-playing-cards",
    version="0.5.0",
    licence="MIT (code) / CC0-1.0 (card art)",
    folder="heruka-react-playing-cards",
)
YOUNESTOUATI = NpmDeck(
    package="@younestouati/playing-cards-standard-deck",
    version="3.0.0",
    licence="LGPL-3.0",
    folder="younestouati-playing-cards-standard-deck",
)
NPM_DECKS: tuple[NpmDeck, ...] = (SVG_CARDS, HERUKA, YOUNESTOUATI)

_SUIT_WORD = {
    Suit.CLUBS: "club",
    Suit.DIAMONDS: "diamond",
    Suit.HEARTS: "heart",
    Suit.SPADES: "spade",
}
_COURT_WORD = {11: "jack", 12: "queen", 13: "king"}
_HERUKA_RANK = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}


def _svg_cards_file(card: Card) -> str:
    if card == JOKER:
        return "png/2x/joker_black.png"
    rank = _COURT_WORD.get(card.rank, str(card.rank))
    return f"png/2x/{_SUIT_WORD[card.suit]}_{rank}.png"


def _heruka_file(folder: str) -> Callable[[Card], str]:
    def path(card: Card) -> str:
        rank = _HERUKA_RANK.get(card.rank, str(card.rank))
        return f"src/images/{folder}/{rank}{card.suit.value.upper()}.svg"

    return path


def _younes_file(card: Card) -> str:
    return "cards/joker.svg" if card == JOKER else f"cards/{card.rank}{card.suit.value}.svg"


def _load_rgba(path: Path) -> npt.NDArray[np.uint8]:
    """Render an SVG (resvg, dpi 96) or load a PNG, at the face size, as RGBA."""
    if path.suffix == ".svg":
        import resvg_py

        png = bytes(resvg_py.svg_to_bytes(svg_path=str(path), dpi=96, width=FACE_W, height=FACE_H))
        image: Image.Image = Image.open(io.BytesIO(png))
    else:
        image = Image.open(path)
    image = image.convert("RGBA")
    if image.size != (FACE_W, FACE_H):
        image = image.resize((FACE_W, FACE_H), Image.Resampling.LANCZOS)
    rgba = np.array(image, dtype=np.uint8)
    # Some art is a plain rectangle: give every face the rounded corners of a real card.
    corners = rounded_alpha(FACE_W, FACE_H, 10.0).astype(np.uint16)
    rgba[..., 3] = (rgba[..., 3].astype(np.uint16) * corners // 255).astype(np.uint8)
    return rgba


def measure_index_box(rgba: npt.NDArray[np.uint8], region: Box) -> Box | None:
    """The top-left index of a face, measured from its ink.

    `region` is `(x0, y0, x1, y1)` as fractions of the face; ink is any pixel far from
    the paper colour. Blobs touching the region's right or bottom edge belong to the
    art and are dropped; what remains is the index. Returns face pixels, or None.
    """
    x1, y1 = int(region[2] * FACE_W), int(region[3] * FACE_H)
    x0, y0 = int(region[0] * FACE_W), int(region[1] * FACE_H)
    patch = rgba[y0:y1, x0:x1].astype(np.int16)
    paper = np.median(rgba[FACE_H // 2 - 4 : FACE_H // 2 + 4, 6:12, :3].reshape(-1, 3), axis=0)
    distance = np.abs(patch[..., :3] - paper.astype(np.int16)).sum(axis=2)
    ink = ((distance > 90) & (patch[..., 3] > 128)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    boxes = []
    for i in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[i])
        touches_art = x + w >= ink.shape[1] - 1 or y + h >= ink.shape[0] - 1
        too_thin = w <= 2 or h <= 2  # card border lines and hairlines
        if area >= 6 and not touches_art and not too_thin:
            boxes.append((x, y, x + w, y + h))
    if not boxes:
        return None
    pad = 2.0
    return (
        x0 + min(b[0] for b in boxes) - pad,
        y0 + min(b[1] for b in boxes) - pad,
        x0 + max(b[2] for b in boxes) + pad,
        y0 + max(b[3] for b in boxes) + pad,
    )


def _iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


class NpmLook(DeckLook):
    """A standard deck whose faces are files from an unpacked npm package."""

    def __init__(
        self,
        *,
        name: str,
        deck: NpmDeck,
        root: Path,
        file_of: Callable[[Card], str],
        index_region: Box,
        back: BackStyle,
        has_joker: bool,
        joker_region: Box | None = None,
        held_out: bool = False,
    ) -> None:
        self.name = name
        self.family = DeckFamily.STANDARD
        self.held_out = held_out
        self.source = f"npm:{deck.spec}"
        self._root = root
        self._file_of = file_of
        self._region = index_region
        self._back = back
        self._has_joker = has_joker
        self._joker_region = joker_region or index_region

    def cards(self) -> tuple[Card, ...]:
        return (*standard_deck(), JOKER) if self._has_joker else tuple(standard_deck())

    def _measure(self, rgba: npt.NDArray[np.uint8], card: Card) -> tuple[Box | None, Box | None]:
        """Top-left and (turned back) bottom-right index boxes, None where not found."""
        region = self._joker_region if card == JOKER else self._region
        top = measure_index_box(rgba, region)
        bottom = measure_index_box(np.ascontiguousarray(rgba[::-1, ::-1]), region)
        return top, bottom

    @functools.cached_property
    def _typical_box(self) -> Box:
        """Union of the top-left index boxes of the spade pip cards: where this deck
        prints its index. Used where art touches the index (some court cards)."""
        boxes = []
        for rank in range(2, 11):
            card = Card(Suit.SPADES, rank)
            top, _ = self._measure(_load_rgba(self._root / self._file_of(card)), card)
            if top is not None:
                boxes.append(top)
        return union_box(*boxes)

    def render_face(self, card: Card) -> CardFace:
        rgba = _load_rgba(self._root / self._file_of(card))
        boxes: list[Box] = []
        top, bottom = self._measure(rgba, card)
        # Corner indices are printed point-symmetric: one found stands in for the other.
        for k, box in enumerate((top or bottom, bottom or top)):
            if card != JOKER and (box is None or _iou(box, self._typical_box) < 0.5):
                box = self._typical_box
            if box is None:
                continue
            if k == 1:  # measured on the turned face: turn the box back
                box = (FACE_W - box[2], FACE_H - box[3], FACE_W - box[0], FACE_H - box[1])
            boxes.append(box)
        return CardFace(rgba=rgba, index_boxes=tuple(boxes))

    def render_back(self) -> npt.NDArray[np.uint8]:
        return render_back(self._back, 10.0)

    def available(self) -> bool:
        return all((self._root / self._file_of(card)).is_file() for card in self.cards())


def npm_looks(cache_dir: Path) -> tuple[DeckLook, ...]:
    """The npm looks whose files are all present under `cache_dir` (possibly none)."""
    candidates = [
        NpmLook(
            name="npm-svg-cards",
            deck=SVG_CARDS,
            root=SVG_CARDS.root(cache_dir),
            file_of=_svg_cards_file,
            index_region=(0.0, 0.0, 0.165, 0.34),
            back=BackStyle(pattern="lattice", colour=(30, 70, 170)),
            has_joker=True,
            joker_region=(0.0, 0.0, 0.5, 0.12),
        ),
        NpmLook(
            name="npm-heruka-2color",
            deck=HERUKA,
            root=HERUKA.root(cache_dir),
            file_of=_heruka_file("2color"),
            index_region=(0.0, 0.0, 0.165, 0.32),
            back=BackStyle(pattern="stripes", colour=(150, 25, 35)),
            has_joker=False,
        ),
        NpmLook(
            name="npm-heruka-4color-bf",
            deck=HERUKA,
            root=HERUKA.root(cache_dir),
            file_of=_heruka_file("4color-bf"),
            index_region=(0.0, 0.0, 0.25, 0.56),
            back=BackStyle(pattern="dots", colour=(40, 40, 120)),
            has_joker=False,
        ),
        NpmLook(
            name="npm-younestouati",
            deck=YOUNESTOUATI,
            root=YOUNESTOUATI.root(cache_dir),
            file_of=_younes_file,
            index_region=(0.0, 0.0, 0.17, 0.32),
            back=BackStyle(pattern="emblem", colour=(120, 20, 60)),
            has_joker=True,
            joker_region=(0.0, 0.0, 0.26, 0.13),
            held_out=True,
        ),
    ]
    return tuple(look for look in candidates if look.available())
