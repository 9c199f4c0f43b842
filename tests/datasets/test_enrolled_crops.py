"""Reader crops of a taught deck's own enrolled indices, seen small and soft
(`datasets.enrolled_crops`), from a deck enrolled with the real models."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from taught_deck import CARDS, taught_deck

from shanghai.datasets.enrolled_crops import (
    SMALL_SIDES,
    SMEAR_REACH,
    small_view,
    write_enrolled_crops,
)
from shanghai.datasets.labels import BLUR_MAX_SHARE
from shanghai.vision.crops import CROP_SIZE
from shanghai.vision.deck_store import StoredDeck
from shanghai.vision.image_checks import edge_sharpness
from shanghai.vision.pipeline import CardModels, models_installed

pytestmark = pytest.mark.skipif(not models_installed(), reason="card models not installed")


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> StoredDeck:
    return taught_deck(tmp_path_factory.mktemp("teach"), CardModels())


def test_every_enrolled_index_gives_its_views_in_its_cards_folder(
    deck: StoredDeck, tmp_path: Path
) -> None:
    made = write_enrolled_crops(deck, tmp_path, np.random.default_rng(0), per_crop=5)
    assert set(made) == set(CARDS)
    for card in deck.cards:
        folder = tmp_path / "train" / str(card)
        files = sorted(folder.glob("*.png"))
        assert len(files) == made[str(card)] == 5 * len(deck.crop_paths(card)) > 0
        crop = cv2.imread(str(files[0]), cv2.IMREAD_COLOR)
        assert crop is not None and crop.shape == (CROP_SIZE, CROP_SIZE, 3)


def test_most_views_are_seen_small_and_softer_than_the_enrolment_photo(deck: StoredDeck) -> None:
    """A view shrunk to a distant camera's few pixels and enlarged again to the reader's
    input has softer edges than the crop as enrolled; the rest keep its size."""
    wide = cv2.imread(str(deck.crop_paths(deck.cards[0])[0]), cv2.IMREAD_COLOR)
    assert wide is not None
    as_enrolled = cv2.resize(wide[32:96, 32:96], (CROP_SIZE, CROP_SIZE))
    rng = np.random.default_rng(1)
    views = [small_view(np.asarray(wide, np.uint8), rng) for _ in range(40)]
    assert all(v.shape == (CROP_SIZE, CROP_SIZE, 3) and v.dtype == np.uint8 for v in views)
    sharp = edge_sharpness(as_enrolled)
    softer = sum(edge_sharpness(v) < sharp for v in views)
    assert softer >= 0.6 * len(views)
    assert SMALL_SIDES[1] < CROP_SIZE
    # two draws differ: every view is its own photo
    assert not np.array_equal(views[0], views[1])


def test_the_views_smear_as_far_as_the_labels_keep_an_index_readable() -> None:
    """The test photos hold indices smeared by up to `BLUR_MAX_SHARE` of their size (the
    labels call them readable), so the enrolled views must reach that far too."""
    assert SMEAR_REACH >= BLUR_MAX_SHARE
