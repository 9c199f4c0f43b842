"""Uploaded images: refuse what is not an image, truncated files and oversized ones
before any decoding work, and hand the scanner a BGR array.

Limits (`Settings.max_upload_bytes`, `Settings.max_image_pixels`) are checked in this
order: bytes while reading (413), then the checks of `vision.images.decode` (the one
decoder the CLI uses too): the format from the header (415), the pixel count from the
header before decoding (413), a full decode (400 when truncated or corrupt).
"""

from __future__ import annotations

from fastapi import UploadFile

from shanghai.vision.images import ACCEPTED_FORMATS, DecodedImage, ImageRefused, Refusal, decode

from .errors import ApiError

__all__ = ["ACCEPTED_FORMATS", "DecodedImage", "decode_upload", "read_upload"]

_CHUNK = 1024 * 1024
STATUS = {
    Refusal.EMPTY: 400,
    Refusal.NOT_AN_IMAGE: 415,
    Refusal.FORMAT: 415,
    Refusal.TOO_MANY_PIXELS: 413,
    Refusal.CORRUPT: 400,
}
"""The answer to each reason an image is refused."""


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
    if len(data) > max_bytes:
        raise ApiError(413, f"image is larger than the {_mib(max_bytes)} limit")
    try:
        return decode(data, max_pixels=max_pixels)
    except ImageRefused as exc:
        raise ApiError(STATUS[exc.reason], str(exc)) from None


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.0f} MiB" if size >= 1024 * 1024 else f"{size} bytes"
