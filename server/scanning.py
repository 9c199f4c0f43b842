"""What the server needs from card recognition, as a small typed interface.

The server never calls a model directly: every route that reads cards from an image
depends on a `CardScanner` obtained through `get_scanner` (tests swap it with
`app.dependency_overrides[get_scanner]`). The scanner is the scan contract of
`shanghai.vision.scan`: an image, the game's rules and what the photo shows in, a
`TableSnapshot` (engine cards with confidence, box and `sure`, seats, loose cards,
warnings) out; the CLI runs the same one, so a photo reads the same on the page and in
`shanghai score`. `default_scanner()` loads `PhotoScanner` when the model files are
installed (they ship in `models/`); without them the app's scanner is
`UnavailableScanner`, which says so: the routes answer 503 "card recognition model not
installed" instead of pretending to read cards.
"""

from __future__ import annotations

from typing import Annotated, Protocol, runtime_checkable

from fastapi import Depends
from fastapi.requests import HTTPConnection

from shanghai.engine.variants import Rules
from shanghai.vision.arrays import Frame
from shanghai.vision.regions import Reread
from shanghai.vision.snapshot import PhotoKind, TableSnapshot

__all__ = [
    "CardScanner",
    "ScannerDep",
    "ScannerUnavailableError",
    "UnavailableScanner",
    "default_scanner",
    "get_scanner",
]


class ScannerUnavailableError(RuntimeError):
    """No card recognition can run here (model not installed, camera-less build)."""


@runtime_checkable
class CardScanner(Protocol):
    """Reads the cards in one BGR image. Must be safe to call from several threads."""

    @property
    def name(self) -> str:
        """A short description of the model (shown with the evidence of each scan)."""
        ...

    def scan(
        self,
        image: Frame,
        *,
        rules: Rules | None = None,
        kind: PhotoKind = PhotoKind.HAND,
        seats: int = 1,
        reread: Reread | None = None,
    ) -> TableSnapshot:
        """Find and read every card; raise `ScannerUnavailableError` if it cannot run,
        `shanghai.vision.scan.ScanInputError` for an image that cannot hold a card.
        `reread`: a live view's memory, so a settled frame is located only where it
        changed (`shanghai.vision.regions`)."""
        ...


class UnavailableScanner:
    """The honest default while no recognition model is installed."""

    def __init__(self, reason: str = "card recognition model not installed") -> None:
        self.reason = reason

    @property
    def name(self) -> str:
        return "unavailable"

    def scan(
        self,
        image: Frame,
        *,
        rules: Rules | None = None,
        kind: PhotoKind = PhotoKind.HAND,
        seats: int = 1,
        reread: Reread | None = None,
    ) -> TableSnapshot:
        raise ScannerUnavailableError(self.reason)


def default_scanner() -> CardScanner:
    """The scanner the app uses unless told otherwise: the vision pipeline when its
    model files are installed (`models/cards-detector.onnx`, `models/cards-reader.onnx`),
    else `UnavailableScanner`, which says so."""
    from shanghai.vision.pipeline import models_installed

    if models_installed():
        from shanghai.vision.scan import PhotoScanner

        try:
            return PhotoScanner.load()
        except Exception as exc:  # a corrupt or incompatible model file: say so, serve on
            return UnavailableScanner(f"card recognition model could not be loaded: {exc}")
    return UnavailableScanner(
        "card recognition model not installed: enter the cards by text or clicks"
    )


def get_scanner(connection: HTTPConnection) -> CardScanner:
    scanner: CardScanner = connection.app.state.scanner
    return scanner


ScannerDep = Annotated[CardScanner, Depends(get_scanner)]
