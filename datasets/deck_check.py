"""Choose a taught deck's sure level on photos of its own cards, read by its own models.

The shipped sure level (`models.toml`, `sure_read`) was chosen on the shipped models'
locating x reading confidences. A deck's adapted locator and reader (`deck_locator`)
give confidences of another scale, one that moves with how long they trained: on the
held-out Rook look (`tests/benchmarks/deck_teach.py`, 2026-11-27 and 28) a deck trained
on a busy CPU read no card above 0.69, so the shipped 0.72 marked every right card
"check it" (185 of 185), while the same deck trained on an idle CPU read higher and
let 3 wrong cards through unmarked. So the deck step ends by reading `CHECK_SCENES`
generated hand photos of the deck's enrolled faces (`enrolled_look`, on the validation
tables, seeds apart from the training scenes') with the deck's models, and keeps the
lowest level of `LEVELS` whose wrong cards proposed unmarked are the fewest (the rule
`models.toml` states for the shipped level, at the card level), but never below the
shipped level. It is stored in the deck's folder (`StoredDeck.sure_read`) and read by
`CardModels.sure_read`.

Why never below, and why the read floor stays the shipped one: the check's photos are
drawn from the very faces the deck's models trained on, so they flatter them. On a deck
of a training look (rook-slim, read on 40 photos of its true faces on the validation
tables; docs/decks.md) the shipped levels read P 0.922 R 0.894 with 1 wrong card
unmarked and 91 right marked; the floor and level the check's photos favoured (0.35,
0.65) 0.888 / 0.920 with 3 unmarked and 47 marked; that floor with the shipped level,
1 unmarked and 95 marked but 8 wrong cards more for 5 right ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from shanghai.vision.deck_head import DeckHead
from shanghai.vision.deck_store import StoredDeck
from shanghai.vision.pipeline import CardModels
from shanghai.vision.scan import PhotoKind, PhotoScanner
from shanghai.vision.snapshot import SeenCard

from .enrolled_look import EnrolledLook, enrolled_look
from .hand_photos import photo_of_cards
from .scene import Rendered

__all__ = ["CHECK_SCENES", "LEVELS", "LevelCount", "check_deck", "choose_level", "count_levels"]

Progress = Callable[[str, int, int], None]

LEVELS = (0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.72, 0.75, 0.8, 0.85, 0.9, 0.95)
"""The sure levels counted (from the shipped `min_read`); a deck gets one at or above
the shipped `sure_read`."""
CHECK_SCENES = 30
"""Hand photos of 3-11 of the deck's cards the level is chosen on (about 35 s on a
2-core CPU)."""
CHECK_SEED = 7
"""Apart from the training scenes' seeds (`deck_locator.LocatorPlan.seed`)."""

Photo = tuple[tuple[SeenCard, ...], Counter[str], Counter[str]]
"""A check photo read once: its cards, the cards with a readable index, the face-up cards."""


@dataclass(frozen=True)
class LevelCount:
    """Cards of the check photos at one sure level: wrong ones proposed unmarked
    (`silent`) and right ones marked "check it" (`marked`)."""

    level: float
    silent: int
    marked: int


def _truth(rendered: Rendered) -> tuple[Counter[str], Counter[str]]:
    """The photo's cards with a readable index, and every face-up card on it."""
    readable = Counter(
        str(label.placement.card)
        for label in rendered.labels()
        if label.placement.face_up and any(i.state == "visible" for i in label.indices)
    )
    return readable, Counter(str(p.card) for p in rendered.placements if p.face_up)


def count_levels(
    scanner: PhotoScanner, photos: list[Photo], levels: tuple[float, ...] = LEVELS
) -> list[LevelCount]:
    """Wrong-and-unmarked and right-but-marked cards at each level, as
    `tests/benchmarks/deck_teach.py` counts them: a name read more often than it lies
    face up is wrong that many times, and silent where it was sure."""
    out = []
    for level in levels:
        judge = replace(scanner, sure=level)
        silent = marked = 0
        for cards, readable, on_table in photos:
            got = Counter(str(c.card) for c in cards)
            sure = Counter(str(c.card) for c in cards if judge.is_sure(c, cards, PhotoKind.HAND))
            silent += sum((sure & (got - on_table)).values())
            marked += sum(((got - sure) & readable).values())
        out.append(LevelCount(level, silent, marked))
    return out


def choose_level(counts: list[LevelCount]) -> float:
    """The lowest level whose silent cards are the fewest."""
    fewest = min(c.silent for c in counts)
    return min(c.level for c in counts if c.silent == fewest)


def check_deck(
    deck: StoredDeck,
    models: CardModels,
    scenes: int = CHECK_SCENES,
    *,
    head: DeckHead | None = None,
    look: EnrolledLook | None = None,
    progress: Progress | None = None,
) -> tuple[float, dict[str, Any]]:
    """Read `scenes` photos of the deck's enrolled cards with its models (its head,
    locator and reader as stored) and choose its sure level; returns it and the counts
    it was chosen on. `models` are the shipped ones (their folder is loaded again with
    the deck, so they are not changed); `head`: the deck's reading to check, when not
    the stored one (the deck step checks its new models before they replace the old);
    `look`: the deck's enrolled look when the caller made it already. Progress stage:
    "check"."""
    scanner = PhotoScanner.load(models.files.folder, deck=head or deck.head())
    look = look or enrolled_look(deck, models)
    cards = list(look.cards())
    rng = np.random.default_rng([CHECK_SEED, len(cards)])
    photos: list[Photo] = []
    for n in range(scenes):
        if progress is not None:
            progress("check", n, scenes)
        size = int(rng.integers(min(3, len(cards)), min(11, len(cards)) + 1))
        chosen = [cards[int(i)] for i in rng.choice(len(cards), size=size, replace=False)]
        rendered = photo_of_cards(rng, "val", look, chosen)[0]
        readable, on_table = _truth(rendered)
        photos.append((scanner.scan(rendered.image, kind=PhotoKind.HAND).cards, readable, on_table))
    if progress is not None:
        progress("check", scenes, scenes)
    levels = tuple(v for v in LEVELS if v >= models.files.sure_read)
    counts = count_levels(scanner, photos, levels)
    return choose_level(counts), {"photos": scenes, "levels": [asdict(c) for c in counts]}
