"""What the camera and the room do to the picture: uneven light, shadows, glare,
colour casts, focus and motion blur, sensor noise and JPEG.

All effects act on the finished frame (BGR uint8, (H, W, 3)) and never move a pixel
far, so the geometry the labels were computed from still holds; readability after the
effects is checked separately (`labels.index_contrast`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.vision.arrays import Frame

__all__ = ["apply_effects", "jpeg_roundtrip", "motion_kernel"]

Field = npt.NDArray[np.float32]


def _light_field(rng: np.random.Generator, h: int, w: int) -> Field:
    """A multiplicative light field: a linear gradient, a vignette and maybe a shadow."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx, yy = xx / w - 0.5, yy / h - 0.5
    angle = rng.uniform(0, 2 * math.pi)
    ramp = xx * math.cos(angle) + yy * math.sin(angle)
    gain: Field = rng.uniform(0.75, 1.1) + ramp * rng.uniform(0.0, 0.6)
    gain = gain - rng.uniform(0, 0.4) * (xx**2 + yy**2)
    if rng.random() < 0.35:  # a soft shadow of an arm, a phone or a lamp
        shadow = np.zeros((h, w), np.float32)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        axes = (int(rng.uniform(0.1, 0.5) * w), int(rng.uniform(0.05, 0.25) * h))
        cv2.ellipse(shadow, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        blur = max(3, int(min(h, w) * rng.uniform(0.02, 0.08))) | 1
        shadow = np.asarray(cv2.GaussianBlur(shadow, (blur, blur), 0), dtype=np.float32)
        gain = gain * (1 - rng.uniform(0.2, 0.45) * shadow)
    return gain.astype(np.float32)


def _glare(rng: np.random.Generator, h: int, w: int) -> Field:
    """An additive specular highlight, as a lamp reflects off glossy cards."""
    glare = np.zeros((h, w), np.float32)
    axes = (int(rng.uniform(0.04, 0.2) * w), int(rng.uniform(0.03, 0.15) * h))
    centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    cv2.ellipse(glare, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
    blur = max(3, int(max(axes) * 0.8)) | 1
    return cv2.GaussianBlur(glare, (blur, blur), 0) * rng.uniform(60, 140)


def motion_kernel(length: int, angle: float) -> npt.NDArray[np.float32]:
    """A straight smear `length` pixels long at `angle` (radians): a hand that shakes."""
    kernel = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    dx, dy = math.cos(angle) * c, math.sin(angle) * c
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return kernel / max(float(kernel.sum()), 1e-6)


def apply_effects(image: Frame, rng: np.random.Generator) -> tuple[Frame, float]:
    """Light, colour, blur and noise on a BGR frame; returns the new uint8 frame and the
    blur's reach in pixels (so labels can drop indices the blur made unreadable).

    The smooth fields (light, shadow, glare) are computed at 1/8 resolution and
    enlarged, and the sensor noise at 1/2 resolution (real noise is correlated by
    demosaicing and compression anyway): the effects cost little next to the warps.
    """
    h, w = image.shape[:2]
    sh, sw = max(8, h // 8), max(8, w // 8)
    field = _light_field(rng, sh, sw)
    glare = _glare(rng, sh, sw) if rng.random() < 0.3 else None
    out = image.astype(np.float32)
    cast = np.array([rng.normal(1, 0.06), rng.normal(1, 0.04), rng.normal(1, 0.06)], np.float32)
    gain = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)
    out *= gain[..., None]
    out *= cast
    if glare is not None:
        out += cv2.resize(glare, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    scale = min(h, w) / 720.0
    roll = rng.random()
    blur_px = 0.0
    if roll < 0.35:
        sigma = rng.uniform(0.4, 1.5) * scale
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), sigma), dtype=np.float32)
        blur_px = 2 * sigma
    elif roll < 0.6:
        length = max(3, int(rng.uniform(3, 10) * scale)) | 1
        kernel = motion_kernel(length, rng.uniform(0, math.pi))
        out = np.asarray(cv2.filter2D(out, -1, kernel), dtype=np.float32)
        blur_px = float(length)
    sigma_noise = rng.uniform(0.5, 7.0)
    noise = rng.standard_normal(((h + 1) // 2, (w + 1) // 2, 3), dtype=np.float32)
    out += cv2.resize(noise, (w, h), interpolation=cv2.INTER_NEAREST) * sigma_noise
    return np.clip(out, 0, 255).astype(np.uint8), blur_px


def jpeg_roundtrip(image: Frame, quality: int) -> tuple[Frame, bytes]:
    """Encode as JPEG at `quality`; returns the decoded frame and the file bytes."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if decoded is None:
        raise RuntimeError("JPEG decoding failed")
    return decoded.astype(np.uint8), data.tobytes()
