"""Frame sources: an image file, a video file, a webcam index or a stream URL.

All yield BGR uint8 arrays (H, W, 3). Opening fails with `SourceError` and a message a
person can act on ("camera 2 could not be opened"), never with an OpenCV assertion.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from .arrays import Frame
from .images import MAX_PIXELS, ImageRefused, decode

__all__ = [
    "IMAGE_SUFFIXES",
    "SourceError",
    "decode_image",
    "frames",
    "is_image_path",
    "read_image",
    "timed_frames",
]

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp"})
"""Names taken for images (the formats `images.ACCEPTED_FORMATS` decodes)."""
DEFAULT_FPS = 30.0
"""A video file's frame rate when its container does not say."""


class SourceError(ValueError):
    """A frame source could not be opened or read."""


def is_image_path(text: str) -> bool:
    return Path(text).suffix.lower() in IMAGE_SUFFIXES


def decode_image(data: bytes, *, max_pixels: int = MAX_PIXELS, what: str = "image") -> Frame:
    """Decode encoded image bytes to BGR (`images.decode`, as the server does), refusing
    non-images, corrupt and oversized ones with a `SourceError` naming `what`."""
    try:
        return decode(data, max_pixels=max_pixels).bgr
    except ImageRefused as exc:
        raise SourceError(f"{what}: {exc}") from None


def read_image(path: str | Path, *, max_pixels: int = MAX_PIXELS) -> Frame:
    """Read one image file as BGR."""
    path = Path(path)
    if not path.is_file():
        raise SourceError(f"{path}: no such file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read ({exc.strerror})") from None
    return decode_image(data, max_pixels=max_pixels, what=str(path))


def _capture(source: str | int) -> cv2.VideoCapture:
    capture = cv2.VideoCapture(source)
    if not capture.isOpened():
        capture.release()
        if isinstance(source, int):
            raise SourceError(f"camera {source} could not be opened (is it connected and free?)")
        raise SourceError(f"{source}: cannot open as a video or stream")
    return capture


def frames(source: str | int, *, max_frames: int | None = None) -> Iterator[Frame]:
    """Frames from any source. A digit string or int is a webcam index; an image path
    yields one frame; anything else goes to OpenCV (video file, rtsp/http URL)."""
    for frame, _seconds in timed_frames(source, max_frames=max_frames):
        yield frame


def timed_frames(
    source: str | int, *, max_frames: int | None = None
) -> Iterator[tuple[Frame, float]]:
    """Frames with their time in seconds: a video file's own clock (frame number over
    its frame rate, so a file plays the same at any processing speed), the wall clock
    since the first frame for a camera or stream, 0 for an image."""
    if isinstance(source, str) and source.isdigit():
        source = int(source)
    if isinstance(source, str) and is_image_path(source):
        yield read_image(source), 0.0
        return
    if isinstance(source, str) and "://" not in source and not Path(source).exists():
        raise SourceError(f"{source}: no such file")
    capture = _capture(source)
    is_file = isinstance(source, str) and "://" not in source
    fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
    if not 0 < fps < 1000:
        fps = DEFAULT_FPS
    start = time.monotonic()
    count = 0
    try:
        while max_frames is None or count < max_frames:
            ok, frame = capture.read()
            if not ok or frame is None:
                if count == 0:
                    raise SourceError(f"{source}: no frames could be read")
                return
            if frame.size == 0:
                continue
            seconds = count / fps if is_file else time.monotonic() - start
            count += 1
            yield np.ascontiguousarray(frame, dtype=np.uint8), seconds
    finally:
        capture.release()
