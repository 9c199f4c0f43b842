"""Photos of one player's cards with a known right answer: the scan contract's test set.

Two kinds, as `vision.scan.PhotoScanner` is asked to read them:
- `hand`: the 1-11 cards left in one hand at round end (random cards of the variant's
  shoe), fanned, spread in a row or dropped loose, photographed close up (a card 250-700
  px tall) or from across the table (90-250 px);
- `lay-down`: one player's contract as laid down in a simulated round (rows of
  overlapping cards in table order), sometimes spoilt the way disputes arise (a run with
  a gap, a set one card short, a card of another rank, two cards swapped, a meld
  missing), sometimes with one loose card beside the rows.

Everything else is the round-end generator's (`roundend`): the variants and their
weights, looks per split (`splits`), the meld rows, the cameras and the scene composer.
The camera is then pulled back until every card lies in the frame, so a card is never
missing from a photo because the generator cut it off; a card whose index is hidden
under another card is marked in the truth (`readable`) instead, since no reader can name
it. Photo `index` is drawn from its own generator seeded by (seed, kind, index), so any
subset of a run renders the same photos.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from shanghai.engine.cards import Card
from shanghai.engine.contracts import check_lay_down
from shanghai.engine.scoring import score_hand
from shanghai.engine.simulator import play_round
from shanghai.engine.table import RoundState
from shanghai.engine.variant_files import find_variant
from shanghai.engine.variants import MeldKind, Rules, Variant, build_shoe

from .camera import Camera, sample_camera
from .decks import looks_for
from .faces import FACE_H, FACE_W, DeckLook
from .layouts import Layout, fan_positions, place_group, row_positions, scatter_positions
from .roundend import ROUND_END_SIZES, PlayerArea, _assign_looks, _pick_variant, round_end_layout
from .scene import Rendered, _project, render_scene
from .splits import choose_background, choose_looks
from .writer import scene_header

__all__ = [
    "DISTANCES",
    "PHOTO_KINDS",
    "photo_of_cards",
    "photo_rng",
    "render_hand_photo",
    "render_lay_down_photo",
    "render_photo",
]

PHOTO_KINDS: tuple[str, ...] = ("hand", "lay-down")
"""The kinds drawn here, spelt as `vision.snapshot.PhotoKind` values."""
_KIND_CODES = {"hand": 101, "lay-down": 102}
"""Seed words of each kind; distinct from `generate`'s, so no photo repeats a scene."""
DISTANCES: dict[str, tuple[float, float]] = {"close-up": (250.0, 700.0), "table": (90.0, 250.0)}
"""Card height in pixels wanted at each distance (before the camera is pulled back to
frame every card: small frames turn some close-ups into table shots)."""
ARRANGEMENTS = {"fan": 0.4, "row": 0.4, "loose": 0.2}
"""How a hand lies (weights): fanned, spread in a row, or dropped loose, where a card
may hide another's index altogether (the truth's `readable` says which)."""
SPOILS = ("gap", "short", "odd-rank", "swapped", "missing")
SPOILT_SHARE = 0.35
"""Share of lay-downs given one mistake, so that both verdicts are scanned often."""
LOOSE_SHARE = 0.3
"""Share of lay-downs with one loose card beside the melds (it must come back `loose`)."""
FRAME_MARGIN = 0.03
"""Share of each frame side kept clear of cards."""
UPRIGHT_SHARE = 0.8
"""Share of photos taken from the player's side (cards upright, give or take a tilt);
the rest from any side."""


def photo_rng(seed: int, kind: str, index: int) -> np.random.Generator:
    """The generator for photo `index` of a kind: independent of every other photo."""
    return np.random.default_rng(np.random.SeedSequence([seed, _KIND_CODES[kind], index]))


def render_photo(
    kind: str, seed: int, index: int, split: str, looks: Sequence[DeckLook]
) -> tuple[Rendered, dict[str, Any]]:
    """Photo `index` of `kind` (`hand` or `lay-down`) for a seed and split."""
    rng = photo_rng(seed, kind, index)
    if kind == "hand":
        return render_hand_photo(rng, split, looks)
    return render_lay_down_photo(rng, split, looks)


def render_hand_photo(
    rng: np.random.Generator, split: str, looks: Sequence[DeckLook]
) -> tuple[Rendered, dict[str, Any]]:
    """One hand of 1-11 random cards from the variant's shoe; returns frame and truth."""
    variant, rules, number = _game(rng, contract=False)
    shoe = build_shoe(variant.family, rules.setup)
    size = int(rng.integers(1, 12))
    hand = [shoe[int(i)] for i in rng.choice(len(shoe), size=size, replace=False)]
    table_looks = choose_looks(rng, split, variant.family, looks)
    fallback = looks_for(looks, variant.family, held_out=None)
    assigned = _assign_looks(rng, [PlayerArea(melds=[], hand=hand)], table_looks, fallback)
    names = list(ARRANGEMENTS)
    weights = np.array([ARRANGEMENTS[a] for a in names])
    arrangement = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    if arrangement == "fan" and size > 2:
        poses = fan_positions(rng, size)
    elif arrangement == "loose":
        poses = scatter_positions(rng, size)
    else:
        arrangement = "row"
        poses = row_positions(rng, size, rng.uniform(18, 50))
    layout = Layout()
    cards = [assigned[(0, "hand", 0, i)] for i in range(size)]
    place_group(layout, cards, poses, (0.0, 0.0, 0.0), zone="hand", owner=0)
    # Cards upright in the frame: their "down" (table +y) is the image's down at yaw 90.
    rendered, distance = _photograph(rng, split, layout, upright_yaw=90.0)
    truth = {
        "kind": "hand",
        **_game_truth(variant, rules, number),
        "arrangement": arrangement,
        "distance": distance,
        "hand": [str(c) for c in hand],
        "hand_points": score_hand(hand, rules).points,
        "readable": _readable(rendered)["hand", 0],
        **scene_header(rendered, width=rendered.camera.width, height=rendered.camera.height),
    }
    return rendered, truth


def photo_of_cards(
    rng: np.random.Generator, split: str, look: DeckLook, cards: Sequence[Card]
) -> tuple[Rendered, str]:
    """A photo of `cards` of one look lying as a hand does (fanned, in a row or loose,
    as `ARRANGEMENTS` weighs them), on a table of `split`; returns the frame and its
    distance. The scenes a taught deck's locator learns from (`deck_locator`) and the
    teach benchmark reads."""
    names = list(ARRANGEMENTS)
    weights = np.array([ARRANGEMENTS[a] for a in names])
    arrangement = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    n = len(cards)
    if arrangement == "fan" and n > 2:
        poses = fan_positions(rng, n)
    elif arrangement == "loose":
        poses = scatter_positions(rng, n)
    else:
        poses = row_positions(rng, n, rng.uniform(18, 50))
    layout = Layout()
    place_group(layout, [(c, look) for c in cards], poses, (0.0, 0.0, 0.0), zone="hand", owner=0)
    return _photograph(rng, split, layout, upright_yaw=90.0)


def render_lay_down_photo(
    rng: np.random.Generator, split: str, looks: Sequence[DeckLook]
) -> tuple[Rendered, dict[str, Any]]:
    """One player's contract as laid down in a simulated round (sometimes spoilt, sometimes
    with a loose card); returns frame and truth with the engine's verdict."""
    variant, rules, number = _game(rng, contract=True)
    melds = _first_lay_down(rng, rules, number)
    spoil = None
    if rng.random() < SPOILT_SHARE:
        spoil, melds = _spoilt(rng, melds, rules)
    shoe = build_shoe(variant.family, rules.setup)
    loose = [shoe[int(rng.integers(len(shoe)))]] if rng.random() < LOOSE_SHARE else []
    table_looks = choose_looks(rng, split, variant.family, looks)
    fallback = looks_for(looks, variant.family, held_out=None)
    layout = round_end_layout(rng, [PlayerArea(melds=melds, hand=loose)], table_looks, fallback)
    # One seat sits at angle ~0, its cards' "down" along table -x: upright at yaw 180.
    rendered, distance = _photograph(rng, split, layout, upright_yaw=180.0)
    report = check_lay_down(melds, rules, number, ordered=True)
    readable = _readable(rendered)
    truth = {
        "kind": "lay-down",
        **_game_truth(variant, rules, number),
        "distance": distance,
        "melds": [[str(c) for c in meld] for meld in melds],
        "loose": [str(c) for c in loose],
        "spoilt": spoil,
        "verdict": {"valid": report.valid, "reasons": report.all_reasons},
        "readable": [readable["meld", m] for m in range(len(melds))],
        "loose_readable": readable["hand", 0] if loose else [],
        **scene_header(rendered, width=rendered.camera.width, height=rendered.camera.height),
    }
    return rendered, truth


def _game(rng: np.random.Generator, *, contract: bool) -> tuple[Variant, Rules, int]:
    """Variant (round-end weights), players and round; `contract`: a round with one (a
    lay-down is checked against a contract; manipulation rounds have none)."""
    while True:
        variant = find_variant(_pick_variant(rng))
        if not contract or any(r.contract is not None for r in variant.rounds):
            break
    players = int(rng.integers(variant.min_players, variant.max_players + 1))
    rules = variant.rules(players)
    numbers = [
        n
        for n in range(1, len(variant.rounds) + 1)
        if not contract or rules.round(n).contract is not None
    ]
    return variant, rules, numbers[int(rng.integers(len(numbers)))]


def _game_truth(variant: Variant, rules: Rules, number: int) -> dict[str, Any]:
    contract = rules.round(number).contract
    return {
        "variant": variant.name,
        "family": variant.family.value,
        "players": rules.players,
        "round_number": number,
        "contract": str(contract) if contract else None,
    }


def _first_lay_down(rng: np.random.Generator, rules: Rules, number: int) -> list[list[Card]]:
    """The melds of the first lay-down of a simulated round, in table order (before any
    lay-off grows them). A round where nobody lays down is dealt again."""
    while True:
        laid: list[list[list[Card]]] = []

        def watch(state: RoundState, laid: list[list[list[Card]]] = laid) -> None:
            if state.last_action == "lay-down" and not laid:
                laid.append([list(m.cards) for m in state.table_melds(state.current)])

        seed = int(rng.integers(2**62))
        play_round(rules, number, seed, dealer=int(rng.integers(rules.players)), observer=watch)
        if laid:
            return laid[0]


def _spoilt(
    rng: np.random.Generator, melds: list[list[Card]], rules: Rules
) -> tuple[str | None, list[list[Card]]]:
    """The lay-down with one mistake players make or claim (see the module docstring);
    (None, melds) when the mistake drawn does not apply. The verdict is the engine's."""
    spoil = SPOILS[int(rng.integers(len(SPOILS)))]
    out = [list(m) for m in melds]
    kinds = [_kind(m, rules) for m in out]
    runs = [i for i, k in enumerate(kinds) if k is MeldKind.RUN and len(out[i]) >= 4]
    sets = [i for i, k in enumerate(kinds) if k is MeldKind.SET]
    if spoil == "gap" and runs:
        meld = out[runs[int(rng.integers(len(runs)))]]
        del meld[int(rng.integers(1, len(meld) - 1))]
    elif spoil == "swapped" and runs:
        meld = out[runs[int(rng.integers(len(runs)))]]
        i = int(rng.integers(len(meld) - 1))
        meld[i], meld[i + 1] = meld[i + 1], meld[i]
    elif spoil == "short" and sets:
        out[sets[int(rng.integers(len(sets)))]].pop()
    elif spoil == "odd-rank" and sets:
        meld = out[sets[int(rng.integers(len(sets)))]]
        ranks = {c.rank for c in meld}
        shoe = build_shoe(rules.variant.family, rules.setup)
        others = [c for c in shoe if not c.is_suitless and not rules.is_wild(c)]
        others = [c for c in others if c.rank not in ranks]
        meld[int(rng.integers(len(meld)))] = others[int(rng.integers(len(others)))]
    elif spoil == "missing" and len(out) > 1:
        del out[int(rng.integers(len(out)))]
    else:
        return None, melds
    return spoil, out


def _kind(cards: Sequence[Card], rules: Rules) -> MeldKind:
    """What a legal lay-down meld is: a run when its naturals differ in rank."""
    ranks = {c.rank for c in cards if not c.is_suitless and not rules.is_wild(c)}
    return MeldKind.RUN if len(ranks) > 1 else MeldKind.SET


def _photograph(
    rng: np.random.Generator, split: str, layout: Layout, *, upright_yaw: float
) -> tuple[Rendered, str]:
    """A phone or webcam photo of every card in the layout at a drawn distance; returns
    the frame and the distance it ended at (`DISTANCES`, by the card's height)."""
    size = ROUND_END_SIZES[int(rng.integers(len(ROUND_END_SIZES)))]
    wanted = list(DISTANCES)[int(rng.integers(len(DISTANCES)))]
    corners = _card_corners(layout)
    centre = (corners.min(axis=0) + corners.max(axis=0)) / 2
    camera = sample_camera(
        rng, size, (float(centre[0]), float(centre[1])), card_px=DISTANCES[wanted], max_tilt=35.0
    )
    if rng.random() < UPRIGHT_SHARE:
        camera = replace(camera, yaw_deg=upright_yaw + float(rng.normal(0, 10)))
    camera = _framed(camera, corners)
    rendered = render_scene(layout, camera, choose_background(rng, split), rng)
    return rendered, _distance_of(camera.card_height_px())


def _card_corners(layout: Layout) -> np.ndarray:
    """(4N, 2) table-mm corners of every card in the layout."""
    face = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float64)
    homo = np.column_stack([face, np.ones(4)])
    out = []
    for p in layout.placements:
        mm = homo @ p.to_table().T
        out.append(mm[:, :2] / mm[:, 2:3])
    return np.concatenate(out)


def _framed(camera: Camera, corners: np.ndarray) -> Camera:
    """The camera moved back along its line of sight until every corner lies inside the
    frame (less `FRAME_MARGIN`); a tilted camera needs a few steps (perspective)."""
    w, h = camera.width, camera.height
    low = np.array([w, h]) * FRAME_MARGIN
    high = np.array([w, h]) * (1 - FRAME_MARGIN)
    for _ in range(40):
        pixels = _project(camera.homography, corners)
        if pixels is not None and (pixels >= low).all() and (pixels <= high).all():
            return camera
        if pixels is None:
            grow = 1.5
        else:
            half = (high - low) / 2
            reach = np.abs(pixels - (low + high) / 2).max(axis=0) / half
            grow = min(max(float(reach.max()), 1.03), 3.0)
        camera = replace(camera, distance_mm=camera.distance_mm * grow)
    return camera


def _readable(rendered: Rendered) -> dict[tuple[str, int], list[bool]]:
    """Per (zone, meld index) the cards in placement order: True when at least one index
    of the card shows well enough to read (`labels`: state `visible`)."""
    out: dict[tuple[str, int], list[bool]] = {}
    seen = {label.ident: label for label in rendered.labels()}
    for i, p in enumerate(rendered.placements):
        label = seen.get(i + 1)
        ok = label is not None and any(ix.state == "visible" for ix in label.indices)
        out.setdefault((p.zone, p.meld or 0), []).append(ok)
    return out


def _distance_of(card_px: float) -> str:
    return "close-up" if card_px >= DISTANCES["close-up"][0] else "table"
