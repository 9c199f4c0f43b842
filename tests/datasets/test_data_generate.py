"""The generator as a tool: deterministic for a seed, splits keep held-out looks and
tables for test, files in the formats ultralytics reads, and the CLI's contract."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from shanghai.cli.main import main
from shanghai.datasets import generate as generate_module
from shanghai.datasets.backgrounds import HELD_OUT_FAMILIES
from shanghai.datasets.decks import code_looks, unseen_val_looks
from shanghai.datasets.generate import GenerateConfig, generate
from shanghai.datasets.splits import UNSEEN_VAL, choose_background, choose_looks
from shanghai.datasets.stray_crops import located_class
from shanghai.engine.cards import CARD_CLASSES, JOKER, Card, DeckFamily
from shanghai.vision.face_kind import FACE_KINDS, FACE_MASK, FACE_SIZE
from shanghai.vision.pipeline import models_installed
from shanghai.vision.stray_check import STRAY_CLASSES, STRAY_SIZE
from shanghai.vision.upright import UPRIGHT_CLASSES

HELD_OUT_LOOKS = {look.name for look in code_looks() if look.held_out}


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "manifest.json"
    }


def _run(
    out: Path, kind: str, n: int, seed: int, workers: int = 1, split: str | None = None
) -> Path:
    cfg = GenerateConfig(out=out, n=n, seed=seed, kind=kind, workers=workers, split=split)
    generate(cfg, progress=False)
    return cfg.root


def test_same_seed_same_bytes_whatever_the_workers(tmp_path: Path) -> None:
    one = _files(_run(tmp_path / "a", "scenes", 3, seed=11))
    two = _files(_run(tmp_path / "b", "scenes", 3, seed=11, workers=2))
    assert len(one) == 3 * 3 + 1  # image, labels, meta per scene + data.yaml
    assert one == two


def test_workers_are_replaced_between_batches_without_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker processes are recycled every WORKER_TASKS items; with Python 3.11's
    `max_tasks_per_child` that recycling deadlocked (a 2,500-scene run stopped at 400).
    Here 5 items cross three batches of 2 x 1; the thread guards against a hang only."""
    monkeypatch.setattr(generate_module, "WORKER_TASKS", 1)
    done: list[Path] = []
    worker = threading.Thread(
        target=lambda: done.append(_run(tmp_path / "b", "scenes", 5, seed=12, workers=2)),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=600)
    assert done, "generation with recycled workers did not finish"
    assert _files(done[0]) == _files(_run(tmp_path / "a", "scenes", 5, seed=12))


def test_different_seeds_give_different_scenes(tmp_path: Path) -> None:
    a = _files(_run(tmp_path / "a", "scenes", 2, seed=1))
    b = _files(_run(tmp_path / "b", "scenes", 2, seed=2))
    images_a = sorted(v for k, v in a.items() if k.endswith(".jpg"))
    images_b = sorted(v for k, v in b.items() if k.endswith(".jpg"))
    assert images_a and not set(images_a) & set(images_b)


def test_scene_files_are_valid_yolo_and_match_their_json(tmp_path: Path) -> None:
    root = _run(tmp_path, "scenes", 4, seed=5)
    yaml = (root / "data.yaml").read_text()
    assert "train: train/images" in yaml and "0: card" in yaml and "1: index" in yaml
    for meta_path in root.rglob("meta/*.json"):
        meta = json.loads(meta_path.read_text())
        split = meta_path.parent.parent.name
        image = cv2.imread(str(root / split / "images" / meta["image"]))
        assert image.shape[:2] == (meta["height"], meta["width"])
        lines = (
            (root / split / "labels" / meta_path.with_suffix(".txt").name).read_text().split("\n")
        )
        boxes = [line.split() for line in lines if line]
        for cls, *xywh in boxes:
            assert cls in ("0", "1")
            assert all(0.0 <= float(v) <= 1.0 for v in xywh)
        visible = sum(ix["state"] == "visible" for c in meta["cards"] for ix in c["indices"])
        cards = sum(c["box_xyxy"] is not None for c in meta["cards"])
        assert Counter(cls for cls, *_ in boxes) == Counter({"1": visible, "0": cards}) - Counter()
        for card in meta["cards"]:
            assert card["card"] in CARD_CLASSES
            if not card["face_up"]:
                assert card["box_xyxy"] is None and card["indices"] == []


def test_crops_land_in_engine_class_folders(tmp_path: Path) -> None:
    root = _run(tmp_path, "crops", 3, seed=3, split="train")
    crops = list(root.rglob("*.png"))
    assert len(crops) >= 5
    for crop in crops:
        assert crop.parent.name in CARD_CLASSES
        assert crop.parent.parent.name == "train"
        assert cv2.imread(str(crop)).shape == (64, 64, 3)


def test_face_crops_land_in_face_kind_folders_with_the_index_hidden(tmp_path: Path) -> None:
    root = _run(tmp_path, "face-crops", 6, seed=3, split="train")
    crops = list(root.rglob("*.png"))
    assert len(crops) >= 10
    a = round(FACE_SIZE * (1 - FACE_MASK) / 2)
    for crop in crops:
        assert crop.parent.name in FACE_KINDS and crop.parent.parent.name == "train"
        image = cv2.imread(str(crop))
        assert image.shape == (FACE_SIZE, FACE_SIZE, 3)
        assert (image[a : FACE_SIZE - a, a : FACE_SIZE - a] == 127).all()
    # Table scenes and hand photos both: standard courts and pips among them.
    assert {"court", "pips"} <= {crop.parent.name for crop in crops}
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["kind"] == "face-crops" and manifest["classes"] == list(FACE_KINDS)


def test_upright_crops_hold_rook_6s_and_9s_the_right_way_up(tmp_path: Path) -> None:
    cfg = GenerateConfig(
        out=tmp_path, n=12, seed=3, kind="upright-crops", split="train", rook_share=1.0
    )
    generate(cfg, progress=False)
    crops = list(cfg.root.rglob("*.png"))
    # 6s and 9s are 2 of 14 Rook ranks; 12 items still hold both, 3 cuts per index.
    assert {crop.parent.name for crop in crops} == set(UPRIGHT_CLASSES)
    assert len(crops) % 3 == 0
    for crop in crops:
        assert crop.parent.parent.name == "train"
        assert cv2.imread(str(crop)).shape == (64, 64, 3)
    manifest = json.loads((cfg.root / "manifest.json").read_text())
    assert manifest["kind"] == "upright-crops" and manifest["classes"] == list(UPRIGHT_CLASSES)


def test_upright_index_crops_hold_every_card_once_per_index(tmp_path: Path) -> None:
    cfg = GenerateConfig(
        out=tmp_path, n=4, seed=3, kind="upright-index-crops", split="train", rook_share=0.5
    )
    summary = generate(cfg, progress=False)
    crops = list(cfg.root.rglob("*.png"))
    assert len(crops) == summary.crops > 4
    names = {crop.parent.name for crop in crops}
    # Any card, not only a Rook 6 or 9: folders by engine card notation.
    assert names <= set(CARD_CLASSES) and len(names) > 2
    for crop in crops:
        assert cv2.imread(str(crop)).shape == (64, 64, 3)
    manifest = json.loads((cfg.root / "manifest.json").read_text())
    assert manifest["kind"] == "upright-index-crops"


@pytest.mark.skipif(not models_installed(), reason="card models not installed")
def test_stray_crops_hold_what_the_models_leave_unread_sorted_by_where_it_lies(
    tmp_path: Path,
) -> None:
    cfg = GenerateConfig(out=tmp_path, n=6, seed=3, kind="stray-crops", split="train")
    summary = generate(cfg, progress=False)
    crops = list(cfg.root.rglob("*.png"))
    assert len(crops) == summary.crops > 0
    assert {crop.parent.name for crop in crops} <= set(STRAY_CLASSES)
    for crop in crops:
        assert crop.parent.parent.name == "train"
        assert cv2.imread(str(crop)).shape == (STRAY_SIZE, STRAY_SIZE, 3)
    manifest = json.loads((cfg.root / "manifest.json").read_text())
    assert manifest["kind"] == "stray-crops" and manifest["classes"] == list(STRAY_CLASSES)


def test_a_located_box_is_an_index_where_a_true_index_covers_it() -> None:
    index = (100.0, 100.0, 120.0, 140.0)
    on = np.array([102.0, 104.0, 118.0, 136.0])
    assert located_class(on, [index]) == "index"
    assert located_class(np.array([300.0, 300.0, 320.0, 340.0]), [index]) == "other"
    # a box an index covers a fifth of: neither, left out
    assert located_class(np.array([116.0, 100.0, 136.0, 140.0]), [index]) is None
    assert located_class(on, []) == "other"


@pytest.mark.parametrize(("share", "family"), [(1.0, "rook"), (0.0, "standard")])
def test_rook_share_picks_the_deck_family_of_every_table(
    tmp_path: Path, share: float, family: str
) -> None:
    cfg = GenerateConfig(out=tmp_path, n=3, seed=4, kind="crops", split="train", rook_share=share)
    generate(cfg, progress=False)
    names = {p.parent.name for p in cfg.root.rglob("*.png")}
    assert names
    rook = {name for name in names if Card.parse(name).family is DeckFamily.ROOK}
    assert rook == (names if family == "rook" else set())
    assert json.loads((cfg.root / "manifest.json").read_text())["rook_share"] == share


def test_extra_jokers_make_joker_crops_common(tmp_path: Path) -> None:
    def joker_share(extra: int) -> float:
        cfg = GenerateConfig(
            out=tmp_path / str(extra),
            n=4,
            seed=6,
            kind="crops",
            split="train",
            rook_share=0.0,
            extra_jokers=extra,
        )
        generate(cfg, progress=False)
        names = [p.parent.name for p in cfg.root.rglob("*.png")]
        assert json.loads((cfg.root / "manifest.json").read_text())["extra_jokers"] == extra
        return names.count(str(JOKER)) / len(names)

    assert joker_share(12) > 0.08 > joker_share(0)


def test_tiles_are_square_windows_with_their_own_labels(tmp_path: Path) -> None:
    root = _run(tmp_path, "tiles", 2, seed=4, split="val")
    images = list((root / "val" / "images").glob("*.jpg"))
    assert len(images) == 6
    for image in images:
        h, w = cv2.imread(str(image)).shape[:2]
        assert h == w <= 416


def test_photo_tiles_cut_the_scans_photos_with_their_labels(tmp_path: Path) -> None:
    """Tiles of hand and lay-down photos (`hand_photos`), labelled like table tiles:
    cards laid in a row or fanned, with index boxes inside card boxes, and the photos'
    looks kept to the split (no held-out look in train)."""
    root = _run(tmp_path, "photo-tiles", 6, seed=5, split="train")
    metas = [json.loads(p.read_text()) for p in sorted(root.rglob("meta/*.json"))]
    assert len(metas) == 18 and len(list((root / "train" / "images").glob("*.jpg"))) == 18
    assert not {look for meta in metas for look in meta["looks"]} & HELD_OUT_LOOKS
    lines = [
        line.split()
        for label in (root / "train" / "labels").glob("*.txt")
        for line in label.read_text().splitlines()
    ]
    classes = Counter(int(line[0]) for line in lines)
    assert classes[0] > 0 and classes[1] > 0  # cards and their indices
    assert all(0 <= float(v) <= 1 for line in lines for v in line[1:])
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["kind"] == "photo-tiles"


@pytest.mark.parametrize("family", list(DeckFamily))
def test_only_the_test_split_sees_held_out_looks_and_tables(family: DeckFamily) -> None:
    rng = np.random.default_rng(0)
    looks = code_looks()
    for split in ("train", "val"):
        for _ in range(200):
            assert not any(look.held_out for look in choose_looks(rng, split, family, looks))
            assert choose_background(rng, split) not in HELD_OUT_FAMILIES
    test_looks = [look for _ in range(200) for look in choose_looks(rng, "test", family, looks)]
    test_tables = [choose_background(rng, "test") for _ in range(200)]
    assert sum(look.held_out for look in test_looks) > 40
    assert 40 < sum(table in HELD_OUT_FAMILIES for table in test_tables) < 160


@pytest.mark.parametrize("family", list(DeckFamily))
def test_randomised_looks_join_train_tables_and_leave_val_and_test_as_they_were(
    family: DeckFamily,
) -> None:
    looks = code_looks()
    fixed = [look for look in looks if not look.train_only]
    for split in ("val", "test"):
        rng, before = np.random.default_rng(4), np.random.default_rng(4)
        for _ in range(200):
            picked = choose_looks(rng, split, family, looks)
            assert picked == choose_looks(before, split, family, fixed)
        assert rng.random() == before.random()  # the same numbers drawn
    rng = np.random.default_rng(4)
    train = [look for _ in range(400) for look in choose_looks(rng, "train", family, looks)]
    randomised = sum(look.train_only for look in train)
    assert 0.35 < randomised / len(train) < 0.65


@pytest.mark.parametrize("family", list(DeckFamily))
def test_unseen_validation_looks_only_in_their_split_which_leaves_the_others_as_they_were(
    family: DeckFamily,
) -> None:
    looks = (*code_looks(), *unseen_val_looks())
    for split in ("train", "val", "test"):
        rng, before = np.random.default_rng(5), np.random.default_rng(5)
        for _ in range(200):
            picked = choose_looks(rng, split, family, looks)
            assert picked == choose_looks(before, split, family, code_looks())
    rng = np.random.default_rng(5)
    unseen = [look for _ in range(200) for look in choose_looks(rng, UNSEEN_VAL, family, looks)]
    assert not any(look.held_out or look.train_only for look in unseen)
    assert 40 < sum(look.val_only for look in unseen) < 200
    assert all(choose_background(rng, UNSEEN_VAL) not in HELD_OUT_FAMILIES for _ in range(200))


def test_generated_splits_keep_held_out_looks_out_of_train(tmp_path: Path) -> None:
    root = _run(tmp_path, "scenes", 6, seed=9, split="test")
    _run(tmp_path, "scenes", 6, seed=9, split="train")
    seen: dict[str, set[str]] = {"train": set(), "test": set()}
    for meta_path in root.rglob("meta/*.json"):
        meta = json.loads(meta_path.read_text())
        seen[meta["split"]].update(meta["looks"])
        seen[meta["split"]].add(meta["background"])
    assert not seen["train"] & (HELD_OUT_LOOKS | set(HELD_OUT_FAMILIES))
    assert seen["test"] & (HELD_OUT_LOOKS | set(HELD_OUT_FAMILIES))


def test_the_unseen_validation_split_draws_its_own_looks(tmp_path: Path) -> None:
    root = _run(tmp_path, "scenes", 8, seed=9, split=UNSEEN_VAL)
    looks: set[str] = set()
    for meta_path in root.rglob("meta/*.json"):
        meta = json.loads(meta_path.read_text())
        assert meta["split"] == UNSEEN_VAL
        looks.update(meta["looks"])
    unseen = {look.name for look in unseen_val_looks()}
    assert looks & unseen and not looks & HELD_OUT_LOOKS
    manifest = json.loads((root / "manifest.json").read_text())
    assert unseen <= {look["name"] for look in manifest["looks"]}


def test_cli_generate_and_preview(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "data"
    assert main(["data", "generate", "--out", str(out), "--n", "2", "--seed", "1", "--quiet"]) == 0
    assert "scenes/s" in capsys.readouterr().out
    assert len(list((out / "scenes").rglob("*.jpg"))) == 2
    sheet = tmp_path / "sheet.png"
    assert main(["data", "preview", "--out", str(sheet), "--seed", "1", "--count", "2"]) == 0
    assert cv2.imread(str(sheet)).shape[1] > 500


@pytest.mark.parametrize(
    "argv",
    [
        ["data", "generate", "--out", "x", "--n", "0", "--seed", "1"],
        ["data", "generate", "--out", "x", "--n", "2", "--seed", "1", "--kind", "nope"],
        ["data", "generate", "--out", "x", "--n", "2", "--seed", "1", "--workers", "0"],
        ["data", "generate", "--out", "x", "--n", "2", "--seed", "1", "--rook-share", "1.5"],
        ["data", "generate", "--out", "x", "--n", "2", "--seed", "1", "--extra-jokers", "-1"],
        ["data", "preview", "--out", "sheet.jpg", "--seed", "1"],
        ["data", "generate", "--out", "x", "--n", "2", "--seed", "1", "--cache", "/nonexistent"],
    ],
)
def test_cli_bad_input_exits_2_with_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("shanghai") and "\n" not in err
