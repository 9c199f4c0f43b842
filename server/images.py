"""Uploaded images: refuse what is not an image, truncated files and oversized ones
before any decoding work, and hand the scanner a BGR array.

Limits (`Settings.max_upload_bytes`, `Settings.max_image_pixels`) are checked in this
order: bytes while reading (413), the format from the header (415), the pixel count
from the header before decoding (413), then a full decode (400 when truncated/corrupt).
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from fastapi import UploadFile
from PIL import Image, ImageOps, UnidentifiedImageError

from .rules import ApiError

__all__ = ["ACCEPTED_FORMATS", "DecodedImage", "decode_upload", "read_upload"]

ACCEPTED_FORMATS = {
    "JPEG": "image/jpeg",
    "PNG": "image/png",
    "WEBP": "image/webp",
    "BMP": "image/bmp",
}
_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class DecodedImage:
    """An accepted upload: its bytes as sent, their type, and the pixels as BGR."""

    data: bytes
    media_type: str
    bgr: npt.NDArray[np.uint8]

    @property
    def width(self) -> int:
        return int(self.bgr.shape[1])

    @property
    def height(self) -> int:
        return int(self.bgr.shape[0])


def read_upload(upload: UploadFile, max_bytes: int) -> bytes:
    """The whole upload, refusing it (413) as soon as it passes `max_bytes` (sync: the
    routes that take images run in the thread pool)."""
    parts: list[bytes] = []
    size = 0
    while chunk := upload.file.read(_CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise ApiError(413, f"image is larger than the {_mib(max_bytes)} limit")
        parts.append(chunk)
    return b"".join(parts)


def decode_upload(data: bytes, *, max_bytes: int, max_pixels: int) -> DecodedImage:
    """Check and decode image bytes (a photo upload or a live frame)."""
    if not data:
        raise ApiError(400, "the image is empty")
    if len(data) > max_bytes:
        raise ApiError(413, f"image is larger than the {_mib(max_bytes)} limit")
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data))
        except UnidentifiedImageError:
            raise ApiError(
                415, "not an image: send a JPEG, PNG, WebP or BMP photo of the cards"
            ) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ApiError(413, "image has too many pixels") from None
        except (OSError, ValueError, SyntaxError) as exc:
            raise ApiError(400, f"the image cannot be read: {exc}") from None
        with image:
            if image.format not in ACCEPTED_FORMATS:
                raise ApiError(
                    415, f"{image.format} images are not accepted: send JPEG, PNG, WebP or BMP"
                )
            media_type = ACCEPTED_FORMATS[image.format]
            width, height = image.size
            if width * height > max_pixels:
                raise ApiError(
                    413,
                    f"image is {width}x{height} pixels; the limit is "
                    f"{max_pixels / 1e6:.0f} megapixels",
                )
            if width < 1 or height < 1:
                raise ApiError(400, "the image has no pixels")
            try:
                image.load()
                upright = ImageOps.exif_transpose(image)
                rgb = upright.convert("RGB")
            except (Image.DecompressionBombError, Image.DecompressionBombWarning):
                raise ApiError(413, "image has too many pixels") from None
            except (OSError, ValueError, SyntaxError, EOFError) as exc:
                raise ApiError(
                    400, f"the image is truncated or corrupt ({exc}); take the photo again"
                ) from None
    array = np.asarray(rgb, dtype=np.uint8)[:, :, ::-1]
    return DecodedImage(data=data, media_type=media_type, bgr=np.ascontiguousarray(array))


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.0f} MiB" if size >= 1024 * 1024 else f"{size} bytes"
