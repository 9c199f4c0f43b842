"""Procedural table surfaces: wood, felt, cloth, carpet, plain and (held out) stone.

A texture is generated in table millimetres (grain, weave and loop sizes are physical),
then warped by the camera like everything else on the table, so it shows the same
perspective and scale as the cards on it. Real photos show cards on carpet, wood,
fabric and dark cloth: those families get most of the weight.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["FAMILIES", "HELD_OUT_FAMILIES", "TRAIN_FAMILIES", "table_texture"]

Rng = np.random.Generator
Field = npt.NDArray[np.float32]
RGB = npt.NDArray[np.uint8]


def _noise(rng: Rng, n: int, mm_per_px: float, cell_x_mm: float, cell_y_mm: float) -> Field:
    """Smooth noise in [0, 1], (n, n), with features about `cell` millimetres across."""
    nx = int(np.clip(round(n * mm_per_px / cell_x_mm), 2, 2 * n))
    ny = int(np.clip(round(n * mm_per_px / cell_y_mm), 2, 2 * n))
    grid = rng.random((ny, nx), dtype=np.float32)
    # One axis at a time: cubic where the grid is enlarged, area-average where shrunk
    # (features finer than a pixel average out, as they do in a photo).
    grid = np.asarray(
        cv2.resize(grid, (nx, n), interpolation=cv2.INTER_CUBIC if ny < n else cv2.INTER_AREA),
        dtype=np.float32,
    )
    grid = np.asarray(
        cv2.resize(grid, (n, n), interpolation=cv2.INTER_CUBIC if nx < n else cv2.INTER_AREA),
        dtype=np.float32,
    )
    return np.clip(grid, 0.0, 1.0)


def _mix(a: tuple[float, float, float], b: tuple[float, float, float], t: Field) -> Field:
    ca, cb = np.array(a, np.float32), np.array(b, np.float32)
    return ca + (cb - ca) * t[..., None]


def _jitter(rng: Rng, colour: tuple[int, int, int], amount: float) -> tuple[float, float, float]:
    r, g, b = (float(np.clip(c * rng.uniform(1 - amount, 1 + amount), 0, 255)) for c in colour)
    return (r, g, b)


def _wood(rng: Rng, n: int, mmpp: float) -> Field:
    light, dark = [
        ((205, 160, 110), (150, 95, 55)),
        ((170, 110, 65), (105, 60, 30)),
        ((120, 75, 45), (60, 35, 20)),
        ((225, 195, 150), (180, 140, 95)),
        ((95, 60, 40), (45, 28, 20)),
    ][int(rng.integers(5))]
    y = (np.arange(n, dtype=np.float32) * mmpp)[:, None]
    warp = _noise(rng, n, mmpp, 120.0, 12.0) * rng.uniform(4, 14)
    period = rng.uniform(2.5, 7.0)
    rings = (np.sin(2 * np.pi * (y + warp) / period) + 1) / 2
    rings = rings ** rng.uniform(1.5, 4.0)
    fine = _noise(rng, n, mmpp, 30.0, 0.5)
    t = 0.55 * rings + 0.45 * fine
    plank = rng.uniform(70, 220)
    edge = np.abs(((y + plank / 2) % plank) - plank / 2) < max(0.6, mmpp)
    plank_id = np.floor(y / plank).astype(np.int32) % 7
    tint: Field = (0.9 + 0.2 * rng.random(7).astype(np.float32))[plank_id]
    rgb = _mix(_jitter(rng, light, 0.08), _jitter(rng, dark, 0.08), t) * tint[..., None]
    rgb[np.broadcast_to(edge, (n, n))] *= 0.55
    return rgb


def _felt(rng: Rng, n: int, mmpp: float) -> Field:
    colour = [
        (30, 105, 55),
        (20, 65, 115),
        (125, 25, 35),
        (60, 60, 65),
        (25, 25, 30),
        (35, 90, 95),
    ][int(rng.integers(6))]
    fine = _noise(rng, n, mmpp, 0.4, 0.4) - 0.5
    mottle = _noise(rng, n, mmpp, 50.0, 50.0) - 0.5
    base = np.array(_jitter(rng, colour, 0.15), np.float32)
    return base * (1 + 0.12 * fine + 0.1 * mottle)[..., None]


def _cloth(rng: Rng, n: int, mmpp: float) -> Field:
    colours = [
        (30, 30, 40),
        (20, 25, 60),
        (200, 195, 180),
        (150, 40, 40),
        (60, 90, 60),
        (120, 120, 130),
        (210, 200, 150),
        (40, 60, 110),
    ]
    a = _jitter(rng, colours[int(rng.integers(len(colours)))], 0.12)
    b = _jitter(rng, colours[int(rng.integers(len(colours)))], 0.12)
    x = (np.arange(n, dtype=np.float32) * mmpp)[None, :]
    y = (np.arange(n, dtype=np.float32) * mmpp)[:, None]
    pattern = int(rng.integers(4))
    if pattern == 0:  # plain weave
        t = np.zeros((n, n), np.float32)
    elif pattern == 1:  # gingham check
        size = rng.uniform(8, 30)
        t = ((np.floor(x / size) + np.floor(y / size)) % 2).astype(np.float32) * 0.8
    elif pattern == 2:  # plaid stripes
        size = rng.uniform(15, 50)
        t = 0.5 * ((x % size) < size * 0.3) + 0.5 * ((y % size) < size * 0.3)
        t = t.astype(np.float32)
    else:  # printed dots
        size = rng.uniform(10, 25)
        dx, dy = (x % size) - size / 2, (y % size) - size / 2
        t = ((dx**2 + dy**2) < (size * 0.2) ** 2).astype(np.float32)
    rgb = _mix(a, b, t)
    thread = rng.uniform(0.5, 1.4)
    if thread > 2.5 * mmpp:
        weave = np.sin(2 * np.pi * x / thread) * np.sin(2 * np.pi * y / thread)
        rgb *= (1 + 0.08 * weave)[..., None]
    folds = _noise(rng, n, mmpp, 120.0, 40.0) - 0.5
    return rgb * (1 + 0.25 * folds)[..., None]


def _carpet(rng: Rng, n: int, mmpp: float) -> Field:
    palettes = [
        [(120, 100, 80), (90, 75, 60), (150, 130, 110)],
        [(60, 60, 70), (40, 40, 48), (95, 95, 105)],
        [(140, 60, 50), (100, 40, 35), (180, 150, 120)],
        [(170, 160, 140), (130, 120, 105), (200, 195, 180)],
        [(40, 70, 100), (30, 45, 70), (120, 140, 160)],
    ]
    palette = palettes[int(rng.integers(len(palettes)))]
    loops = _noise(rng, n, mmpp, 1.2, 1.2)
    pick = np.digitize(loops, [0.35, 0.7])
    colours = np.array([_jitter(rng, c, 0.1) for c in palette], np.float32)
    rgb = colours[pick]
    speck = _noise(rng, n, mmpp, 0.5, 0.5) - 0.5
    pattern = _noise(rng, n, mmpp, 60.0, 60.0) - 0.5
    return rgb * (1 + 0.3 * speck + 0.25 * pattern)[..., None]


def _plain(rng: Rng, n: int, mmpp: float) -> Field:
    colour = [
        (235, 235, 230),
        (200, 200, 195),
        (215, 200, 175),
        (40, 40, 42),
        (160, 165, 170),
        (230, 225, 210),
    ][int(rng.integers(6))]
    noise = _noise(rng, n, mmpp, 2.0, 2.0) - 0.5
    return np.array(_jitter(rng, colour, 0.08), np.float32) * (1 + 0.03 * noise)[..., None]


def _stone(rng: Rng, n: int, mmpp: float) -> Field:
    base = _jitter(rng, [(150, 150, 150), (90, 85, 80), (215, 210, 200)][int(rng.integers(3))], 0.1)
    if rng.random() < 0.5:  # granite: specks at several scales
        rgb = np.full((n, n, 3), base, np.float32)
        for cell, shade in ((1.0, 0.45), (2.5, 1.5), (0.6, 0.7)):
            specks = _noise(rng, n, mmpp, cell, cell) > 0.78
            rgb[specks] *= shade
        return rgb
    turbulence = _noise(rng, n, mmpp, 80.0, 80.0) * 40 + _noise(rng, n, mmpp, 15.0, 15.0) * 8
    x = (np.arange(n, dtype=np.float32) * mmpp)[None, :]
    veins = np.asarray(np.abs(np.sin((x + turbulence) / rng.uniform(20, 60))) ** 0.25, np.float32)
    return np.array(base, np.float32) * (0.65 + 0.35 * veins)[..., None]


FAMILIES: dict[str, Callable[[Rng, int, float], Field]] = {
    "wood": _wood,
    "felt": _felt,
    "cloth": _cloth,
    "carpet": _carpet,
    "plain": _plain,
    "stone": _stone,
}
HELD_OUT_FAMILIES: tuple[str, ...] = ("stone",)
"""Background families used only in the test split."""
TRAIN_FAMILIES: tuple[str, ...] = tuple(f for f in FAMILIES if f not in HELD_OUT_FAMILIES)
FAMILY_WEIGHTS = {"wood": 3.0, "felt": 1.5, "cloth": 3.0, "carpet": 3.0, "plain": 1.5, "stone": 2.0}


def table_texture(family: str, rng: Rng, size: int, mm_per_px: float) -> RGB:
    """A (size, size, 3) RGB texture of `family` sampled at `mm_per_px`."""
    rgb = FAMILIES[family](rng, size, mm_per_px)
    return np.clip(rgb, 0, 255).astype(np.uint8)
