"""Frame sources and image decoding: real files written by the test."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from shanghai.vision.detections import Detections
from shanghai.vision.sources import SourceError, decode_image, frames, read_image, timed_frames


def _image(h: int = 48, w: int = 64) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, (h, w, 3), dtype=np.uint8)


def test_read_png_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    cv2.imwrite(str(path), _image())
    assert np.array_equal(read_image(path), _image())
    assert [f.shape for f in frames(str(path))] == [(48, 64, 3)]


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty"), (b"not an image at all", "not an image")],
)
def test_bad_bytes(content: bytes, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        decode_image(content)


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_a_truncated_image_is_refused(suffix: str) -> None:
    """Not scanned half grey: a phone upload cut short is taken again."""
    ok, data = cv2.imencode(suffix, _image(200, 200))
    assert ok
    with pytest.raises(SourceError, match="truncated or corrupt"):
        decode_image(data.tobytes()[: len(data) // 3])


def test_a_gif_is_refused_by_name() -> None:
    gif = io.BytesIO()
    Image.new("RGB", (20, 20)).save(gif, "GIF")
    with pytest.raises(SourceError, match="GIF images are not accepted"):
        decode_image(gif.getvalue())


def test_a_phone_photo_is_turned_upright_by_its_exif() -> None:
    """A phone stores a portrait photo landscape with an orientation tag; the scan must
    see it as the person did (and as the server's upload of the same file)."""
    image = Image.fromarray(_image(40, 60)[:, :, ::-1])
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to view
    data = io.BytesIO()
    image.save(data, "JPEG", exif=exif.tobytes())
    assert decode_image(data.getvalue()).shape == (60, 40, 3)


def test_pixel_limit() -> None:
    ok, data = cv2.imencode(".png", np.zeros((400, 500, 3), np.uint8))
    assert ok
    with pytest.raises(SourceError, match=r"the limit is 0\.1 megapixels"):
        decode_image(data.tobytes(), max_pixels=100_000)
    assert decode_image(data.tobytes(), max_pixels=300_000).shape == (400, 500, 3)


def test_video_file_frames(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), i * 40, np.uint8))
    writer.release()
    got = list(frames(str(path)))
    assert len(got) == 5 and got[0].shape == (48, 64, 3)
    assert len(list(frames(str(path), max_frames=2))) == 2


def test_a_video_file_keeps_its_own_clock(tmp_path: Path) -> None:
    """Timestamps come from the file's frame rate, so `watch` on a 4 fps clip holds a
    state for the clip's seconds, however fast the frames are processed."""
    path = tmp_path / "slow.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 4, (64, 48))
    for i in range(4):
        writer.write(np.full((48, 64, 3), i * 40, np.uint8))
    writer.release()
    assert [t for _, t in timed_frames(str(path))] == [0.0, 0.25, 0.5, 0.75]
    image = tmp_path / "one.png"
    cv2.imwrite(str(image), np.zeros((8, 8, 3), np.uint8))
    assert [t for _, t in timed_frames(str(image))] == [0.0]


def test_missing_sources_are_clear(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        list(frames(str(tmp_path / "nope.mp4")))
    with pytest.raises(SourceError, match="no such file"):
        read_image(tmp_path / "nope.jpg")
    with pytest.raises(SourceError, match="camera 57 could not be opened"):
        list(frames(57))
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(SourceError):
        list(frames(str(text)))


def test_detections_filter_and_validate() -> None:
    dets = Detections(
        np.array([[0, 0, 10, 10], [5, 5, 20, 30]]),
        np.array([0.9, 0.3]),
        np.array([0, 1]),
        ("index", "card"),
    )
    assert len(dets) == 2 and dets.class_names == ["index", "card"]
    strong = dets[dets.confidence > 0.5]
    assert len(strong) == 1 and strong.class_names == ["index"]
    assert np.allclose(dets.centers[1], [12.5, 17.5])
    assert len(dets.of_class("card")) == 1 and len(dets.of_class("joker")) == 0
    assert len(Detections.empty()) == 0
    with pytest.raises(ValueError, match="aligned"):
        Detections(np.zeros((2, 4)), np.zeros(1), np.zeros(2))
    with pytest.raises(ValueError, match="x2 >= x1"):
        Detections(np.array([[10, 0, 0, 10]]), np.ones(1), np.zeros(1))
