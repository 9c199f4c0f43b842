"""Decoding one image, the same way for the CLI and the server.

A photo scanned by `shanghai score` and the same photo uploaded to the page must give
the same pixels, or the two could read a borderline card differently: before this
module the server decoded with Pillow (turning a phone photo upright by its EXIF
orientation) and the CLI with OpenCV. One decoder now, Pillow's, and its checks in the
order that costs least: nothing sent, the format from the header (a GIF, a PDF, text),
the pixel count from the header before any pixel is decoded (a 6300x6300 one-colour PNG
is a few kilobytes), then the full decode (a truncated file is refused, not scanned
half grey). Each refusal is an `ImageRefused` whose `reason` the server maps to an
HTTP status and the CLI prints.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from .arrays import Frame

__all__ = [
    "ACCEPTED_FORMATS",
    "MAX_PIXELS",
    "DecodedImage",
    "ImageRefused",
    "Refusal",
    "decode",
    "encode_jpeg",
]

ACCEPTED_FORMATS = {
    "JPEG": "image/jpeg",
    "PNG": "image/png",
    "WEBP": "image/webp",
    "BMP": "image/bmp",
}
"""Pillow format -> media type: what phones and webcams write."""
MAX_PIXELS = 40_000_000
"""A 48-megapixel phone photo is about 48e6 pixels; the scan works at a few megapixels."""


class Refusal(StrEnum):
    """Why an image was refused."""

    EMPTY = "empty"
    NOT_AN_IMAGE = "not-an-image"
    FORMAT = "format"
    TOO_MANY_PIXELS = "too-many-pixels"
    CORRUPT = "corrupt"


class ImageRefused(ValueError):
    """An image that cannot be scanned; `reason` says why, the message what to do."""

    def __init__(self, reason: Refusal, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class DecodedImage:
    """An accepted image: its bytes as sent, their media type, and the pixels as BGR,
    turned upright by the photo's EXIF orientation."""

    data: bytes
    media_type: str
    bgr: Frame

    @property
    def width(self) -> int:
        return int(self.bgr.shape[1])

    @property
    def height(self) -> int:
        return int(self.bgr.shape[0])


_PILLOW_OPEN = Image.open
"""Pillow's own opener, taken when this module loads. ultralytics (the train extra)
replaces `PIL.Image.open` for the whole process when it is imported: on bytes that are
no image its opener tries to install a HEIF plugin and raises `ImportError`, so in a
process that had trained a deck's locator a bad upload was a crash, not a refusal (the
server's tests, run after the train extra's)."""


def decode(data: bytes, *, max_pixels: int = MAX_PIXELS) -> DecodedImage:
    """Check and decode image bytes; raises `ImageRefused`."""
    if not data:
        raise ImageRefused(Refusal.EMPTY, "the image is empty")
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = _PILLOW_OPEN(io.BytesIO(data))
        except UnidentifiedImageError:
            raise ImageRefused(
                Refusal.NOT_AN_IMAGE,
                "not an image: send a JPEG, PNG, WebP or BMP photo of the cards",
            ) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ImageRefused(Refusal.TOO_MANY_PIXELS, "image has too many pixels") from None
        except (OSError, ValueError, SyntaxError) as exc:
            raise ImageRefused(Refusal.CORRUPT, f"the image cannot be read: {exc}") from None
        with image:
            if image.format not in ACCEPTED_FORMATS:
                raise ImageRefused(
                    Refusal.FORMAT,
                    f"{image.format} images are not accepted: send JPEG, PNG, WebP or BMP",
                )
            media_type = ACCEPTED_FORMATS[image.format]
            width, height = image.size
            if width * height > max_pixels:
                raise ImageRefused(
                    Refusal.TOO_MANY_PIXELS,
                    f"image is {width}x{height} pixels; the limit is "
                    f"{max_pixels / 1e6:.3g} megapixels",
                )
            if width < 1 or height < 1:
                raise ImageRefused(Refusal.CORRUPT, "the image has no pixels")
            try:
                image.load()
                upright = ImageOps.exif_transpose(image)
                rgb = upright.convert("RGB")
            except (Image.DecompressionBombError, Image.DecompressionBombWarning):
                raise ImageRefused(Refusal.TOO_MANY_PIXELS, "image has too many pixels") from None
            except (OSError, ValueError, SyntaxError, EOFError) as exc:
                raise ImageRefused(
                    Refusal.CORRUPT,
                    f"the image is truncated or corrupt ({exc}); take the photo again",
                ) from None
    bgr = np.ascontiguousarray(np.asarray(rgb, dtype=np.uint8)[:, :, ::-1])
    return DecodedImage(data=data, media_type=media_type, bgr=bgr)


def encode_jpeg(image: Frame, quality: int = 85) -> bytes:
    """A BGR image as JPEG bytes (annotated evidence, live overlays)."""
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return bytes(buffer.tobytes())
