"""A taught deck as a generator look (`datasets.enrolled_look`) and the tiles and reader
crops its locator and reader are adapted on (`datasets.deck_locator.deck_tiles`), with
the real models on small generated enrolment photos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from taught_deck import CARDS, taught_deck

from shanghai.cli.main import main
from shanghai.datasets.deck_locator import LocatorPlan, deck_tiles
from shanghai.datasets.decks import face_of
from shanghai.datasets.enrolled_look import enrolled_look
from shanghai.datasets.faces import FACE_H, FACE_W
from shanghai.datasets.hand_photos import photo_of_cards
from shanghai.engine.cards import CARD_CLASSES
from shanghai.vision.deck_faces import FACE_HEIGHT
from shanghai.vision.deck_store import StoredDeck
from shanghai.vision.pipeline import CardModels, models_installed
from shanghai.vision.sources import read_image

pytestmark = pytest.mark.skipif(not models_installed(), reason="card models not installed")


@pytest.fixture(scope="module")
def models() -> CardModels:
    return CardModels()


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory, models: CardModels) -> StoredDeck:
    return taught_deck(tmp_path_factory.mktemp("teach"), models)


def test_the_taught_faces_become_a_look_with_both_corners(
    deck: StoredDeck, models: CardModels
) -> None:
    look = enrolled_look(deck, models)
    assert sorted(map(str, look.cards())) == sorted(CARDS)
    assert look.family is deck.family and not look.held_out
    for card in look.cards():
        face = look.render_face(card)
        assert face.rgba.shape == (FACE_H, FACE_W, 4)
        assert face.rgba[0, 0, 3] == 0 and face.rgba[FACE_H // 2, FACE_W // 2, 3] == 255
        top, bottom = face.index_boxes
        # the top-left corner, and the same turned half a turn at the bottom-right
        assert top[0] < FACE_W / 2 and top[1] < FACE_H / 2
        assert bottom == pytest.approx(
            (FACE_W - top[2], FACE_H - top[3], FACE_W - top[0], FACE_H - top[1])
        )
        assert 8 < top[3] - top[1] < FACE_H / 2
    # stored as tall as the generator draws a face: no detail lost to a shrink and
    # blow-up between the photo and the deck's scenes
    assert FACE_HEIGHT == FACE_H
    for card in look.cards():
        assert read_image(deck.face_path(card)).shape[0] == FACE_H


def test_photos_of_the_taught_deck_label_its_indices(deck: StoredDeck, models: CardModels) -> None:
    look = enrolled_look(deck, models)
    cards = list(look.cards())[:4]
    rendered, distance = photo_of_cards(np.random.default_rng(2), "train", look, cards)
    labels = rendered.labels()
    assert sorted(str(label.placement.card) for label in labels) == sorted(map(str, cards))
    visible = [ix for label in labels for ix in label.indices if ix.state == "visible"]
    assert len(visible) >= 2
    assert distance


def test_the_locators_tiles_hold_both_classes(
    deck: StoredDeck, models: CardModels, tmp_path: Path
) -> None:
    seen: list[tuple[str, int, int]] = []
    data = deck_tiles(
        enrolled_look(deck, models),
        tmp_path / "tiles",
        LocatorPlan(scenes=9, other_scenes=1),
        progress=lambda stage, done, total: seen.append((stage, done, total)),
    )
    assert data.is_file() and "names:" in data.read_text()
    images = sorted((tmp_path / "tiles" / "train" / "images").glob("*.jpg"))
    assert (
        len(images) == 27 and len(list((tmp_path / "tiles" / "val" / "images").glob("*.jpg"))) == 3
    )
    lines = [
        line.split()
        for path in (tmp_path / "tiles" / "train" / "labels").glob("*.txt")
        for line in path.read_text().splitlines()
    ]
    assert {row[0] for row in lines} == {"0", "1"}
    assert all(0 <= float(v) <= 1 for row in lines for v in row[1:])
    assert seen[-1] == ("scenes", 10, 10)


def test_the_cli_refuses_a_locator_budget_out_of_range(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("image,cards\n")
    assert main(["deck", "enroll", "home", "--labels", str(labels), "--locator", "0"]) == 2
    assert "the locator's training MINUTES must be between 1 and 120" in capsys.readouterr().err
    argv = ["deck", "enroll", "home", "--labels", str(labels), "--locator", "1"]
    assert main([*argv, "--reader-minutes", "61"]) == 2
    assert "--reader-minutes must be between 0 and 60" in capsys.readouterr().err
    assert main([*argv[:-2], "--reader-minutes", "1"]) == 2
    assert "--reader-minutes goes with --locator" in capsys.readouterr().err


def test_the_readers_crops_hold_the_deck_and_every_class(
    deck: StoredDeck, models: CardModels, tmp_path: Path
) -> None:
    """The same photos as the tiles give the reader's crops; photos of the training looks
    add every class the fine-tune must keep, in both splits (ultralytics refuses an
    empty class folder)."""
    crops = tmp_path / "crops"
    plan = LocatorPlan(scenes=9, other_scenes=1, class_photos=4)
    seen: list[tuple[str, int, int]] = []
    deck_tiles(
        enrolled_look(deck, models),
        tmp_path / "tiles",
        plan,
        progress=lambda stage, done, total: seen.append((stage, done, total)),
        crops=crops,
    )
    # the class photos count in the same bar, after the scenes, and it ends full
    assert [s[1] for s in seen] == sorted(s[1] for s in seen)
    assert {s[2] for s in seen} == {14} and seen[-1] == ("scenes", 14, 14)
    assert seen[9] == ("scenes", 10, 14) and len(seen) > 11
    for split in ("train", "val"):
        folders = {p.name: p for p in (crops / split).iterdir()}
        assert set(folders) == set(CARD_CLASSES)
        assert all(any(f.glob("*.png")) for f in folders.values()), split
    taught = {card: len(list((crops / "train" / card).glob("s*.png"))) for card in CARDS}
    assert sum(taught.values()) >= 9 and sum(v > 0 for v in taught.values()) >= 4
    class_crops = list((crops / "train").glob("*/c*.png"))
    assert len({p.parent.name for p in class_crops}) > 60  # hands of the rarest classes


def test_two_decks_of_one_name_are_two_looks(
    deck: StoredDeck, models: CardModels, tmp_path: Path
) -> None:
    """`decks.face_of` caches faces per process by look name: a deck of the same name with
    other faces (enrolled again, or in another folder) is drawn with its own faces."""
    other = taught_deck(tmp_path, models, name=deck.name)
    card = other.cards[0]
    path = other.face_path(card)
    cv2.imwrite(str(path), 255 - read_image(path))
    first, second = enrolled_look(deck, models), enrolled_look(other, models)
    assert first.name != second.name
    drawn = [face_of(look, card).rgba for look in (first, second)]
    assert not np.array_equal(drawn[0], drawn[1])
    assert np.array_equal(drawn[1], second.render_face(card).rgba)
