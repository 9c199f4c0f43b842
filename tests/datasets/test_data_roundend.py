"""Round-end scenes: the engine's simulated round, laid out seat by seat, with truth."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

from shanghai.datasets.decks import code_looks
from shanghai.datasets.generate import GenerateConfig, generate, item_rng
from shanghai.datasets.roundend import PlayerArea, render_round_end, round_end_layout
from shanghai.engine.cards import parse_cards
from shanghai.engine.scoring import score_round
from shanghai.engine.variant_files import find_variant


def test_layout_keeps_each_seats_melds_in_order_and_hand() -> None:
    areas = [
        PlayerArea(
            melds=[parse_cards("7h 7s 7d"), parse_cards("3c 4c JK 6c")], hand=parse_cards("Kd 2s")
        ),
        PlayerArea(melds=[parse_cards("9s 9s 9h")], hand=[]),
        PlayerArea(melds=[], hand=parse_cards("Ah 5d 5d 10c")),
    ]
    layout = round_end_layout(np.random.default_rng(1), areas, [code_looks()[0]])
    for seat, area in enumerate(areas):
        mine = [p for p in layout.placements if p.owner == seat]
        for m, meld in enumerate(area.melds):
            row = sorted(
                (p for p in mine if p.zone == "meld" and p.meld == m), key=lambda p: p.position
            )
            assert [p.card for p in row] == list(meld)
        hand = [p.card for p in mine if p.zone == "hand"]
        assert Counter(hand) == Counter(area.hand)
    assert all(p.face_up for p in layout.placements)


def test_truth_matches_the_cards_on_the_table_and_the_engine_score() -> None:
    looks = code_looks()
    for index in range(2):
        rendered, truth = render_round_end(item_rng(5, "roundend", index), "test", looks)
        variant = find_variant(truth["variant"])
        hands = [parse_cards(seat["hand"]) for seat in truth["seats"]]
        expected = score_round(hands, variant.rules(truth["players"]), went_out=truth["went_out"])
        assert [seat["hand_points"] for seat in truth["seats"]] == [s.hand_points for s in expected]
        assert truth["hand_points_by_variant"][variant.name] == [s.hand_points for s in expected]
        for s, seat in enumerate(truth["seats"]):
            on_table = [p for p in rendered.placements if p.owner == s]
            assert Counter(str(p.card) for p in on_table if p.zone == "hand") == Counter(
                seat["hand"]
            )
            melded = Counter(str(c) for meld in seat["melds"] for c in meld["cards"])
            assert Counter(str(p.card) for p in on_table if p.zone == "meld") == melded


def test_generate_roundend_writes_truth_json(tmp_path: Path) -> None:
    cfg = GenerateConfig(out=tmp_path, n=1, seed=2, kind="roundend", split="test")
    generate(cfg, progress=False)
    (meta_path,) = (tmp_path / "roundend" / "test" / "meta").glob("*.json")
    meta = json.loads(meta_path.read_text())
    assert meta["round"]["seats"] and meta["round"]["variant"]
    owned = [c for c in meta["cards"] if c["owner"] is not None]
    assert owned and all(c["zone"] in ("meld", "hand") for c in owned)
