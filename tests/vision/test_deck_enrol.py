"""Teaching a deck with the real models on small generated photos: enrol, list, scan
with the deck, remove; and each kind of bad input with its own message, storing nothing."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from shanghai.cli.main import main
from shanghai.datasets.deck_photos import cards_apart, enrolment_photos
from shanghai.datasets.decks import code_looks, teach_val_looks
from shanghai.engine.cards import Card, DeckFamily
from shanghai.vision.card_fit import corner_span
from shanghai.vision.deck_enrol import (
    MIN_SPANS,
    SHARP_INDEX,
    EnrolledCard,
    LabelledPhoto,
    check_apart,
    check_sharp,
    deck_span,
    enrol,
    enrol_photo,
    find_cards,
    joined_halves,
    match_pieces,
    read_labels,
)
from shanghai.vision.deck_store import DeckError, DeckStore
from shanghai.vision.image_checks import edge_sharpness
from shanghai.vision.pipeline import CardModels, models_installed

pytestmark = pytest.mark.skipif(not models_installed(), reason="card models not installed")

CARDS = ["7h", "8s", "Kd", "JK", "Ac", "10h"]


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two photos of three cards each lying apart, and their labels CSV."""
    look = next(look for look in code_looks() if look.name == "code-classic")
    folder = tmp_path_factory.mktemp("enrol")
    return enrolment_photos(
        look,
        folder,
        np.random.default_rng(4),
        cards=[Card.parse(c) for c in CARDS],
        per_photo=3,
        size=(1024, 768),
    )


@pytest.fixture(scope="module")
def models() -> CardModels:
    return CardModels()


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "shanghai" / "decks"


def _labels(photos: Path, rows: list[tuple[str, str]]) -> Path:
    path = photos.parent / "custom.csv"
    path.write_text("image,cards\n" + "".join(f'{i},"{c}"\n' for i, c in rows))
    return path


def test_enrol_list_scan_with_the_deck_and_remove(
    photos: Path, data_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["deck", "enroll", "home", "--labels", str(photos), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "deck home: 6 standard cards enrolled from 2 photos" in out
    assert "not enrolled (read as shipped)" in out
    deck = DeckStore(data_home).get("home")
    assert sorted(map(str, deck.cards)) == sorted(CARDS)
    assert deck.adapted and all(deck.crop_paths(c) for c in deck.cards)
    assert all(deck.face_path(c).is_file() for c in deck.cards)

    assert main(["deck", "list"]) == 0
    assert capsys.readouterr().out.startswith("home  standard, 6 cards")
    assert main(["deck", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["name"] == "home" and listed[0]["adapted"] is True
    assert set(listed[0]["read_as"]) <= set(CARDS) and len(listed[0]["missing"]) == 53 - 6

    photo = str(photos.parent / "enrol00.jpg")
    assert main(["scan", photo, "--deck", "home", "--photo", "hand", "--json"]) == 0
    scanned = json.loads(capsys.readouterr().out)
    read = {c["card"] for c in scanned["cards"]}
    assert read & set(CARDS[:3])  # an enrolled card, read with the deck
    assert not read - set(CARDS[:3])  # and nothing that is not there
    assert main(["score", photo, "--variant", "shanghai", "--deck", "home", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["points"] > 0

    assert main(["deck", "remove", "home"]) == 0
    assert DeckStore(data_home).names() == []
    assert main(["scan", photo, "--deck", "home"]) == 2
    assert "no deck named 'home'" in capsys.readouterr().err


def test_re_enrolling_replaces_the_deck(photos: Path, models: CardModels, tmp_path: Path) -> None:
    store = DeckStore(tmp_path / "decks")
    rows = read_labels(photos)
    enrol(store, "home", DeckFamily.STANDARD, rows, models)
    deck = enrol(store, "home", DeckFamily.STANDARD, rows[:1], models)
    assert sorted(map(str, deck.cards)) == sorted(CARDS[:3])
    assert store.names() == ["home"]


def test_enrolment_measures_how_far_apart_the_decks_corners_lie(
    photos: Path, models: CardModels, tmp_path: Path
) -> None:
    """The deck's corner span (its opposite corners apart in index sizes, the scan's
    size for a card whose outlines mislead) is measured on the enrolment photos, as the
    scan measures it: near what the look's own faces print, stored, and handed to the
    deck's reading."""
    deck = enrol(
        DeckStore(tmp_path / "decks"), "home", DeckFamily.STANDARD, read_labels(photos), models
    )
    look = next(look for look in code_looks() if look.name == "code-classic")
    printed = []
    for card in CARDS:
        a, b = look.render_face(Card.parse(card)).index_boxes[:2]
        printed.append(corner_span(a, b))
    assert deck.corner_span is not None
    assert abs(deck.corner_span / float(np.median(printed)) - 1) < 0.15
    # What the face check makes of each card's face is kept with it, four kinds an index.
    assert models.face_check is not None
    assert sorted(deck.face_kinds) == sorted(CARDS)
    assert all(rows and all(len(row) == 4 for row in rows) for rows in deck.face_kinds.values())
    assert DeckStore(tmp_path / "decks").get("home").head().corner_span == deck.corner_span
    # Too few cards showing both corners measure nothing.
    few = [EnrolledCard(Card.parse("7h"), [], None, "7h", 6.0)] * (MIN_SPANS - 1)
    assert deck_span(few) is None
    assert deck_span([*few, EnrolledCard(Card.parse("8s"), [], None, "8s", 9.0)]) == 6.0


def _enrol_error(photos: Path, models: CardModels, tmp_path: Path, rows: list[tuple[str, str]],
                 family: DeckFamily = DeckFamily.STANDARD) -> str:  # fmt: skip
    store = DeckStore(tmp_path / "decks")
    with pytest.raises(DeckError) as caught:
        enrol(store, "home", family, read_labels(_labels(photos, rows)), models)
    assert store.names() == []  # nothing stored
    return str(caught.value)


def test_a_label_with_no_card(photos: Path, models: CardModels, tmp_path: Path) -> None:
    message = _enrol_error(photos, models, tmp_path, [("enrol00.jpg", "7h 8s Kd 2c")])
    assert "enrol00.jpg: no card found for the label 2c" in message


def test_a_card_with_no_label(photos: Path, models: CardModels, tmp_path: Path) -> None:
    message = _enrol_error(photos, models, tmp_path, [("enrol00.jpg", "7h 8s")])
    assert "enrol00.jpg: a card found at (" in message and "has no label" in message
    assert "reads as Kd" in message


def test_the_same_card_twice(photos: Path, models: CardModels, tmp_path: Path) -> None:
    rows = [("enrol00.jpg", "7h 8s Kd"), ("enrol01.jpg", "JK Ac 7h")]
    message = _enrol_error(photos, models, tmp_path, rows)
    assert message == "enrol01.jpg: 7h is labelled already in enrol00.jpg"
    message = _enrol_error(photos, models, tmp_path, [("enrol00.jpg", "7h 7h Kd")])
    assert message == "enrol00.jpg: 7h is labelled twice in this photo"


def test_a_card_of_another_family(photos: Path, models: CardModels, tmp_path: Path) -> None:
    message = _enrol_error(photos, models, tmp_path, [("enrol00.jpg", "7h 8s 5R")])
    assert message == "enrol00.jpg: 5R is not a card of a standard deck"
    message = _enrol_error(photos, models, tmp_path, [("enrol00.jpg", "7h 8s Kd")], DeckFamily.ROOK)
    assert "7h is not a card of a rook deck" in message


def test_a_photo_with_no_card(photos: Path, models: CardModels, tmp_path: Path) -> None:
    table = np.random.default_rng(0).integers(90, 140, (480, 640, 3), dtype=np.uint8)
    cv2.imwrite(str(photos.parent / "empty.png"), cv2.GaussianBlur(table, (0, 0), 3))
    message = _enrol_error(photos, models, tmp_path, [("empty.png", "7h")])
    assert message.startswith("empty.png: no card found")


def test_unreadable_labels_and_photos(photos: Path, models: CardModels, tmp_path: Path) -> None:
    with pytest.raises(DeckError, match=r"custom.csv row 2 \(enrol00.jpg\): .*Zz"):
        read_labels(_labels(photos, [("enrol00.jpg", "7h Zz")]))
    with pytest.raises(DeckError, match="no cards listed"):
        read_labels(_labels(photos, [("enrol00.jpg", " ")]))
    with pytest.raises(DeckError, match="cannot read the labels"):
        read_labels(tmp_path / "nothing.csv")
    message = _enrol_error(photos, models, tmp_path, [("missing.jpg", "7h")])
    assert "missing.jpg" in message


def test_an_interrupted_enrolment_stores_nothing(
    photos: Path, models: CardModels, tmp_path: Path
) -> None:
    store = DeckStore(tmp_path / "decks")
    enrol(store, "home", DeckFamily.STANDARD, read_labels(photos)[:1], models)

    def interrupt(stage: str, done: int, total: int) -> None:
        if stage == "fit" and done == 3:
            raise KeyboardInterrupt

    rows = read_labels(photos)
    with pytest.raises(KeyboardInterrupt):
        enrol(store, "home", DeckFamily.STANDARD, rows, models, progress=interrupt)
    with pytest.raises(KeyboardInterrupt):
        enrol(store, "other", DeckFamily.STANDARD, rows, models, progress=interrupt)
    assert store.names() == ["home"]  # the old deck as it was, no new one
    assert sorted(map(str, store.get("home").cards)) == sorted(CARDS[:3])
    assert [p.name for p in store.root.iterdir()] == ["home"]


def test_the_cli_reports_bad_input_in_one_line(
    photos: Path, data_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = _labels(photos, [("enrol00.jpg", "7h 8s Kd 2c")])
    assert main(["deck", "enroll", "home", "--labels", str(labels), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("shanghai: error: enrol00.jpg: no card found for the label 2c")
    assert "\n" not in err
    assert main(["deck", "enroll", "../x", "--labels", str(labels), "--quiet"]) == 2
    assert "deck name" in capsys.readouterr().err
    assert main(["deck", "remove", "home"]) == 2
    assert not data_home.exists() or DeckStore(data_home).names() == []


def _shaken(image: np.ndarray, length: int, angle: float) -> np.ndarray:  # type: ignore[type-arg]
    """`image` as a camera moving `length` px along `angle` (degrees) smears it."""
    kernel = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    d = np.array([np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))])
    for t in np.linspace(-c, c, 4 * length):
        x, y = (c + t * d).round().astype(int)
        kernel[y, x] = 1
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def test_edge_sharpness_tells_a_crisp_index_from_a_shaken_or_soft_one() -> None:
    crop = np.full((128, 128, 3), 235, np.uint8)
    cv2.putText(crop, "7", (40, 70), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (30, 30, 160), 4)
    cv2.circle(crop, (58, 98), 12, (30, 30, 160), -1)
    crisp = edge_sharpness(crop)
    assert crisp >= SHARP_INDEX
    # A shake along either axis or a diagonal, or a soft focus, each falls under it.
    for angle in (0.0, 90.0, 45.0):
        assert edge_sharpness(_shaken(crop, 9, angle)) < SHARP_INDEX
    assert edge_sharpness(cv2.GaussianBlur(crop, (0, 0), 2.5)) < SHARP_INDEX


def test_edge_sharpness_judges_a_thin_small_index_by_its_own_ink() -> None:
    """A joker's thin star and J on a card lighter than nothing but the table: the ink
    is under 1% of the crop, so a contrast taken over the whole crop was the card
    against the table, and the smeared index measured as crisp (0.27-0.32, over
    `SHARP_INDEX`; the benchmark stored such a joker smeared)."""
    crop = np.full((128, 128, 3), 248, np.uint8)
    cv2.rectangle(crop, (40, 36), (127, 127), (222, 222, 222), -1)
    cv2.putText(crop, "J", (56, 80), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (40, 40, 40), 1)
    cv2.drawMarker(crop, (62, 54), (40, 40, 40), cv2.MARKER_STAR, 12, 1)
    assert (cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) < 150).mean() < 0.01
    assert edge_sharpness(crop) >= SHARP_INDEX
    # Along an axis, a diagonal, and between the two.
    for angle in (0.0, 30.0, 45.0, 60.0, 90.0, 120.0):
        assert edge_sharpness(_shaken(crop, 9, angle)) < SHARP_INDEX


def test_a_blurred_photo_of_cards_not_named_yet_counts_them() -> None:
    """The page asks before the names are known: the message counts the blurred cards
    ("its card" for a photo of one)."""
    crop = np.full((128, 128, 3), 235, np.uint8)
    cv2.putText(crop, "7", (40, 70), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (30, 30, 160), 4)
    smeared = _shaken(crop, 15, 30.0)
    with pytest.raises(DeckError, match=r"^one\.jpg: its card is blurred: hold the camera"):
        check_sharp("one.jpg", [[smeared]])
    with pytest.raises(DeckError, match=r"^three\.jpg: 2 of its 3 cards are blurred"):
        check_sharp("three.jpg", [[smeared], [crop], [smeared, smeared]])
    with pytest.raises(DeckError, match=r"^two\.jpg: 1 of its 2 cards is blurred"):
        check_sharp("two.jpg", [[crop], [smeared]])
    check_sharp("sharp.jpg", [[crop], [crop]])


def test_a_blurred_photo_is_refused_naming_it(
    photos: Path, models: CardModels, tmp_path: Path
) -> None:
    image = cv2.imread(str(photos.parent / "enrol00.jpg"))
    cv2.imwrite(str(photos.parent / "shaken.jpg"), _shaken(image, 15, 30.0))
    message = _enrol_error(photos, models, tmp_path, [("shaken.jpg", "7h 8s Kd")])
    # The labels name the blurred cards (the reader's guesses at them would not).
    assert message.startswith("shaken.jpg: 7h, 8s, Kd are blurred")
    assert "take the photo again" in message


def _pieces(
    probs: list[list[float]], boxed: list[bool], holders: list[set[int]] | None = None
) -> dict[int, list[int]]:
    return match_pieces(
        np.array(probs, np.float32), np.array(boxed), holders or [set() for _ in probs]
    )


def test_a_box_on_the_cloth_read_weakly_as_a_card_does_not_take_that_card() -> None:
    # Found: the 7B card (read 7B 0.95), a lone box on the cloth (7B 0.03). One
    # assignment over card and second-piece slots gave the cloth 7B's card slot.
    assert _pieces([[0.95, 0.0], [0.0, 0.9], [0.03, 0.0]], [True, True, False]) == {
        0: [0],
        1: [1],
    }


def test_a_card_cut_in_two_joins_its_poorly_read_half_and_a_strong_lone_corner() -> None:
    probs = [[0.55, 0.0], [0.13, 0.0], [0.0, 0.97], [0.0, 0.9]]
    # a half read 0.13 is a piece (a card box of its own); a lone corner needs 0.5
    assert _pieces(probs, [True, True, True, False]) == {0: [0, 1], 1: [2, 3]}
    assert _pieces([[0.9, 0.0], [0.0, 0.9], [0.13, 0.0]], [True, True, False]) == {
        0: [0],
        1: [1],
    }


def test_a_box_inside_a_matched_cards_box_is_no_piece_of_another_card() -> None:
    # The third box holds its index inside card 1's box: it is card 1's corner even
    # though the reader gives card 0 a little; it joins neither.
    probs = [[0.9, 0.0], [0.0, 0.4], [0.2, 0.0]]
    assert _pieces(probs, [True, True, True], [set(), set(), {1}]) == {0: [0], 1: [1]}
    assert _pieces(probs, [True, True, True]) == {0: [0, 2], 1: [1]}


def test_two_halves_read_alike_and_near_are_one_card_on_the_page() -> None:
    """A Rook card with a dark band is boxed as two white halves, each with one corner:
    the page (`find_cards`) shows it as one card, not as the same card twice."""
    boxes = np.array(
        [
            [100, 100, 250, 160],  # the top half of a card (one index)
            [100, 230, 250, 290],  # its bottom half, the band between
            [400, 100, 550, 290],  # another card, whole (two indices)
            [700, 100, 850, 160],  # a half of a third card, read as another name
            [700, 230, 850, 290],
            [1200, 100, 1350, 160],  # a lone half far off, read as the first card
        ],
        np.float32,
    )
    groups = [[0], [1], [2, 3], [4], [5], [6]]
    boxed = np.ones(len(groups), bool)
    best = [7, 7, 3, 9, 8, 7]
    assert joined_halves(groups, boxes, boxed, best) == [[0, 1], [2], [3], [4], [5]]
    # a lone index (no card box of its own) is never a half
    boxed[1] = False
    assert joined_halves(groups, boxes, boxed, best) == [[0], [1], [2], [3], [4], [5]]


def test_a_band_decks_photo_shows_each_card_once_and_whole(
    models: CardModels, tmp_path: Path
) -> None:
    """Real models on a generated photo of four cards of a Rook look with a dark band
    (`rook-teach-band`), which the shipped locator boxes as eight halves: the page finds
    four cards, and enrolment from labels stores four, each face whole (portrait)."""
    look = next(look for look in teach_val_looks() if look.name == "rook-teach-band")
    cards = list(look.cards())[:4]
    labels = enrolment_photos(
        look, tmp_path, np.random.default_rng(0), cards=cards, per_photo=4, size=(1024, 768)
    )
    photo = cv2.imread(str(labels.parent / "enrol00.jpg"))
    found = find_cards(models, photo, DeckFamily.ROOK)
    assert len(found) == len(cards)
    enrolled = enrol_photo(models, photo, read_labels(labels)[0], DeckFamily.ROOK)
    assert sorted(str(c.card) for c in enrolled) == sorted(map(str, cards))
    for face in [c.face for c in found] + [c.face for c in enrolled if c.face is not None]:
        height, width = face.shape[:2]
        assert 0.5 < width / height < 0.85


def test_two_cards_lying_on_each_other_are_named_and_the_photo_refused(
    models: CardModels, tmp_path: Path
) -> None:
    """Real models on a generated photo of a Jd laid half over a Kc: the locator's two
    card boxes are joined as one card (cards of an enrolment photo lie apart), whose
    corners read both cards. The page (`find_cards`) and the labels (`enrol_photo`)
    both refuse the photo naming the two cards, rather than show one card (the Kc
    lost) or store the Kc's corner as the Jd's."""
    look = next(look for look in code_looks() if look.name == "code-classic")
    pair = [Card.parse("Jd"), Card.parse("Kc")]
    photo = cards_apart(look, pair, np.random.default_rng(0), step=0.6, size=(1024, 768))
    path = tmp_path / "fan.jpg"
    path.write_bytes(photo.jpeg)
    with pytest.raises(DeckError, match=r"lie on or against each other \(their corners read Jd"):
        find_cards(models, photo.image, DeckFamily.STANDARD, name="fan.jpg")
    labelled = LabelledPhoto(path, tuple(pair), 2)
    with pytest.raises(DeckError, match=r"fan\.jpg: cards lie on .* Jd and Kc\): lay them"):
        enrol_photo(models, photo.image, labelled, DeckFamily.STANDARD)
    apart = cards_apart(look, pair, np.random.default_rng(0), size=(1024, 768))
    found = find_cards(models, apart.image, DeckFamily.STANDARD)
    assert sorted(str(c.proposal) for c in found) == ["Jd", "Kc"]


def test_only_a_joined_box_read_surely_as_two_cards_is_refused() -> None:
    """`check_apart`: two sure reads of different cards in card boxes joined as one
    are two cards; a second read under `APART_SURE`, or two reads in one card's own
    box (its two corners, one misread: the labels' matching decides), are not."""
    names = ["Jd", "Kc", "3s"]
    probabilities = np.array(
        [[0.99, 0.01, 0.0], [0.02, 0.97, 0.01], [0.4, 0.5, 0.1], [0.95, 0.0, 0.05]],
        np.float32,
    )
    with pytest.raises(DeckError, match=r"p\.jpg: cards lie on .* read Jd and Kc\)"):
        check_apart("p.jpg", [[0, 1], [3]], np.array([2, 1]), probabilities, names)
    check_apart("p.jpg", [[0, 2], [3]], np.array([2, 1]), probabilities, names)
    check_apart("p.jpg", [[0, 1], [3]], np.array([1, 1]), probabilities, names)
