"""Running the scan contract on an uploaded image: checks, recognition, the overlay."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import UploadFile

from shanghai.engine.variants import Rules
from shanghai.vision.images import encode_jpeg
from shanghai.vision.overlay import Colour, SnapshotOverlay
from shanghai.vision.scan import ScanInputError
from shanghai.vision.snapshot import PhotoKind, TableSnapshot

from .errors import ApiError
from .images import DecodedImage, decode_upload, read_upload
from .scanning import CardScanner, ScannerUnavailableError
from .settings import Settings

__all__ = ["EVIDENCE_OVERLAY", "ReadImage", "overlay", "read_and_scan"]

EVIDENCE_OVERLAY = SnapshotOverlay(outlines=False, max_side=1600)
"""What the page shows over a photo: every card boxed, at most 1600 px (the page lists
the melds and the hand itself)."""


@dataclass(frozen=True, slots=True)
class ReadImage:
    image: DecodedImage
    snapshot: TableSnapshot


def read_and_scan(
    upload: UploadFile,
    settings: Settings,
    scanner: CardScanner,
    *,
    rules: Rules,
    kind: PhotoKind,
    seats: int = 1,
) -> ReadImage:
    """Validate the upload (4xx), then read its cards under the game's rules (503 when
    recognition cannot run, 422 for an image that cannot hold a card)."""
    data = read_upload(upload, settings.max_upload_bytes)
    image = decode_upload(
        data, max_bytes=settings.max_upload_bytes, max_pixels=settings.max_image_pixels
    )
    try:
        snapshot = scanner.scan(image.bgr, rules=rules, kind=kind, seats=seats)
    except ScannerUnavailableError as exc:
        raise ApiError(503, str(exc)) from None
    except ScanInputError as exc:
        raise ApiError(422, str(exc)) from None
    return ReadImage(image, snapshot)


def overlay(read: ReadImage, colours: list[Colour] | None = None) -> bytes:
    """The photo with every card read boxed (unsure reads and unread outlines marked)."""
    return encode_jpeg(EVIDENCE_OVERLAY.annotate(read.image.bgr, read.snapshot, colours))
