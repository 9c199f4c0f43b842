"""`VisionScanner`: the vision pipeline behind the server's `CardScanner` interface.

One player's area per image (a photo of the cards a player shows): the pipeline's
snapshot of seat 0 becomes a `ScanResult` whose `melds` are that seat's rows laid as
melds (table order) and whose `hand` holds its loose cards. The models load once;
ONNX Runtime sessions may be run from several threads.
"""

from __future__ import annotations

from pathlib import Path

from shanghai.vision.pipeline import CardPipeline

from .scanning import BGRImage, DetectedCard, ScanResult

__all__ = ["VisionScanner"]


class VisionScanner:
    def __init__(self, pipeline: CardPipeline) -> None:
        self.pipeline = pipeline

    @classmethod
    def load(cls, models_dir: str | Path | None = None) -> VisionScanner:
        return cls(CardPipeline.load(models_dir))

    @property
    def name(self) -> str:
        """The kind of scanner; the model files it ran go in each `ScanResult.model`."""
        return "vision pipeline"

    def scan(self, image_bgr: BGRImage) -> ScanResult:
        snapshot = self.pipeline(image_bgr)
        cards = tuple(
            DetectedCard(card=str(c.card), confidence=float(c.confidence), xyxy=c.xyxy)
            for c in snapshot.cards
        )
        melds: tuple[tuple[int, ...], ...] = ()
        hand: tuple[int, ...] = ()
        if snapshot.seats:
            seat = snapshot.seats[0]
            melds, hand = seat.melds, seat.hand
        return ScanResult(cards=cards, melds=melds, hand=hand, model=self.pipeline.models.name)
