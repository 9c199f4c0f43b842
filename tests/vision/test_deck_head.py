"""A taught deck's head: the reader's embedding output, the head fitted in numpy, and
how the head changes a reading (only where it is sure, only for enrolled cards)."""

from __future__ import annotations

import importlib.util
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from shanghai.vision.crops import CROP_CONTEXT, CROP_SIZE, square_crop, zoomed_in
from shanghai.vision.deck_head import (
    ENROL_CONTEXT,
    ENROL_SIZE,
    DeckHead,
    augmented_crops,
    fit_head,
    reader_fingerprint,
)
from shanghai.vision.deck_store import DeckError
from shanghai.vision.model_files import default_models_dir
from shanghai.vision.onnx_models import EMBEDDING_OUTPUT, OnnxClassifier
from shanghai.vision.pipeline import OWN_READ_ZOOMS, CardModels, models_installed

ROOT = Path(__file__).resolve().parents[2]
needs_models = pytest.mark.skipif(not models_installed(), reason="card models not installed")


def _crops(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    crops = []
    for _ in range(n):
        crop = np.full((64, 64, 3), 235, np.uint8)
        cv2.putText(crop, str(int(rng.integers(2, 10))), (14, 48), 0, 1.6, (0, 0, 200), 3)
        crops.append(crop)
    return crops


def _one_output_reader(tmp_path: Path) -> Path:
    """The shipped reader without its embedding output (as `shanghai train` exports)."""
    onnx = pytest.importorskip("onnx")
    model = onnx.load(str(default_models_dir() / "cards-reader.onnx"))
    kept = [o for o in model.graph.output if o.name != EMBEDDING_OUTPUT]
    del model.graph.output[:]
    model.graph.output.extend(kept)
    nodes = [n for n in model.graph.node if EMBEDDING_OUTPUT not in n.output]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    path = tmp_path / "one-output.onnx"
    onnx.save(model, str(path))
    return path


@needs_models
def test_the_shipped_reader_gives_its_embedding_and_the_same_probabilities(
    tmp_path: Path,
) -> None:
    shipped = OnnxClassifier(default_models_dir() / "cards-reader.onnx")
    plain = OnnxClassifier(_one_output_reader(tmp_path))
    assert shipped.has_embedding and not plain.has_embedding
    crops = _crops(12)
    probabilities, features = shipped.read(crops)
    assert features is not None and features.shape == (12, 1280)
    assert np.array_equal(probabilities, plain(crops))
    assert np.array_equal(shipped(crops), plain(crops))
    assert plain.read(crops)[1] is None
    assert np.array_equal(plain.read(crops)[0], plain(crops))


@needs_models
def test_the_embedding_tool_adds_the_output_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _one_output_reader(tmp_path)
    spec = importlib.util.spec_from_file_location(
        "reader_embedding", ROOT / "tools" / "reader_embedding.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.main([str(path)]) == 0
    assert tool.main([str(path)]) == 0
    assert "already has" in capsys.readouterr().out
    assert OnnxClassifier(path).output_names == ["output0", EMBEDDING_OUTPUT]


@needs_models
def test_a_deck_needs_the_embedding_and_its_own_reader(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    shutil.copytree(default_models_dir(), folder)
    shutil.copyfile(_one_output_reader(tmp_path), folder / "cards-reader.onnx")
    head = _head(["7h", "8h"], reader="whatever")
    with pytest.raises(DeckError, match="no embedding output"):
        CardModels(folder, deck=head)
    with pytest.raises(DeckError, match="another reader"):
        CardModels(deck=head)
    models = CardModels(deck=_head(["7h", "8h"], reader=reader_fingerprint(
        default_models_dir() / "cards-reader.onnx")))  # fmt: skip
    assert models.deck is not None


def _clusters(classes: list[str], per: int, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 1, (len(classes), 32))
    x = np.concatenate([c + rng.normal(0, 0.3, (per, 32)) for c in centres]).astype(np.float32)
    return x, [c for c in classes for _ in range(per)]


def _head(classes: list[str], *, kind: str = "logistic", reader: str = "r") -> DeckHead:
    x, y = _clusters(classes, 20)
    return fit_head(x, y, kind=kind, reader=reader)


@pytest.mark.parametrize("kind", ["prototype", "logistic"])
def test_a_head_reads_its_enrolled_cards(kind: str) -> None:
    classes = ["7h", "8h", "JK", "5R"]
    x, y = _clusters(classes, 30)
    head = fit_head(x, y, kind=kind, reader="r")
    test_x, test_y = _clusters(classes, 10)  # same seed: same centres, new draws below
    noisy = test_x + np.random.default_rng(9).normal(0, 0.1, test_x.shape).astype(np.float32)
    read = [head.classes[int(i)] for i in head.probabilities(noisy).argmax(axis=1)]
    assert read == test_y


def test_the_head_changes_only_sure_rows_and_only_toward_enrolled_cards() -> None:
    names = ["7h", "8h", "9h", "JK"]
    x, y = _clusters(["7h", "8h"], 30)
    head = fit_head(x, y, kind="logistic", reader="r").with_choice(min_confidence=0.9, mix=1.0)
    shipped = np.tile(np.array([[0.05, 0.05, 0.1, 0.8]], np.float32), (3, 1))
    features = np.stack([x[0], x[-1], np.zeros(32, np.float32)])
    features[2] = (x[0] + x[-1]) / 2  # halfway between the two: not sure of either
    out = head.apply(shipped, features, names)
    assert out[0].argmax() == 0 and out[1].argmax() == 1  # read as the enrolled cards
    assert out[0, 2:].sum() == 0  # all of it on the enrolled cards
    sure = head.probabilities(features).max(axis=1) >= 0.9
    assert sure.tolist()[:2] == [True, True]
    if not sure[2]:
        assert np.array_equal(out[2], shipped[2])  # the shipped reading stays
    half = head.with_choice(min_confidence=0.0, mix=0.5).apply(shipped, features, names)
    assert np.allclose(half.sum(axis=1), 1.0)
    assert half[0, 3] == pytest.approx(0.4)  # half of the shipped row kept


def test_a_head_survives_saving(tmp_path: Path) -> None:
    head = _head(["Ah", "ROOK"]).with_choice(min_confidence=0.6, mix=0.8)
    head.save(tmp_path / "head.npz")
    again = DeckHead.load(tmp_path / "head.npz")
    assert again.classes == head.classes and again.kind == head.kind
    assert (again.min_confidence, again.mix, again.reader) == (0.6, 0.8, "r")
    assert np.array_equal(again.weights, head.weights)


def test_bad_heads_are_refused() -> None:
    head = _head(["Ah", "2h"])
    with pytest.raises(ValueError, match="head kind"):
        fit_head(*_clusters(["Ah"], 3), kind="forest")
    with pytest.raises(ValueError, match="shares"):
        head.with_choice(min_confidence=1.5, mix=1.0)


def test_augmented_crops_start_with_the_runtime_crop() -> None:
    frame = np.full((300, 300, 3), 200, np.uint8)
    cv2.putText(frame, "7", (130, 170), 0, 2.0, (0, 0, 180), 4)
    box = (125.0, 110.0, 175.0, 180.0)
    wide = square_crop(frame, box, size=ENROL_SIZE, context=ENROL_CONTEXT)
    views = augmented_crops(wide, np.random.default_rng(0), 6)
    assert len(views) == 6 and all(v.shape == (CROP_SIZE, CROP_SIZE, 3) for v in views)
    runtime = square_crop(frame, box).astype(int)
    assert np.abs(views[0].astype(int) - runtime).mean() < 6  # the same crop, resampled
    assert all(np.abs(v.astype(int) - runtime).mean() > 0 for v in views[1:])


def test_a_zoomed_view_is_the_crop_cut_tighter() -> None:
    """`zoomed_in` stands for cutting the index again with less context: made from the
    crop's own pixels, it matches that second cut, and not the crop as cut."""
    frame = np.full((300, 300, 3), 200, np.uint8)
    cv2.putText(frame, "Q", (128, 172), 0, 2.0, (20, 20, 160), 4)
    box = (125.0, 110.0, 178.0, 180.0)
    crop = square_crop(frame, box)
    zoomed = zoomed_in(crop, 0.85).astype(int)
    tighter = square_crop(frame, box, context=CROP_CONTEXT * 0.85).astype(int)
    assert zoomed.shape == crop.shape
    assert np.abs(zoomed - tighter).mean() < 4
    assert np.abs(zoomed - crop.astype(int)).mean() > 3 * np.abs(zoomed - tighter).mean()


def test_a_crop_far_from_every_enrolled_card_keeps_the_shipped_reading() -> None:
    """A partly enrolled deck meets cards it never saw: the similarity floor keeps the
    head from pulling them onto the enrolled cards."""
    names = ["7h", "8h", "9h"]
    x, y = _clusters(["7h", "8h"], 30)
    head = fit_head(x, y, kind="logistic", reader="r")
    assert head.min_similarity == pytest.approx(float(head.similarity_quantiles[1]))
    stranger = np.random.default_rng(5).normal(0, 1, (1, 32)).astype(np.float32) * 3
    shipped = np.array([[0.1, 0.1, 0.8]], np.float32)
    gated = head.with_choice(min_confidence=0.0, mix=1.0, min_similarity=head.min_similarity)
    assert not gated.sure(stranger)[0] and gated.sure(x[:1])[0]
    assert np.array_equal(gated.apply(shipped, stranger, names), shipped)
    ungated = gated.with_choice(min_confidence=0.0, mix=1.0, min_similarity=-1.0)
    assert ungated.apply(shipped, stranger, names)[0, 2] == 0  # pulled onto 7h or 8h


def test_a_taught_deck_keeps_the_reading_to_its_family() -> None:
    """A Rook deck the reader never saw is often read as diamonds; scanning with a taught
    Rook deck (and no variant) reads only Rook cards."""
    from shanghai.engine.cards import CARD_CLASSES, DeckFamily
    from shanghai.vision.readings import restrict_probabilities

    names = list(CARD_CLASSES)
    rows = np.zeros((2, len(names)), np.float32)
    rows[:, names.index("5d")] = 0.7  # the shipped reader's mass on a standard card
    rows[:, names.index("5R")] = 0.3
    inferred = restrict_probabilities(rows, names, None)
    assert names[int(inferred[0].argmax())] == "5d"
    deck = _head(["5R", "6R", "ROOK"])
    assert deck.family is DeckFamily.ROOK
    kept = restrict_probabilities(rows, names, None, deck.family)
    assert names[int(kept[0].argmax())] == "5R" and kept[0].max() == pytest.approx(0.3)


@needs_models
def test_a_deck_read_by_its_head_alone_reads_without_the_name_level() -> None:
    """The name level (`sure_name`) was chosen on a reader's probabilities; a taught
    head's are flatter, so while it reads only the sure level decides. A deck's own
    fine-tuned reader reads in the head's place, and the level stands for it."""
    fingerprint = reader_fingerprint(default_models_dir() / "cards-reader.onnx")
    models = CardModels()
    assert models.files.sure_name is not None
    assert models.sure_name == models.files.sure_name
    head = _head(["7h", "8h"], reader=fingerprint)
    models.use_deck(head)
    assert models.taught and models.sure_name is None
    # A stand-in for the deck's fine-tuned reader: a copy of the shipped one.
    models.use_deck(replace(head, own_reader=default_models_dir() / "cards-reader.onnx"))
    assert models.own_reader is not None and models.sure_name == models.files.sure_name
    models.use_deck(None)
    assert models.sure_name == models.files.sure_name


@needs_models
def test_the_upright_check_leaves_a_deck_s_own_reader_its_own_cards() -> None:
    """`CardModels.own_cards`: the cards a deck's own reader learnt, which the scan's
    upright 6-or-9 check then leaves to it (`upright.UprightCheck.learnt`); none while
    the shipped reader or a head alone reads."""
    from shanghai.vision.scan import PhotoScanner

    fingerprint = reader_fingerprint(default_models_dir() / "cards-reader.onnx")
    assert CardModels().own_cards == frozenset()
    head = _head(["6R", "9R"], reader=fingerprint)
    assert CardModels(deck=head).own_cards == frozenset()
    own = replace(head, own_reader=default_models_dir() / "cards-reader.onnx")
    taught = CardModels(deck=own)
    assert taught.own_cards == {"6R", "9R"}
    scanner = PhotoScanner.of(taught)
    assert scanner.upright is not None and scanner.upright.learnt == {"6R", "9R"}
    untaught = PhotoScanner.of(CardModels())
    assert untaught.upright is not None and untaught.upright.learnt == frozenset()


@needs_models
def test_the_face_check_leaves_alone_the_cards_whose_own_face_it_doubted() -> None:
    """`CardModels.face_unchecked`: a deck's cards whose enrolled face the face check
    contradicted (`StoredDeck.face_unchecked`), which a taught scanner's face check
    then leaves alone (`FaceCheck.unchecked`); none without a deck."""
    from shanghai.vision.scan import PhotoScanner

    fingerprint = reader_fingerprint(default_models_dir() / "cards-reader.onnx")
    head = replace(_head(["As", "Kd"], reader=fingerprint), face_unchecked=frozenset({"As"}))
    taught = PhotoScanner.of(CardModels(deck=head))
    assert taught.faces is not None and taught.faces.unchecked == {"As"}
    untaught = PhotoScanner.of(CardModels())
    assert untaught.faces is not None and untaught.faces.unchecked == frozenset()


@needs_models
def test_only_a_taught_deck_s_stills_are_searched_for_a_shake() -> None:
    """`CardModels.unshakes` (`unshake`): measured with a deck's own reader only, and
    too slow for a live view; a still read with it keeps every located index."""
    from shanghai.vision.read_cache import ReadCache

    fingerprint = reader_fingerprint(default_models_dir() / "cards-reader.onnx")
    models = CardModels()
    assert not models.unshakes
    head = _head(["7h", "8h"], reader=fingerprint)
    models.use_deck(head)
    assert not models.unshakes  # the head alone reads: no reader of its own to search by
    # A stand-in for the deck's fine-tuned reader: a copy of the shipped one.
    own = replace(head, own_reader=default_models_dir() / "cards-reader.onnx", complete=True)
    models.use_deck(own)
    assert models.unshakes
    assert not CardModels(read_cache=ReadCache(), deck=own).unshakes
    assert not CardModels(turned=False, deck=own).unshakes
    from fake_camera import card_frames
    from shanghai.vision.unshake import Shake

    sharp = card_frames(["7h", "8h", "Kd", "4s"], frames=1)[0]
    shaken = cv2.filter2D(sharp, -1, Shake(length=9, angle=30.0).kernel())
    found = models.read_frame(shaken)
    assert len(found.readings) + len(found.unread) > 0
    assert np.isfinite(found.readings.confidence).all()


@needs_models
def test_a_taught_deck_reads_with_its_own_sure_level() -> None:
    """A sure level chosen for the deck's own models (`DeckHead.sure_read`) replaces the
    shipped one while the deck reads; without one the shipped level stands."""
    fingerprint = reader_fingerprint(default_models_dir() / "cards-reader.onnx")
    models = CardModels()
    assert models.sure_read == models.files.sure_read and not models.taught
    head = _head(["7h", "8h"], reader=fingerprint)
    models.use_deck(head)
    assert models.sure_read == models.files.sure_read and models.taught
    models.use_deck(replace(head, sure_read=0.8))
    assert models.sure_read == 0.8 and models.min_read == models.files.min_read
    models.use_deck(None)
    assert models.sure_read == models.files.sure_read and not models.taught


def test_a_deck_s_own_reader_reads_where_the_head_would() -> None:
    """A deck with its own fine-tuned reader: that reader's rows replace the head's where
    the head would read; a crop near no enrolled card keeps the shipped reading."""
    names = ["7h", "8h", "9h"]
    x, y = _clusters(["7h", "8h"], 30)
    head = fit_head(x, y, kind="logistic", reader="r")
    stranger = np.random.default_rng(5).normal(0, 1, (1, 32)).astype(np.float32) * 3
    features = np.concatenate([x[:1], stranger])
    shipped = np.array([[0.1, 0.1, 0.8], [0.1, 0.1, 0.8]], np.float32)
    own = np.array([[0.02, 0.97, 0.01], [0.0, 0.0, 1.0]], np.float32)
    out = head.apply(shipped, features, names, own)
    assert np.array_equal(out[0], own[0])  # near 7h: the deck's reader reads (8h here)
    assert np.array_equal(out[1], shipped[1])  # a stranger: the shipped reading stays
    assert out[0].argmax() != head.apply(shipped, features, names)[0].argmax()


def test_a_whole_deck_s_own_reader_reads_every_crop() -> None:
    """With every card of the family enrolled, no crop can be a card the deck's reader
    never saw: it reads the stranger too (a small, blurred index lies far from every
    enrolled view). The head alone keeps its gate, and so does a deck taught in part."""
    names = ["7h", "8h", "9h"]
    x, y = _clusters(["7h", "8h"], 30)
    head = replace(fit_head(x, y, kind="logistic", reader="r"), complete=True)
    stranger = np.random.default_rng(5).normal(0, 1, (1, 32)).astype(np.float32) * 3
    features = np.concatenate([x[:1], stranger])
    shipped = np.array([[0.1, 0.1, 0.8], [0.1, 0.1, 0.8]], np.float32)
    own = np.array([[0.02, 0.97, 0.01], [0.0, 0.0, 1.0]], np.float32)
    assert head.reads(features, own=True).all()
    assert list(head.reads(features, own=False)) == [True, False]
    assert np.array_equal(head.apply(shipped, features, names, own), own)
    assert np.array_equal(head.apply(shipped, features, names)[1], shipped[1])
    part = replace(head, complete=False)
    assert np.array_equal(part.apply(shipped, features, names, own)[1], shipped[1])


@needs_models
def test_scans_with_a_deck_s_own_reader_read_with_it(tmp_path: Path) -> None:
    """`CardModels` loads the deck's reader (`StoredDeck.reader_path`) and reads the
    enrolled cards' crops with it; a broken file is refused with what to do."""
    import dataclasses

    from taught_deck import taught_deck

    models = CardModels()
    deck = taught_deck(tmp_path, models)
    assert not deck.has_reader and deck.head().own_reader is None
    # A stand-in for a fine-tuned reader: a copy of the shipped one, whose sharp rows
    # differ from the head's flat ones, so where a reading comes from is visible.
    shutil.copyfile(default_models_dir() / "cards-reader.onnx", deck.reader_path)
    head = deck.head()
    assert head.own_reader == deck.reader_path and deck.to_json()["reader"] is True
    wide = [cv2.imread(str(p)) for c in deck.cards for p in deck.crop_paths(c)]
    crops = [augmented_crops(w, np.random.default_rng(0), 1)[0] for w in wide]
    assert crops
    taught = CardModels(deck=head)
    assert taught.own_reader is not None
    _, features = taught.features(crops)
    sure = head.sure(features)
    assert sure.sum() >= len(crops) // 2
    read = taught.classify(crops)
    own = taught.own_reading(crops)
    assert np.allclose(read[sure], own[sure])
    # The deck's reader reads each crop as cut and zoomed in, both ways up (OWN_READ_ZOOMS).
    views = [taught._both_ways(taught.own_reader, crops)] + [
        taught._both_ways(taught.own_reader, [zoomed_in(c, share) for c in crops])
        for share in OWN_READ_ZOOMS
    ]
    assert np.allclose(own, np.mean(views, axis=0), atol=1e-6)
    assert not np.allclose(own, views[0])
    head_only = CardModels(deck=dataclasses.replace(head, own_reader=None)).classify(crops)
    assert not np.allclose(read[sure], head_only[sure])  # the head's flat rows differ
    deck.reader_path.write_bytes(b"not a model")
    with pytest.raises(DeckError, match=r"reader .* cannot be used"):
        CardModels(deck=deck.head())
