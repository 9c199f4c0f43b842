"""The scan contract: a photo, the game's rules and what the photo shows -> the cards,
where they go, and what a person must check.

`PhotoScanner.scan` is the one way a still photo becomes cards: `shanghai scan`,
`score` and `check`, the server's round-end scans and dispute photos all call it, so the
same photo gives the same cards, points and verdicts everywhere. Its result is a
`TableSnapshot` of engine types, each card with its confidence, box and `sure` flag,
and `warnings` specific enough to act on.

What the photo shows (`PhotoKind`) decides the placement:
- `hand`: every card read is that player's hand, wherever it lies in the photo;
- `lay-down`: rows and fans of overlapping cards are melds (table order); a card lying
  on its own is `loose` ("not part of a meld"), never a one-card meld;
- `table`: seats by sector around the table (`seats`), each with melds and a hand.

Honesty before accuracy: a scan says what it could not read (card outlines without a
read, reads below the models' sure level, copies beyond the shoe, a likely joker not read, a photo
too dark, blurred or small, no card at all), and a warning on a photo read right is a
cost too, so each warning fires only on evidence of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from shanghai.engine.cards import Card
from shanghai.engine.variants import Rules

from .arrays import BoolArray, Box, Frame
from .box_overlap import box_gaps, overlap_areas
from .card_fit import in_line_between, on_one_diagonal
from .deck_head import DeckHead
from .face_kind import FaceCheck, face_kind
from .image_checks import ImageQuality, ScanInputError, assess, check_size
from .layout import card_length
from .physical import one_card_pairs
from .pipeline import CardModels, CardPipeline, FrameReader, FrameReads
from .readings import IndexReadings
from .reconstruct import Reconstructor
from .regions import Reread
from .regions import reread as regional_read
from .snapshot import (
    PhotoKind,
    ScanWarning,
    SeatSnapshot,
    SeenCard,
    TableSnapshot,
    meld_verdict,
)
from .stray_check import StrayCheck
from .upright import UprightCheck, split_pair, turned_card
from .upright_reader import UprightReader
from .zones import ZoneConfig

__all__ = ["FrameReader", "PhotoKind", "PhotoScanner", "ScanInputError"]

SMALL_INDEX_PX = 14.0
"""Median index length (long side, pixels) under which cards are too small to read
reliably (a whole-table webcam view puts indices at 8-14 px, where most go unread)."""
SHAKEN_SHARE = 0.15
"""Least smear of a found shake (`unshake.Shake.smear`), as a share of the median
located index's long side, for the scan to name it as why it could not read
everything. Chosen on the two kept validation decks' 80 hand photos each
(`data/exp/shake_found.py`, git-ignored; docs/decks.md, 2026-12-05, eighth session):
of the photos with a doubt, it names 18 of the 30 the renderer shook and 19 of the 97
held still, 15 of which the renderer had blurred by 5 px or more (any shake found: 24
of 30 and 38 of 97, 19 of those blurred less than 5 px). The sharpness of the whole
photo (`image_checks`) named none of them. On the team's real photos (`real-dev`, read
with a deck taught on them) it speaks on 6 of 296, none of them visibly shaken (378x504
phone photos, each with a doubt of its own and a 5 px shake found, the longest such a
photo allows): hence "may be"."""
JOKER = "JK"
DUPLICATE_COVER = 0.5
"""An unread index box this much covered by a read index box is the same index located
twice, not another card's corner."""
PIP_MARGIN = 0.2
"""An unread index whose centre lies this far (a share of the box's width and height)
inside a read card's box is print on that card's face (a pip, a court card's art), not
the corner of another card: a card on top hides what lies under it (`_stray_corners`).
In a fan a read card's box is upright and wider than the card, so a neighbour's corner
can lie "deep inside" it (an As missed in silence, validation seed 3107). Not dropping
index-sized boxes (at least 0.8 of the read indices' median side) there saved that one
of 2,000 validation hands but flagged 2 hands and 2 lay-downs read right, and 2 real-dev
photos read right (fifteenth session): not adopted."""
FAR_CORNER_REACH = 0.5
"""An unread index whose centre lies this near (a share of the read index's longer
side) to where a card read at one corner has its other index printed is that card's
own far index (`_far_corner_reads`)."""
FAR_DISAGREE = 0.2
"""Least reader probability of a read card's own far corner (`_far_corner_reads`) for
its other name to doubt the card read (`_disagrees`); under it the corner is still the
card's own (no hidden card is warned of) but says nothing about the card. A real
photo's Qs was checked because a 14 x 8 px sliver at its far corner was guessed Jc at
0.02. Chosen on validation (`scan_eval.py --split val`, 200 hands, 100 lay-downs; the
far corners the rule met there read 0.00-0.71): at 0 (before) and 0.1 hands 52.0 /
14.5 / 33.5 / 0.0%, at 0.2 52.5 / 14.0 / 33.5 / 0.0%; the unseen looks (val-unseen
3301) the same at 0 and 0.2. The real photos' far corners read 0.02-0.92, most
0.2-0.55 (a turned card's far index read Ah, 4d or Kd for an Ad)."""
FAR_CARD = 0.15
"""Cards whose outlines' median long side is under this share of the photo's long side
are at table distance (1,200 generated validation hands: 91-96% of those taken across
the table, 15-24% of the close-ups; the real-dev close-ups 0.23 and more), where an
outline without an index may still be a card (`_outlines_with_an_index`)."""
HIDDEN_OVERLAP = 0.3
"""Share of an index-less outline's area that must lie over an outline holding an index
for it to count as a card at table distance (`_outlines_with_an_index`). Without the
distance cut, 0.1 and 0.3 caught the same silent hand on 1,200 validation hands, 0.1
flagging one more hand read right."""
ROW_GAP_REACH = 3.5
"""Two read indices at most this many index heights apart can have a missed card's
index between them (`_between_indices`): neighbours in a laid row step one or two
index heights apart, so a card missed between them leaves two to three. Not much more:
a card's own far index lies five heights from its neighbour's near one, with the
card's face, and its print, between them."""
STRAY_REACH = 1.0
"""An unread index lying on no card outline and more than this many card lengths
(`layout.card_length`) from every card read is something on the table (print on paper,
a box, a towel's pattern), not a hidden card's corner: a card hidden by the others lies
under or beside them (`_stray_corners`)."""
ROLES = {PhotoKind.HAND: "hand", PhotoKind.LAY_DOWN: "melds", PhotoKind.TABLE: "auto"}
TWO_CARDS_APART = 1.5
"""Two reads of one name whose indices lie this many card sizes apart (the photo's
largest outline, `SeenCard.size`) are two cards, not one card's two corners: a card's
opposite corners lie a diagonal apart, 1.45 times the square root of its area for a
63 x 88 mm card (`PhotoScanner.is_sure`)."""

CORNERS_APART = 0.45
"""A card's indices lie at least this many card lengths apart (`layout.card_length`):
its two nearest corners are a card's width less two insets apart, over 0.5 lengths on
every deck. Closer, the "card" is two cards of one name whose outlines the locator
joined (two 4B side by side in a fan), so it is not sure (`PhotoScanner.is_sure`)."""

SIDE_BY_SIDE = (0.1, 0.35)
"""Two reads of one name this far apart, in card lengths (`layout.card_length`), are two
cards lying side by side (a set of 8c 8c, two jokers in a run), not one card's two
corners, which lie at least `CORNERS_APART` apart; under 0.1 they may be one index read
twice. The upper end keeps a margin: on the 1,200 validation photos two reads of one
card counted twice lay 0.39 and 0.40 lengths apart; none of the 63 pairs from 0.1 to
0.35 read at >= 0.99 was (`_maybe_one_card`)."""


@dataclass(frozen=True)
class PhotoScanner:
    """Loaded models plus the scan rules; `scan` is safe to call from several threads
    (ONNX Runtime sessions are)."""

    models: FrameReader
    sure: float | None = None
    """Reads below this are proposed marked unsure; None: the models' `sure_read`."""
    faces: FaceCheck | None = None
    """The models' face check (`face_kind.FaceCheck`): a read whose kind the card
    around its index contradicts is proposed marked unsure. None: no such check."""
    upright: UprightCheck | None = None
    """The models' upright 6-or-9 check (`upright.UprightCheck`): a Rook 6 or 9 read
    again the right way up. None: no such check."""
    upright_reader: UprightReader | None = None
    """The models' upright reader (`upright_reader.UprightReader`): every card read
    again on its indices turned upright, a second witness. None: no such reader."""
    strays: StrayCheck | None = None
    """The models' stray check (`stray_check.StrayCheck`): a corner seen but not read
    that it calls no index at all (card art) raises no `corner` warning. None: every
    such corner is warned of."""

    @classmethod
    def load(
        cls,
        models_dir: str | Path | None = None,
        *,
        threads: int | None = None,
        zoom: float = 2.0,
        min_read: float | None = None,
        sure: float | None = None,
        deck: DeckHead | None = None,
    ) -> PhotoScanner:
        """Models for still photos: the small-card zoom pass and two reads per index
        (`CardPipeline.load`), read with a taught deck's head if given. Raises
        `pipeline.ModelMissingError` without models, `deck_store.DeckError` for a deck
        the models cannot read with."""
        pipeline = CardPipeline.load(
            models_dir, threads=threads, zoom=zoom, min_read=min_read, deck=deck
        )
        return cls.of(pipeline.models, sure, threads=threads)

    @classmethod
    def of(
        cls, models: FrameReader, sure: float | None = None, *, threads: int | None = None
    ) -> PhotoScanner:
        """A scanner for models already loaded, with their folder's face check when they
        are the card models (`CardModels`; a stand-in reads without one)."""
        if not isinstance(models, CardModels):
            return cls(models, sure)
        faces = models.face_check  # loaded once, shared with a deck's enrolment
        upright = UprightCheck.load(
            models.files, models.classify, models.reader.names, threads=threads
        )
        upright_reader = UprightReader.load(
            models.files, models.classify, models.reader.names, threads=threads
        )
        strays = StrayCheck.load(models.files, threads=threads)
        return cls(models, sure, faces, upright, upright_reader, strays).reading_with(models)

    def reading_with(self, models: CardModels) -> PhotoScanner:
        """This scanner's checks, loaded once, beside `models` (its own, or a copy taught
        a deck, `CardModels.use_deck`: how the server reads a game's deck without loading
        the checks again). The upright check then splits those models' reads and leaves
        them the 6-or-9 pairs their deck's own reader learnt (`UprightCheck.learnt`), and
        the face check leaves alone the cards whose own enrolled face it contradicts
        (`FaceCheck.unchecked`); the CLI and the server build a taught scanner only here."""
        upright = self.upright
        if upright is not None:
            upright = replace(upright, reader=models.classify, learnt=models.own_cards)
        faces = self.faces
        if faces is not None:
            faces = replace(faces, unchecked=models.face_unchecked)
        return PhotoScanner(models, self.sure, faces, upright, self.upright_reader, self.strays)

    @property
    def name(self) -> str:
        return self.models.name

    @property
    def sure_level(self) -> float:
        return self.models.sure_read if self.sure is None else self.sure

    def scan(
        self,
        image: Frame,
        *,
        rules: Rules | None = None,
        kind: PhotoKind = PhotoKind.HAND,
        seats: int = 1,
        zones: ZoneConfig | None = None,
        reread: Reread | None = None,
    ) -> TableSnapshot:
        """Read one BGR photo. Raises `ScanInputError` for an image that cannot hold a
        card (too small, not a colour picture). `reread`: a live view's memory of its
        last read, so only the part of the frame that changed is located again
        (`regions.reread`)."""
        check_size(image)
        kind = PhotoKind(kind)
        if kind is not PhotoKind.TABLE and (seats != 1 or zones is not None):
            raise ValueError("seats and zones describe a whole-table photo (kind 'table')")
        quality = assess(image)
        height, width = image.shape[:2]
        if quality.one_colour:
            if reread is not None:
                reread.forget()
            return TableSnapshot(
                width,
                height,
                (),
                _empty_seats(kind, seats),
                (ScanWarning("no-cards", "no card found: the image is one plain colour"),),
                rules,
                kind,
            )
        reads = _outlines_with_an_index(
            named_surely(regional_read(self.models, image, rules, reread), self.models.named_read),
            width,
            height,
        )
        if self.faces is not None and self.models.taught:
            # A taught deck's reads only, where it was measured (`FaceCheck.chosen`,
            # `FaceCheck.settled`).
            reads = replace(reads, readings=self.faces.chosen(image, reads.readings))
            reads = named_by_face(reads, self.faces, image, self.models.min_read)
        players = seats if kind is PhotoKind.TABLE else 1
        reconstruct = Reconstructor(
            rules, players, zones, ROLES[kind], corner_span=self.models.corner_span
        )
        snapshot = reconstruct(reads.readings, reads.card_xyxy, width, height)
        snapshot = _place(snapshot, kind)
        snapshot = self._turned(self._read_upright(snapshot, image, rules), image)
        return self._judged(self._faced(snapshot, image), reads, quality, image)

    def _read_upright(
        self, snapshot: TableSnapshot, image: Frame, rules: Rules | None
    ) -> TableSnapshot:
        """Each card whose index's up is known read again by both views
        (`upright_reader.UprightReader`): its name and readings become what both say.
        Not with a taught deck, which the upright reader never saw."""
        if self.upright_reader is None or self.models.taught or not snapshot.cards:
            return snapshot
        cards = list(snapshot.cards)
        for i, read in enumerate(self.upright_reader.reads(image, cards, rules)):
            if read is None:
                continue
            card = cards[i]
            before = card.reading if card.reading is not None else card.confidence
            cards[i] = replace(
                card,
                card=Card.parse(read.name),
                confidence=min(1.0, card.confidence * read.reading / before) if before > 0 else 0.0,
                reading=read.reading,
                score_reading=read.score_reading,
            )
        return replace(snapshot, cards=tuple(cards))

    def _turned(self, snapshot: TableSnapshot, image: Frame) -> TableSnapshot:
        """Each Rook 6 or 9 read again with its pair {6, 9} split by the upright check
        (`upright.split_pair`): it may turn into its partner, and its reading (with its
        confidence and the reading of its point value) becomes what both views say."""
        if self.upright is None or not snapshot.cards:
            return snapshot
        cards = list(snapshot.cards)
        for i, split in enumerate(self.upright.splits(image, snapshot.cards)):
            if split is None:
                continue
            card = cards[i]
            turned, reading = split_pair(split)
            before = card.reading if card.reading is not None else card.confidence
            score = card.score_reading if card.score_reading is not None else before
            partner = turned_card(card.card)
            assert partner is not None
            # The name's share of its point value is replaced; a partner's is its own.
            kept = min(1.0, max(reading, score - before + reading))
            cards[i] = replace(
                card,
                card=partner if turned else card.card,
                confidence=min(1.0, card.confidence * reading / before) if before > 0 else 0.0,
                reading=reading,
                score_reading=reading if turned else kept,
            )
        return replace(snapshot, cards=tuple(cards))

    def _faced(self, snapshot: TableSnapshot, image: Frame) -> TableSnapshot:
        """Each card with its face check's agreement (`SeenCard.face`)."""
        if self.faces is None or not snapshot.cards:
            return snapshot
        found = self.faces.agreement(image, [(c.card, c.index_xyxy) for c in snapshot.cards])
        cards = tuple(replace(c, face=f) for c, f in zip(snapshot.cards, found, strict=True))
        return replace(snapshot, cards=cards)

    def is_sure(
        self, card: SeenCard, cards: Sequence[SeenCard], kind: PhotoKind = PhotoKind.HAND
    ) -> bool:
        """Whether a read (one of the photo's `cards`, a photo of `kind`) is proposed
        without asking: never when no card outline was found around it (`outlined`:
        a lost outline or print on something else) or its own indices lie closer than
        a card's corners can (`_corners_too_close`); else when its confidence (locating
        x reading) reaches the models' sure level, or the reader's own probability of
        its name reaches the models' name level (`sure_name`) and no other card of that
        name may be the same card (`_maybe_one_card`). In a hand, which is read for its
        points, the probability of the name's point value stands for the name's
        (`SeenCard.score_reading`): a doubt between a 6s and a 6c changes no score,
        while in a lay-down the suit makes the meld.

        Why the second way: the locator's doubt about an index's box is not doubt about
        its name. On the validation photos (3,377 cards of 400 hands and 200
        lay-downs, seventh model), 925 reads fell under the sure level and 800 of them
        were right; of the 518 the reader gave at least 0.99, one was misread and 25
        were a card counted twice, which a second card of the same name betrays. Every
        such read used to mark its photo "check it".

        A taught deck's models (`FrameReader.taught`) count one card twice far more
        often: on 40 photos of the held-out Rook look read with a taught deck, 16 of 18
        cards read beyond what lay on the table were one card's two corners read as two
        cards (its wide band split the card's outline in two), against 2 misread. So
        with a deck, a name read twice within a card's reach, or lying as another
        card's opposite corner in a hand (`_corners_of_some_card`), is never sure,
        whichever way it would be.

        With a deck, the name level holds only for the cards its own reader learnt
        (`FrameReader.own_cards`): what made the level stand there is that reader's
        sharpness on its deck's cards (`CardModels.sure_name`). A card the deck did not
        enrol is read as the shipped models read it, but boxed by the deck's locator,
        which finds things on a real table the shipped one does not: on the real-dev
        photos with their deck taught, the printed postage box of an envelope, boxed at
        0.50 and read a joker at 1.00 (the shipped reader reads it so too), scored a
        hand 50 points high with no warning (IMG_2481, 2026-12-06, fifth session)."""
        if (
            not card.outlined
            or card.covered
            or _corners_too_close(card, cards)
            or _one_card_twice(card, cards, kind)
        ):
            return False
        if card.confidence < self.models.min_read:
            # Named under the floor (`named_surely`), or brought under it by a second
            # reading: the locator doubted it was an index at all.
            return False
        if self.faces is not None and self.faces.contradicts(card.face, card.card):
            return False
        if card.confidence < self.sure_level:
            level = self.models.sure_name
            if self.models.taught and str(card.card) not in self.models.own_cards:
                level = None
            reading = card.score_reading if kind is PhotoKind.HAND else card.reading
            if level is None or reading is None or reading < level:
                return False
            if _maybe_one_card(card, cards):
                return False
        return not (
            self.models.taught
            and (
                _maybe_one_card(card, cards)
                or (kind is PhotoKind.HAND and _corners_of_some_card(card, cards))
            )
        )

    def _card_corners(self, strays: tuple[Box, ...], image: Frame) -> tuple[Box, ...]:
        """The strays that may be a hidden card's corner: those the stray check does not
        call card art (`stray_check.StrayCheck`; all of them without one, or with a
        taught deck, whose print the check never saw)."""
        if self.strays is None or self.models.taught or not strays:
            return strays
        return self.strays.kept(image, strays)

    def _face_note(self, unsure: Sequence[SeenCard]) -> str:
        """Why the face check doubts some of the `unsure` reads, to tell a person what to
        look at ("; 3s looks like a court card"); empty when it doubts none."""
        if self.faces is None:
            return ""
        notes = []
        for kind, one, many in (
            ("pips", "a court card", "court cards"),
            ("court", "a pip card", "pip cards"),
            ("joker", "a standard card, not a joker", "standard cards, not jokers"),
        ):
            doubted = [
                str(c.card)
                for c in unsure
                if self.faces.contradicts(c.face, c.card) and face_kind(c.card) == kind
            ]
            if doubted:
                like = f"looks like {one}" if len(doubted) == 1 else f"look like {many}"
                notes.append(f"{', '.join(doubted)} {like}")
        return "".join(f"; {note}" for note in notes)

    def _judged(
        self, snapshot: TableSnapshot, reads: FrameReads, quality: ImageQuality, image: Frame
    ) -> TableSnapshot:
        """Mark unsure reads and add the scan's own warnings to the reconstruction's."""
        own_far = _far_corner_reads(reads, snapshot.cards)
        far = {i: (k, guess) for i, (k, guess) in own_far.items() if _disagrees(reads, k)}
        cards = tuple(
            replace(c, sure=i not in far and self.is_sure(c, snapshot.cards, snapshot.kind))
            for i, c in enumerate(snapshot.cards)
        )
        warnings = [w for w in snapshot.warnings if w.code != "outside" or len(snapshot.seats) > 1]
        unsure = [i for i, c in enumerate(cards) if not c.sure]
        if unsure:
            names = ", ".join(str(cards[i].card) for i in unsure)
            warnings.append(
                ScanWarning(
                    "unsure",
                    f"{_count(len(unsure), 'read')} unsure ({names}): check "
                    + ("it" if len(unsure) == 1 else "them")
                    + self._face_note([cards[i] for i in unsure])
                    + _count_note(cards, unsure, snapshot.kind, taught=self.models.taught)
                    + _far_note(cards, far),
                    tuple(unsure),
                )
            )
        unread = snapshot.unread
        if _joker_unread(reads, cards, unread):
            warnings.append(
                ScanWarning("joker", "a card looks like a joker but could not be read: add it")
            )
        else:
            own = frozenset(k for k, _ in own_far.values())
            corners = self._card_corners(_stray_corners(reads, cards, unread, own), image)
            if corners:
                n = len(corners)
                warnings.append(
                    ScanWarning(
                        "corner",
                        f"{n} card corner{'s' if n != 1 else ''} seen but not read: a card "
                        "may be hidden under the others; spread them or add it",
                    )
                )
                unread = unread + corners
        for meld, cut in _joined_melds(snapshot):
            head = " ".join(str(cards[i].card) for i in meld[:cut])
            tail = " ".join(str(cards[i].card) for i in meld[cut:])
            warnings.append(
                ScanWarning(
                    "joined",
                    f"{head} | {tail} may be two melds laid close together (each is legal "
                    "alone, together they are not): check how they lie",
                    meld,
                )
            )
        if snapshot.loose and snapshot.kind is PhotoKind.LAY_DOWN:
            names = " ".join(str(cards[i].card) for i in snapshot.loose)
            warnings.append(
                ScanWarning(
                    "loose",
                    f"not part of a meld: {names} (a meld is a row or fan of overlapping cards)",
                    snapshot.loose,
                )
            )
        located = len(cards) + len(snapshot.unread) + len(reads.unread_xyxy)
        # Light, focus and size are said only beside a doubt of the scan's own: alone
        # they flagged 8 validation photos read right and none read wrong.
        doubt = not cards or bool(unread) or bool(unsure)
        if quality.dark and doubt:
            warnings.append(ScanWarning("dark", "the photo is too dark to read well: add light"))
        if doubt and _shaken(reads):
            warnings.append(
                ScanWarning(
                    "blurred",
                    "the photo may be smeared by a shake: hold the camera still and retake",
                )
            )
        elif quality.blurred and doubt:
            warnings.append(ScanWarning("blurred", "the photo is blurred: hold still and retake"))
        if located and doubt and _index_height(reads) < SMALL_INDEX_PX:
            warnings.append(
                ScanWarning(
                    "small",
                    "the cards are too small in the photo to read well: come closer",
                )
            )
        if not cards and not snapshot.unread:
            warnings.append(ScanWarning("no-cards", "no card found in the photo"))
        return replace(snapshot, cards=cards, warnings=tuple(warnings), unread=unread)


def _maybe_one_card(card: SeenCard, cards: Sequence[SeenCard]) -> bool:
    """Whether another of the photo's `cards` has this card's name and may be the same
    physical card seen twice: its indices lie within `TWO_CARDS_APART` card sizes of
    this one's (but not `SIDE_BY_SIDE`, too close for one card's corners), or no
    outline in the photo tells the cards' size. The size is the
    largest outline's: an outline is often part of a card (a fan's strip, a card with
    something lying across it, which a real photo split into two outlines whose two
    corners then lay 1.5 median outlines apart).

    Two decks are played, so a hand often holds a name twice. Replayed on the 800
    validation hands and 400 lay-downs (tenth model, reads the reader gave the name or
    its points >= 0.99): of 309 names read on two cards, 35 were one card counted twice,
    34 of them with indices under 1.5 median card sizes apart; sure beyond 1.5 of the
    largest, hands exact 35.0 -> 35.6% and lay-downs 22.2 -> 23.2%, with no more silent
    (0.38% / 0.0%)."""
    same = [c for c in cards if c is not card and c.card == card.card]
    if not same:
        return False
    sizes = [c.size for c in cards if c.box_id is not None]
    if not sizes:
        return True
    reach = TWO_CARDS_APART * max(sizes)
    here = _read_at(card)
    within = [d for d in (float(np.hypot(*(here - _read_at(o)))) for o in same) if d < reach]
    if not within:
        return False
    near, far = (share * card_length(cards) for share in SIDE_BY_SIDE)
    return any(not near <= d < far for d in within)


def _corners_of_some_card(card: SeenCard, cards: Sequence[SeenCard]) -> bool:
    """Whether this card, read from one index, and another of its name read from one
    index lie as the two opposite corners of one card of whatever size
    (`card_fit.on_one_diagonal` with the pair's own distance for the card's: turned
    to the line between them as both index boxes stand, no other card's index on the
    face it implies).

    Why: the photo's outlines tell the cards' size (`_maybe_one_card`, the folding of
    `physical.one_card_pairs`), and on a taught deck's photo they can all be wrong. On
    a validation photo of a taught Rook deck (rook-unseen-intuitive, photo 54 of seed
    6) the locator outlined a patch of the cloth and cut the top card of a row short;
    the card's two corners, 501 px apart on a card 523 px long, lay 1.6 of the one
    matched outline's length apart, so both were proposed as sure 14R, its points
    counted twice in silence. Two copies lie so only apart from the rest of the hand,
    turned to the line between them; a copy is then one click to confirm. In a hand
    only, as the folds (`physical.one_card_pairs`): were it the shipped models' rule,
    it would mark 2 of the 400 validation hands read right (seed 3101) and 5 of the
    200 lay-downs, whose melds lay copies of wild cards apart."""
    if len(card.index_xyxy) != 1:
        return False
    here = card.index_centers[0].astype(np.float64)
    for other in cards:
        if other is card or other.card != card.card or len(other.index_xyxy) != 1:
            continue
        apart = float(np.hypot(*(here - other.index_centers[0])))
        rest = [
            point for c in cards if c is not card and c is not other for point in c.index_centers
        ]
        points = np.asarray(rest, dtype=np.float64).reshape(-1, 2)
        if apart > 0 and on_one_diagonal(card.index_xyxy[0], other.index_xyxy[0], apart, points):
            return True
    return False


def _count_note(
    cards: Sequence[SeenCard],
    unsure: Sequence[int],
    kind: PhotoKind = PhotoKind.HAND,
    *,
    taught: bool = False,
) -> str:
    """Why some of the `unsure` reads (indices into `cards`) are unsure when it is the
    count, not the name, in doubt, to tell a person what to look at ("; 8d may be one
    card seen at both corners"); empty when none is. `taught`: a taught deck's scan,
    which doubts corners of a card of any size too (`_corners_of_some_card`)."""
    notes = []
    bare = sorted({str(cards[i].card) for i in unsure if not cards[i].outlined})
    if bare:
        notes.append(f"no card outline was found around {', '.join(bare)}")
    twice = sorted(
        {
            str(cards[i].card)
            for i in unsure
            if _one_card_twice(cards[i], cards, kind)
            or (taught and kind is PhotoKind.HAND and _corners_of_some_card(cards[i], cards))
        }
    )
    if twice:
        notes.append(f"{', '.join(twice)} may be one card seen at both corners")
    joined = sorted(
        {
            str(cards[i].card)
            for i in unsure
            if cards[i].covered or _corners_too_close(cards[i], cards)
        }
    )
    if joined:
        notes.append(f"{', '.join(joined)} may be two cards")
    return "".join(f"; {note}" for note in notes)


def _one_card_twice(
    card: SeenCard, cards: Sequence[SeenCard], kind: PhotoKind = PhotoKind.HAND
) -> bool:
    """Whether this card and another of its name lie as two corners of one card
    (`physical.one_card_pairs`; in two outlines too in a hand, as identification folds
    there). Identification folds such pairs, but the upright
    reader and the 6-or-9 check name cards after it: the bottom corner of a fan's top
    card, read 6d and then 8d beside its top corner's 8d, stood as a second 8d, sure,
    and the hand's points were wrong without a word (a validation photo, seed 3105)."""
    pairs = one_card_pairs(cards, outlined=kind is PhotoKind.HAND)
    return any(card is cards[i] or card is cards[j] for _, i, j, _ in pairs)


def _corners_too_close(card: SeenCard, cards: Sequence[SeenCard]) -> bool:
    """Whether two of the card's own indices lie closer than `CORNERS_APART` card
    lengths.

    Why: on the 1,200 validation photos (seeds 3101, 3103; 2,067 cards showing two
    indices or more) one such card was two 4B of a fan counted as one, scored short in
    silence; the next closest card, read right, lay 0.53 lengths apart. A card of three
    indices may span a card and still hold two that close: a covered card's corner
    folded into the card on top of it (unseen-look validation: two 1B of a fan read as
    one, in silence). On the validation replays (3101 + 3103, 3301 + 3303, 3105: 2,800
    photos) seven cards of three indices held two that close, every one on a photo read
    wrong, four of them two cards of one name counted once."""
    points = card.index_centers.astype(np.float64)
    if len(points) < 2:
        return False
    gaps = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))
    nearest = float(gaps[np.triu_indices(len(points), 1)].min())
    return nearest < CORNERS_APART * card_length(cards)


def _read_at(card: SeenCard) -> npt.NDArray[np.float32]:
    """Where a card was read: the mean of its index centres (its box's centre without)."""
    if card.index_xyxy:
        return np.asarray(card.index_centers.mean(axis=0), dtype=np.float32)
    return np.asarray(card.center, dtype=np.float32)


def _joined_melds(snapshot: TableSnapshot) -> list[tuple[tuple[int, ...], int]]:
    """Melds of a lay-down photo that are not legal as read but split into two legal
    melds at one place: (the meld, where it splits). Two melds laid close can read as
    one row, and the verdict "not legal" on a legal lay-down was given without a word
    (a heart run A-4 laid against a run 6-9, validation photos). The split is said, not
    made: a player may have laid one row that is really not legal."""
    if snapshot.kind is not PhotoKind.LAY_DOWN or snapshot.rules is None:
        return []
    found = []
    for seat in snapshot.seats:
        for meld, verdict in zip(seat.melds, snapshot.meld_verdicts(seat), strict=True):
            if verdict.valid:
                continue
            names = [snapshot.cards[i].card for i in meld]
            for cut in range(2, len(meld) - 1):
                if (
                    meld_verdict(names[:cut], snapshot.rules).valid
                    and meld_verdict(names[cut:], snapshot.rules).valid
                ):
                    found.append((meld, cut))
                    break
    return found


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''} {'is' if n == 1 else 'are'}"


def _empty_seats(kind: PhotoKind, seats: int) -> tuple[SeatSnapshot, ...]:
    count = seats if kind is PhotoKind.TABLE else 1
    return tuple(SeatSnapshot(s, (), ()) for s in range(count))


def _place(snapshot: TableSnapshot, kind: PhotoKind) -> TableSnapshot:
    """Where the cards go for what the photo shows (see the module's docstring)."""
    every = tuple(sorted(range(len(snapshot.cards)), key=lambda i: snapshot.cards[i].xyxy[0]))
    if kind is PhotoKind.HAND:
        return replace(snapshot, seats=(SeatSnapshot(0, (), every),), kind=kind)
    if kind is PhotoKind.LAY_DOWN:
        seat = snapshot.seats[0] if snapshot.seats else SeatSnapshot(0, (), ())
        melds = tuple(m for m in seat.melds if len(m) > 1)
        placed = {i for m in melds for i in m}
        loose = tuple(i for i in every if i not in placed)
        return replace(snapshot, seats=(SeatSnapshot(0, melds, ()),), loose=loose, kind=kind)
    return replace(snapshot, kind=kind)


def _outlines_with_an_index(reads: FrameReads, width: int, height: int) -> FrameReads:
    """The reads with only the card outlines that can hold a card: those holding a
    located index (read or not), and at table distance (`FAR_CARD`) those lying over a
    card that holds one (`HIDDEN_OVERLAP`).

    An outline with no index located anywhere in it is not a card the scan can say
    anything about, and on real photos it was nearly always something else: on the 296
    real-dev photos (one deck on real tables, `tests/benchmarks/real_photos.py`), 99.3%
    of the outlines on real cards held an index and 47.5% of those on other things
    (boxes, place mats, a notepad) did; the rest, 106 outlines, each became "a card could
    not be read: add it" on a photo read right. On 400 generated validation hands the
    rule changed no outcome (wrong and silent 0.8% either way).

    Far from the camera it is the index the locator loses first: a fan of eight cards
    across the table showed three indices and the outline of a fourth card among them,
    and its points were proposed without a word (validation, unseen looks). There an
    outline lying over a card with an index is a card: kept, it becomes "could not be
    read", or gives a read card its own outline so the layout sees the pile (that fan
    is now "piled"). Close up, where the real-dev photos' stray outlines were, it is not
    kept."""
    boxes = reads.card_xyxy
    if not len(boxes):
        return reads
    located = np.concatenate([reads.readings.xyxy, reads.unread_xyxy]).reshape(-1, 4)
    centres = (located[:, :2] + located[:, 2:]) / 2
    holds = np.array([_inside(centres, [box]).any() for box in boxes], dtype=bool)
    if holds.all():
        return reads
    held = boxes[holds]
    sides = np.maximum(held[:, 2] - held[:, 0], held[:, 3] - held[:, 1])
    if len(held) and float(np.median(sides)) < FAR_CARD * max(width, height):
        for k in np.flatnonzero(~holds):
            holds[k] = _covered(boxes[k], held) >= HIDDEN_OVERLAP
    return replace(reads, card_xyxy=boxes[holds])


def named_surely(reads: FrameReads, level: float | None) -> FrameReads:
    """`reads` with each unread index the reader gives at least `level` (the models'
    `named_read`; None: none) read after all, as a card proposed unsure
    (`PhotoScanner.is_sure` never passes a read under the floor).

    Why: the floor weighs the locator's doubt and the reader's together, so a crisp
    index read at 1.0 that the locator found at 0.3 named no card. From across the
    table (indices 12-15 px) a taught deck's locator finds such indices at 0.30-0.47;
    dropped, each was a card missing from the hand, where proposed marked it costs a
    look. Reads under `level` stay unread: under the floor, misreads are nearly as many
    as right reads (docs/decks.md, "Where the taught deck's missing cards go"). At 0.999
    no validation photo became silent (`models/models.toml`)."""
    if level is None or reads.unread is None or not len(reads.unread.names):
        return reads
    sure = reads.unread.reader_probability >= level
    return _read_after_all(reads, sure, reads.unread.take(sure))


def named_by_face(reads: FrameReads, faces: FaceCheck, image: Frame, floor: float) -> FrameReads:
    """`reads` with each unread index the face check names (`FaceCheck.settled`: the
    reader torn between a court and a pips card, the face plainly one of them) read
    after all, as a card proposed unsure."""
    if reads.unread is None or not len(reads.unread.names):
        return reads
    named, readings = faces.settled(image, reads.unread, floor)
    return _read_after_all(reads, named, readings)


def _read_after_all(reads: FrameReads, named: BoolArray, readings: IndexReadings) -> FrameReads:
    """`reads` with the unread indices at `named` moved to the reads as `readings`
    (their reads, in the unread order), but for one a read index's box covers
    (`DUPLICATE_COVER`): that is the same index located twice, and named it would be
    its card counted again (a 7B read at 0.72 and boxed again at 0.35, inside the
    first box, made two 7B on a validation close-up; docs/decks.md, 2026-12-06, third
    session). It stays unread, where the stray-corner check passes it over alike."""
    if reads.unread is None or not named.any():
        return reads
    if len(reads.readings.xyxy):
        twice = np.array(
            [_covered(box, reads.readings.xyxy) >= DUPLICATE_COVER for box in reads.unread.xyxy]
        )
        readings = readings.take(~twice[named])
        named = named & ~twice
        if not named.any():
            return reads
    left = reads.unread.take(~named)
    return replace(
        reads,
        readings=reads.readings.join(readings),
        unread_xyxy=left.xyxy,
        unread_best=left.names,
        unread=left,
    )


def _inside(points: npt.NDArray[np.float32], boxes: Sequence[Sequence[float]]) -> np.ndarray:
    """(P,) True where a point lies in any of the boxes."""
    if not len(boxes) or not len(points):
        return np.zeros(len(points), dtype=bool)
    b = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    x, y = points[:, 0:1], points[:, 1:2]
    return np.asarray(
        ((x >= b[:, 0]) & (x <= b[:, 2]) & (y >= b[:, 1]) & (y <= b[:, 3])).any(axis=1)
    )


def _joker_unread(
    reads: FrameReads, cards: Sequence[SeenCard], unread: Sequence[Sequence[float]]
) -> bool:
    """An index located but not read, whose best guess is the joker, lying on no card
    read (on a card outline left unread, or on no outline at all)."""
    if not reads.unread_best:
        return False
    centres = ((reads.unread_xyxy[:, :2] + reads.unread_xyxy[:, 2:]) / 2).astype(np.float32)
    on_read = _inside(centres, [c.xyxy for c in cards if str(c.card) != JOKER])
    return any(
        name == JOKER and not on
        for name, on in zip(reads.unread_best, on_read.tolist(), strict=True)
    ) and (len(unread) > 0 or not cards)


def _far_corner_reads(reads: FrameReads, cards: Sequence[SeenCard]) -> dict[int, tuple[int, str]]:
    """For each card read at one corner whose far index was located but read as another
    card: its position in `cards` -> (that index's position among the unread, the
    reader's best guess there). The far index lies opposite the read one through the
    card outline's centre (`FAR_CORNER_REACH`).

    Why: such a corner was warned of as a hidden card ("a card corner seen but not
    read"), and that sent a person looking for a card that is not there. On the real
    photos of one deck a turned Ad's far index read Ah 0.29, a Jc's 5c 0.57, on photos
    of that one card read right; on a validation hand (val-unseen 3301, hand-0169) a Qc
    was read Qs at one corner and Qc at the other. The two corners disagreeing is a
    doubt about the card read, so the card is marked with the other corner's name
    (`_far_note`), and the corner is no hidden card's."""
    out: dict[int, tuple[int, str]] = {}
    boxes = reads.unread_xyxy.reshape(-1, 4)
    for k, (box, guess) in enumerate(zip(boxes, reads.unread_best, strict=True)):
        x, y = float(box[0] + box[2]) / 2, float(box[1] + box[3]) / 2
        for i, card in enumerate(cards):
            if i not in out and str(card.card) != guess and _at_far_corner(x, y, card):
                out[i] = (k, guess)
                break
    return out


def _disagrees(reads: FrameReads, k: int) -> bool:
    """Whether the unread index `k`, a read card's own far corner, names another card
    surely enough (`FAR_DISAGREE`) to doubt the card read (a stand-in with no
    readings of its unread indices: always)."""
    reading = None if reads.unread is None else reads.unread.reading
    return reading is None or float(reading[k]) >= FAR_DISAGREE


def _at_far_corner(x: float, y: float, card: SeenCard) -> bool:
    """Whether a point lies where `card`, read at one index with its outline matched,
    has its other index: opposite the read one through the outline's centre, within
    `FAR_CORNER_REACH` of the read index's longer side."""
    if card.box_id is None or len(card.index_xyxy) != 1:
        return False
    ix0, iy0, ix1, iy1 = card.index_xyxy[0]
    x0, y0, x1, y1 = card.xyxy
    far_x, far_y = x0 + x1 - (ix0 + ix1) / 2, y0 + y1 - (iy0 + iy1) / 2
    reach = FAR_CORNER_REACH * max(ix1 - ix0, iy1 - iy0)
    return bool(np.hypot(x - far_x, y - far_y) <= reach)


def _far_note(cards: Sequence[SeenCard], far: dict[int, tuple[int, str]]) -> str:
    """What the far corners of the unsure reads say ("; Qs: its other corner reads
    Qc"); empty when no far corner disagrees."""
    return "".join(
        f"; {cards[i].card}: its other corner reads {guess}"
        for i, (_, guess) in sorted(far.items())
    )


def _stray_corners(
    reads: FrameReads,
    cards: Sequence[SeenCard],
    unread: Sequence[Box] = (),
    own: frozenset[int] = frozenset(),
) -> tuple[Box, ...]:
    """Indices located but not read that tell of a card the scan did not read: lying on
    no card read and on no outline already counted unread (the same card), or on read
    cards none of which the reader's best guess names, and not a second box around an
    index read (half of it covered by a read index box). A card
    pushed under the others in a loose pile often shows nothing but a sliver of one
    corner; counted as nothing, its points went missing without a word (half of the
    silent errors on 400 validation hand photos). A card's own far corner, too blurred
    or cut to read, is most often guessed as that card and stays silent; guessed as
    another card (`own`, `_far_corner_reads`) it marks that card instead; so does a
    pip or a court card's art found deep inside a read card's box (`PIP_MARGIN`).

    That last rule, replayed over the seventh model's reads of the scan's validation
    photos (seed 3101, 400 hands, 200 lay-downs): 8 hands right but flagged became
    exact (24.2% -> 22.2% flagged), no outcome got worse; at a margin of 0.15 13
    photos, at 0.1 three hands wrong and flagged became silent (hidden corners near a
    read card's edge), so 0.2 keeps a margin from those. On the 296 real-dev photos
    (`real_photos.py`): exact 42.2% -> 43.2%, silent 0.3% both."""
    boxes = reads.unread_xyxy.reshape(-1, 4)
    read = reads.readings.xyxy.reshape(-1, 4)
    out: list[Box] = []
    for k, (box, guess) in enumerate(zip(boxes, reads.unread_best, strict=True)):
        if k in own:  # a read card's own far corner (`_far_corner_reads`)
            continue
        if len(read) and _covered(box, read) >= DUPLICATE_COVER:
            continue
        cx, cy = float(box[0] + box[2]) / 2, float(box[1] + box[3]) / 2
        holders = [
            c for c in cards if c.xyxy[0] <= cx <= c.xyxy[2] and c.xyxy[1] <= cy <= c.xyxy[3]
        ]
        if any(str(c.card) == guess for c in holders):
            continue
        if any(_deep_inside(cx, cy, c.xyxy) for c in holders) and not _between_indices(
            cx, cy, cards, reads
        ):
            continue
        if not holders and any(u[0] <= cx <= u[2] and u[1] <= cy <= u[3] for u in unread):
            continue
        if not holders and _off_the_cards(cx, cy, cards, reads.card_xyxy):
            continue
        out.append((float(box[0]), float(box[1]), float(box[2]), float(box[3])))
    return tuple(out)


def _off_the_cards(
    x: float, y: float, cards: Sequence[SeenCard], outlines: npt.NDArray[np.float32]
) -> bool:
    """Whether a point lies on no card outline and over `STRAY_REACH` card lengths from
    every card read (False when none is read: then nothing tells the table's scale)."""
    point = (x, y, x, y)
    if not cards or box_gaps(point, outlines).min(initial=np.inf) == 0.0:
        return False
    far = box_gaps(point, [c.xyxy for c in cards]).min()
    return bool(far > STRAY_REACH * card_length(cards))


def _deep_inside(x: float, y: float, box: Box) -> bool:
    """Whether the point lies `PIP_MARGIN` or more inside the box on both axes."""
    x1, y1, x2, y2 = box
    dx, dy = PIP_MARGIN * (x2 - x1), PIP_MARGIN * (y2 - y1)
    return x1 + dx <= x <= x2 - dx and y1 + dy <= y <= y2 - dy


def _between_indices(x: float, y: float, cards: Sequence[SeenCard], reads: FrameReads) -> bool:
    """Whether the point lies in line between two read cards' indices, as the index of a
    card missed in a row lies between its neighbours': along the segment joining an index
    of each (its middle half), off it by under half an index height, the two within
    `ROW_GAP_REACH` index heights. Print on a card's face lies below its index, off that
    line, so a box there is not dismissed as print (`PIP_MARGIN`): a joker between a 10d
    and a Qd of a laid run, located but not read, was so dismissed and the run's verdict
    went wrong in silence (validation lay-down, seed 3101)."""
    height = _index_height(reads)
    if not np.isfinite(height) or height <= 0:
        return False
    points = [(k, p) for k, c in enumerate(cards) for p in c.index_centers.astype(np.float64)]
    here = np.array([x, y], np.float64)
    for i, (a, pa) in enumerate(points):
        for b, pb in points[i + 1 :]:
            if a == b or float(np.hypot(*(pb - pa))) > ROW_GAP_REACH * height:
                continue
            if in_line_between(here, pa, pb, height):
                return True
    return False


def _covered(box: npt.NDArray[np.float32], others: npt.NDArray[np.float32]) -> float:
    """The largest share of `box`'s area that one of `others` (K, 4) covers."""
    area = max(float((box[2] - box[0]) * (box[3] - box[1])), 1e-6)
    return float(overlap_areas(box, others).max()) / area


def _shaken(reads: FrameReads) -> bool:
    """Whether the frame's reads were found smeared by a shake (`unshake`) of at least
    `SHAKEN_SHARE` of its indices' size: a reason for what the scan could not read that
    a person can act on, where the sharpness of the whole photo (`ImageQuality.blurred`)
    misses a shake the indices feel."""
    return reads.shake is not None and reads.shake.smear >= SHAKEN_SHARE * _index_height(reads)


def _index_height(reads: FrameReads) -> float:
    """Median long side of the index boxes located (read or not), in pixels."""
    boxes = np.concatenate([reads.readings.xyxy, reads.unread_xyxy]).reshape(-1, 4)
    if not len(boxes):
        return float("inf")
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    return float(np.median(sides))
