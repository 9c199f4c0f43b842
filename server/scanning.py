"""What the server needs from card recognition, as a small typed interface.

The server never calls a model directly: every route that reads cards from an image
depends on a `CardScanner` obtained through `get_scanner` (tests swap it with
`app.dependency_overrides[get_scanner]`). `default_scanner()` returns the vision
pipeline's adapter (`vision_scanner.VisionScanner`) when the model files are installed
(they ship in `models/`); without them the app's scanner is `UnavailableScanner`, which
says so: the routes answer 503 "card recognition model not installed" instead of
pretending to read cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
from fastapi import Depends
from fastapi.requests import HTTPConnection

__all__ = [
    "CardScanner",
    "DetectedCard",
    "ScanResult",
    "ScannerDep",
    "ScannerUnavailableError",
    "UnavailableScanner",
    "default_scanner",
    "get_scanner",
]

BGRImage = npt.NDArray[np.uint8]
"""(H, W, 3) uint8, OpenCV channel order."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DetectedCard:
    """One physical card read in a frame.

    `card` is in the engine's notation (`7h`, `10s`, `JK`, `5R`, `ROOK`); `xyxy` is its
    box (or its index corner's box) in pixels of the scanned image.
    """

    card: str
    confidence: float
    xyxy: tuple[float, float, float, float]


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanResult:
    """Everything read in one image.

    `melds` groups indices into `cards` as the layout shows them (rows or fans on the
    table), in table order; empty when the scanner does not group (the engine then
    searches for a grouping). `hand` lists the indices of loose cards (cards left in
    a hand); empty means all of `cards`.
    """

    cards: tuple[DetectedCard, ...]
    melds: tuple[tuple[int, ...], ...] = ()
    hand: tuple[int, ...] = ()
    model: str = field(default="unknown")

    def __post_init__(self) -> None:
        count = len(self.cards)
        for index in (*self.hand, *(i for meld in self.melds for i in meld)):
            if not 0 <= index < count:
                raise ValueError(f"scan result refers to card {index}; it has {count}")

    @property
    def hand_cards(self) -> list[str]:
        indices = self.hand or tuple(range(len(self.cards)))
        return [self.cards[i].card for i in indices]


class ScannerUnavailableError(RuntimeError):
    """No card recognition can run here (model not installed, camera-less build)."""


@runtime_checkable
class CardScanner(Protocol):
    """Reads the cards in one BGR image. Must be safe to call from several threads."""

    @property
    def name(self) -> str:
        """A short description of the model (shown with the evidence of each scan)."""
        ...

    def scan(self, image_bgr: BGRImage) -> ScanResult:
        """Find and read every card; raise `ScannerUnavailableError` if it cannot run."""
        ...


class UnavailableScanner:
    """The honest default while no recognition model is installed."""

    def __init__(self, reason: str = "card recognition model not installed") -> None:
        self.reason = reason

    @property
    def name(self) -> str:
        return "unavailable"

    def scan(self, image_bgr: BGRImage) -> ScanResult:
        raise ScannerUnavailableError(self.reason)


def default_scanner() -> CardScanner:
    """The scanner the app uses unless told otherwise: the vision pipeline when its
    model files are installed (`models/cards-detector.onnx`, `models/cards-reader.onnx`),
    else `UnavailableScanner`, which says so."""
    from shanghai.vision.pipeline import models_installed

    if models_installed():
        from .vision_scanner import VisionScanner

        try:
            return VisionScanner.load()
        except Exception as exc:  # a corrupt or incompatible model file: say so, serve on
            return UnavailableScanner(f"card recognition model could not be loaded: {exc}")
    return UnavailableScanner(
        "card recognition model not installed: enter the cards by text or clicks"
    )


def get_scanner(connection: HTTPConnection) -> CardScanner:
    scanner: CardScanner = connection.app.state.scanner
    return scanner


ScannerDep = Annotated[CardScanner, Depends(get_scanner)]
