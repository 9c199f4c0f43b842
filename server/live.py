"""Live view: the table state of a stream of frames, and the server-side camera.

`LiveSession` is one live view (a websocket, the server camera): `shanghai watch`'s
`vision.live.LiveTable` with its change gate (`vision.motion.MotionGate`), so a frame
like the last one scanned is not scanned again, a frame in motion (a hand over the
table) keeps the last cards, and a change is scanned once it has held still for a frame.
The table state comes from `shanghai.vision.smoothing.TableTracker`: cards are followed
by position, so a card missed or misread in one frame does not change the state, and
the state is "stable" once it has held for `hold_seconds` (setting `live_hold_seconds`).
Each update names the frame its card boxes belong to (`LiveUpdate.frame`, the sender's
frame id), so a page draws a label only on the picture it was read from.

`CameraFeed` reads a camera index or a video file with OpenCV in a thread, scans a few
frames a second with the app's scanner, and keeps the latest overlay and state.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.engine import Rules
from shanghai.vision.arrays import Frame
from shanghai.vision.images import encode_jpeg
from shanghai.vision.live import LiveTable, settled_tracker
from shanghai.vision.motion import Look, MotionGate
from shanghai.vision.scan import ScanInputError
from shanghai.vision.smoothing import SmoothedState, TableTracker
from shanghai.vision.snapshot import PhotoKind, TableSnapshot

from .scan_service import EVIDENCE_OVERLAY
from .scanning import CardScanner, ScannerUnavailableError
from .schemas import CameraStatus, LiveTablePublic, LiveUpdate
from .views.live import live_table_public
from .views.scans import detected_public

__all__ = ["CameraFeed", "LiveGame", "LiveSession", "live_update", "new_tracker"]


def new_tracker(hold_seconds: float) -> TableTracker:
    """The table state of one live view (a websocket or the server camera)."""
    return TableTracker(hold_seconds=hold_seconds)


def live_update(
    frame: int, width: int, height: int, result: TableSnapshot, state: SmoothedState
) -> LiveUpdate:
    return LiveUpdate(
        frame=frame,
        width=width,
        height=height,
        cards=detected_public(result.cards),
        melds=[list(m) for seat in result.seats for m in seat.melds],
        stable_cards=state.names,
        stability=round(state.stability, 3),
        stable=state.stable,
    )


@dataclass(frozen=True, slots=True)
class LiveGame:
    """The game a live view shows: frames are read with its rules and a seat per
    player, and its stable table judged for the round in play (None: the game is over)."""

    game_id: int
    rules: Rules
    players: tuple[str, ...]
    round: int | None


class LiveSession:
    """One live view: frames in (with the sender's ids), `LiveUpdate`s out; the scanner
    runs only on settled changes (see the module doc). `settle_seconds` and
    `settle_frames`: how long, and for how many further frames, a change must hold
    still before it is scanned. `scans` counts the scanner's calls. With a `game`, each
    update also carries the latest stable table (`stable_table`), judged by its rules,
    whose `version` goes up only when the table changes."""

    def __init__(
        self,
        scanner: CardScanner,
        hold_seconds: float,
        *,
        settle_seconds: float = 0.0,
        settle_frames: int = 1,
        game: LiveGame | None = None,
    ) -> None:
        self.scanner = scanner
        self.game = game
        gate = MotionGate(settle_seconds=settle_seconds, settle_frames=settle_frames)
        self.table = LiveTable(self._scan, settled_tracker(hold_seconds), gate)
        self._read_id: int | None = None
        self.stable_table: LiveTablePublic | None = None
        self._judged: TableSnapshot | None = None

    @property
    def scans(self) -> int:
        return self.table.reads

    def _scan(self, frame: Frame) -> TableSnapshot:
        """A settled frame, located again only where it changed (`regions.reread`)."""
        memory = self.table.reread
        if self.game is None:
            return self.scanner.scan(frame, kind=PhotoKind.TABLE, reread=memory)
        return self.scanner.scan(
            frame,
            rules=self.game.rules,
            kind=PhotoKind.TABLE,
            seats=len(self.game.players),
            reread=memory,
        )

    def _judge(self, snapshot: TableSnapshot, names: Sequence[str], frame_id: int) -> None:
        """A stable read not judged yet becomes the stable table (a new version only
        when what it shows changed)."""
        if self.game is None or snapshot is self._judged:
            return
        self._judged = snapshot
        old = self.stable_table
        version = old.version if old is not None else 0
        table = live_table_public(
            snapshot,
            self.game.rules,
            self.game.players,
            self.game.round,
            stable_cards=names,
            frame=frame_id,
            version=version,
        )
        if old is None or table.model_dump(exclude={"frame"}) != old.model_dump(exclude={"frame"}):
            self.stable_table = table.model_copy(update={"version": version + 1})

    def update(self, frame: Frame, frame_id: int, timestamp: float) -> LiveUpdate:
        """Raises what the scanner raises (`ScanInputError`, `ScannerUnavailableError`);
        the frame is then looked at again when it comes next."""
        state = self.table.update(frame, timestamp)
        if state.look is Look.SETTLED:
            self._read_id = frame_id
        # The boxes belong to this frame unless it moved since they were read.
        belongs = frame_id if state.look is not Look.MOVING else self._read_id
        if state.smoothed.stable and self._read_id is not None:
            self._judge(state.snapshot, state.smoothed.names, self._read_id)
        height, width = frame.shape[:2]
        update = live_update(
            frame_id if belongs is None else belongs, width, height, state.snapshot, state.smoothed
        )
        return update.model_copy(update={"table": self.stable_table})


class CameraFeed:
    """A server-side camera (`--camera 0`) or video file (looped), scanned in a thread."""

    def __init__(
        self, source: str, scanner: CardScanner, fps: float = 5.0, hold_seconds: float = 1.0
    ) -> None:
        self.source = source
        self.scanner = scanner
        self.period = 1.0 / fps
        self.session = LiveSession(scanner, hold_seconds, settle_seconds=0.2)
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
        update = live_update(self.frames, frame.shape[1], frame.shape[0], _EMPTY, _NOTHING)
        result: TableSnapshot | None = None
        if self.recognition is None:
            try:
                update = self.session.update(frame, self.frames, time.monotonic())
                result = self.session.table.last
            except ScannerUnavailableError as exc:
                self.recognition = str(exc)
            except ScanInputError as exc:
                self.error = str(exc)
        shown = result if result is not None and update.frame == self.frames else None
        jpeg = encode_jpeg(EVIDENCE_OVERLAY.annotate(frame, shown or _EMPTY))
        with self._lock:
            self._jpeg, self._update = jpeg, update


_EMPTY = TableSnapshot(0, 0, (), ())
_NOTHING = SmoothedState((), changed=False, stable=False, stable_for=0.0, stability=0.0)
