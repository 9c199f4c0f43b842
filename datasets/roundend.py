"""Round-end tables with a known correct score: the end-to-end test set.

A round is played by the engine's simulator (`shanghai.engine.simulator.play_round`),
then each seat's melds (in table order) and left-over hand are laid out in that seat's
area, as players leave them for scoring. The JSON truth holds every player's melds and
hand, and the score of each hand under the variant played and under every other
built-in variant of the same deck family that accepts the cards.

`round_end_layout` takes a plain description (`PlayerArea`: melds as ordered card
lists, plus a hand), so a scene can also be composed from any other source.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from shanghai.engine.cards import Card, DeckFamily
from shanghai.engine.errors import ShanghaiError
from shanghai.engine.scoring import score_round
from shanghai.engine.simulator import RoundOutcome, play_round
from shanghai.engine.variant_files import BUILTIN_VARIANTS, find_variant

from .camera import sample_camera
from .clutter import make_clutter
from .decks import looks_for
from .faces import CARD_H_MM, CARD_W_MM, DeckLook
from .layouts import ClutterItem, Layout, TableDecks, fan_positions, place_group, row_positions
from .scene import Rendered, render_scene
from .splits import choose_background, choose_looks

__all__ = ["VARIANT_WEIGHTS", "PlayerArea", "render_round_end", "round_end_layout"]

VARIANT_WEIGHTS = {"shanghai": 3.0, "rook": 2.5, "shafer": 1.5, "family": 1.5, "manipulation": 1.0}
MAX_SEATS = 6
ROUND_END_SIZES = ((1920, 1080), (1600, 1200), (2048, 1536), (2448, 3264), (1280, 960))


@dataclass(frozen=True, slots=True)
class PlayerArea:
    """What one seat leaves on the table at round end."""

    melds: Sequence[Sequence[Card]]
    hand: Sequence[Card]


def _equal_to(card: Card) -> Callable[[Card], bool]:
    """A `TableDecks.take` predicate for copies of `card`."""
    return lambda c: c == card


def _assign_looks(
    rng: np.random.Generator,
    areas: Sequence[PlayerArea],
    looks: Sequence[DeckLook],
    fallback: Sequence[DeckLook],
) -> dict[tuple[int, str, int, int], tuple[Card, DeckLook]]:
    """Give every physical card a deck look, never more copies than the decks hold."""
    decks = TableDecks(rng, looks, copies=4 * len(looks))
    out = {}
    for seat, area in enumerate(areas):
        groups = [("meld", m, cards) for m, cards in enumerate(area.melds)]
        groups.append(("hand", 0, area.hand))
        for zone, m, cards in groups:
            for i, card in enumerate(cards):
                got = decks.take(_equal_to(card))
                if got is None:  # a look without this card (one npm deck has no joker)
                    got = (card, next(look for look in fallback if card in look.cards()))
                out[(seat, zone, m, i)] = got
    return out


def round_end_layout(
    rng: np.random.Generator,
    areas: Sequence[PlayerArea],
    looks: Sequence[DeckLook],
    fallback: Sequence[DeckLook] = (),
) -> Layout:
    """Seats around a round table; in each area the melds in rows (cards overlapping so
    each index shows, in table order), the hand in front of its player."""
    layout = Layout()
    assigned = _assign_looks(rng, areas, looks, fallback or looks)
    seats = len(areas)
    radius = rng.uniform(260, 340) + 25 * seats
    meld_step = rng.uniform(16, 26)
    row_gap = rng.uniform(CARD_H_MM + 6, CARD_H_MM + 25)
    for seat, area in enumerate(areas):
        angle = 360.0 * seat / seats + rng.normal(0, 4)
        # The player sits outside the circle; the top of their cards points inward.
        ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        centre = (ux * radius, uy * radius)
        card_angle = angle + 90.0  # the card's "down" (+y) points out to the player
        width_limit = 420.0
        x, y, row_height = 0.0, 0.0, 0.0
        rows: list[tuple[float, float, int]] = []  # (x, y, meld index)
        for m, cards in enumerate(area.melds):
            width = (len(cards) - 1) * meld_step + CARD_W_MM
            if x > 0 and x + width > width_limit:
                x, y = 0.0, y + row_gap
            rows.append((x + width / 2, y, m))
            x += width + rng.uniform(12, 30)
            row_height = y + row_gap
        hand_y = row_height + rng.uniform(5, 30) if area.melds else 0.0
        total_height = hand_y + CARD_H_MM
        shift_y = -total_height / 2 + CARD_H_MM / 2
        for mx, my, m in rows:
            meld_cards = [assigned[(seat, "meld", m, i)] for i in range(len(area.melds[m]))]
            poses = row_positions(rng, len(meld_cards), meld_step)
            local = [(px + mx - width_limit / 2, py + my + shift_y, pa) for px, py, pa in poses]
            place_group(
                layout,
                meld_cards,
                _to_table(local, centre, card_angle),
                (0, 0, 0),
                zone="meld",
                owner=seat,
                meld=m,
            )
        hand = [assigned[(seat, "hand", 0, i)] for i in range(len(area.hand))]
        if hand:
            if rng.random() < 0.3 and len(hand) > 2:
                poses = [(px, py - 40, pa) for px, py, pa in fan_positions(rng, len(hand))]
            else:
                poses = row_positions(rng, len(hand), rng.uniform(22, 45))
            local = [(px, py + hand_y + shift_y, pa) for px, py, pa in poses]
            place_group(
                layout,
                hand,
                _to_table(local, centre, card_angle),
                (0, 0, 0),
                zone="hand",
                owner=seat,
            )
        layout.focus_mm.append(centre)
    for _ in range(int(rng.poisson(1.0))):
        name, rgba = make_clutter(rng)
        layout.clutter.append(
            ClutterItem(
                name=name,
                rgba=rgba,
                x_mm=rng.normal(0, radius / 3),
                y_mm=rng.normal(0, radius / 3),
                angle_deg=rng.uniform(0, 360),
                above_cards=False,
            )
        )
    return layout


def _to_table(
    local: Sequence[tuple[float, float, float]], centre: tuple[float, float], angle: float
) -> list[tuple[float, float, float]]:
    """Area coordinates (x right, y towards the player) to table poses."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return [(centre[0] + c * x - s * y, centre[1] + s * x + c * y, a + angle) for x, y, a in local]


def _scores_by_variant(outcome: RoundOutcome, family: DeckFamily, players: int) -> dict[str, Any]:
    """Each hand's points under every built-in variant of the family that takes the cards."""
    out: dict[str, Any] = {}
    for name in BUILTIN_VARIANTS:
        variant = find_variant(name)
        if variant.family is not family:
            continue
        try:
            rules = variant.rules(max(players, variant.min_players))
            scores = score_round(outcome.hands, rules)
        except ShanghaiError:
            continue  # e.g. jokers left in a hand, and a variant that has none
        out[name] = [s.hand_points for s in scores]
    return out


def _pick_variant(rng: np.random.Generator) -> str:
    names = list(VARIANT_WEIGHTS)
    p = np.array([VARIANT_WEIGHTS[n] for n in names])
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def render_round_end(
    rng: np.random.Generator, split: str, looks: Sequence[DeckLook]
) -> tuple[Rendered, dict[str, Any]]:
    """Simulate a round, lay it out, photograph it; returns the frame and the truth."""
    variant = find_variant(_pick_variant(rng))
    players = int(rng.integers(variant.min_players, min(variant.max_players, MAX_SEATS) + 1))
    rules = variant.rules(players)
    rounds = len(variant.rounds)
    number = int(rng.integers(1, rounds + 1))
    seed = int(rng.integers(2**62))
    outcome = play_round(rules, number, seed, dealer=int(rng.integers(players)))
    areas = [
        PlayerArea(melds=[list(m.cards) for m in outcome.melds[s]], hand=list(outcome.hands[s]))
        for s in range(players)
    ]
    table_looks = choose_looks(rng, split, variant.family, looks)
    layout = round_end_layout(
        rng, areas, table_looks, looks_for(looks, variant.family, held_out=None)
    )
    size = ROUND_END_SIZES[int(rng.integers(len(ROUND_END_SIZES)))]
    if rng.random() < 0.5:
        view: dict[str, Any] = {"kind": "table"}
        extent = 2 * (max(math.hypot(p.x_mm, p.y_mm) for p in layout.placements) + CARD_H_MM)
        card_px = CARD_H_MM * min(size) / extent
        camera = sample_camera(
            rng,
            size,
            (rng.normal(0, 20), rng.normal(0, 20)),
            card_px=(card_px, card_px * 1.1),
            max_tilt=25.0,
        )
    else:
        seat = int(rng.integers(players))
        view = {"kind": "player", "player": seat}
        camera = sample_camera(
            rng, size, layout.focus_mm[seat], card_px=(min(size) / 7, min(size) / 4), max_tilt=40.0
        )
    rendered = render_scene(layout, camera, choose_background(rng, split), rng)
    truth = {
        "variant": variant.name,
        "players": players,
        "round_number": number,
        "contract": str(contract) if (contract := rules.round(number).contract) else None,
        "simulator_seed": seed,
        "went_out": outcome.went_out,
        "ending": str(outcome.ending),
        "view": view,
        "seats": [
            {
                "seat": s,
                "melds": [
                    {"kind": m.kind.value, "cards": [str(c) for c in m.cards]}
                    for m in outcome.melds[s]
                ],
                "hand": [str(c) for c in outcome.hands[s]],
                "hand_points": outcome.scores[s].hand_points,
                "bonus": outcome.scores[s].bonus,
                "score": outcome.scores[s].points,
            }
            for s in range(players)
        ],
        "hand_points_by_variant": _scores_by_variant(outcome, variant.family, players),
    }
    return rendered, truth
