"""`vision.images.decode` refuses bytes that are no image with its own reason, whatever
another library has done to Pillow's opener in the same process."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from shanghai.vision.images import ImageRefused, Refusal, decode


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.full((8, 12, 3), (10, 20, 30), np.uint8)).save(buffer, "PNG")
    return buffer.getvalue()


def test_a_photo_decodes_and_bytes_that_are_no_image_are_refused() -> None:
    decoded = decode(_png())
    assert (decoded.width, decoded.height) == (12, 8)
    assert decoded.bgr[0, 0].tolist() == [30, 20, 10]  # BGR
    with pytest.raises(ImageRefused) as refused:
        decode(b"hello")
    assert refused.value.reason is Refusal.NOT_AN_IMAGE


def test_an_opener_replaced_by_another_library_does_not_turn_a_refusal_into_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ultralytics (the train extra) replaces `PIL.Image.open` process-wide with one
    that, on bytes that are no image, tries to install a plugin and raises ImportError."""
    pillow_open = Image.open

    def replaced(*args: object, **kwargs: object) -> Image.Image:
        try:
            return pillow_open(*args, **kwargs)  # type: ignore[arg-type]
        except Image.UnidentifiedImageError:
            raise ModuleNotFoundError("No module named 'pi_heif'") from None

    monkeypatch.setattr(Image, "open", replaced)
    with pytest.raises(ModuleNotFoundError):
        Image.open(io.BytesIO(b"hello"))  # the stand-in behaves as the real one did
    with pytest.raises(ImageRefused) as refused:
        decode(b"hello")
    assert refused.value.reason is Refusal.NOT_AN_IMAGE
    assert decode(_png()).width == 12
