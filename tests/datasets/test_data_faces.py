"""Every card class of every deck look renders, with index boxes on real ink; the
randomised training looks are deterministic, varied, and keep their indices in the
corner; every bundled font draws a rank."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from shanghai.datasets import fonts as fonts_module
from shanghai.datasets.decks import (
    DEFAULT_CACHE,
    back_of,
    code_looks,
    face_of,
    teach_val_looks,
    unseen_val_looks,
)
from shanghai.datasets.faces import FACE_H, FACE_W, DeckLook
from shanghai.datasets.faces_rook import CodeRookLook, randomised_rook_styles
from shanghai.datasets.faces_standard import (
    STANDARD_STYLES,
    UNSEEN_FONTS,
    CodeStandardLook,
    font_families,
    randomised_styles,
    sample_standard_style,
    system_font_styles,
)
from shanghai.datasets.faces_svg import npm_looks
from shanghai.datasets.fonts import (
    FONT_FILES,
    HELD_OUT_FONTS,
    SYSTEM_FONT_FILES,
    TEACH_FONT_FILES,
    TRAINING_FONTS,
    MissingFontError,
    font,
    font_family,
    require_system_fonts,
    system_fonts_installed,
)
from shanghai.datasets.layouts import TableDecks
from shanghai.engine.cards import (
    CARD_CLASSES,
    JOKER,
    ROOK_CARDS,
    STANDARD_CARDS,
    Card,
    DeckFamily,
    Suit,
)

RANDOMISED = [look for look in code_looks() if look.train_only]
RANDOMISED_ROOK = [look for look in RANDOMISED if isinstance(look, CodeRookLook)]
RANDOMISED_STANDARD = [look for look in RANDOMISED if isinstance(look, CodeStandardLook)]
ONE_OF_EACH_LAYOUT = [
    next(look for look in RANDOMISED if isinstance(look, CodeStandardLook) and test(look.style))
    for test in (
        lambda st: st.four_corners,
        lambda st: st.jumbo_pips,
        lambda st: not (st.four_corners or st.jumbo_pips),
    )
]
WIDE_CARDS = [Card.parse(text) for text in ("10h", "Qc", "Kd", "As", "8s", "Jd")] + [JOKER]
"""The widest indices of a standard deck (and the tall joker index)."""


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


# Every fixed look and one randomised look of each index layout in full;
# `test_randomised_looks_keep_indices_in_the_corner` covers the widest cards of the rest.
@pytest.mark.parametrize(
    "look",
    [look for look in code_looks() if not look.train_only] + ONE_OF_EACH_LAYOUT,
    ids=lambda look: look.name,
)
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


def test_a_randomised_style_is_fixed_by_its_seed() -> None:
    first = sample_standard_style(np.random.default_rng(7), "x")
    assert sample_standard_style(np.random.default_rng(7), "x") == first
    assert sample_standard_style(np.random.default_rng(8), "x") != first
    assert randomised_styles() == randomised_styles.__wrapped__()  # recomputed: the same


def test_randomised_styles_differ_from_deck_to_deck() -> None:
    styles = [sample_standard_style(np.random.default_rng(seed), "x") for seed in range(40)]
    assert len({st.rank_font for st in styles}) >= 8
    assert len({st.rank_size for st in styles}) >= 10
    assert len({(st.index_x, st.index_y) for st in styles}) == len(styles)
    assert len({st.paper for st in styles}) >= 20
    assert len({st.colours[Suit.HEARTS] for st in styles}) >= 20
    assert {st.four_corners for st in styles} == {True, False}
    assert {st.jumbo_pips for st in styles} == {True, False}
    assert any(st.colours[Suit.CLUBS] != st.colours[Suit.SPADES] for st in styles)  # 4-colour
    for st in styles:
        red, black = st.colours[Suit.HEARTS], st.colours[Suit.SPADES]
        assert red[0] >= 100 and red[0] > 2 * max(red[1], red[2]), red  # orange-red..maroon
        assert max(black) <= 100, black  # near-black, dark grey or navy
        assert min(st.paper) >= 200 and st.paper[2] <= st.paper[0], st.paper  # white..cream


def test_randomised_looks_are_training_looks_in_every_training_font_family() -> None:
    assert system_fonts_installed()  # CI installs them (.ci/apt-packages.txt)
    standard = RANDOMISED_STANDARD
    names = [look.name for look in RANDOMISED]
    assert len(names) == len(set(names))
    assert len(standard) == len(randomised_styles()) + len(system_font_styles())
    assert len(randomised_styles()) >= 18 and len(system_font_styles()) >= 60
    rook = randomised_rook_styles() + randomised_rook_styles(system=True)
    assert [look.name for look in RANDOMISED_ROOK] == [st.name for st in rook]
    assert len(rook) >= 28
    assert all(not look.held_out and not look.val_only for look in RANDOMISED)
    fixed = [look.name for look in code_looks() if not look.train_only]
    assert fixed[: len(STANDARD_STYLES)] == [st.name for st in STANDARD_STYLES]  # not moved
    fonts = {look.style.rank_font for look in standard}
    assert not fonts & HELD_OUT_FONTS
    families = set(font_families()) | set(font_families(tuple(SYSTEM_FONT_FILES)))
    assert {font_family(name) for name in fonts} == families
    assert all(
        look.system_fonts == (look.style.rank_font in SYSTEM_FONT_FILES) for look in standard
    )
    trained = {st.rank_font for st in STANDARD_STYLES if not st.held_out}
    assert not trained & HELD_OUT_FONTS
    every_font = {*FONT_FILES, *SYSTEM_FONT_FILES, *TEACH_FONT_FILES}
    assert set(TRAINING_FONTS) | HELD_OUT_FONTS == every_font


def test_without_the_debian_fonts_training_data_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fonts_module, "SYSTEM_FONTS_DIR", tmp_path)
    assert not system_fonts_installed()
    with pytest.raises(MissingFontError, match=r"apt-get install .*fonts-urw-base35"):
        require_system_fonts()
    with pytest.raises(MissingFontError, match="fonts-go"):
        font("go-bold", 40)


def test_randomised_rook_looks_leave_the_held_out_rook_look_unseen() -> None:
    held = next(look for look in code_looks() if look.held_out and isinstance(look, CodeRookLook))
    numbers = {look.style.number_font for look in RANDOMISED_ROOK}
    assert held.style.number_font not in numbers and not numbers & HELD_OUT_FONTS
    assert all(look.style.centre != held.style.centre for look in RANDOMISED_ROOK)


@pytest.mark.parametrize("look", RANDOMISED_ROOK, ids=lambda look: look.name)
def test_randomised_rook_looks_keep_the_number_in_the_corner(look: CodeRookLook) -> None:
    for card in (Card.parse("14R"), Card.parse("10G"), Card.parse("1Y")):
        face = face_of(look, card)
        x0, y0, x1, y1 = face.index_boxes[0]
        assert 0 <= x0 < x1 <= 52 and 0 <= y0 < y1 <= 80, (card, x0, y0, x1, y1)
        assert y1 - y0 >= 20, (card, y1 - y0)  # big enough to read


def test_held_out_fonts_other_than_the_held_out_look_are_drawn_by_no_look() -> None:
    used = {look.style.rank_font for look in code_looks() if isinstance(look, CodeStandardLook)}
    assert used & HELD_OUT_FONTS == {"caladea-bold"}


def test_unseen_validation_looks_draw_fonts_no_training_or_test_look_draws() -> None:
    unseen = unseen_val_looks()
    assert {look.family for look in unseen} == set(DeckFamily)
    assert all(look.val_only and not look.held_out and not look.train_only for look in unseen)
    assert not {look.name for look in unseen} & {look.name for look in code_looks()}

    def fonts(looks: tuple[DeckLook, ...]) -> set[str]:
        style = [look.style for look in looks if isinstance(look, CodeStandardLook | CodeRookLook)]
        return {st.rank_font if hasattr(st, "rank_font") else st.number_font for st in style}

    assert fonts(unseen) == set(UNSEEN_FONTS) <= HELD_OUT_FONTS
    assert not fonts(unseen) & fonts(code_looks())


def test_teaching_validation_looks_draw_a_font_no_scene_of_any_split_draws() -> None:
    teach = teach_val_looks()
    assert teach and all(look.val_only and not look.held_out for look in teach)
    drawn = {look.style.number_font for look in teach if isinstance(look, CodeRookLook)}
    assert drawn <= set(TEACH_FONT_FILES) <= HELD_OUT_FONTS
    split_looks = (*code_looks(), *unseen_val_looks())
    assert not {look.name for look in teach} & {look.name for look in split_looks}
    for look in split_looks:
        style = look.style if isinstance(look, CodeStandardLook | CodeRookLook) else None
        if style is not None:
            assert getattr(style, "rank_font", getattr(style, "number_font", "")) not in drawn


@pytest.mark.parametrize(
    "look", (*unseen_val_looks(), *teach_val_looks()), ids=lambda look: look.name
)
def test_unseen_validation_looks_draw_every_card_of_their_family(look: DeckLook) -> None:
    for card in look.cards():
        face = face_of(look, card)
        assert face.index_boxes, card
        for x0, y0, x1, y1 in face.index_boxes:
            assert 0 <= x0 < x1 <= FACE_W and 0 <= y0 < y1 <= FACE_H, (card, x0, y0, x1, y1)


@pytest.mark.parametrize("look", RANDOMISED_STANDARD, ids=lambda look: look.name)
def test_randomised_looks_keep_indices_in_the_corner(look: CodeStandardLook) -> None:
    st = look.style
    for card in WIDE_CARDS:
        face = face_of(look, card)
        assert len(face.index_boxes) == (4 if st.four_corners else 2)
        for x0, y0, x1, y1 in face.index_boxes:
            assert 0 <= x0 < x1 <= FACE_W and 0 <= y0 < y1 <= FACE_H, (card, x0, y0, x1, y1)
            share = _ink_share(face.rgba, (x0, y0, x1, y1))
            assert 0.08 < share < 0.9, f"{card}: index box holds {share:.0%} ink"
        x0, y0, x1, y1 = face.index_boxes[0]
        # Clear of the court frame (x 58) and, unless jumbo, of the left pip column.
        assert x1 <= 58, (card, x1)
        if not st.jumbo_pips:
            assert x1 <= st.pip_area[0] - st.pip_size * st.pip_slim / 2, (card, x1)


@pytest.mark.parametrize("name", [*FONT_FILES, *SYSTEM_FONT_FILES])
def test_every_font_loads_and_draws_a_rank(name: str) -> None:
    image = Image.new("L", (120, 80), 0)
    draw = ImageDraw.Draw(image)
    for x, rank in ((4, "10"), (70, "Q")):
        draw.text((x, 10), rank, font=font(name, 48), fill=255)
    ink = np.asarray(image) > 128
    assert 0.03 < ink.mean() < 0.5, f"{name}: {ink.mean():.1%} ink"
    columns = np.flatnonzero(ink.any(axis=0))
    assert columns[0] < 20 and columns[-1] > 75  # both ranks drew
