"""Every card class of every deck look renders, with index boxes on real ink."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from shanghai.datasets.decks import DEFAULT_CACHE, back_of, code_looks, face_of
from shanghai.datasets.faces import FACE_H, FACE_W
from shanghai.datasets.faces_svg import npm_looks
from shanghai.datasets.layouts import TableDecks
from shanghai.engine.cards import CARD_CLASSES, JOKER, ROOK_CARDS, STANDARD_CARDS, DeckFamily


def _ink_share(rgba: np.ndarray, box: tuple[float, float, float, float]) -> float:
    """Share of pixels in the box that differ clearly from the card's paper."""
    x0, y0, x1, y1 = (round(v) for v in box)
    patch = rgba[max(y0, 0) : y1, max(x0, 0) : x1, :3].astype(int)
    paper = np.median(rgba[FACE_H // 2 - 3 : FACE_H // 2 + 3, 4:8, :3].reshape(-1, 3), axis=0)
    return float((np.abs(patch - paper).sum(axis=2) > 90).mean())


def _check_look(look) -> set[str]:  # type: ignore[no-untyped-def]
    names = set()
    for card in look.cards():
        face = face_of(look, card)
        assert face.rgba.shape == (FACE_H, FACE_W, 4)
        assert face.rgba[0, 0, 3] < 128, "the rounded corner is transparent"
        assert face.rgba[FACE_H // 2, FACE_W // 2, 3] == 255
        assert len(face.index_boxes) >= 2, f"{look.name} {card}: both corners carry an index"
        for box in face.index_boxes:
            x0, y0, x1, y1 = box
            assert -3 <= x0 < x1 <= FACE_W + 3 and -3 <= y0 < y1 <= FACE_H + 3
            assert 6 <= x1 - x0 <= FACE_W * 0.3 and 10 <= y1 - y0 <= FACE_H * 0.5
            share = _ink_share(face.rgba, box)
            assert 0.08 < share < 0.9, f"{look.name} {card}: index box holds {share:.0%} ink"
        names.add(str(card))
    assert back_of(look).shape == (FACE_H, FACE_W, 4)
    return names


@pytest.mark.parametrize("look", code_looks(), ids=lambda look: look.name)
def test_code_look_renders_every_class_of_its_deck(look) -> None:  # type: ignore[no-untyped-def]
    names = _check_look(look)
    expected = STANDARD_CARDS if look.family is DeckFamily.STANDARD else ROOK_CARDS
    assert names == {str(card) for card in expected}


def test_code_looks_cover_every_engine_class_in_train_and_in_held_out() -> None:
    train = {str(c) for look in code_looks() if not look.held_out for c in look.cards()}
    held = {str(c) for look in code_looks() if look.held_out for c in look.cards()}
    assert train == set(CARD_CLASSES)
    assert held == set(CARD_CLASSES)
    standard_train = [look for look in code_looks() if look.family is DeckFamily.STANDARD]
    assert len([look for look in standard_train if not look.held_out]) >= 3


def test_table_decks_hold_every_card_of_each_copy() -> None:
    look = code_looks()[0]
    decks = TableDecks(np.random.default_rng(0), [look], copies=2)
    drawn = [str(card) for card, _ in decks.draw(500)]
    assert len(drawn) == 2 * len(look.cards())
    assert all(drawn.count(str(card)) == 2 for card in look.cards())


def test_extra_jokers_go_only_to_decks_that_have_a_joker() -> None:
    standard = next(look for look in code_looks() if look.family is DeckFamily.STANDARD)
    rook = next(look for look in code_looks() if look.family is DeckFamily.ROOK)
    decks = TableDecks(np.random.default_rng(0), [standard, rook], copies=2, extra_jokers=5)
    drawn = Counter((str(card), look.name) for card, look in decks.draw(1000))
    assert drawn[(str(JOKER), standard.name)] == 1 + 5
    assert not any(card == str(JOKER) for card, name in drawn if name == rook.name)
    assert sum(drawn.values()) == len(standard.cards()) + len(rook.cards()) + 5


def test_no_extra_jokers_keeps_the_shuffle_of_a_seed() -> None:
    look = code_looks()[0]
    plain = TableDecks(np.random.default_rng(3), [look], copies=2)
    explicit = TableDecks(np.random.default_rng(3), [look], copies=2, extra_jokers=0)
    assert plain.draw(200) == explicit.draw(200)


@pytest.mark.skipif(not (DEFAULT_CACHE / "npm").is_dir(), reason="npm decks not fetched")
def test_npm_looks_render_with_measured_indices() -> None:
    looks = npm_looks(Path(DEFAULT_CACHE))
    assert looks, "fetched decks must give looks"
    for look in looks:
        _check_look(look)
