"""The model pipeline: a frame in, a `TableSnapshot` out.

`CardModels` loads the two ONNX models once (the detector that locates cards and
index corners, the reader that names each index from a full-resolution crop) and turns
a frame into `IndexReadings` plus card boxes. `CardPipeline` adds the reconstruction
(`Reconstructor`); `with_table` gives a pipeline for other rules or seats that shares the
loaded models, so many images cost one model load.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from shanghai.engine.variants import Rules

from .arrays import Frame
from .crops import square_crop, zoomed_in
from .deck_head import DeckHead, reader_fingerprint
from .deck_store import DeckError, DeckReaderChanged
from .detections import Detections
from .face_kind import FaceCheck
from .model_files import ModelFiles, ModelMissingError, ModelSettingsError
from .onnx_models import OnnxClassifier, OnnxDetector
from .read_cache import ReadCache
from .readings import IndexReadings, restrict_probabilities, score_probabilities
from .reconstruct import Reconstructor
from .snapshot import TableSnapshot
from .unshake import Shake, unshaken_reads
from .zones import ZoneConfig
from .zoom import DETECTOR_IOU, NEAR_GAIN, ZoomPass, shifted, turned_boxes

__all__ = [
    "CardModels",
    "CardPipeline",
    "FrameReader",
    "FrameReads",
    "ModelMissingError",
    "Passes",
    "models_installed",
]

SHRINK = 0.5
"""Scale of the still photos' second locator pass when the cards are large
(`zoom.ZoomPass.shrink`)."""
NEAR = 2.0
"""Scale of the still photos' near pass over the cards' part of a large frame
(`zoom.ZoomPass.near`): the zoomed pass's twice-native look of a 1280-px frame. Run for
a taught deck's scans only. On the two taught validation decks' 80 photos each
(`tests/benchmarks/deck_teach.py --keep`, docs/decks.md) it found 15 more cards and
4 more wrong ones, all marked; with the shipped models, on the scan's validation photos
(`scan_eval.py`, seeds 3101 and 3301), it turned no hand from wrong to right and one
unseen-look hand from flagged to silent (a Jh read 3h whose face check, on boxes moved
by a pixel, no longer doubted it): not for the shipped models until more validation
photos say so."""
ZOOM_MAX_SIDE = 2560
"""Largest input of the zoomed pass (long side, pixels). Unbounded, a 12-megapixel
photo with no card found ran the locator at 8064 px (31 s, 14.5 GB) and a 6300-px
one-colour PNG asked for 96 GB; 2560 is twice the first pass's input, the zoom the
pass was tuned with on 1280-px frames."""
OWN_READ_ZOOMS = (0.85,)
"""Besides each index crop as cut, a taught deck's own reader reads the crop's central
share(s) (`crops.zoomed_in`), each both ways up, and the reads are averaged
(`CardModels.own_reading`). The deck's reader is fine-tuned for minutes on its few
enrolled indices, so its reads move with the crop's framing more than the shipped
reader's; a second framing steadies them. Chosen on the two taught validation decks'
540 and 560 located true indices (docs/decks.md, 2026-12-04): read right 506 -> 510
and 545 -> 548; wrong reads over the read floor 7 -> 0 and 0 -> 0. The shipped reader
reads as its folder's `[reader] zooms` say (`model_files.ModelFiles.zooms`; the shipped
folder names none: tried on the validation splits and not kept, models/MODEL_CARD.md)."""


@dataclass(frozen=True, slots=True)
class Passes:
    """The locator passes one frame took: the first pass's `scale` (its input pixels per
    frame pixel), the `second` pass, "zoom", "shrink" or "" (none), and the `near`
    pass's scale over the cards' part of the frame (0: none): `zoom.ZoomPass`."""

    scale: float
    second: str
    near: float = 0.0


@dataclass(frozen=True)
class FrameReads:
    """What the models made of one frame: the indices read (`readings`), the (M, 4)
    card boxes, and the (K, 4) index boxes located but not read surely enough to name
    a card, with the reader's best guess for each (`unread_best`): a located index that
    names no card is a card the scan must not pass over in silence."""

    readings: IndexReadings
    card_xyxy: npt.NDArray[np.float32]
    unread_xyxy: npt.NDArray[np.float32]
    unread_best: tuple[str, ...]
    passes: Passes | None = None
    """How the frame was located (None: not by the locator, e.g. a test's stand-in)."""
    unread: IndexReadings | None = None
    """The unread indices read in full, in `unread_xyxy`'s order (locating x reading
    under the floor): what the scan may still name when the reader is sure of it
    (`scan.named_surely`). None from a stand-in that gives only boxes and guesses."""
    shake: Shake | None = None
    """The shake found in the frame and taken out of its reads (`unshake`), if any:
    the scan names it as the reason when it could not read everything."""


class FrameReader(Protocol):
    """What a scan needs from the models (`CardModels`); tests give a table
    whose boxes are known by construction instead."""

    @property
    def name(self) -> str: ...

    @property
    def sure_read(self) -> float:
        """Least locating x reading confidence of a read proposed without asking (the
        models' own level, `model_files.ModelFiles.sure_read`)."""
        ...

    @property
    def sure_name(self) -> float | None:
        """Least reader probability that makes a read's name sure on its own (None: no
        such level; `model_files.ModelFiles.sure_name`)."""
        ...

    @property
    def min_read(self) -> float:
        """The read floor: least locating x reading for an index to name a card."""
        ...

    @property
    def named_read(self) -> float | None:
        """Least reader probability that names a card under the floor, proposed unsure
        (None: none; `model_files.ModelFiles.named_read`)."""
        ...

    @property
    def taught(self) -> bool:
        """Whether a taught deck's models read (`scan.PhotoScanner.is_sure` then
        doubts a name read twice within a card's reach, whatever its confidence)."""
        ...

    @property
    def corner_span(self) -> float | None:
        """A taught deck's opposite corners apart in index sizes
        (`physical.CardIdentifier.corner_span`); None without one."""
        ...

    @property
    def own_cards(self) -> frozenset[str]:
        """The cards a taught deck's own reader learnt (empty without one): the only
        taught reads the name level may make sure (`scan.PhotoScanner.is_sure`)."""
        ...

    def read_frame(
        self,
        frame: Frame,
        rules: Rules | None = None,
        region: tuple[int, int, int, int] | None = None,
        like: Passes | None = None,
    ) -> FrameReads:
        """What is located and read in `frame` (with `region`: only in that part of it,
        in frame pixels, located as `like` says the whole frame was)."""
        ...


def models_installed(models_dir: str | Path | None = None) -> bool:
    return ModelFiles.installed(models_dir)


class CardModels:
    """Detector + reader, loaded once; `read(frame)` -> (readings, (M, 4) card boxes)."""

    def __init__(
        self,
        models_dir: str | Path | None = None,
        *,
        threads: int | None = None,
        conf: float = 0.25,
        iou: float = DETECTOR_IOU,
        zoom: ZoomPass | None = None,
        min_read: float | None = None,
        turned: bool = True,
        read_cache: ReadCache | None = None,
        deck: DeckHead | None = None,
    ) -> None:
        files = ModelFiles.load(models_dir)
        self.files = files
        """The models' files and the reading levels chosen for them (`models.toml`)."""
        self.detector = OnnxDetector(files.detector, threads=threads)
        self.reader = OnnxClassifier(files.reader, threads=threads)
        files.check(self.detector.names, self.reader.names)
        self.ensemble = tuple(OnnxClassifier(path, threads=threads) for path in files.ensemble)
        """The readers averaged with `reader` (`ModelFiles.ensemble`)."""
        for path, partner in zip(files.ensemble, self.ensemble, strict=True):
            if partner.names != self.reader.names or partner.size != self.reader.size:
                raise ModelSettingsError(
                    f"{path.name}: its classes or input size are not {files.reader.name}'s, "
                    "so their reads cannot be averaged"
                )
        self._shipped_detector = self.detector
        self._threads = threads
        self.conf = conf
        self.iou = iou
        self.zoom = zoom or ZoomPass(zoom=1.0)
        self.min_read = files.min_read if min_read is None else min_read
        """Least locating x reading confidence for an index read to name a card; below
        it the index is left unread (`FrameReads.unread`) and its card box, if located,
        stays an unread box, unless the reader is sure of it (`scan.named_surely`)."""
        self.turned = turned
        self.read_cache = read_cache
        """Reads carried between the frames of one live video (`read_cache.ReadCache`)."""
        self.deck: DeckHead | None = None
        """A taught deck's reading (`deck_head.DeckHead`), applied in `classify`."""
        self.own_reader: OnnxClassifier | None = None
        """A taught deck's own fine-tuned reader (`DeckHead.own_reader`), when it has one."""
        self.name = " + ".join(p.name for p in (files.detector, files.reader, *files.ensemble))
        if deck is not None:
            self.use_deck(deck)

    def use_deck(self, deck: DeckHead | None) -> None:
        """Read with a taught deck's head (None: the shipped reading alone), and locate
        with the deck's own locator when it has one (`DeckHead.locator`). Refuses a
        head fitted on another reader, a reader without its `embedding` output, or a
        deck locator whose classes are not the runtime's."""
        if deck is not None:
            if not self.reader.has_embedding:
                raise DeckError(
                    f"{self.files.reader.name} has no embedding output, which a taught deck "
                    "reads by (tools/reader_embedding.py adds it)"
                )
            if deck.reader != self.reader_fingerprint:
                raise DeckReaderChanged(
                    "the deck was adapted for another reader model: fit it again from its "
                    "stored cards (`shanghai deck refit NAME`, seconds) or enrol it again"
                )
        detector = self._shipped_detector
        if deck is not None and deck.locator is not None:
            try:
                detector = OnnxDetector(deck.locator, threads=self._threads)
                self.files.check(detector.names, self.reader.names)
            except Exception as exc:  # ONNX Runtime's load errors derive from Exception only
                raise DeckError(
                    f"the deck's locator ({deck.locator.name}) cannot be used: {exc}; "
                    "teach its locator again"
                ) from None
        own_reader = None
        if deck is not None and deck.own_reader is not None:
            try:
                own_reader = OnnxClassifier(deck.own_reader, threads=self._threads)
                if own_reader.names != self.reader.names:
                    raise ValueError("its card classes are not the shipped reader's")
            except Exception as exc:  # ONNX Runtime's load errors derive from Exception only
                raise DeckError(
                    f"the deck's reader ({deck.own_reader.name}) cannot be used: {exc}; "
                    "teach its locator again"
                ) from None
        self.detector = detector
        self.own_reader = own_reader
        self.deck = deck

    @property
    def unshakes(self) -> bool:
        """Whether a still's indices are read again with its shake taken out
        (`unshake`): with a taught deck's own reader, where it was measured to help; not
        with the shipped models, where it cost hands read right on the real photos; and
        never for video read frame by frame (`turned` off, or a `read_cache`), which
        reads too often to pay for the search. A settled frame of a live view is a
        still."""
        return self.own_reader is not None and self.turned and self.read_cache is None

    def _search_read(self, crops: list[Frame]) -> npt.NDArray[np.float32]:
        """The deck's own reader on crops as cut, both ways up: what a kernel is judged
        by (`unshake.find_shake`), at half the reads of `own_reading`."""
        assert self.own_reader is not None
        return self._both_ways(self.own_reader, crops)

    @functools.cached_property
    def reader_fingerprint(self) -> str:
        """`deck_head.reader_fingerprint` of the reader file (a taught head's key)."""
        return reader_fingerprint(self.files.reader)

    @property
    def sure_read(self) -> float:
        """The models' sure level (`scan.PhotoScanner` marks reads below it unsure): a
        taught deck's own when one was chosen for its models (`DeckHead.sure_read`)."""
        if self.deck is not None and self.deck.sure_read is not None:
            return self.deck.sure_read
        return self.files.sure_read

    @property
    def taught(self) -> bool:
        return self.deck is not None

    @property
    def face_unchecked(self) -> frozenset[str]:
        """The taught deck's cards whose faces the face check is not to judge
        (`DeckHead.face_unchecked`); empty without a deck."""
        return self.deck.face_unchecked if self.deck is not None else frozenset()

    @functools.cached_property
    def face_check(self) -> FaceCheck | None:
        """This models folder's face check (`face_kind.FaceCheck`; None when it names no
        face model), loaded when first asked: what a deck's enrolment keeps of each
        card's face is judged by it (`deck_enrol.face_unchecked`)."""
        return FaceCheck.load(self.files, threads=self._threads)

    @property
    def own_cards(self) -> frozenset[str]:
        """The cards a taught deck's own reader learnt (its enrolled cards, seen in the
        deck's own scenes); empty without such a reader."""
        if self.deck is None or self.own_reader is None:
            return frozenset()
        return frozenset(self.deck.classes)

    @property
    def corner_span(self) -> float | None:
        """The taught deck's opposite corners apart in index sizes, measured at its
        enrolment (`deck_head.DeckHead.corner_span`); None without a deck."""
        return self.deck.corner_span if self.deck is not None else None

    @property
    def named_read(self) -> float | None:
        """The models' level for naming a card under the floor (`scan.named_surely`)."""
        return self.files.named_read

    @property
    def sure_name(self) -> float | None:
        """The models' name level (`scan.PhotoScanner.is_sure`). None while a taught
        deck reads with its head alone: the head's probabilities are flatter and were
        never measured against it (docs/decks.md: at 0.95 it let wrong reads through).

        A deck's own fine-tuned reader (`own_reader`, which then reads in the head's
        place) reads its deck's cards sharply: on the six kept validation decks' 80
        photos each, it gave 0.99 or more to 1,869 located true indices, none of them
        misread, 361 of which the sure level marked for the locator's doubt; the
        benchmark's scans with the level on left no wrong card unmarked on any of them
        and marked 15-50% fewer right cards (docs/decks.md, 2026-12-05, fourth
        session)."""
        if self.deck is not None and self.own_reader is None:
            return None
        return self.files.sure_name

    def locate(
        self, frame: Frame
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """(index boxes (N, 4), their confidences (N,), card boxes (M, 4)); with a
        second, zoomed pass where the cards are small (`zoom.ZoomPass`)."""
        index_xyxy, index_conf, card_xyxy, _ = self.locate_passes(frame)
        return index_xyxy, index_conf, card_xyxy

    def locate_passes(
        self, frame: Frame, like: Passes | None = None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32], Passes]:
        """`locate`, and the passes it ran; with `like`, the passes another frame ran,
        at its scale (a part of a live frame is then located as the whole frame was:
        judged alone, a part of a table holding only small cards took the zoomed pass
        the whole frame did not, and read other cards than a still scan)."""
        if like is None:
            first = self.detector.size_for(frame.shape)[0]
            scale = min(1.0, first / max(frame.shape[:2]))
            found = self.detector(frame, conf=self.conf, iou=self.iou)
        else:
            scale = like.scale
            first = self.detector.size_for(frame.shape, round(max(frame.shape[:2]) * scale))[0]
            found = self.detector(frame, conf=self.conf, iou=self.iou, imgsz=first)
        if like is not None:
            second = like.second
        elif self.zoom.wanted(found, scale):
            second = "zoom"
        elif self.zoom.wants_shrink(found, scale):
            second = "shrink"
        else:
            second = ""
        near = 0.0
        if second == "zoom":
            size = min(int(first * self.zoom.zoom), ZOOM_MAX_SIDE)
            zoomed = self.detector(frame, conf=self.conf, iou=self.iou, imgsz=size)
            found = self.zoom.merge(found, zoomed, scale, self.iou)
            # A taught deck's scans only (`NEAR`): where it was measured to help.
            wanted = self.zoom.near if self.taught else 0.0
            if like is not None:
                wanted = like.near
            if wanted > 0:
                seen = size / max(frame.shape[:2])  # the zoomed pass's input px per frame px
                found, near = self._near_pass(frame, found, scale, wanted, seen, like is None)
        elif second == "shrink":
            size = int(first * self.zoom.shrink)
            shrunk = self.detector(frame, conf=self.conf, iou=self.iou, imgsz=size)
            found = self.zoom.merge_large(found, shrunk, scale, self.iou)
        if self.zoom.half_turn:
            turned = self.detector(
                np.ascontiguousarray(frame[::-1, ::-1]), conf=self.conf, iou=self.iou, imgsz=first
            )
            height, width = frame.shape[:2]
            found = self.zoom.merge_turned(found, turned_boxes(turned, width, height), self.iou)
        indices = found.of_class("index")
        cards = found.of_class("card")
        return indices.xyxy, indices.confidence, cards.xyxy, Passes(scale, second, near)

    def _near_pass(
        self,
        frame: Frame,
        found: Detections,
        scale: float,
        wanted: float,
        zoomed: float,
        judge: bool,
    ) -> tuple[Detections, float]:
        """`found` with the boxes of a pass over the part of `frame` holding them at
        `wanted` input pixels per frame pixel (capped at `ZOOM_MAX_SIDE`), and the scale
        it ran at (0: it did not run). With `judge`, it runs only where it sees the cards
        `NEAR_GAIN` times larger than the zoomed pass did (`zoomed`, its input pixels per
        frame pixel; `zoom.ZoomPass.near`)."""
        height, width = frame.shape[:2]
        region = self.zoom.near_region(found, width, height)
        if region is None:
            return found, 0.0
        x0, y0, x1, y1 = region
        near = min(wanted, ZOOM_MAX_SIDE / max(x1 - x0, y1 - y0))
        if judge and near < NEAR_GAIN * zoomed:
            return found, 0.0
        part = self.detector(
            frame[y0:y1, x0:x1],
            conf=self.conf,
            iou=self.iou,
            imgsz=round(max(x1 - x0, y1 - y0) * near),
        )
        return self.zoom.merge(found, shifted(part, x0, y0), scale, self.iou), near

    def classify(self, crops: list[Frame]) -> npt.NDArray[np.float32]:
        """(N, classes) reader probabilities; with `turned`, the mean over each crop and
        the crop turned half a turn. A corner index is printed both ways up (top-left
        upright, bottom-right upside down), so both views are real looks of the same
        index; on 1,200 validation crops the mean reads 0.890 right against 0.868 for
        one view (reader of the third CPU candidate), at twice the reader's cost. With a
        taught deck (`use_deck`), its head reads the cards it enrolled
        (`deck_head.DeckHead.apply`): the one place a deck changes a reading."""
        if self.deck is None:
            return self._with_ensemble(self._framed(self.reader, crops, self.files.zooms), crops)
        if self.own_reader is not None and self.deck.complete and crops:
            # A deck enrolled whole reads every crop with its own reader
            # (`DeckHead.reads`): the shipped reading would be replaced in every row.
            return self.own_reading(crops)
        probabilities, features = self.features(crops)
        own = None
        if self.own_reader is not None:
            # Only the crops the deck reads (`DeckHead.reads`) need the deck's own reader.
            sure = self.deck.reads(features, own=True)
            own = probabilities.copy()
            if sure.any():
                mine = [crop for crop, read in zip(crops, sure, strict=True) if read]
                own[sure] = self.own_reading(mine)
        return self.deck.apply(probabilities, features, self.reader.names, own)

    def _with_ensemble(
        self, probabilities: npt.NDArray[np.float32], crops: list[Frame]
    ) -> npt.NDArray[np.float32]:
        """`probabilities` (the reader's, both ways) averaged with the ensemble's reads
        of the same crops; unchanged without an ensemble."""
        if not self.ensemble or not crops:
            return probabilities
        total = probabilities.astype(np.float64)
        for partner in self.ensemble:
            total += self._framed(partner, crops, self.files.zooms)
        return (total / (1 + len(self.ensemble))).astype(np.float32)

    def own_reading(self, crops: list[Frame]) -> npt.NDArray[np.float32]:
        """The taught deck's own reader's probabilities: the mean over each crop and its
        `OWN_READ_ZOOMS` views, each both ways up (`_framed`)."""
        if self.own_reader is None:
            raise DeckError("no taught deck with its own reader is in use")
        return self._framed(self.own_reader, crops, OWN_READ_ZOOMS)

    def _framed(
        self,
        reader: OnnxClassifier,
        crops: list[Frame],
        zooms: tuple[float, ...],
        as_cut: npt.NDArray[np.float32] | None = None,
    ) -> npt.NDArray[np.float32]:
        """`reader`'s probabilities averaged over each crop as cut and its central
        `zooms` shares (`crops.zoomed_in`), each read both ways up (`_both_ways`);
        `as_cut`: the crops' own both-ways reading when the caller has it already."""
        if as_cut is None:
            as_cut = self._both_ways(reader, crops)
        if not zooms:
            return as_cut
        total = as_cut.astype(np.float64)
        for share in zooms:
            total += self._both_ways(reader, [zoomed_in(c, share) for c in crops])
        return (total / (1 + len(zooms))).astype(np.float32)

    def _both_ways(self, reader: OnnxClassifier, crops: list[Frame]) -> npt.NDArray[np.float32]:
        """`reader`'s probabilities; with `turned`, the mean with each crop half turned."""
        probabilities = reader(crops)
        if self.turned and crops:
            half_turned = [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
            return ((probabilities + reader(half_turned)) / 2).astype(np.float32)
        return probabilities.astype(np.float32)

    def features(
        self, crops: list[Frame]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """(N, classes) shipped probabilities and (N, D) reader embeddings, each the
        mean over the crop and its half turn with `turned` (as `classify`): what a taught
        deck's head is fitted on and reads. The probabilities are the ensemble's mean
        (`ModelFiles.ensemble`), the embedding the first reader's."""
        probabilities, features = self.reader.read(crops)
        if features is None:
            raise DeckError(f"{self.files.reader.name} has no embedding output")
        if self.turned and crops:
            half_turned = [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
            turned_probabilities, turned_features = self.reader.read(half_turned)
            assert turned_features is not None
            probabilities = ((probabilities + turned_probabilities) / 2).astype(np.float32)
            features = ((features + turned_features) / 2).astype(np.float32)
        if crops:
            # The probabilities as `classify` reads them; the features as the head was
            # fitted on them, the crops as cut.
            probabilities = self._framed(self.reader, crops, self.files.zooms, probabilities)
        return self._with_ensemble(probabilities, crops), features

    def read(
        self, frame: Frame, rules: Rules | None = None
    ) -> tuple[IndexReadings, npt.NDArray[np.float32]]:
        """(readings of the indices read, (M, 4) card boxes)."""
        found = self.read_frame(frame, rules)
        return found.readings, found.card_xyxy

    def read_frame(
        self,
        frame: Frame,
        rules: Rules | None = None,
        region: tuple[int, int, int, int] | None = None,
        like: Passes | None = None,
    ) -> FrameReads:
        """Everything located and read in one frame, the indices left unread included.
        With `region` (x0, y0, x1, y1 pixels), only what lies in that part of the frame
        is located (a live view's changed part: `regions.reread`), in frame pixels, the
        way `like` says the whole frame was; the indices are still cut from the whole
        frame, so one near the region's edge keeps the margin the reader was trained
        with."""
        if region is None:
            index_xyxy, index_conf, card_xyxy, passes = self.locate_passes(frame, like)
        else:
            x0, y0, x1, y1 = region
            index_xyxy, index_conf, card_xyxy, passes = self.locate_passes(
                frame[y0:y1, x0:x1], like
            )
            offset = np.array([x0, y0, x0, y0], np.float32)
            index_xyxy, card_xyxy = index_xyxy + offset, card_xyxy + offset
        if len(index_xyxy) == 0:
            empty = IndexReadings.empty()
            return FrameReads(empty, card_xyxy, index_xyxy, (), passes, empty)

        def classify_rows(rows: list[int]) -> npt.NDArray[np.float32]:
            return self.classify(
                [
                    square_crop(frame, (float(b[0]), float(b[1]), float(b[2]), float(b[3])))
                    for b in index_xyxy[rows]
                ]
            )

        if self.read_cache is not None:
            raw = self.read_cache.read(frame, index_xyxy, classify_rows)
        else:
            raw = classify_rows(list(range(len(index_xyxy))))
        shake = None
        if region is None and self.unshakes:
            raw, shake = unshaken_reads(
                frame, index_xyxy, index_conf, raw, self.classify, self._search_read
            )
        family = self.deck.family if self.deck is not None else None
        probabilities = restrict_probabilities(raw, self.reader.names, rules, family)
        every = self._read_all(index_xyxy, index_conf, probabilities, rules)
        kept = self._kept(index_conf, probabilities)
        unread = every.take(~kept)
        return FrameReads(
            every.take(kept), card_xyxy, unread.xyxy, unread.names, passes, unread, shake
        )

    def _kept(
        self,
        index_conf: npt.NDArray[np.float32],
        probabilities: npt.NDArray[np.float32],
        min_read: float | None = None,
    ) -> npt.NDArray[np.bool_]:
        """Which indices name a card: locating x reading reaches the floor."""
        floor = self.min_read if min_read is None else min_read
        reading = probabilities.max(axis=1)
        return np.asarray((reading > 0) & (index_conf * reading >= floor), dtype=np.bool_)

    def name_indices(
        self,
        index_xyxy: npt.NDArray[np.float32],
        index_conf: npt.NDArray[np.float32],
        probabilities: npt.NDArray[np.float32],
        min_read: float | None = None,
        rules: Rules | None = None,
    ) -> IndexReadings:
        """Each index's best class, kept when locating x reading reaches `min_read`
        (default `self.min_read`); `tests/benchmarks/read_floor.py` sweeps it. With the
        game's `rules`, each read carries the probability of its point value too."""
        every = self._read_all(index_xyxy, index_conf, probabilities, rules)
        return every.take(self._kept(index_conf, probabilities, min_read))

    def _read_all(
        self,
        index_xyxy: npt.NDArray[np.float32],
        index_conf: npt.NDArray[np.float32],
        probabilities: npt.NDArray[np.float32],
        rules: Rules | None,
    ) -> IndexReadings:
        """Every index with its best class, however unsure."""
        order = np.argsort(-probabilities, axis=1, kind="stable")
        rows = np.arange(len(order))
        best = order[:, 0]
        reading = probabilities[rows, best]
        confidence = (index_conf * reading).astype(np.float32)
        score = score_probabilities(probabilities, self.reader.names, rules)
        names = tuple(self.reader.names[int(k)] for k in best)
        if probabilities.shape[1] < 2:
            return IndexReadings(index_xyxy, names, confidence, reading, score)
        second = order[:, 1]
        return IndexReadings(
            index_xyxy,
            names,
            confidence,
            reading,
            score,
            tuple(self.reader.names[int(k)] for k in second),
            probabilities[rows, second],
        )


@dataclass(frozen=True)
class CardPipeline:
    """Frame -> `TableSnapshot` with loaded models and a table description."""

    models: CardModels
    reconstructor: Reconstructor = field(default_factory=Reconstructor)

    @classmethod
    def load(
        cls,
        models_dir: str | Path | None = None,
        *,
        rules: Rules | None = None,
        players: int = 1,
        zones: ZoneConfig | None = None,
        role: str = "auto",
        threads: int | None = None,
        zoom: float = 2.0,
        min_read: float | None = None,
        turned: bool = True,
        cache_reads: bool = False,
        deck: DeckHead | None = None,
    ) -> CardPipeline:
        """`zoom`: the small-card second pass for still photos (`zoom.ZoomPass`, and with
        it the half-size pass for large cards, `SHRINK`); 1 for live video, where each
        frame must stay one locator pass. `turned`: read each index twice
        (`CardModels.classify`); off for live video too. `min_read`: the read floor
        (default: the models' own, `model_files.ModelFiles`). `cache_reads`: carry
        reads of still indices from frame to frame (`read_cache.ReadCache`), for one
        live video stream only. `deck`: a taught deck's reading (`deck_head.DeckHead`)."""
        models = CardModels(
            models_dir,
            threads=threads,
            zoom=ZoomPass(
                zoom=zoom, shrink=SHRINK if zoom > 1 else 1.0, near=NEAR if zoom > 1 else 0.0
            ),
            min_read=min_read,
            turned=turned,
            read_cache=ReadCache() if cache_reads else None,
            deck=deck,
        )
        return cls(
            models, Reconstructor(rules, players, zones, role, corner_span=models.corner_span)
        )

    def with_table(
        self,
        *,
        rules: Rules | None = None,
        players: int = 1,
        zones: ZoneConfig | None = None,
        role: str = "auto",
    ) -> CardPipeline:
        return CardPipeline(
            self.models,
            Reconstructor(rules, players, zones, role, corner_span=self.models.corner_span),
        )

    def __call__(self, frame: Frame) -> TableSnapshot:
        if frame.ndim != 3 or frame.shape[0] == 0 or frame.shape[1] == 0:
            raise ValueError("the frame is empty")
        readings, card_boxes = self.models.read(frame, self.reconstructor.rules)
        return self.reconstructor(readings, card_boxes, frame.shape[1], frame.shape[0])
