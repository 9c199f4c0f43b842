"""Taught decks on disk: one folder per deck, written whole or not at all."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from shanghai.engine.cards import Card, DeckFamily, cards_of_family
from shanghai.vision.deck_head import fit_head
from shanghai.vision.deck_store import (
    DECK_FILE,
    HEAD_FILE,
    DeckError,
    DeckNotFoundError,
    DeckStore,
    decks_dir,
    default_data_dir,
    write_deck_file,
)


def _builder(cards: list[str], *, fail: bool = False) -> Callable[[Path], None]:
    def build(folder: Path) -> None:
        write_deck_file(
            folder,
            name="home",
            family=DeckFamily.STANDARD,
            cards=[Card.parse(c) for c in cards],
            photos=1,
        )
        (folder / "crops").mkdir()
        if fail:
            raise KeyboardInterrupt

    return build


def test_decks_live_in_the_data_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv("SHANGHAI_DATA_DIR", raising=False)
    assert default_data_dir() == tmp_path / "shanghai"
    assert decks_dir() == tmp_path / "shanghai" / "decks"
    assert DeckStore().root == tmp_path / "shanghai" / "decks"
    from shanghai.server.settings import Settings

    assert Settings().data_dir == default_data_dir()


def test_write_list_get_remove(tmp_path: Path) -> None:
    store = DeckStore(tmp_path)
    assert store.names() == []
    deck = store.write("home", _builder(["JK", "Ah", "2c"]))
    assert store.names() == ["home"]
    assert [str(c) for c in deck.cards] == ["2c", "Ah", "JK"]  # deck order
    assert deck.family is DeckFamily.STANDARD and not deck.adapted
    assert len(deck.missing()) == 53 - 3
    assert store.get("home").to_json()["cards"] == ["2c", "Ah", "JK"]
    store.remove("home")
    assert store.names() == []
    with pytest.raises(DeckNotFoundError, match="no deck named 'home'"):
        store.get("home")
    with pytest.raises(DeckNotFoundError):
        store.remove("home")


def test_a_deck_s_head_says_whether_every_card_is_enrolled(tmp_path: Path) -> None:
    """`DeckHead.complete` (the deck's own reader then reads every crop) comes from the
    deck's folder: every card of its family enrolled, jokers included."""
    store = DeckStore(tmp_path)
    whole = [str(c) for c in cards_of_family(DeckFamily.STANDARD)]
    for name, cards in (("whole", whole), ("part", whole[:-1])):

        def build(folder: Path, cards: list[str] = cards, name: str = name) -> None:
            write_deck_file(
                folder, name=name, family=DeckFamily.STANDARD,
                cards=[Card.parse(c) for c in cards], photos=1,
            )  # fmt: skip
            features = np.random.default_rng(0).normal(0, 1, (2 * len(cards), 8))
            fit_head(features.astype(np.float32), cards * 2, steps=2).save(folder / HEAD_FILE)

        store.write(name, build)
    assert store.get("whole").head().complete and not store.get("whole").missing()
    assert not store.get("part").head().complete
    assert [str(c) for c in store.get("part").missing()] == whole[-1:]


def test_an_interrupted_build_leaves_no_deck_and_keeps_the_old_one(tmp_path: Path) -> None:
    store = DeckStore(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        store.write("home", _builder(["Ah"], fail=True))
    assert store.names() == []
    assert list(tmp_path.iterdir()) == []  # no temporary folder left either
    store.write("home", _builder(["Ah"]))
    with pytest.raises(KeyboardInterrupt):
        store.write("home", _builder(["Ks", "Qs"], fail=True))
    assert [str(c) for c in store.get("home").cards] == ["Ah"]
    assert [p.name for p in tmp_path.iterdir()] == ["home"]


def test_re_enrolling_replaces(tmp_path: Path) -> None:
    store = DeckStore(tmp_path)
    store.write("home", _builder(["Ah"]))
    store.write("home", _builder(["Ks", "Qs"]))
    assert [str(c) for c in store.get("home").cards] == ["Qs", "Ks"]
    assert [p.name for p in tmp_path.iterdir()] == ["home"]


def test_a_build_that_stores_nothing_is_refused(tmp_path: Path) -> None:
    store = DeckStore(tmp_path)
    with pytest.raises(DeckError, match="nothing was enrolled"):
        store.write("home", lambda folder: None)
    assert store.names() == []


@pytest.mark.parametrize("name", ["", "../up", "a/b", ".hidden", "x" * 41, "sp ace"])
def test_deck_names_are_plain_folder_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(DeckError, match="deck name"):
        DeckStore(tmp_path).write(name, _builder(["Ah"]))


def test_a_broken_deck_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / DECK_FILE).write_text("{not json")
    with pytest.raises(DeckError, match=r"deck home: deck\.json is unreadable"):
        DeckStore(tmp_path).get("home")


def test_a_deck_s_own_sure_level_is_stored_and_read(tmp_path: Path) -> None:
    """The sure level chosen for a deck's own models (`datasets.deck_check`) lives in
    its folder; it counts only with the locator it was chosen for, and a broken file is
    said, not taken for the shipped level."""
    deck = DeckStore(tmp_path).write("home", _builder(["Ah", "2c"]))
    assert deck.sure_read is None and deck.to_json()["sure_read"] is None
    deck.write_levels(0.75, {"photos": 2})
    assert deck.sure_read == 0.75 and not list(deck.folder.glob("*.partial"))
    assert deck.to_json()["sure_read"] is None  # no locator: the shipped level reads
    deck.locator_path.write_bytes(b"model")
    assert deck.to_json()["sure_read"] == 0.75
    deck.levels_path.write_text('{"sure_read": 7}')
    with pytest.raises(DeckError, match=r"levels\.json holds a level outside 0\.\.1"):
        _ = deck.sure_read
    deck.levels_path.write_text("{not json")
    with pytest.raises(DeckError, match=r"deck home: levels\.json is unreadable"):
        _ = deck.sure_read


def test_a_deck_s_corner_span_is_stored_read_and_checked(tmp_path: Path) -> None:
    """The span enrolment measures (`deck_enrol.deck_span`) lives in deck.json and
    reaches the deck's reading; a deck stored before it was measured has none, and a
    span that is no length is said, not taken."""
    store = DeckStore(tmp_path)
    deck = store.write("home", _builder(["Ah", "2c"]))
    assert deck.corner_span is None
    path = deck.folder / DECK_FILE
    data = json.loads(path.read_text())
    data["corner_span"] = 6.5
    path.write_text(json.dumps(data))
    assert store.get("home").corner_span == 6.5
    data["corner_span"] = -1
    path.write_text(json.dumps(data))
    with pytest.raises(DeckError, match=r"deck home: deck\.json is unreadable \(corner_span"):
        store.get("home")


def test_a_deck_s_cards_the_face_check_leaves_alone_are_stored_and_read(tmp_path: Path) -> None:
    """What enrolment kept of each card's face (`deck_enrol.face_unchecked`) lives in
    deck.json; a deck stored before it was measured reads as having none."""
    store = DeckStore(tmp_path)
    assert store.write("old", _builder(["As", "Kd"])).face_unchecked == ()
    court = (0.9, 0.02, 0.05, 0.03)

    def build(folder: Path) -> None:
        write_deck_file(
            folder,
            name="home",
            family=DeckFamily.STANDARD,
            cards=[Card.parse("As"), Card.parse("Kd")],
            photos=1,
            face_unchecked=["As"],
            face_kinds={"As": (court,), "Kd": (court, court)},
        )

    deck = store.write("home", build)
    assert deck.face_unchecked == ("As",)
    assert deck.face_kinds == {"As": (court,), "Kd": (court, court)}
    path = deck.folder / DECK_FILE
    data = json.loads(path.read_text())
    del data["face_unchecked"], data["face_kinds"]
    path.write_text(json.dumps(data))
    assert store.get("home").face_unchecked == () and store.get("home").face_kinds == {}
