"""Things that lie on a card table besides cards: chips, pens, score pads, coins, a
phone, a mug, fingers. They occlude cards (so indices get hidden for real reasons) and
give the detector hard negatives (a score pad full of digits is not a card index).

Each sprite is RGBA (RGB order, like the faces), drawn at `PX_PER_MM` pixels per
millimetre, and placed on the table like a card.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["CLUTTER", "PX_PER_MM", "make_clutter"]

PX_PER_MM = 2.0
RGBA = npt.NDArray[np.uint8]
Rng = np.random.Generator


def _canvas(w_mm: float, h_mm: float) -> RGBA:
    return np.zeros((int(h_mm * PX_PER_MM), int(w_mm * PX_PER_MM), 4), np.uint8)


def _colour(rng: Rng) -> tuple[int, int, int, int]:
    r, g, b = (int(v) for v in rng.integers(20, 235, 3))
    return (r, g, b, 255)


def _chip(rng: Rng) -> RGBA:
    d = rng.uniform(36, 42)
    img = _canvas(d, d)
    c = img.shape[0] // 2
    colour = [
        (200, 30, 30, 255),
        (30, 30, 160, 255),
        (30, 130, 50, 255),
        (20, 20, 20, 255),
        (235, 235, 230, 255),
    ][int(rng.integers(5))]
    cv2.circle(img, (c, c), c - 1, colour, -1, cv2.LINE_AA)
    for k in range(6):
        a = k * math.pi / 3
        p = (int(c + 0.85 * c * math.cos(a)), int(c + 0.85 * c * math.sin(a)))
        cv2.circle(img, p, max(2, c // 7), (245, 245, 240, 255), -1, cv2.LINE_AA)
    cv2.circle(img, (c, c), int(c * 0.6), (245, 245, 240, 255), 2, cv2.LINE_AA)
    return img


def _coin(rng: Rng) -> RGBA:
    d = rng.uniform(17, 27)
    img = _canvas(d, d)
    c = img.shape[0] // 2
    tone = [(190, 150, 60, 255), (170, 170, 175, 255), (160, 110, 50, 255)][int(rng.integers(3))]
    cv2.circle(img, (c, c), c - 1, tone, -1, cv2.LINE_AA)
    cv2.circle(img, (c, c), int(c * 0.8), (*(int(v * 0.8) for v in tone[:3]), 255), 1)
    return img


def _pen(rng: Rng) -> RGBA:
    length, width = rng.uniform(120, 150), rng.uniform(8, 12)
    img = _canvas(length, width)
    h, w = img.shape[:2]
    body = _colour(rng)
    cv2.rectangle(img, (int(h * 0.6), 1), (w - 2, h - 2), body, -1)
    tip = np.array([[0, h // 2], [int(h * 0.6), 1], [int(h * 0.6), h - 2]], np.int32)
    cv2.fillConvexPoly(img, tip, (200, 200, 200, 255), cv2.LINE_AA)
    cv2.rectangle(img, (int(w * 0.7), 0), (w - 2, h // 3), (40, 40, 40, 255), -1)
    cv2.line(img, (int(h * 0.6), h // 3), (w - 4, h // 3), (255, 255, 255, 120), 1)
    return img


def _score_pad(rng: Rng) -> RGBA:
    w_mm, h_mm = rng.uniform(90, 150), rng.uniform(130, 210)
    img = _canvas(w_mm, h_mm)
    h, w = img.shape[:2]
    paper = (
        int(rng.uniform(225, 250)),
        int(rng.uniform(235, 250)),
        int(rng.uniform(235, 252)),
        255,
    )
    img[:] = paper
    step = int(rng.uniform(6, 9) * PX_PER_MM)
    for y in range(step * 2, h, step):
        cv2.line(img, (0, y), (w, y), (200, 160, 120, 255), 1)
    cv2.line(img, (w // 3, 0), (w // 3, h), (120, 120, 220, 255), 1)
    ink = [(30, 30, 30, 255), (140, 40, 30, 255), (30, 30, 150, 255)][int(rng.integers(3))]
    font = [cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN][
        int(rng.integers(3))
    ]
    for y in range(step * 3, h - step, step):
        if rng.random() < 0.75:
            text = str(int(rng.integers(0, 400)))
            cv2.putText(img, text, (w // 3 + 6, y - 2), font, step / 24, ink, 1, cv2.LINE_AA)
        if rng.random() < 0.4:
            name = "".join(chr(int(rng.integers(97, 123))) for _ in range(int(rng.integers(3, 7))))
            cv2.putText(img, name, (4, y - 2), font, step / 26, ink, 1, cv2.LINE_AA)
    return img


def _phone(rng: Rng) -> RGBA:
    img = _canvas(72, 150)
    h, w = img.shape[:2]
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (25, 25, 28, 255), -1)
    cv2.rectangle(img, (6, 12), (w - 7, h - 13), (int(rng.uniform(30, 90)),) * 3 + (255,), -1)
    return img


def _mug(rng: Rng) -> RGBA:
    d = rng.uniform(80, 95)
    img = _canvas(d + 30, d)
    c = img.shape[0] // 2
    colour = _colour(rng)
    cv2.ellipse(img, (img.shape[1] - c // 3, c), (c // 3, c // 5), 0, 0, 360, colour, 8)
    cv2.circle(img, (c, c), c - 1, colour, -1, cv2.LINE_AA)
    cv2.circle(img, (c, c), int(c * 0.85), (90, 60, 40, 255), -1, cv2.LINE_AA)
    return img


def _fingers(rng: Rng) -> RGBA:
    """A few fingers reaching in, as when someone points at or straightens a meld."""
    img = _canvas(120, 110)
    h = img.shape[0]
    skin = [(225, 180, 150), (200, 150, 110), (150, 100, 70), (100, 65, 45)][int(rng.integers(4))]
    colour = (*skin, 255)
    for k in range(int(rng.integers(1, 5))):
        x = int((10 + k * 22) * PX_PER_MM)
        length = int(rng.uniform(50, 80) * PX_PER_MM)
        cv2.line(img, (x, h - 1), (x, h - length), colour, int(16 * PX_PER_MM))
        cv2.circle(img, (x, h - length), int(8 * PX_PER_MM), colour, -1, cv2.LINE_AA)
    return img


CLUTTER: dict[str, Callable[[Rng], RGBA]] = {
    "chip": _chip,
    "coin": _coin,
    "pen": _pen,
    "score_pad": _score_pad,
    "phone": _phone,
    "mug": _mug,
    "fingers": _fingers,
}
_WEIGHTS = {
    "chip": 3,
    "coin": 2,
    "pen": 2,
    "score_pad": 1.5,
    "phone": 0.7,
    "mug": 0.5,
    "fingers": 1,
}


def make_clutter(rng: Rng) -> tuple[str, RGBA]:
    """One random clutter sprite (name, RGBA at `PX_PER_MM`)."""
    names = list(_WEIGHTS)
    p = np.array([_WEIGHTS[n] for n in names], np.float64)
    name = names[int(rng.choice(len(names), p=p / p.sum()))]
    return name, CLUTTER[name](rng)
