"""A taught deck's reading: a small head on the shipped reader's embedding, in numpy.

The shipped reader (`onnx_models.OnnxClassifier` with its `embedding` output) maps an
index crop to D pooled features and then, through its last Linear, to probabilities
over every card class. A deck's own print (its font, its joker, its edition of Rook)
can land where the shipped Linear reads another card. Adaptation keeps the reader and
fits a new head on the features of the deck's enrolled index crops, each seen many
times with small camera changes (`augmented_crops`): no PyTorch, no training of the
network, seconds of CPU.

Two heads, both linear in the centred, L2-normalised features:
- `prototype`: one mean direction per enrolled card; scores are cosine similarities
  times `PROTOTYPE_SCALE`;
- `logistic`: a multinomial logistic regression (L2-regularised, full-batch gradient
  descent with Adam).
`DeckHead.apply` turns the shipped probabilities into the deck's reading: where a crop
lies near an enrolled card (cosine to the nearest card's prototype at least
`min_similarity`, by default the 1% quantile of the enrolled views' own similarity) and
the head's best card reaches `min_confidence`, the row becomes a mix of the head's
probabilities (on the enrolled cards) and the shipped row (`mix` = the head's share);
elsewhere the shipped reading stays, so a card not enrolled keeps it. Chosen with
`tests/benchmarks/deck_teach.py --compare` (seed 21; figures in docs/decks.md): the
logistic head, no confidence floor, the 1% similarity floor, the head's reading alone
(`mix` 1). Without the similarity floor a half-enrolled deck read every card not
enrolled as an enrolled one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card, DeckFamily

from .arrays import Float32Array, Frame
from .crops import CROP_SIZE

__all__ = [
    "ENROL_CONTEXT",
    "HEAD_KINDS",
    "DeckHead",
    "augmented_crops",
    "fit_head",
    "reader_fingerprint",
]

ENROL_CONTEXT = 2.6
"""Context of a stored enrolment crop (twice `crops.CROP_CONTEXT`): the reader's crop is
its central half, and the margin lets augmentation turn and scale it without edges."""
ENROL_SIZE = 2 * CROP_SIZE
MIN_INDEX_PX = 16
"""Smallest side a reader crop is shrunk to in augmentation (an index about 12 px long,
the smallest the scans read)."""
HEAD_KINDS = ("prototype", "logistic")
PROTOTYPE_SCALE = 16.0
"""Cosine similarities times this are the prototype head's logits."""
SIMILARITY_QUANTILES = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2)
"""Quantiles of the enrolled views' similarity to their own prototype kept with a head."""
DEFAULT_KIND = "logistic"
DEFAULT_STEPS = 400
DEFAULT_L2 = 1e-4
DEFAULT_MIN_CONFIDENCE = 0.0
DEFAULT_MIX = 1.0
DEFAULT_SIMILARITY_QUANTILE = 0.01


def reader_fingerprint(path: str | Path) -> str:
    """A short hash of a reader file: a head fits the reader it was fitted on only."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _normalised(features: Float32Array, mean: Float32Array) -> Float32Array:
    centred = features - mean[None, :]
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    out: Float32Array = (centred / np.maximum(norms, 1e-6)).astype(np.float32)
    return out


def _softmax(logits: Float32Array) -> Float32Array:
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    out: Float32Array = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


@dataclass(frozen=True)
class DeckHead:
    """K enrolled cards read from D reader features: softmax(z @ weights + bias) with z
    the features centred on `mean` and L2-normalised; `weights` (D, K), `bias` (K,).
    `prototypes` (K, D) are the unit mean z of each card's enrolled views: a crop whose
    z lies at cosine below `min_similarity` from every one is not an enrolled card, and
    keeps the shipped reading (a partly enrolled deck meets cards it never saw)."""

    classes: tuple[str, ...]
    kind: str
    mean: Float32Array
    weights: Float32Array
    bias: Float32Array
    prototypes: Float32Array
    reader: str
    """`reader_fingerprint` of the reader whose features it reads."""
    similarity_quantiles: Float32Array
    """Cosine of the enrolled views to their own card's prototype at the quantiles
    `SIMILARITY_QUANTILES`: what `min_similarity` is chosen from."""
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    mix: float = DEFAULT_MIX
    min_similarity: float = -1.0
    locator: Path | None = None
    """The deck's own adapted locator (ONNX), when it has one (`shanghai deck enroll
    --locator`): `CardModels.use_deck` locates with it instead of the shipped one.
    Not part of the head's file; the deck's folder says (`StoredDeck.head`)."""
    own_reader: Path | None = None
    """The deck's own fine-tuned reader (ONNX), when it has one: where the head would
    read a crop (`sure`), that reader's probabilities are the reading instead of the
    head's (`apply`), as they are sure where right. Not part of the head's file."""
    sure_read: float | None = None
    """The sure level chosen for the deck's own locator and reader
    (`datasets.deck_check`; None: the shipped models' level). Not part of the head's
    file; the deck's folder says (`StoredDeck.sure_read`)."""
    corner_span: float | None = None
    """How far apart the deck's opposite corner indices lie in index sizes
    (`card_fit.corner_span`, the median over its enrolled cards that showed both; None
    when too few did): the scan folds two corners of one card by it where the photo's
    outlines misjudge the card's size (`physical.one_card_pairs`). Not part of the
    head's file; the deck's folder says (`StoredDeck.corner_span`)."""
    face_unchecked: frozenset[str] = frozenset()
    """The enrolled cards whose own face the face check takes for another kind on their
    enrolment photo (`face_kind.FaceCheck.unchecked`): their reads are not checked by the face.
    Not part of the head's file; the deck's folder says (`StoredDeck.face_unchecked`)."""
    complete: bool = False
    """Whether every card of the deck's family is enrolled (`StoredDeck.missing` is
    empty). Then the deck's own reader reads every crop (`reads`), not only those near
    an enrolled card: no card of the deck is one it never saw. Not part of the head's
    file; the deck's folder says."""

    def __post_init__(self) -> None:
        if self.kind not in HEAD_KINDS:
            raise ValueError(f"head kind {self.kind!r}: choose one of {', '.join(HEAD_KINDS)}")
        d, k = self.weights.shape
        if (
            k != len(self.classes)
            or self.bias.shape != (k,)
            or self.mean.shape != (d,)
            or self.prototypes.shape != (k, d)
        ):
            raise ValueError(
                "a deck head needs (D, K) weights, (K,) bias, (D,) mean, (K, D) prototypes"
            )
        if not 0 <= self.min_confidence <= 1 or not 0 <= self.mix <= 1:
            raise ValueError("min_confidence and mix are shares in 0..1")

    @property
    def family(self) -> DeckFamily:
        """The deck family of the enrolled cards (a deck is of one family)."""
        return Card.parse(self.classes[0]).family

    @property
    def dimensions(self) -> int:
        return int(self.weights.shape[0])

    def probabilities(self, features: Float32Array) -> Float32Array:
        """(N, K) the head's probabilities over the enrolled cards for (N, D) features."""
        z = _normalised(np.asarray(features, np.float32), self.mean)
        return _softmax(z @ self.weights + self.bias[None, :])

    def similarity(self, features: Float32Array) -> Float32Array:
        """(N,) cosine of each crop to the nearest enrolled card's prototype."""
        z = _normalised(np.asarray(features, np.float32), self.mean)
        out: Float32Array = (z @ self.prototypes.T).max(axis=1).astype(np.float32)
        return out

    def sure(self, features: Float32Array) -> npt.NDArray[np.bool_]:
        """(N,) where the head reads: confident enough, and near an enrolled card."""
        head = self.probabilities(features)
        near = self.similarity(features) >= self.min_similarity
        return np.asarray((head.max(axis=1) >= self.min_confidence) & near, dtype=np.bool_)

    def reads(self, features: Float32Array, own: bool) -> npt.NDArray[np.bool_]:
        """(N,) where the deck's reading replaces the shipped one: with the deck's own
        reader (`own`) and a `complete` deck, every crop; else where the head is `sure`.

        Why every crop: blurred and 10-15 px indices lie far from every enrolled view in
        the shipped reader's embedding, so the gate left them to the shipped reader,
        which never saw the deck's print. On two validation decks taught in full (40
        photos each, the reader's crops with `enrolled_crops` views), reading them with
        the deck's reader too: code-unseen-00 cards P / R 0.946 / 0.865 -> 0.965 /
        0.893, rook-unseen-hanken 0.966 / 0.871 -> 0.965 / 0.867 (docs/decks.md,
        2026-12-02). A deck taught in part keeps the gate: there a crop far from every
        enrolled card may be a card the deck's reader never saw in this print."""
        if own and self.complete:
            return np.ones(len(features), dtype=np.bool_)
        return self.sure(features)

    def apply(
        self,
        probabilities: Float32Array,
        features: Float32Array,
        names: Sequence[str],
        own: Float32Array | None = None,
    ) -> Float32Array:
        """(N, C) shipped probabilities over the reader's classes `names` -> the deck's
        reading (see the module docstring); rows stay shares of one. With `own`, the
        deck's own reader's (N, C) probabilities (`own_reader`), those are the reading
        where the deck reads (`reads`)."""
        out = np.array(probabilities, dtype=np.float32, copy=True)
        if len(out) == 0:
            return out
        column = {name: i for i, name in enumerate(names)}
        cols = np.array([column[c] for c in self.classes], dtype=np.int64)
        sure = self.reads(features, own is not None)
        if not sure.any():
            return out
        if own is not None:
            out[sure] = own[sure]
            return out
        mine = np.zeros_like(out[sure])
        mine[:, cols] = self.probabilities(features[sure])
        out[sure] = self.mix * mine + (1 - self.mix) * out[sure]
        return out

    def with_choice(
        self, *, min_confidence: float, mix: float, min_similarity: float = -1.0
    ) -> DeckHead:
        return replace(self, min_confidence=min_confidence, mix=mix, min_similarity=min_similarity)

    def save(self, path: Path) -> None:
        with path.open("wb") as f:
            np.savez(
                f,
                classes=np.array(self.classes),
                kind=np.array(self.kind),
                mean=self.mean,
                weights=self.weights,
                bias=self.bias,
                prototypes=self.prototypes,
                reader=np.array(self.reader),
                similarity_quantiles=self.similarity_quantiles,
                min_confidence=np.array(self.min_confidence),
                mix=np.array(self.mix),
                min_similarity=np.array(self.min_similarity),
            )

    @classmethod
    def load(cls, path: Path) -> DeckHead:
        with np.load(path, allow_pickle=False) as data:
            return cls(
                classes=tuple(str(c) for c in data["classes"]),
                kind=str(data["kind"]),
                mean=data["mean"].astype(np.float32),
                weights=data["weights"].astype(np.float32),
                bias=data["bias"].astype(np.float32),
                prototypes=data["prototypes"].astype(np.float32),
                reader=str(data["reader"]),
                similarity_quantiles=data["similarity_quantiles"].astype(np.float32),
                min_confidence=float(data["min_confidence"]),
                mix=float(data["mix"]),
                min_similarity=float(data["min_similarity"]),
            )


def fit_head(
    features: Float32Array,
    labels: Sequence[str],
    *,
    kind: str = DEFAULT_KIND,
    reader: str = "",
    steps: int = DEFAULT_STEPS,
    l2: float = DEFAULT_L2,
    progress: Callable[[int, int], None] | None = None,
) -> DeckHead:
    """Fit a head on (N, D) features of crops whose cards are `labels` (N names), with
    the default choices (`DEFAULT_*`, chosen in `tests/benchmarks/deck_teach.py`)."""
    if kind not in HEAD_KINDS:
        raise ValueError(f"head kind {kind!r}: choose one of {', '.join(HEAD_KINDS)}")
    x = np.asarray(features, np.float32)
    classes = tuple(dict.fromkeys(labels))
    index = {c: i for i, c in enumerate(classes)}
    y = np.array([index[c] for c in labels], dtype=np.int64)
    mean = x.mean(axis=0).astype(np.float32)
    z = _normalised(x, mean)
    k = len(classes)
    protos = np.stack([z[y == i].mean(axis=0) for i in range(k)])
    protos = (protos / np.maximum(np.linalg.norm(protos, axis=1, keepdims=True), 1e-6)).astype(
        np.float32
    )
    own = np.einsum("nd,nd->n", z, protos[y])
    quantiles = np.quantile(own, SIMILARITY_QUANTILES).astype(np.float32)
    if kind == "prototype":
        weights = (protos.T * PROTOTYPE_SCALE).astype(np.float32)
        bias = np.zeros(k, np.float32)
    else:
        weights, bias = _logistic(z, y, k, steps, l2, progress)
    floor = float(quantiles[SIMILARITY_QUANTILES.index(DEFAULT_SIMILARITY_QUANTILE)])
    return DeckHead(
        classes, kind, mean, weights, bias, protos, reader, quantiles,
        DEFAULT_MIN_CONFIDENCE, DEFAULT_MIX, floor,
    )  # fmt: skip


def _logistic(
    z: Float32Array,
    y: npt.NDArray[np.int64],
    k: int,
    steps: int,
    l2: float,
    progress: Callable[[int, int], None] | None,
) -> tuple[Float32Array, Float32Array]:
    """Multinomial logistic regression, full batch, Adam; (D, K) weights, (K,) bias."""
    weights = np.zeros((z.shape[1], k), np.float32)
    bias = np.zeros(k, np.float32)
    onehot = np.eye(k, dtype=np.float32)[y]
    m_w, v_w = np.zeros_like(weights), np.zeros_like(weights)
    m_b, v_b = np.zeros_like(bias), np.zeros_like(bias)
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    for step in range(1, steps + 1):
        p = _softmax(z @ weights + bias)
        error = (p - onehot) / len(z)
        grad_w = z.T @ error + l2 * weights
        grad_b = error.sum(axis=0)
        m_w = (beta1 * m_w + (1 - beta1) * grad_w).astype(np.float32)
        v_w = (beta2 * v_w + (1 - beta2) * grad_w**2).astype(np.float32)
        m_b = (beta1 * m_b + (1 - beta1) * grad_b).astype(np.float32)
        v_b = (beta2 * v_b + (1 - beta2) * grad_b**2).astype(np.float32)
        correction = np.sqrt(1 - beta2**step) / (1 - beta1**step)
        weights -= (rate * correction * m_w / (np.sqrt(v_w) + 1e-8)).astype(np.float32)
        bias -= (rate * correction * m_b / (np.sqrt(v_b) + 1e-8)).astype(np.float32)
        if progress is not None:
            progress(step, steps)
    return weights, bias


def augmented_crops(wide: Frame, rng: np.random.Generator, n: int) -> list[Frame]:
    """`n` reader crops (CROP_SIZE square) from one stored enrolment crop (`ENROL_CONTEXT`):
    the first exactly the runtime crop, the others with a small turn, scale and shift,
    and sometimes blur, a change of light and JPEG, as another photo of the same card
    would show it."""
    side = wide.shape[0]
    out: list[Frame] = []
    for i in range(n):
        if i == 0:
            angle, scale, dx, dy = 0.0, 1.0, 0.0, 0.0
        else:
            angle = float(rng.uniform(-12, 12))
            scale = float(np.exp(rng.uniform(np.log(0.85), np.log(1.2))))
            dx, dy = (float(v) for v in rng.uniform(-0.06, 0.06, 2) * side / 2)
        # Map the stored crop's centre half (turned, scaled, shifted) onto CROP_SIZE.
        zoom = CROP_SIZE / (side / 2) * scale
        m = cv2.getRotationMatrix2D((side / 2 + dx, side / 2 + dy), angle, zoom)
        m[:, 2] += np.array([CROP_SIZE / 2 - (side / 2 + dx), CROP_SIZE / 2 - (side / 2 + dy)])
        crop = cv2.warpAffine(
            wide, m, (CROP_SIZE, CROP_SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        if i > 0:
            crop = _photo_changes(np.asarray(crop, np.uint8), rng)
        out.append(np.asarray(crop, dtype=np.uint8))
    return out


def _photo_changes(crop: Frame, rng: np.random.Generator) -> Frame:
    """Another photo's flaws: fewer pixels on the index (a card further away: enrolment
    photos are close-ups, scans are often taken from across the table), blur, light,
    JPEG."""
    if rng.random() < 0.6:
        side = int(rng.integers(MIN_INDEX_PX, CROP_SIZE))
        small = cv2.resize(crop, (side, side), interpolation=cv2.INTER_AREA)
        crop = np.asarray(
            cv2.resize(small, (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_LINEAR), np.uint8
        )
    if rng.random() < 0.5:
        sigma = float(rng.uniform(0.3, 1.3))
        crop = np.asarray(cv2.GaussianBlur(crop, (0, 0), sigma), np.uint8)
    gain, offset = float(rng.uniform(0.7, 1.25)), float(rng.uniform(-30, 30))
    crop = np.clip(crop.astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        quality = int(rng.integers(35, 95))
        ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            crop = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return crop
