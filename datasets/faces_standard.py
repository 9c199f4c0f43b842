"""Standard 52-card decks and jokers drawn in code, in several looks.

Each `StandardStyle` is a deck design as data: fonts, index size and position, pip
layout, court treatment, border, joker design, back. The looks differ on purpose in
the things that differ between commercial decks (serif against sans rank glyphs,
jumbo indices, four-corner indices, two- and four-colour suits), so the reader learns
the glyphs rather than one drawing of them.

Beside the fixed looks, `randomised_styles` samples training decks from a seeded
generator (domain randomisation): rank font among the training fonts, index size,
position and layout, red and black inks, card stock, suit colours, pips, court, joker
and back. Real commercial decks vary this much; the fixed looks alone would teach five
drawings of each index.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw

from shanghai.engine.cards import Card, DeckFamily, Suit

from .backs import BackStyle, render_back
from .drawing import SUPERSAMPLE, Box, Colour, draw_suit, draw_text, jitter_colour, union_box
from .faces import FACE_H, FACE_W, CardFace, DeckLook, finish_face, stable_seed, stamp_corners
from .fonts import PYPI_TRAINING_FONTS, SYSTEM_FONT_FILES, font, font_family, ink_share

__all__ = [
    "RANDOMISED_PER_FAMILY",
    "STANDARD_STYLES",
    "UNSEEN_FONTS",
    "CodeStandardLook",
    "StandardStyle",
    "font_families",
    "randomised_styles",
    "sample_standard_style",
    "system_font_styles",
    "unseen_styles",
]

S = SUPERSAMPLE
W, H = FACE_W * S, FACE_H * S

TWO_COLOUR: dict[Suit, Colour] = {
    Suit.CLUBS: (20, 20, 24),
    Suit.SPADES: (20, 20, 24),
    Suit.HEARTS: (200, 20, 35),
    Suit.DIAMONDS: (200, 20, 35),
}
FOUR_COLOUR: dict[Suit, Colour] = {
    Suit.CLUBS: (20, 120, 40),
    Suit.SPADES: (20, 20, 24),
    Suit.HEARTS: (205, 25, 35),
    Suit.DIAMONDS: (25, 60, 190),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class StandardStyle:
    """A standard deck design as data. Sizes are in face pixels (250 x 350 card)."""

    name: str
    rank_font: str
    rank_size: int
    index_suit_size: int
    index_x: float
    """Centre of the top-left index, from the left edge."""
    index_y: float
    """Top of the rank glyph, from the top edge."""
    ten_squeeze: float = 0.8
    four_corners: bool = False
    colours: dict[Suit, Colour] = field(default_factory=lambda: TWO_COLOUR)
    paper: Colour = (250, 250, 246)
    border: str = "none"
    """`none`, `line` (thin inset frame) or `double` (two frames)."""
    border_colour: Colour = (40, 40, 120)
    corner_radius: float = 12.0
    pip_size: int = 44
    pip_slim: float = 1.0
    pip_area: Box = (62.0, 58.0, 188.0, 292.0)
    jumbo_pips: bool = False
    """Jumbo-index decks print one large centre pip instead of the pip pattern."""
    court: str = "portrait"
    """`portrait` (framed figure), `letter` (big letter and pip) or `panel`."""
    joker: str = "hat"
    """`hat`, `star` or `text`."""
    joker_colour: Colour = (200, 20, 35)
    back: BackStyle
    held_out: bool = False
    train_only: bool = False
    """A randomised look: drawn only in the train split (see `DeckLook`)."""
    val_only: bool = False
    """An unseen-validation look: drawn only in that split (see `DeckLook`)."""


def _pip_positions(rank: int) -> list[tuple[float, float]]:
    """Pip centres for ranks 2-10 as (column, row) fractions of the pip area."""
    left, mid, right = 0.0, 0.5, 1.0
    col: dict[int, list[tuple[float, float]]] = {
        2: [(mid, 0), (mid, 1)],
        3: [(mid, 0), (mid, 0.5), (mid, 1)],
        4: [(left, 0), (left, 1), (right, 0), (right, 1)],
    }
    if rank in col:
        return col[rank]
    sides = [(x, y) for x in (left, right) for y in (0, 1)]
    if rank == 5:
        return [*sides, (mid, 0.5)]
    sides6 = [(x, y) for x in (left, right) for y in (0, 0.5, 1)]
    if rank == 6:
        return sides6
    if rank == 7:
        return [*sides6, (mid, 0.25)]
    if rank == 8:
        return [*sides6, (mid, 0.25), (mid, 0.75)]
    sides8 = [(x, y) for x in (left, right) for y in (0, 1 / 3, 2 / 3, 1)]
    if rank == 9:
        return [*sides8, (mid, 0.5)]
    return [*sides8, (mid, 1 / 6), (mid, 5 / 6)]


class CodeStandardLook(DeckLook):
    """A standard deck drawn with Pillow from a `StandardStyle`."""

    def __init__(self, style: StandardStyle) -> None:
        self.style = style
        self.name = style.name
        self.family = DeckFamily.STANDARD
        self.held_out = style.held_out
        self.train_only = style.train_only
        self.val_only = style.val_only
        self.system_fonts = style.rank_font in SYSTEM_FONT_FILES
        self.source = "code"

    # -- the index ---------------------------------------------------------------
    def _draw_index(self, draw: ImageDraw.ImageDraw, card: Card) -> Box:
        """Draw the top-left index on a transparent layer; returns its ink box (x S)."""
        st = self.style
        colour = st.colours.get(card.suit, st.joker_colour)
        x, y = st.index_x * S, st.index_y * S
        if card.suit is Suit.JOKER:
            return self._draw_joker_index(draw, x, y)
        rank_font = font(st.rank_font, st.rank_size * S)
        squeeze = st.ten_squeeze if card.rank == 10 else 1.0
        rank_box = draw_text(draw, card.rank_text, x, y, rank_font, colour, squeeze=squeeze)
        pip = st.index_suit_size * S
        cy = rank_box[3] + 0.12 * pip + pip / 2
        pip_box = draw_suit(draw, card.suit, x, cy, pip, colour)
        return union_box(rank_box, pip_box)

    def _draw_joker_index(self, draw: ImageDraw.ImageDraw, x: float, y: float) -> Box:
        st = self.style
        colour = st.joker_colour
        if st.joker == "star":
            size = st.index_suit_size * S * 1.3
            star_box = _draw_star(draw, x, y + size / 2, size / 2, colour)
            letter = font(st.rank_font, int(st.rank_size * 0.8) * S)
            text_box = draw_text(draw, "J", x, star_box[3] + 4 * S, letter, colour)
            return union_box(star_box, text_box)
        letter = font(st.rank_font, max(10, int(st.rank_size * 0.42)) * S)
        boxes = []
        cursor = y
        for ch in "JOKER":
            box = draw_text(draw, ch, x, cursor, letter, colour)
            boxes.append(box)
            cursor = box[3] + 2 * S
        return union_box(*boxes)

    # -- the centre ---------------------------------------------------------------
    def _draw_centre(self, img: Image.Image, draw: ImageDraw.ImageDraw, card: Card) -> None:
        st = self.style
        colour = st.colours.get(card.suit, st.joker_colour)
        x0, y0, x1, y1 = (v * S for v in st.pip_area)
        if card.suit is Suit.JOKER:
            self._draw_joker_centre(draw, card)
        elif card.rank == 1 or (st.jumbo_pips and card.rank <= 10):
            size = (110 if card.rank == 1 else 90) * S
            if card.rank == 1 and card.suit is Suit.SPADES:
                size = 130 * S
            draw_suit(draw, card.suit, W / 2, H / 2, size, colour, slim=st.pip_slim)
        elif card.rank <= 10:
            size = st.pip_size * S
            for fx, fy in _pip_positions(card.rank):
                cx, cy = x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)
                draw_suit(
                    draw, card.suit, cx, cy, size, colour, rotate180=fy > 0.5, slim=st.pip_slim
                )
        else:
            self._draw_court(img, draw, card, colour)

    def _draw_court(
        self, img: Image.Image, draw: ImageDraw.ImageDraw, card: Card, colour: Colour
    ) -> None:
        st = self.style
        rng = np.random.default_rng(stable_seed(st.name, str(card)))
        fx0, fy0, fx1, fy1 = 58 * S, 52 * S, W - 58 * S, H - 52 * S
        if st.court == "letter":
            draw.rectangle((fx0, fy0, fx1, fy1), outline=colour, width=3 * S)
            big = font(st.rank_font, 120 * S)
            draw_text(draw, card.rank_text, W / 2, H / 2 - 20 * S, big, colour, anchor="mm")
            draw_suit(draw, card.suit, W / 2, H / 2 + 80 * S, 50 * S, colour)
            draw_suit(draw, card.suit, W / 2, H / 2 - 110 * S, 30 * S, colour, rotate180=True)
            return
        # A figure made of costume blocks in the deck's palette, drawn in the upper
        # half and turned for the lower half, like a double-headed court card.
        half = Image.new("RGBA", (fx1 - fx0, (fy1 - fy0) // 2), (0, 0, 0, 0))
        hd = ImageDraw.Draw(half)
        hw, hh = half.size
        palette = [colour, (230, 180, 30), (30, 60, 160), (20, 20, 24), (240, 240, 235)]
        if st.court == "panel":
            hd.rectangle((0, 0, hw, hh), fill=(235, 225, 200))
        for _ in range(14):
            c = palette[int(rng.integers(len(palette)))]
            kind = int(rng.integers(3))
            ax, ay = rng.uniform(0, hw), rng.uniform(hh * 0.35, hh)
            size = rng.uniform(0.12, 0.4) * hw
            if kind == 0:
                hd.rectangle((ax - size / 2, ay - size / 3, ax + size / 2, ay + size / 3), fill=c)
            elif kind == 1:
                hd.polygon(
                    [
                        (ax, ay - size / 2),
                        (ax + size / 2, ay + size / 2),
                        (ax - size / 2, ay + size / 2),
                    ],
                    fill=c,
                )
            else:
                hd.ellipse((ax - size / 3, ay - size / 3, ax + size / 3, ay + size / 3), fill=c)
        head_r = 0.16 * hw
        hd.ellipse(
            (hw / 2 - head_r, hh * 0.22, hw / 2 + head_r, hh * 0.22 + 2 * head_r),
            fill=(245, 205, 170),
            outline=(20, 20, 24),
            width=2 * S,
        )
        crown_y = hh * 0.22
        points = [(hw / 2 - head_r, crown_y)]
        for i in range(5):
            px = hw / 2 - head_r + (i + 0.5) * 2 * head_r / 5
            points += [(px, crown_y - (0.14 * hw if i % 2 == 0 else 0.07 * hw))]
        points += [(hw / 2 + head_r, crown_y)]
        hd.polygon(points, fill=(230, 180, 30) if card.rank != 11 else colour)
        img.paste(half, (fx0, fy0), half)
        bottom = half.rotate(180)
        img.paste(bottom, (fx0, fy0 + hh), bottom)
        draw.rectangle((fx0, fy0, fx1, fy1), outline=(20, 20, 24), width=2 * S)
        draw.line((fx0, (fy0 + fy1) / 2, fx1, (fy0 + fy1) / 2), fill=(20, 20, 24), width=S)
        big = font(st.rank_font, 34 * S)
        draw_text(draw, card.rank_text, fx0 + 18 * S, fy0 + 6 * S, big, colour)
        draw_suit(draw, card.suit, fx0 + 18 * S, fy0 + 60 * S, 22 * S, colour)

    def _draw_joker_centre(self, draw: ImageDraw.ImageDraw, card: Card) -> None:
        st = self.style
        colour = st.joker_colour
        if st.joker == "star":
            _draw_star(draw, W / 2, H / 2, 80 * S, colour)
            _draw_star(draw, W / 2, H / 2, 40 * S, (230, 180, 30))
        elif st.joker == "text":
            big = font(st.rank_font, 48 * S)
            layer = Image.new("RGBA", (W, H), (0, 0, 0, 0))
            draw_text(ImageDraw.Draw(layer), "JOKER", W / 2, H / 2, big, colour, anchor="mm")
            layer = layer.rotate(60, center=(W / 2, H / 2))
            draw._image.paste(layer, (0, 0), layer)
        else:  # a jester's hat with bells
            cx, cy = W / 2, H / 2 + 20 * S
            tips = [(-70, -90), (0, -120), (70, -90)]
            for i, (tx, ty) in enumerate(tips):
                c = colour if i % 2 == 0 else (30, 60, 160)
                draw.polygon(
                    [(cx - 50 * S, cy), (cx + tx * S, cy + ty * S), (cx + 50 * S, cy)], fill=c
                )
                r = 10 * S
                bx, by = cx + tx * S, cy + ty * S
                draw.ellipse((bx - r, by - r, bx + r, by + r), fill=(230, 180, 30))
            draw.rectangle((cx - 55 * S, cy, cx + 55 * S, cy + 18 * S), fill=(230, 180, 30))
            r = 34 * S
            draw.ellipse((cx - r, cy + 18 * S, cx + r, cy + 18 * S + 2 * r), fill=(245, 205, 170))

    # -- whole faces ------------------------------------------------------------------
    def render_face(self, card: Card) -> CardFace:
        st = self.style
        img = Image.new("RGBA", (W, H), (*st.paper, 255))
        draw = ImageDraw.Draw(img)
        _draw_border(draw, st)
        self._draw_centre(img, draw, card)
        layer = Image.new("RGBA", (W, H), (0, 0, 0, 0))
        ink = self._draw_index(ImageDraw.Draw(layer), card)
        turned, boxes = stamp_corners(img, layer, ink)
        if st.four_corners:
            shift = W - ink[0] - ink[2]
            img.alpha_composite(layer, (round(shift), 0))
            img.alpha_composite(turned, (round(-shift), 0))
            boxes.append((ink[0] + shift, ink[1], ink[2] + shift, ink[3]))
            boxes.append((W - ink[2] - shift, H - ink[3], W - ink[0] - shift, H - ink[1]))
        return finish_face(img, boxes, st.corner_radius)

    def render_back(self) -> npt.NDArray[np.uint8]:
        return render_back(self.style.back, self.style.corner_radius)


def _draw_border(draw: ImageDraw.ImageDraw, st: StandardStyle) -> None:
    if st.border == "none":
        return
    inset = 8 * S
    draw.rounded_rectangle(
        (inset, inset, W - inset, H - inset), radius=8 * S, outline=st.border_colour, width=2 * S
    )
    if st.border == "double":
        inset = 13 * S
        draw.rounded_rectangle(
            (inset, inset, W - inset, H - inset), radius=6 * S, outline=st.border_colour, width=S
        )


def _draw_star(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, colour: Colour) -> Box:
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.42
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    draw.polygon(points, fill=colour)
    return (cx - r, cy - r, cx + r, cy + r * 0.82)


STANDARD_STYLES: tuple[StandardStyle, ...] = (
    StandardStyle(
        name="code-classic",
        rank_font="serif-bold",
        rank_size=34,
        index_suit_size=20,
        index_x=20,
        index_y=10,
        border="none",
        court="portrait",
        joker="hat",
        back=BackStyle(pattern="lattice", colour=(170, 30, 40)),
    ),
    StandardStyle(
        name="code-modern",
        rank_font="roboto-bold",
        rank_size=38,
        index_suit_size=22,
        index_x=23,
        index_y=12,
        ten_squeeze=0.72,
        colours=FOUR_COLOUR,
        border="line",
        border_colour=(30, 30, 30),
        pip_size=40,
        pip_slim=0.9,
        court="letter",
        joker="star",
        joker_colour=(20, 20, 24),
        paper=(246, 246, 242),
        back=BackStyle(pattern="emblem", colour=(25, 55, 140)),
    ),
    StandardStyle(
        name="code-jumbo",
        rank_font="fjalla",
        rank_size=62,
        index_suit_size=30,
        index_x=30,
        index_y=8,
        ten_squeeze=0.85,
        jumbo_pips=True,
        court="panel",
        joker="text",
        corner_radius=16,
        paper=(252, 250, 240),
        back=BackStyle(pattern="dots", colour=(30, 110, 60)),
    ),
    StandardStyle(
        name="code-bridge4",
        rank_font="lato-black",
        rank_size=28,
        index_suit_size=17,
        index_x=17,
        index_y=9,
        four_corners=True,
        border="double",
        border_colour=(150, 20, 30),
        pip_size=38,
        pip_slim=0.85,
        pip_area=(70.0, 62.0, 180.0, 288.0),
        court="portrait",
        joker="hat",
        joker_colour=(30, 60, 160),
        back=BackStyle(pattern="stripes", colour=(30, 30, 110)),
    ),
    StandardStyle(
        name="code-caladea",
        rank_font="caladea-bold",
        rank_size=36,
        index_suit_size=21,
        index_x=22,
        index_y=12,
        border="line",
        border_colour=(120, 90, 30),
        pip_size=46,
        court="panel",
        joker="star",
        paper=(248, 244, 232),
        back=BackStyle(pattern="lattice", colour=(40, 40, 40)),
        held_out=True,
    ),
)
"""The code-drawn standard looks; `code-caladea` is held out for the test split."""


# -- randomised training looks -------------------------------------------------------

RANDOMISED_PER_FAMILY = 3
"""Randomised training looks (`code-random-00` ...) per training font family: 27 with
nine families. A table's deck is one of them; each costs about 20 MB of cached faces
in a process that draws all its cards."""

RED_INKS: tuple[Colour, Colour] = ((220, 40, 20), (120, 10, 30))
"""The red ink of a randomised look lies between orange-red and maroon."""
BLACK_INKS: tuple[Colour, Colour, Colour] = ((18, 18, 22), (72, 72, 78), (22, 30, 84))
"""Near-black, and the dark grey and navy some decks print their black suits in."""
PAPERS: tuple[Colour, Colour] = ((253, 253, 251), (243, 234, 208))
"""White to cream card stock."""
INDEX_LAYOUTS: dict[str, float] = {"corner": 0.6, "bridge4": 0.2, "jumbo": 0.2}
"""Corner index (two corners), small four-corner bridge index, jumbo index with one
centre pip; with their share of randomised looks."""


@dataclass(frozen=True, slots=True)
class _IndexRange:
    """Limits of one index layout, in face pixels."""

    cap: tuple[float, float]
    """Height of the rank's capitals."""
    suit: tuple[float, float]
    """Height of the index pip, as a share of `cap`."""
    widest: float
    """Widest single rank glyph."""
    ten: float
    """Widest "10" (narrowed with `ten_squeeze` when the font draws it wider)."""


_INDEX_RANGES = {
    "corner": _IndexRange(cap=(19, 27), suit=(0.75, 0.95), widest=34, ten=40),
    "bridge4": _IndexRange(cap=(15, 20), suit=(0.75, 0.9), widest=28, ten=32),
    "jumbo": _IndexRange(cap=(32, 44), suit=(0.55, 0.75), widest=42, ten=46),
}


def _lerp(a: Colour, b: Colour, t: float) -> Colour:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def _pick(rng: np.random.Generator, options: dict[str, float]) -> str:
    names = list(options)
    weights = np.array([options[n] for n in names], np.float64)
    return names[int(rng.choice(len(names), p=weights / weights.sum()))]


def font_families(fonts: Sequence[str] = PYPI_TRAINING_FONTS) -> list[str]:
    """The families (`fonts.font_family`) of `fonts` (the PyPI training fonts), sorted."""
    return sorted({font_family(name) for name in fonts})


def sample_standard_style(
    rng: np.random.Generator,
    name: str,
    *,
    family: str | None = None,
    fonts: Sequence[str] = PYPI_TRAINING_FONTS,
) -> StandardStyle:
    """A random standard deck design for training, drawn from `rng`.

    The rank font is one weight of `family` (a font package of `fonts`; by default
    drawn too, so that families with several weights are not favoured). The index is
    sized from the font's own glyphs (capital height, widest rank, "10"), so every font
    gives an index that fits its corner, clear of the pips and the court frame.
    """
    families = font_families(fonts)
    if family is None:
        family = families[int(rng.integers(len(families)))]
    elif family not in families:
        raise ValueError(f"{family!r} is not a font family of {families}")
    font_weights = [f for f in fonts if font_family(f) == family]
    rank_font = font_weights[int(rng.integers(len(font_weights)))]
    layout = _pick(rng, INDEX_LAYOUTS)
    limits = _INDEX_RANGES[layout]
    cap_share = ink_share(rank_font, "K")[1]
    widest_share = max(ink_share(rank_font, r)[0] for r in "A23456789JQK")
    ten_share = ink_share(rank_font, "10")[0]
    cap = rng.uniform(*limits.cap)
    rank_size = min(round(cap / cap_share), int(limits.widest / widest_share))
    widest = widest_share * rank_size
    ten = min(widest * rng.uniform(1.15, 1.45), limits.ten)
    ten_squeeze = float(np.clip(ten / (ten_share * rank_size), 0.6, 1.0))
    suit_size = round(cap_share * rank_size * rng.uniform(*limits.suit))
    index_w = max(ten_share * rank_size * ten_squeeze, widest, float(suit_size))
    index_x = rng.uniform(4, 9) + index_w / 2
    index_y = rng.uniform(6, 10) if layout == "jumbo" else rng.uniform(7, 14)

    pip_size = int(rng.integers(36, 49))
    pip_slim = rng.uniform(0.8, 1.0)
    clear = index_x + index_w / 2 + 4 + pip_size * pip_slim / 2
    pip_x = max(rng.uniform(60, 68), clear)
    pip_y = rng.uniform(54, 64)

    red = jitter_colour(rng, _lerp(*RED_INKS, rng.uniform(0, 1)), 5)
    shade = int(rng.choice(3, p=[0.55, 0.25, 0.2]))
    black = _lerp(BLACK_INKS[0], BLACK_INKS[shade], rng.uniform(0.4, 1.0))
    colours = {Suit.CLUBS: black, Suit.SPADES: black, Suit.HEARTS: red, Suit.DIAMONDS: red}
    if rng.random() < 0.2:  # four-colour suits
        colours[Suit.CLUBS] = jitter_colour(rng, (20, 115, 45), 12)
        colours[Suit.DIAMONDS] = jitter_colour(rng, (30, 65, 185), 12)
    paper = _lerp(*PAPERS, rng.uniform(0, 1) ** 2)
    inks = [red, black, (22, 30, 84), (150, 110, 40)]
    backs = [red, (25, 55, 140), (30, 110, 60), black, (90, 30, 110)]
    return StandardStyle(
        name=name,
        rank_font=rank_font,
        rank_size=rank_size,
        index_suit_size=suit_size,
        index_x=round(index_x, 1),
        index_y=round(index_y, 1),
        ten_squeeze=round(ten_squeeze, 3),
        four_corners=layout == "bridge4",
        colours=colours,
        paper=paper,
        border=_pick(rng, {"none": 0.5, "line": 0.3, "double": 0.2}),
        border_colour=inks[int(rng.integers(len(inks)))],
        corner_radius=round(rng.uniform(9, 16), 1),
        pip_size=pip_size,
        pip_slim=round(pip_slim, 3),
        pip_area=(
            round(pip_x, 1),
            round(pip_y, 1),
            round(W / S - pip_x, 1),
            round(H / S - pip_y, 1),
        ),
        jumbo_pips=layout == "jumbo",
        court=_pick(rng, {"portrait": 1, "letter": 1, "panel": 1}),
        joker=_pick(rng, {"hat": 1, "star": 1, "text": 1}),
        joker_colour=[red, black, (30, 60, 160)][int(rng.integers(3))],
        back=BackStyle(
            pattern=_pick(rng, {"lattice": 1, "emblem": 1, "dots": 1, "stripes": 1}),
            colour=jitter_colour(rng, backs[int(rng.integers(len(backs)))], 10),
        ),
        train_only=True,
    )


@functools.cache
def randomised_styles(per_family: int = RANDOMISED_PER_FAMILY) -> tuple[StandardStyle, ...]:
    """The randomised training looks, each drawn from its own seed (the same in every
    process): `code-random-00`, `code-random-01`, ...; the font families take turns, so
    each draws `per_family` decks."""
    families = font_families()
    return tuple(
        sample_standard_style(
            np.random.default_rng(stable_seed("code-random", k)),
            f"code-random-{k:02d}",
            family=families[k % len(families)],
        )
        for k in range(per_family * len(families))
    )


@functools.cache
def system_font_styles(per_family: int = RANDOMISED_PER_FAMILY) -> tuple[StandardStyle, ...]:
    """More randomised training looks, `code-sysfont-00`, ..., drawn like
    `randomised_styles` in the Debian fonts (`fonts.SYSTEM_FONT_FILES`, which must be
    installed): with only the PyPI fonts' ten families the reader read a J of a font it
    never saw as a 3 with confidence (`scan_eval.py --split val-unseen`)."""
    fonts = tuple(SYSTEM_FONT_FILES)
    families = font_families(fonts)
    return tuple(
        sample_standard_style(
            np.random.default_rng(stable_seed("code-sysfont", k)),
            f"code-sysfont-{k:02d}",
            family=families[k % len(families)],
            fonts=fonts,
        )
        for k in range(per_family * len(families))
    )


UNSEEN_FONTS: tuple[str, ...] = ("hanken-bold", "intuitive")
"""The held-out fonts no look of training or test draws (`fonts.HELD_OUT_FONTS` less
the test look's Caladea): the unseen-validation looks' ranks."""
UNSEEN_PER_FONT = 2


@functools.cache
def unseen_styles(per_font: int = UNSEEN_PER_FONT) -> tuple[StandardStyle, ...]:
    """The unseen-validation standard looks (`DeckLook.val_only`): `code-unseen-00`, ...,
    drawn like the randomised training looks but in `UNSEEN_FONTS`, which no model
    trained on, so they stand for a deck bought in a shop as the test's held-out look
    does, without being it."""
    return tuple(
        replace(
            sample_standard_style(
                np.random.default_rng(stable_seed("code-unseen", k)),
                f"code-unseen-{k:02d}",
                family=font_family(UNSEEN_FONTS[k % len(UNSEEN_FONTS)]),
                fonts=UNSEEN_FONTS,
            ),
            train_only=False,
            val_only=True,
        )
        for k in range(per_font * len(UNSEEN_FONTS))
    )
