"""Running the scanner on an uploaded image: checks, recognition, and the overlay."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import UploadFile

from shanghai.engine import Card, ShanghaiError

from .annotate import draw_cards, encode_jpeg
from .images import DecodedImage, decode_upload, read_upload
from .rules import ApiError
from .scanning import CardScanner, DetectedCard, ScannerUnavailableError, ScanResult
from .settings import Settings

__all__ = ["ReadImage", "read_and_scan", "valid_cards"]


@dataclass(frozen=True, slots=True)
class ReadImage:
    image: DecodedImage
    result: ScanResult


def valid_cards(result: ScanResult) -> ScanResult:
    """The scan without readings that are not cards in the engine's notation (a model's
    class list out of step with the engine must not reach the score sheet)."""
    keep: list[int] = []
    for index, card in enumerate(result.cards):
        try:
            Card.parse(card.card)
        except ShanghaiError:
            continue
        keep.append(index)
    if len(keep) == len(result.cards):
        return result
    new_index = {old: new for new, old in enumerate(keep)}
    return ScanResult(
        cards=tuple(result.cards[i] for i in keep),
        melds=tuple(tuple(new_index[i] for i in meld if i in new_index) for meld in result.melds),
        hand=tuple(new_index[i] for i in result.hand if i in new_index),
        model=result.model,
    )


def read_and_scan(upload: UploadFile, settings: Settings, scanner: CardScanner) -> ReadImage:
    """Validate the upload (4xx), then read its cards (503 when recognition cannot run)."""
    data = read_upload(upload, settings.max_upload_bytes)
    image = decode_upload(
        data, max_bytes=settings.max_upload_bytes, max_pixels=settings.max_image_pixels
    )
    try:
        result = scanner.scan(image.bgr)
    except ScannerUnavailableError as exc:
        raise ApiError(503, str(exc)) from None
    return ReadImage(image, valid_cards(result))


def overlay(image: DecodedImage, cards: tuple[DetectedCard, ...]) -> bytes:
    return encode_jpeg(draw_cards(image.bgr, cards))
