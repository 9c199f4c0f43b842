"""Live view: a small temporal filter for the table state, and the server-side camera.

`StableTable` keeps the cards read in the last few frames and reports those seen in
most of them, so a card missed or misread in one frame does not change the state.
(`shanghai.vision` is to provide a position-tracking smoother; this one needs nothing
but the card names and is what the server uses until then.)

`CameraFeed` reads a camera index or a video file with OpenCV in a thread, scans a few
frames a second with the app's scanner, and keeps the latest overlay and state.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from .annotate import draw_cards, encode_jpeg
from .scanning import CardScanner, ScannerUnavailableError, ScanResult
from .schemas import CameraStatus, LiveUpdate
from .views import detected_public

__all__ = ["CameraFeed", "StableTable", "live_update"]


class StableTable:
    """Cards present in at least `min_share` of the last `window` frames.

    Counted per name, so two 7h from two decks are two cards: the state holds k copies
    of a name when at least `min_share` of the frames show k or more.
    """

    def __init__(self, window: int = 8, min_share: float = 0.6) -> None:
        if window < 1 or not 0 < min_share <= 1:
            raise ValueError("window must be >= 1 and min_share in (0, 1]")
        self.window = window
        self.min_share = min_share
        self._frames: deque[Counter[str]] = deque(maxlen=window)

    def update(self, cards: Sequence[str]) -> None:
        self._frames.append(Counter(cards))

    def reset(self) -> None:
        self._frames.clear()

    @property
    def cards(self) -> list[str]:
        if not self._frames:
            return []
        need = self.min_share * len(self._frames)
        names = set().union(*self._frames)
        out: list[str] = []
        for name in sorted(names):
            counts = sorted((frame[name] for frame in self._frames), reverse=True)
            index = max(0, int(np.ceil(need)) - 1)
            out.extend([name] * counts[index])
        return out

    @property
    def stability(self) -> float:
        """Share of the window's frames that agree exactly with the state (0..1)."""
        if not self._frames:
            return 0.0
        state = Counter(self.cards)
        agree = sum(1 for frame in self._frames if frame == state)
        return agree / self.window

    @property
    def stable(self) -> bool:
        return len(self._frames) == self.window and self.stability >= self.min_share


def live_update(
    frame: int, width: int, height: int, result: ScanResult, table: StableTable
) -> LiveUpdate:
    return LiveUpdate(
        frame=frame,
        width=width,
        height=height,
        cards=detected_public(result.cards),
        melds=[list(m) for m in result.melds],
        stable_cards=table.cards,
        stability=round(table.stability, 3),
        stable=table.stable,
    )


class CameraFeed:
    """A server-side camera (`--camera 0`) or video file (looped), scanned in a thread."""

    def __init__(self, source: str, scanner: CardScanner, fps: float = 5.0) -> None:
        self.source = source
        self.scanner = scanner
        self.period = 1.0 / fps
        self.table = StableTable()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._jpeg: bytes | None = None
        self._update: LiveUpdate | None = None
        self.frames = 0
        self.error: str | None = None
        self.recognition: str | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="shanghai-camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def latest(self) -> tuple[bytes | None, LiveUpdate | None]:
        with self._lock:
            return self._jpeg, self._update

    def status(self) -> CameraStatus:
        return CameraStatus(
            source=self.source,
            running=self.running,
            frames=self.frames,
            error=self.error,
            recognition=self.recognition,
        )

    def _open(self) -> cv2.VideoCapture:
        target: str | int = int(self.source) if self.source.isdigit() else self.source
        capture = cv2.VideoCapture(target)
        if not capture.isOpened():
            capture.release()
            what = f"camera {target}" if isinstance(target, int) else f"video {target}"
            raise OSError(f"{what} could not be opened")
        return capture

    def _run(self) -> None:
        try:
            capture = self._open()
        except OSError as exc:
            self.error = str(exc)
            return
        is_file = not self.source.isdigit()
        try:
            while not self._stop.is_set():
                started = time.monotonic()
                ok, frame = capture.read()
                if not ok:
                    if is_file and self.frames:
                        capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
                        continue
                    self.error = "the camera stopped sending frames"
                    return
                self._process(np.ascontiguousarray(frame, dtype=np.uint8))
                self._stop.wait(max(0.0, self.period - (time.monotonic() - started)))
        finally:
            capture.release()

    def _process(self, frame: npt.NDArray[np.uint8]) -> None:
        self.frames += 1
        result = ScanResult(cards=())
        if self.recognition is None:
            try:
                result = self.scanner.scan(frame)
            except ScannerUnavailableError as exc:
                self.recognition = str(exc)
        self.table.update([c.card for c in result.cards])
        jpeg = encode_jpeg(draw_cards(frame, result.cards))
        update = live_update(self.frames, frame.shape[1], frame.shape[0], result, self.table)
        with self._lock:
            self._jpeg, self._update = jpeg, update
