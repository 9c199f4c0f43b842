"""The face check (`vision.face_kind`): the kind of face around a read index (court,
pips, joker, Rook), a crop that hides the index itself, the `[face]` settings, and a
scan that marks a read whose kind the card around it contradicts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from mini_table import MiniTable, TableReader
from model_stand_ins import shipped_locator_and_reader, stand_in_files

from shanghai.engine.cards import Card
from shanghai.engine.variant_files import find_variant
from shanghai.vision import model_files
from shanghai.vision.arrays import Frame
from shanghai.vision.face_kind import (
    FACE_KINDS,
    FACE_MASK,
    FACE_SIZE,
    FaceCheck,
    face_crop,
    face_kind,
)
from shanghai.vision.model_files import (
    ModelFiles,
    ModelMissingError,
    ModelSettingsError,
    write_settings,
)
from shanghai.vision.pipeline import FrameReads, models_installed
from shanghai.vision.readings import IndexReadings
from shanghai.vision.scan import PhotoKind, PhotoScanner

RULES = find_variant("shanghai").rules(4)
FRAME = np.random.default_rng(5).integers(0, 255, (900, 1200, 3), dtype=np.uint8)
needs_models = pytest.mark.skipif(not models_installed(), reason="card models not installed")


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Js", "court"),
        ("Qh", "court"),
        ("Kd", "court"),
        ("3c", "pips"),
        ("Ah", "pips"),
        ("10s", "pips"),
        ("JK", "joker"),
        ("5R", "rook"),
        ("14B", "rook"),
        ("ROOK", "rook"),
    ],
)
def test_each_card_shows_one_kind_of_face(name: str, kind: str) -> None:
    assert face_kind(Card.parse(name)) == kind


def test_the_face_crop_hides_the_index_and_keeps_the_card_around_it() -> None:
    image = np.full((400, 400, 3), 240, np.uint8)
    image[180:220, 190:210] = (0, 0, 200)  # the index
    image[:, :150] = (30, 90, 30)  # the table beside the card
    crop = face_crop(image, (190.0, 180.0, 210.0, 220.0))
    assert crop.shape == (FACE_SIZE, FACE_SIZE, 3)
    a = round(FACE_SIZE * (1 - FACE_MASK) / 2)
    centre = crop[a : FACE_SIZE - a, a : FACE_SIZE - a]
    assert (centre == 127).all()
    # No red of the index shows around the grey square; the card and the table do.
    outside = crop.copy()
    outside[a : FACE_SIZE - a, a : FACE_SIZE - a] = 240
    assert not ((outside[..., 2] > 150) & (outside[..., 0] < 80)).any()
    assert (crop[:, 0, 1] == 90).all() and (crop[:, -1] == 240).all()


def test_the_settings_name_the_face_model_and_its_level(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    stand_in_files(folder, model_files.DETECTOR_FILE, model_files.READER_FILE, "faces.onnx")
    write_settings(folder, min_read=0.4, sure_read=0.7, face="faces.onnx", face_least=0.05)
    files = ModelFiles.load(folder)
    assert files.face == folder / "faces.onnx" and files.face_least == 0.05
    assert files.face_joker_least is None
    write_settings(
        folder,
        min_read=0.4,
        sure_read=0.7,
        face="faces.onnx",
        face_least=0.05,
        face_joker_least=0.005,
    )
    assert ModelFiles.load(folder).face_joker_least == 0.005
    write_settings(folder, min_read=0.4, sure_read=0.7)
    assert ModelFiles.load(folder).face is None


@pytest.mark.parametrize(
    ("table", "error", "match"),
    [
        ('[face]\nfile = "other.onnx"\nleast = 0.05', ModelMissingError, "other.onnx"),
        ('[face]\nfile = "faces.onnx"\nleast = 1.5', ModelSettingsError, "least"),
        ('[face]\nfile = "faces.onnx"', ModelSettingsError, "least"),
        (
            '[face]\nfile = "faces.onnx"\nleast = 0.1\njoker_least = "low"',
            ModelSettingsError,
            "joker_least",
        ),
        ('[face]\nfile = "../faces.onnx"\nleast = 0.1', ModelSettingsError, "file name"),
    ],
)
def test_a_bad_face_table_is_refused_on_load(
    tmp_path: Path, table: str, error: type[Exception], match: str
) -> None:
    folder = tmp_path / "models"
    stand_in_files(folder, model_files.DETECTOR_FILE, model_files.READER_FILE, "faces.onnx")
    path = write_settings(folder, min_read=0.4, sure_read=0.7)
    path.write_text(path.read_text() + "\n" + table + "\n")
    with pytest.raises(error, match=match):
        ModelFiles.load(folder)


@needs_models
def test_a_face_model_of_other_classes_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    shipped_locator_and_reader(folder)
    # The reader named as the face model: its classes are card names, not face kinds.
    write_settings(
        folder, min_read=0.4, sure_read=0.7, face=model_files.READER_FILE, face_least=0.05
    )
    with pytest.raises(ModelSettingsError, match="expected \\['court'"):
        FaceCheck.load(ModelFiles.load(folder))


class OneKind:
    """Stands in for the face model: every crop shows `kind` at `p`, the rest shared."""

    names = FACE_KINDS

    def __init__(self, kind: str, p: float = 0.97) -> None:
        self.row = np.full(len(FACE_KINDS), (1 - p) / (len(FACE_KINDS) - 1), np.float32)
        self.row[FACE_KINDS.index(kind)] = p
        self.seen = 0

    def __call__(self, crops: list[Frame]) -> np.ndarray:  # type: ignore[type-arg]
        self.seen += len(crops)
        return np.tile(self.row, (len(crops), 1))


def _scan(table: MiniTable, faces: FaceCheck | None) -> dict[str, bool]:
    scanner = PhotoScanner(TableReader(table), faces=faces)
    snapshot = scanner.scan(FRAME, rules=RULES, kind=PhotoKind.HAND)
    return {str(c.card): c.sure for c in snapshot.cards}


def test_a_read_whose_face_is_of_another_kind_is_marked() -> None:
    table = MiniTable()
    for k, name in enumerate(["3s", "Kd", "9c"]):
        table.card(name, 200 + 300 * k, 450)
    courts = OneKind("court")
    assert _scan(table, None) == {"3s": True, "Kd": True, "9c": True}
    assert _scan(table, FaceCheck(courts, 0.05)) == {"3s": False, "Kd": True, "9c": False}
    assert courts.seen == 6  # each card's two corners
    assert _scan(table, FaceCheck(OneKind("pips"), 0.05)) == {"3s": True, "Kd": False, "9c": True}
    # A level under the contradiction's probability lets every read through.
    assert _scan(table, FaceCheck(courts, 0.005)) == {"3s": True, "Kd": True, "9c": True}


def test_the_unsure_warning_names_the_read_the_face_contradicts() -> None:
    table = MiniTable()
    table.card("3s", 300, 450)
    table.card("Kd", 700, 450)
    scanner = PhotoScanner(TableReader(table), faces=FaceCheck(OneKind("court"), 0.05))
    snapshot = scanner.scan(FRAME, rules=RULES, kind=PhotoKind.HAND)
    unsure = [w for w in snapshot.warnings if w.code == "unsure"]
    assert len(unsure) == 1 and "Kd" not in unsure[0].message
    assert unsure[0].message == "1 read is unsure (3s): check it; 3s looks like a court card"
    three = next(c for c in snapshot.cards if str(c.card) == "3s")
    assert three.face is not None and three.face < 0.05


def test_a_joker_read_is_checked_only_with_a_joker_level() -> None:
    """A joker read where the face shows pips (a blurred fan's 7d read as the joker: 50
    points in silence) is unsure with `joker_least`, and says so; without it, or where
    the face shows a joker, the read stands."""
    table = MiniTable()
    table.card("JK", 300, 450)
    table.card("5h", 700, 450)
    pips = OneKind("pips")
    assert _scan(table, FaceCheck(pips, 0.05)) == {"JK": True, "5h": True}
    assert _scan(table, FaceCheck(pips, 0.05, 0.02)) == {"JK": False, "5h": True}
    assert _scan(table, FaceCheck(OneKind("joker"), 0.05, 0.02)) == {"JK": True, "5h": True}
    scanner = PhotoScanner(TableReader(table), faces=FaceCheck(pips, 0.05, 0.02))
    snapshot = scanner.scan(FRAME, rules=RULES, kind=PhotoKind.HAND)
    (unsure,) = [w for w in snapshot.warnings if w.code == "unsure"]
    assert unsure.message == (
        "1 read is unsure (JK): check it; JK looks like a standard card, not a joker"
    )


def test_one_corner_that_shows_the_right_kind_is_enough() -> None:
    check = FaceCheck(OneKind("court"), 0.05)
    frame = np.zeros((200, 200, 3), np.uint8)
    one = (10.0, 10.0, 30.0, 40.0)
    found = check.agreement(frame, [(Card.parse("Kd"), (one, one)), (Card.parse("3s"), ())])
    # Court against pips alone: 0.97 / (0.97 + 0.01).
    assert found[0] == pytest.approx(0.97 / 0.98) and found[1] is None
    assert not check.contradicts(found[1]) and not check.contradicts(found[0])


def test_rook_cards_are_never_checked_and_jokers_only_with_a_joker_level() -> None:
    check = FaceCheck(OneKind("court", 0.999), 0.05)
    frame = np.zeros((200, 200, 3), np.uint8)
    one = (10.0, 10.0, 30.0, 40.0)
    cards = [(Card.parse(name), (one,)) for name in ("JK", "5R", "ROOK", "7h")]
    assert check.agreement(frame, cards)[:3] == [None, None, None]
    assert check.contradicts(check.agreement(frame, cards)[3])
    with_jokers = FaceCheck(OneKind("court", 0.999), 0.05, 0.02).agreement(frame, cards)
    assert with_jokers[0] is not None and with_jokers[1:3] == [None, None]


def _shipped_face_check() -> FaceCheck | None:
    return FaceCheck.load(ModelFiles.load()) if models_installed() else None


needs_face = pytest.mark.skipif(
    _shipped_face_check() is None, reason="the shipped models have no face check"
)


@needs_face
@pytest.mark.parametrize(("name", "swapped"), [("Kh", "3h"), ("Jd", "3d"), ("3c", "Jc")])
def test_the_shipped_face_check_tells_a_court_from_pips_on_generated_photos(
    name: str, swapped: str
) -> None:
    """One card photographed alone in a training look (generated), eight photos showing an
    index: its true name is never contradicted at the shipped level and always agrees
    better than the name of the other kind, which scores under 0.1 on at least six of
    them and is contradicted at least once. The shipped level (0.02) is a coarse filter
    chosen on validation to flag few right reads, so a swapped name scoring just above it
    on some photos is what it does; a model that could not tell the kinds apart fails."""
    from shanghai.datasets.decks import code_looks
    from shanghai.datasets.hand_photos import photo_of_cards
    from shanghai.datasets.labels import index_box

    check = _shipped_face_check()
    assert check is not None
    look = next(look for look in code_looks() if look.name == "code-classic")
    caught = clear = photos = 0
    for seed in range(40):
        rendered, _ = photo_of_cards(np.random.default_rng(seed), "train", look, [Card.parse(name)])
        h, w = rendered.image.shape[:2]
        (label,) = rendered.labels()
        boxes = tuple(index_box(ix.quad, w, h) for ix in label.indices if ix.state == "visible")
        if not boxes:
            continue  # both corners off the photo or covered: nothing to check
        photos += 1
        if photos > 8:
            break
        right, wrong = check.agreement(
            rendered.image, [(Card.parse(name), boxes), (Card.parse(swapped), boxes)]
        )
        assert not check.contradicts(right)
        assert right is not None and wrong is not None and right > wrong
        caught += check.contradicts(wrong)
        clear += wrong < 0.1
    assert photos > 8 and clear >= 6 and caught >= 1


def test_the_warning_says_which_kind_each_doubted_read_looks_like() -> None:
    table = MiniTable()
    for k, name in enumerate(["Kd", "Qs", "5h"]):
        table.card(name, 200 + 300 * k, 450)
    scanner = PhotoScanner(TableReader(table), faces=FaceCheck(OneKind("pips"), 0.05))
    snapshot = scanner.scan(FRAME, rules=RULES, kind=PhotoKind.HAND)
    (unsure,) = [w for w in snapshot.warnings if w.code == "unsure"]
    assert unsure.message.endswith("check them; Kd, Qs look like pip cards")


def _readings(
    names: list[str], seconds: list[str], second_p: list[float], first_p: float = 0.55
) -> IndexReadings:
    boxes = np.array([[100 + 150 * k, 100, 140 + 150 * k, 150] for k in range(len(names))])
    located = 0.8
    return IndexReadings(
        boxes.astype(np.float32),
        tuple(names),
        np.full(len(names), located * first_p, np.float32),
        np.full(len(names), first_p, np.float32),
        np.full(len(names), first_p, np.float32),
        tuple(seconds),
        np.asarray(second_p, np.float32),
    )


def test_a_read_the_face_contradicts_takes_the_reader_s_second_name_of_the_other_kind() -> None:
    """A J of an unseen font read 3h 0.55, Jh second: the face shows a court, so the
    read becomes Jh at the reader's 0.45, its locating x reading following (0.8 x
    0.45), where no level makes it sure. A second name of the same kind, one the
    reader barely gives, or a face that agrees changes nothing."""
    courts = FaceCheck(OneKind("court", p=0.995), 0.02)
    reads = _readings(["3h", "7c", "5d"], ["Jh", "8c", "Kd"], [0.45, 0.4, 0.05])
    chosen = courts.chosen(FRAME, reads)
    assert chosen.names == ("Jh", "7c", "5d")
    assert chosen.second_names == ("3h", "8c", "Kd")
    assert chosen.reader_probability[0] == pytest.approx(0.45)
    assert chosen.second_probability[0] == pytest.approx(0.55)
    assert chosen.confidence[0] == pytest.approx(0.8 * 0.45)
    assert chosen.confidence[1:].tolist() == pytest.approx(reads.confidence[1:].tolist())
    pips = FaceCheck(OneKind("pips", p=0.995), 0.02)
    assert pips.chosen(FRAME, reads).names == ("3h", "7c", "5d")
    # Reads with no second name known (a stand-in's) are left as they are.
    plain = IndexReadings(reads.xyxy, reads.names, reads.confidence)
    assert courts.chosen(FRAME, plain).names == plain.names


def test_a_taught_deck_s_scan_proposes_the_face_s_choice_marked() -> None:
    """Through the scan: with a taught deck (`FrameReader.taught`) the choice is made,
    and the card it names is proposed unsure; the shipped models' scan keeps its read."""

    class Taught(TableReader):
        taught = True

        def reads(self, found: FrameReads) -> FrameReads:
            r = found.readings
            return replace(
                found,
                readings=IndexReadings(
                    r.xyxy,
                    r.names,
                    r.confidence,
                    r.reader_probability,
                    r.score_probability,
                    tuple("Jh" if n == "3h" else "" for n in r.names),
                    np.where(np.array([n == "3h" for n in r.names]), 0.45, 0.0),
                ),
            )

    table = MiniTable()
    table.card("3h", 300, 450)
    courts = FaceCheck(OneKind("court", p=0.995), 0.02)
    snapshot = PhotoScanner(Taught(table), faces=courts).scan(
        FRAME, rules=RULES, kind=PhotoKind.HAND
    )
    assert [(str(c.card), c.sure) for c in snapshot.cards] == [("Jh", False)]

    class Shipped(Taught):
        taught = False

    snapshot = PhotoScanner(Shipped(table), faces=courts).scan(
        FRAME, rules=RULES, kind=PhotoKind.HAND
    )
    assert [(str(c.card), c.sure) for c in snapshot.cards] == [("3h", False)]


def test_an_unread_index_torn_between_two_kinds_is_named_by_its_face() -> None:
    """Under the floor a crisp J of an unseen font read 3h 0.50 / Jh 0.45: the face
    shows a court, so the index is read Jh at the reader's 0.45 (its locating x reading
    0.8 x 0.45 stays under the floor: proposed marked). The reader's doubt must lie
    between those two names only (5d 0.50 / Kd 0.30 holds 0.8), the two must be of two
    kinds (7c / 8c), the box must be located well enough for the floor, and the face
    must say plainly which kind it is."""
    floor = 0.4
    unread = _readings(["3h", "5d", "7c"], ["Jh", "Kd", "8c"], [0.45, 0.30, 0.45], first_p=0.5)
    courts = FaceCheck(OneKind("court", p=0.995), 0.02)
    named, reads = courts.settled(FRAME, unread, floor)
    assert named.tolist() == [True, False, False]
    assert reads.names == ("Jh",) and reads.second_names == ("3h",)
    assert reads.reader_probability[0] == pytest.approx(0.45)
    assert reads.confidence[0] == pytest.approx(0.8 * 0.45)
    # A face of pips keeps the reader's first name.
    named, reads = FaceCheck(OneKind("pips", p=0.995), 0.02).settled(FRAME, unread, floor)
    assert named.tolist() == [True, False, False] and reads.names == ("3h",)
    # A face that only leans (court 0.5, pips 0.17: 0.75 court) names nothing.
    named, _ = FaceCheck(OneKind("court", p=0.5), 0.02).settled(FRAME, unread, floor)
    assert not named.any()
    # Nor does a box the locator doubts (0.8 x 0.95 under a floor of 0.8).
    named, _ = courts.settled(FRAME, unread, 0.8)
    assert not named.any()


def test_a_taught_deck_s_scan_proposes_an_unread_index_the_face_names() -> None:
    """Through the scan: the card whose only corner the reader left under the floor
    (3h 0.50 / Jh 0.45) is proposed as Jh, marked, with a taught deck; the shipped
    models' scan still says it could not read it."""

    class Taught(TableReader):
        taught = True
        min_read = 0.4

        def reads(self, found: FrameReads) -> FrameReads:
            n = len(found.unread_best)
            return replace(
                found,
                unread_best=("3h",) * n,
                unread=IndexReadings(
                    found.unread_xyxy,
                    ("3h",) * n,
                    np.full(n, 0.8 * 0.5, np.float32),
                    np.full(n, 0.5, np.float32),
                    np.full(n, 0.5, np.float32),
                    ("Jh",) * n,
                    np.full(n, 0.45, np.float32),
                ),
            )

    table = MiniTable()
    table.card("Jh", 300, 450, readable=False)
    courts = FaceCheck(OneKind("court", p=0.995), 0.02)
    snapshot = PhotoScanner(Taught(table), faces=courts).scan(
        FRAME, rules=RULES, kind=PhotoKind.HAND
    )
    assert [(str(c.card), c.sure) for c in snapshot.cards] == [("Jh", False)]
    assert "unread" not in {w.code for w in snapshot.warnings}

    class Shipped(Taught):
        taught = False

    snapshot = PhotoScanner(Shipped(table), faces=courts).scan(
        FRAME, rules=RULES, kind=PhotoKind.HAND
    )
    assert snapshot.cards == ()
    assert "unread" in {w.code for w in snapshot.warnings}


def test_a_deck_s_cards_whose_own_face_the_check_takes_for_another_kind_go_unchecked() -> None:
    """A deck's card whose enrolled face the check takes for the other kind (the
    Bicycle ace of spades, the maker's name printed beside its index, leaned court on
    both corners, 0.34 at best): its enrolment says so (`takes_for_another_kind`), and
    with the card `unchecked` the check no longer marks its reads; the deck's other
    cards, and any joker, are checked as before."""
    from shanghai.vision.deck_enrol import EnrolledCard, face_unchecked

    courts = OneKind("court")
    check = FaceCheck(courts, 0.05, 0.02)
    court_face = (tuple(float(v) for v in courts.row),)
    leaning = ((0.55, 0.15, 0.29, 0.01), (0.92, 0.02, 0.05, 0.01))  # the ace's two corners
    one_clear = ((0.55, 0.15, 0.29, 0.01), (0.1, 0.02, 0.87, 0.01))
    assert check.takes_for_another_kind(Card.parse("3s"), court_face)
    assert check.takes_for_another_kind(Card.parse("As"), leaning)
    assert not check.takes_for_another_kind(Card.parse("As"), one_clear)
    assert not check.takes_for_another_kind(Card.parse("Kd"), court_face)
    assert not check.takes_for_another_kind(Card.parse("JK"), court_face)  # jokers stay
    assert not check.takes_for_another_kind(Card.parse("3s"), ())  # nothing kept of it
    enrolled = [
        EnrolledCard(Card.parse("3s"), [], None, "3s", None, court_face),
        EnrolledCard(Card.parse("Kd"), [], None, "Kd", None, court_face),
        EnrolledCard(Card.parse("9c"), [], None, "9c"),
    ]
    assert face_unchecked(enrolled, check) == ["3s"]
    assert face_unchecked(enrolled, None) == []
    table = MiniTable()
    for k, name in enumerate(["3s", "Kd", "9c"]):
        table.card(name, 200 + 300 * k, 450)
    check = FaceCheck(courts, 0.05)
    deck_check = replace(check, unchecked=frozenset({"3s"}))
    assert _scan(table, check) == {"3s": False, "Kd": True, "9c": False}
    assert _scan(table, deck_check) == {"3s": True, "Kd": True, "9c": False}
    assert not deck_check.takes_for_another_kind(Card.parse("3s"), court_face)
