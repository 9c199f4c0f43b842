"""Read a shaken photo's indices a second time with the shake taken out.

A hand that moves while the shutter is open smears the whole photo along one short
stroke; a lens that missed its focus blurs it round. Either way the smear is one
kernel for the whole frame, so it can be found once per photo and undone on each index
crop by a Wiener deconvolution (`IndexPatch`). Which kernel: the one of `shakes()` (those
a frame of the photo's size can take: `Shake.fits`) under which the reader is surest of
the photo's located indices on average (locating x reading: `find_shake`). A sharp
photo's reads gain next to nothing from any kernel, so a photo whose best kernel gains
less than `LEAST_GAIN` is left as it is.

Why the reads are then the mean of each crop as cut and as unshaken, not the unshaken
crop alone: the deconvolution rings around strong edges, and where the smear had left
an index readable, the ringing can mislead the reader. Two views that disagree make a
doubtful read (marked, or left unread), not a wrong one. On the two kept validation
decks (80 hand photos each, `tests/benchmarks/deck_teach.py --keep`, docs/decks.md
2026-12-05, seventh session), cards read right and wrong: rook-teach-band 408 / 8 (one
unmarked) -> 414 / 5 (none), code-unseen-00 401 / 7 -> 407 / 8; the photos held still
read as before. Probed on the Rook deck with a finer search (git-ignored
`data/exp/deblur_*.py`): the unshaken crop alone read 418 right and 15 wrong, and the
whole photo deconvolved before locating (so the locator saw it sharp too) 420 / 12,
against 417 / 7 for the mean; the true kernels (the renderer's) in place of the
searched ones read no more.

Only for a taught deck's stills (`CardModels.unshakes`). With the shipped models it
read 4 more of 200 validation hands right (each split), but on the team's real photos,
none shaken, it turned 2 of 296 hands read right wrong and tripled the scan's time
(docs/decks.md, 2026-12-05, eighth session). A live view reads too often to pay for it.
The shake found is kept with the reads (`FrameReads.shake`): the scan names it as the
reason for what it could not read (`scan.SHAKEN_SHARE`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from .arrays import Frame, as_box
from .crops import CROP_CONTEXT, square_crop

Read = Callable[[list[Frame]], npt.NDArray[np.float32]]
"""A reader: crops in, (N, classes) probabilities out."""

__all__ = [
    "LEAST_GAIN",
    "LONGEST_SHARE",
    "NOISE",
    "SEARCH_BOXES",
    "IndexPatch",
    "Read",
    "Shake",
    "find_shake",
    "shakes",
    "unshaken_reads",
]

NOISE = 0.1
"""The Wiener filter's noise-to-signal term. The validation Rook deck's photos smeared
by a motion, deconvolved whole with their true kernels (the renderer's): of 92 cards,
73 read right as taken; 72 at 0.01 (the noise rang), 82 at 0.03, 83 at 0.1."""
LEAST_GAIN = 0.02
"""Least rise in the photo's mean locating x reading for its best kernel to be used;
chosen on the validation Rook deck's probe (`data/exp/deblur_margin.py`): 0.01 and 0.02
read the most cards right, 0.05 three fewer, with about as many wrong."""
SEARCH_BOXES = 16
"""At most this many located indices, the surest located first, judge a kernel: what
the search costs is kernels x boxes reads."""
LENGTHS = (5, 9, 15, 23)
"""Motion lengths (pixels) tried first, each at every `ANGLE_STEP`; the best is then
refined to its neighbours. The renderer shakes 3-10 px per 720 px of the photo's short
side, so 3-34 px on 12-megapixel photos."""
ANGLE_STEP = 22.5
SIGMAS = (1.0, 2.0, 3.0)
"""Focus blurs (Gaussian sigma, pixels) tried first."""
LONGEST_SHARE = 0.015
"""Longest shake tried, as a share of the photo's short side. A shake is a turn of the
camera, so its length in pixels grows with the frame: the renderer's reach 10 px per
720 (0.014). Without this bound, on the team's real photos (`real-dev`: 378x504 phone
photos and 960x540 webcam frames, none shaken; read with a deck taught on them) the
search found 9-23 px "shakes" on small photos and the hands read right fell from 94.6%
to 91.9%, none silent either way (docs/decks.md, 2026-12-05, seventh session)."""
WIDEST_SHARE = 0.0021
"""Widest focus blur tried (Gaussian sigma), as a share of the short side: the
renderer's reach 1.5 px per 720."""


@dataclass(frozen=True, slots=True)
class Shake:
    """A straight smear `length` pixels long at `angle` degrees (image x right, y down),
    or, with `length` 0, a round focus blur of `sigma` pixels."""

    length: int = 0
    angle: float = 0.0
    sigma: float = 0.0

    def __post_init__(self) -> None:
        if self.length < 0 or self.sigma < 0 or (self.length == 0) == (self.sigma == 0):
            raise ValueError("a shake is a motion length or a focus sigma, not both")

    def kernel(self) -> npt.NDArray[np.float32]:
        """The point spread function, summing to 1."""
        if self.length:
            size = self.length | 1
            kernel = np.zeros((size, size), np.float32)
            c = (size - 1) / 2
            dx = math.cos(math.radians(self.angle)) * (self.length - 1) / 2
            dy = math.sin(math.radians(self.angle)) * (self.length - 1) / 2
            start = (round(c - dx), round(c - dy))
            cv2.line(kernel, start, (round(c + dx), round(c + dy)), 1.0, 1)
        else:
            radius = max(1, math.ceil(3 * self.sigma))
            line = cv2.getGaussianKernel(2 * radius + 1, self.sigma)
            kernel = (line @ line.T).astype(np.float32)
        return kernel / max(float(kernel.sum()), 1e-6)

    @property
    def smear(self) -> float:
        """How far the shake spreads a point, in pixels: the motion's length, or twice
        the focus blur's sigma (the renderer's `blur_px` measure)."""
        return float(self.length) if self.length else 2 * self.sigma

    def fits(self, short_side: int) -> bool:
        """Whether a photo `short_side` pixels high can be smeared this much
        (`LONGEST_SHARE`, `WIDEST_SHARE`)."""
        if self.length:
            return self.length <= LONGEST_SHARE * short_side
        return self.sigma <= WIDEST_SHARE * short_side

    def __str__(self) -> str:
        if self.length:
            return f"a {self.length} px shake at {self.angle:g} degrees"
        return f"a {self.sigma:g} px focus blur"


def shakes(short_side: int) -> list[Shake]:
    """The first kernels `find_shake` tries on a photo `short_side` pixels high."""
    angles = np.arange(0.0, 180.0, ANGLE_STEP)
    every = [Shake(length=n, angle=float(a)) for n in LENGTHS for a in angles]
    return [s for s in every + [Shake(sigma=s) for s in SIGMAS] if s.fits(short_side)]


def _neighbours(best: Shake) -> list[Shake]:
    """The kernels around the best first one: lengths a step apart (the step grows with
    the length), angles half an `ANGLE_STEP` either way; sigmas a quarter apart."""
    if not best.length:
        return [Shake(sigma=best.sigma * f) for f in (0.75, 1.25)]
    step = max(2, best.length // 4)
    half = ANGLE_STEP / 2
    return [
        Shake(length=n, angle=(best.angle + da) % 180.0)
        for n in (best.length - step, best.length, best.length + step)
        for da in (-half, 0.0, half)
        if n >= 3 and (n, da) != (best.length, 0.0)
    ]


REACH = 24
"""Pixels of the photo kept around an index's crop square when it is deconvolved: more
than the largest kernel's half, so what the kernel smeared into the square is there to
be gathered back."""
MIRROR = 16
"""Pixels mirrored around that neighbourhood: the deconvolution treats it as periodic,
and a mirrored border has no jump for it to ring from."""


@functools.lru_cache(maxsize=1024)
def _wiener(rows: int, cols: int, shake: Shake) -> npt.NDArray[np.float32]:
    """The Wiener filter of `shake` at (rows, cols), 2 channels (re, im) to be taken
    conjugate: the kernel's spectrum over |spectrum|^2 + `NOISE`. Shared by every index
    of that size, so an index's deconvolution is one product per channel."""
    kernel = shake.kernel()
    psf = np.zeros((rows, cols), np.float32)
    psf[: kernel.shape[0], : kernel.shape[1]] = kernel
    psf = np.roll(psf, (-(kernel.shape[0] // 2), -(kernel.shape[1] // 2)), axis=(0, 1))
    spread = cv2.dft(psf, flags=cv2.DFT_COMPLEX_OUTPUT)
    power = spread[..., 0] ** 2 + spread[..., 1] ** 2 + NOISE
    return np.asarray(spread / power[..., None], np.float32)


class IndexPatch:
    """One located index's neighbourhood, its spectrum taken once for every kernel
    `find_shake` tries on it: a photo costs its indices' area, not its own."""

    def __init__(self, image: Frame, box_xyxy: tuple[float, float, float, float]) -> None:
        x0, y0, x1, y1 = box_xyxy
        half = max(x1 - x0, y1 - y0) * CROP_CONTEXT / 2 + REACH
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        left, top = int(cx - half), int(cy - half)
        right, bottom = int(cx + half) + 1, int(cy + half) + 1
        height, width = image.shape[:2]
        inside = image[max(0, top) : min(height, bottom), max(0, left) : min(width, right)]
        if inside.size == 0:
            inside = np.zeros((1, 1, 3), np.uint8)
        patch = cv2.copyMakeBorder(
            inside,
            max(0, -top),
            max(0, bottom - height),
            max(0, -left),
            max(0, right - width),
            cv2.BORDER_REPLICATE,
        )
        rows = cv2.getOptimalDFTSize(patch.shape[0] + 2 * MIRROR)
        cols = cv2.getOptimalDFTSize(patch.shape[1] + 2 * MIRROR)
        below, after = rows - patch.shape[0] - MIRROR, cols - patch.shape[1] - MIRROR
        padded = cv2.copyMakeBorder(patch, MIRROR, below, MIRROR, after, cv2.BORDER_REFLECT)
        self.box_xyxy = (
            x0 - left + MIRROR,
            y0 - top + MIRROR,
            x1 - left + MIRROR,
            y1 - top + MIRROR,
        )
        self.shape = (rows, cols)
        self.spectra = [
            cv2.dft(np.ascontiguousarray(padded[..., c], np.float32), flags=cv2.DFT_COMPLEX_OUTPUT)
            for c in range(3)
        ]

    def crop(self, shake: Shake) -> Frame:
        """The index's crop (`crops.square_crop`) with `shake` Wiener-deconvolved."""
        wiener = _wiener(*self.shape, shake)
        channels = []
        for spectrum in self.spectra:
            product = cv2.mulSpectrums(spectrum, wiener, 0, conjB=True)
            channels.append(cv2.idft(product, flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT))
        sharp = np.clip(cv2.merge(channels), 0, 255).astype(np.uint8)
        return square_crop(sharp, self.box_xyxy)


def find_shake(
    image: Frame,
    boxes_xyxy: npt.NDArray[np.float32],
    located: npt.NDArray[np.float32],
    read: Read,
) -> Shake | None:
    """The kernel under which `read` is surest of the photo's located indices (the mean
    of locating confidence `located` x the read's top probability), or None when none
    gains `LEAST_GAIN` over the crops as cut. A photo whose crops as cut are read so
    surely that no kernel could gain that much is not searched at all."""
    if len(boxes_xyxy) == 0:
        return None
    order = np.argsort(-located)[:SEARCH_BOXES]
    boxes = [as_box(boxes_xyxy[i]) for i in order]
    weights = located[order].astype(np.float64)

    def score(probabilities: npt.NDArray[np.float32]) -> float:
        return float(np.mean(weights * probabilities.max(axis=1)))

    as_cut = read([square_crop(image, box) for box in boxes])
    baseline = score(as_cut)
    if float(np.mean(weights)) - baseline < LEAST_GAIN:
        return None
    patches = [IndexPatch(image, box) for box in boxes]

    def unshaken(shake: Shake) -> float:
        return score(read([patch.crop(shake) for patch in patches]))

    side = min(image.shape[:2])
    tried: dict[Shake, float] = {s: unshaken(s) for s in shakes(side)}
    if not tried:
        return None
    first = max(tried, key=tried.__getitem__)
    nearby = [s for s in _neighbours(first) if s.fits(side) and s not in tried]
    tried.update({s: unshaken(s) for s in nearby})
    best = max(tried, key=tried.__getitem__)
    return best if tried[best] - baseline >= LEAST_GAIN else None


def unshaken_reads(
    image: Frame,
    boxes_xyxy: npt.NDArray[np.float32],
    located: npt.NDArray[np.float32],
    as_cut: npt.NDArray[np.float32],
    read: Read,
    search: Read | None = None,
) -> tuple[npt.NDArray[np.float32], Shake | None]:
    """The indices' probabilities: `as_cut` (`read`'s of the crops as cut), or, when
    the photo is shaken (`find_shake` by `search`, a cheaper read; default `read`), the
    mean of `as_cut` and `read`'s of the unshaken crops."""
    shake = find_shake(image, boxes_xyxy, located, search or read)
    if shake is None:
        return as_cut, None
    unshaken = read([IndexPatch(image, as_box(box)).crop(shake) for box in boxes_xyxy])
    return ((as_cut + unshaken) / 2).astype(np.float32), shake
