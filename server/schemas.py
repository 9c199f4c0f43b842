"""Request and response bodies: one schema per direction (`...Create` in, `...Public` out)."""

from __future__ import annotations

import datetime as dt
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, field_validator, model_validator

from shanghai.vision.deck_store import (
    LOCATOR_MINUTES,
    LOCATOR_MINUTES_RANGE,
    OVERHEAD_MINUTES,
    READER_MINUTES,
)
from shanghai.vision.deck_store import NAME_PATTERN as DECK_NAME_PATTERN

from .models import GAME_NAME_LENGTH, PLAYER_NAME_LENGTH, SQL_INT_MAX

__all__ = [
    "DECK_ERRORS",
    "IMAGE_ERRORS",
    "ROUND_ERRORS",
    "Author",
    "BuyCreate",
    "BuyPublic",
    "CameraStatus",
    "ChangeHand",
    "ChangePublic",
    "ChangeRequest",
    "CheckPublic",
    "CheckRequest",
    "Correction",
    "DeckAdaptPublic",
    "DeckCardPublic",
    "DeckCardRename",
    "DeckCreate",
    "DeckName",
    "DeckPhotoPublic",
    "DeckPublic",
    "DetectedCardPublic",
    "ErrorPublic",
    "FinishedGamePublic",
    "GameCreate",
    "GamePublic",
    "GameRename",
    "GameSummary",
    "HandCreate",
    "HandPublic",
    "HandUpdate",
    "Id",
    "ImportPublic",
    "LiveSeatPublic",
    "LiveTablePublic",
    "LiveUpdate",
    "LiveWatchPublic",
    "MeldVerdictPublic",
    "PlayerBuys",
    "PlayerPublic",
    "PlayerStatsPublic",
    "PointsPublic",
    "PointsRequest",
    "Responses",
    "RoundInfo",
    "RoundPublic",
    "ScanPublic",
    "Seat",
    "SheetPublic",
    "SheetRound",
    "Text",
    "UndoPublic",
    "UndoRequest",
    "UnprocessablePublic",
    "ValidationIssue",
    "VariantPublic",
    "VariantSummary",
    "error_responses",
]


def _storable(text: str) -> str:
    """Text every database can store and every response can carry: valid Unicode (no
    lone surrogate, which JSON's `\\ud800` escapes can smuggle in) and no NUL."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (it holds a lone surrogate)") from None
    if "\x00" in text:
        raise ValueError("text may not contain a NUL character")
    return text


Text = Annotated[str, AfterValidator(_storable)]
"""A string from a request: storable, answerable (see `_storable`)."""
Id = Annotated[int, Field(ge=1, le=SQL_INT_MAX)]
DeckName = Annotated[
    str,
    Field(
        pattern=f"^{DECK_NAME_PATTERN.pattern}$",
        description="a taught deck's name: up to 40 letters, digits, '_', '.' or '-', "
        "starting with a letter or digit",
        examples=["home"],
    ),
]
"""A row id: positive and within the database's integer column."""
Seat = Annotated[int, Field(ge=0, le=SQL_INT_MAX, description="seat number, from 0")]

CardText = Field(
    max_length=400,
    description="cards in the project's notation, e.g. '7h 10s JK'",
    examples=["7h 10s JK"],
)


class ErrorPublic(BaseModel):
    """An error answer: what is wrong, in a sentence."""

    detail: str


class ValidationIssue(BaseModel):
    """One field of a request that does not validate (FastAPI's validation error)."""

    loc: list[str | int] = Field(description="where: 'body', 'path' or 'query', then the field")
    msg: str
    type: str
    input: Any = Field(default=None, description="the value sent, quoted back short")
    ctx: dict[str, Any] | None = None


class UnprocessablePublic(BaseModel):
    """A 422 answer: a rule the request breaks (a sentence: bad cards, a round out of
    range), or a request that does not validate (the list of fields at fault)."""

    detail: str | list[ValidationIssue]


Responses = dict[int | str, dict[str, Any]]


def error_responses(*codes: int) -> Responses:
    """OpenAPI entries for the error answers of a route: `{"detail": "..."}`, and for 422
    also the list of validation errors (`UnprocessablePublic`)."""
    return {code: {"model": UnprocessablePublic if code == 422 else ErrorPublic} for code in codes}


ROUND_ERRORS = error_responses(404, 409, 422)
"""A route of a game's round: no such game or seat, not the round in play, bad input."""
IMAGE_ERRORS = error_responses(400, 404, 409, 413, 415, 422, 503)
"""A route that reads a photo: ROUND_ERRORS, and a photo too large, of an unknown type,
unreadable (400), or no recognition model (503)."""


# --- variants ---------------------------------------------------------------------------


class VariantSummary(BaseModel):
    name: str
    title: str
    description: str
    family: str
    min_players: int
    max_players: int
    rounds: int
    repeat_rounds: bool
    target_score: int | None


class DealPublic(BaseModel):
    min_players: int
    max_players: int
    cards: int


class RoundRulePublic(BaseModel):
    number: int
    contract: str | None
    deal: list[DealPublic]
    buys: int


class VariantPublic(VariantSummary):
    round_rules: list[RoundRulePublic]
    notes: list[str]


# --- games ------------------------------------------------------------------------------


def player_name(name: str) -> str:
    """A player's name as stored: spaces collapsed, 1 to PLAYER_NAME_LENGTH characters,
    no control characters (ValueError saying which)."""
    cleaned = " ".join(name.split())
    if not 1 <= len(cleaned) <= PLAYER_NAME_LENGTH:
        raise ValueError(f"each player needs a name of 1 to {PLAYER_NAME_LENGTH} characters")
    if any(unicodedata.category(c) == "Cc" for c in cleaned):
        raise ValueError("a player's name may not hold control characters")
    return cleaned


class GameCreate(BaseModel):
    name: Text = Field(default="", max_length=GAME_NAME_LENGTH)
    variant: Text | None = Field(
        default=None,
        max_length=100,
        description="a built-in or house-rule variant name",
        examples=["shanghai"],
    )
    variant_toml: Text | None = Field(
        default=None, max_length=100_000, description="the text of a house-rule .toml file"
    )
    players: list[Text] = Field(
        min_length=1,
        max_length=20,
        description="names in seat order",
        examples=[["Ann", "Bob", "Cy"]],
    )
    target_score: int | None = Field(
        default=None, ge=1, le=100_000, description="only for variants played to a target"
    )
    deck: DeckName | None = Field(
        default=None,
        description="a taught deck of the variant's family to read the scans with "
        "(`GET /api/decks`); none: the shipped reading",
    )

    @field_validator("players")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        cleaned = [player_name(n) for n in names]
        if len({n.casefold() for n in cleaned}) != len(cleaned):
            raise ValueError("player names must be different")
        return cleaned

    @model_validator(mode="after")
    def _one_variant(self) -> GameCreate:
        if (self.variant is None) == (self.variant_toml is None):
            raise ValueError("give either a variant name or a house-rule file (variant_toml)")
        return self


class PlayerRename(BaseModel):
    name: Annotated[Text, AfterValidator(player_name)] = Field(
        max_length=PLAYER_NAME_LENGTH * 4,
        description="the player's new name (spaces collapsed; different from the others')",
        examples=["Annie"],
    )


class GameRename(BaseModel):
    name: Text = Field(
        max_length=GAME_NAME_LENGTH,
        description="the game's new name (spaces trimmed; empty: no name)",
        examples=["Saturday at Gran's"],
    )


class PlayerPublic(BaseModel):
    id: int
    seat: int
    name: str


class RoundInfo(BaseModel):
    number: int
    contract: str | None
    cards_dealt: int
    buys_allowed: int


class GameSummary(BaseModel):
    id: int
    name: str
    variant_name: str
    variant_title: str
    players: list[str]
    created_at: dt.datetime
    current_round: int | None
    finished: bool


class GamePublic(GameSummary):
    variant_origin: str
    target_score: int | None
    deck: str | None = Field(default=None, description="the taught deck its scans read with")
    player_list: list[PlayerPublic]
    rounds: list[RoundInfo]
    rounds_scored: int
    totals: list[int]
    leaders: list[str]
    winners: list[str]
    loser: str | None
    family: str
    cards_in_play: list[str] = Field(
        description="every distinct card of this game's deck (wilds included) in engine "
        "notation and deck order, suit by suit: the cards a hand or lay-down may hold",
        examples=[["1B", "2B", "14B", "1R", "ROOK"]],
    )


# --- hands, points, buys, rounds ---------------------------------------------------------


class PointsRequest(BaseModel):
    cards: Text = CardText


class PointsPublic(BaseModel):
    cards: list[str]
    per_card: list[int]
    points: int


Author = Annotated[Text, AfterValidator(player_name)]
"""Who makes a change: the device's or player's name the page knows (kept in the round's
history; `host` when none is given)."""
AuthorField = Field(
    default=None,
    max_length=PLAYER_NAME_LENGTH * 4,
    description="who makes the change, kept in the round's history (default: host)",
    examples=["Ann's phone"],
)


class HandUpdate(BaseModel):
    cards: Text = CardText
    by: Author | None = AuthorField
    blind: bool = Field(default=False, description="went out with all cards in one play")
    used_wild: bool = Field(default=True, description="for a blind finish: was a wild used")


class HandCreate(HandUpdate):
    player: Seat
    scan_id: Id | None = Field(default=None, description="the scan these cards confirm")
    scan_seat: Seat | None = Field(
        default=None, description="a table photo: the seat whose hand these cards confirm"
    )
    confirm_out: bool = Field(
        default=False,
        description="no cards for a scan whose photo showed cards: the player did go out",
    )


class Correction(BaseModel):
    action: Literal["added", "removed"]
    card: str


class HandPublic(BaseModel):
    id: int
    round: int
    seat: int
    player: str
    cards: list[str]
    per_card: list[int]
    hand_points: int
    bonus: int
    points: int
    went_out: bool
    blind: bool
    scan_id: int | None
    scan_image_url: str | None = Field(
        description="the photo of the scan these cards confirm, with its token (evidence)"
    )
    scan_annotated_url: str | None = Field(
        description="that photo with each card read boxed and named, with its token"
    )
    corrections: list[Correction]
    entry: Literal["manual", "scan"]


class BuyCreate(BaseModel):
    player: Seat
    by: Author | None = AuthorField


class BuyPublic(BaseModel):
    id: int
    round: int
    seat: int
    player: str
    used: int
    allowed: int
    left: int


class PlayerBuys(BaseModel):
    seat: int
    player: str
    used: int
    allowed: int
    left: int


class RoundPublic(BaseModel):
    number: int
    contract: str | None
    cards_dealt: int
    buys_allowed: int
    current: bool
    complete: bool
    hands: list[HandPublic]
    buys: list[PlayerBuys]


class ChangeRequest(BaseModel):
    by: Author | None = AuthorField


class UndoRequest(ChangeRequest):
    change: Id | None = Field(
        default=None,
        description="the change the person saw as the last one: undone only if it still is "
        "(409 otherwise: another device changed the game meanwhile)",
    )


class ChangeHand(BaseModel):
    """A hand as a change found or left it."""

    cards: list[str]
    points: int
    went_out: bool
    blind: bool


class ChangePublic(BaseModel):
    """One change in a round's history: who made it, when, what it was before and after,
    and whether it was undone (by whom, when)."""

    id: int
    round: int
    seat: int
    player: str
    kind: Literal["entered", "corrected", "reopened", "buy", "buy-back"] = Field(
        description="entered: a hand scored; corrected: a stored hand changed; reopened: "
        "the last hand of a finished game taken back; buy / buy-back: a buy recorded or "
        "taken back"
    )
    correction: bool = Field(
        description="a correction (a hand corrected, a finished game reopened, a buy of a "
        "round already scored), shown as 'edited' on the sheet"
    )
    summary: str = Field(description="the change in a sentence")
    before: ChangeHand | None
    after: ChangeHand | None
    by: str
    at: dt.datetime
    undone_by: str | None
    undone_at: dt.datetime | None


class UndoPublic(BaseModel):
    undone: ChangePublic
    game: GamePublic


# --- finished games, statistics, export and import ---------------------------------------


class FinishedGamePublic(BaseModel):
    """A finished game in the history: who played, the totals and who won."""

    id: int
    name: str
    variant_title: str
    created_at: dt.datetime
    players: list[str]
    totals: list[int]
    winners: list[str]
    rounds: int


class PlayerStatsPublic(BaseModel):
    """One player's record over the finished games (a player is a name, told apart
    without regard to case)."""

    player: str
    games: int
    wins: int
    rounds: int
    average_round: float = Field(description="points per round, rounded to 0.1 (low is good)")
    best_round: int = Field(description="the fewest points in one round")


class ImportPublic(BaseModel):
    imported: list[int] = Field(description="the new games' ids, in the file's order")
    skipped: int = Field(
        description="games of the file already here (same start, variant, players)"
    )


# --- scans and dispute checks -----------------------------------------------------------


class DetectedCardPublic(BaseModel):
    card: str
    confidence: float
    xyxy: tuple[float, float, float, float]
    sure: bool = Field(
        default=True, description="false: read below the sure level; shown marked, to check"
    )
    seat: int | None = Field(
        default=None,
        description="the hand holding this card: a table photo's seat (sector); none: no hand",
    )


class ScanWarningPublic(BaseModel):
    """What a person must check before a scan counts; `code` is stable (`unread`,
    `unsure`, `excess`, `not-in-play`, `joker`, `corner`, `gap`, `piled`, `joined`, `loose`,
    `dark`, `blurred`, `small`, `no-cards`, `outside`), `message` says what to
    do."""

    code: str
    message: str
    cards: list[int] = Field(default_factory=list, description="positions into `cards`")


class ScanSeatPublic(BaseModel):
    seat: int = Field(description="sector of the photo: 0 nearest its bottom, then clockwise")
    cards: list[str]
    points: int


class ScanPublic(BaseModel):
    id: int
    round: int
    seat: int
    player: str
    source: str
    width: int
    height: int
    cards: list[DetectedCardPublic]
    proposed: list[str]
    not_in_play: list[str]
    points: int
    warnings: list[ScanWarningPublic]
    photo: str = Field(description="hand: one player's cards; table: a hand per seat")
    seats: list[ScanSeatPublic] = Field(
        default_factory=list, description="a table photo's hand per seat, to pick whose"
    )
    scanner: str
    image_url: str
    annotated_url: str


class CheckRequest(BaseModel):
    cards: Text = Field(
        max_length=400,
        description="the lay-down in table order, '|' between melds",
        examples=["7h 7s 7c | 4d 5d 6d 7d"],
    )


class MeldVerdictPublic(BaseModel):
    cards: list[str]
    valid: bool
    kind: str | None
    description: str | None
    reasons: list[str]


class CheckPublic(BaseModel):
    valid: bool
    round: int
    contract: str | None
    grouped: bool
    reasons: list[str]
    melds: list[MeldVerdictPublic]
    detected: list[DetectedCardPublic] = Field(default_factory=list)
    loose: list[str] = Field(
        default_factory=list, description="a photo's cards that are part of no meld"
    )
    text: str | None = Field(
        default=None, description="a photo's melds as lay-down text, to edit and check again"
    )
    warnings: list[ScanWarningPublic] = Field(default_factory=list)
    annotated_jpeg: str | None = Field(
        default=None, description="base64 JPEG of the image with each meld boxed by verdict"
    )


# --- score sheet ------------------------------------------------------------------------


class SheetRound(BaseModel):
    number: int
    contract: str | None
    cards_dealt: int
    points: list[int | None]
    totals: list[int] | None
    went_out: int | None
    complete: bool
    edited: bool = Field(
        default=False,
        description="corrected after it was scored (a hand, a buy, an undo): its history "
        "(`/api/games/{id}/changes?round=n`) says by whom and when",
    )


class SheetPublic(BaseModel):
    game_id: int
    name: str
    variant_title: str
    players: list[str]
    rounds: list[SheetRound]
    totals: list[int]
    leaders: list[str]
    winners: list[str]
    loser: str | None
    finished: bool
    target_score: int | None


# --- live -------------------------------------------------------------------------------


class LiveSeatPublic(BaseModel):
    seat: int
    player: str
    melds: list[list[str]] = Field(description="the seat's melds, cards in table order")
    hand: list[str] = Field(description="the seat's cards in no meld")
    check: CheckPublic | None = Field(
        default=None,
        description="the melds judged as a lay-down for the round in play (each meld's "
        "verdict with reasons); none when the seat has no melds or no round is in play",
    )


class LiveTablePublic(BaseModel):
    version: int = Field(description="counts the stream's stable tables: a new one, a new number")
    frame: int = Field(description="the frame it was read from")
    round: int | None
    contract: str | None
    cards: list[str] = Field(description="every card of the stable table")
    seats: list[LiveSeatPublic]
    outside: list[str] = Field(description="cards at no seat")


class LiveUpdate(BaseModel):
    frame: int
    width: int
    height: int
    cards: list[DetectedCardPublic]
    melds: list[list[int]]
    stable_cards: list[str]
    stability: float
    stable: bool
    table: LiveTablePublic | None = Field(
        default=None,
        description="with `?game=ID`: the latest stable table, per seat with verdicts",
    )


class LiveWatchPublic(BaseModel):
    game_id: int
    streaming: bool
    device: str | None = Field(description="the device streaming the game's table")
    table: LiveTablePublic | None


class CameraStatus(BaseModel):
    source: str | None
    running: bool
    frames: int
    error: str | None
    recognition: str | None


# --- taught decks ------------------------------------------------------------------------

DECK_ERRORS = error_responses(404, 409, 422)
"""A route of one deck: unknown deck or card, a conflict (the same card twice, an
adaptation running), bad input."""


class DeckCreate(BaseModel):
    name: DeckName
    family: Literal["standard", "rook"] = Field(
        default="standard",
        description="standard: 52 cards and the joker; rook: 1-14 in four colours and the bird",
    )


class DeckCardPublic(BaseModel):
    """A card found in a photo of a deck being taught."""

    id: int
    proposal: str = Field(description="what the reader read it as, within the deck's family")
    confidence: float
    card: str | None = Field(
        description="the name it will be taught as (none: another card has the proposed name)"
    )
    photo: int = Field(description="which photo it was found in, from 1 (0: a stored card)")
    note: str
    face_url: str = Field(description="the card cut out and straightened (JPEG)")


class DeckAdaptPublic(BaseModel):
    """An adaptation: `running` with its stage and count, or how it ended."""

    name: str
    kind: Literal["reading", "locator"] = Field(
        default="reading", description="the reading (from a draft) or the deck's own locator"
    )
    state: Literal["running", "done", "failed", "cancelled"]
    stage: str = Field(
        description="reading: photos, crops (reading the enrolled crops) or fit; locator: "
        "scenes (rendering photos of the deck), train (the locator; done and total in "
        "seconds), reader (the reader's fine-tune, in seconds) or export"
    )
    done: int
    total: int
    message: str


class LocatorStart(BaseModel):
    """How long to train a deck's own locator."""

    minutes: float = Field(
        default=LOCATOR_MINUTES,
        ge=LOCATOR_MINUTES_RANGE[0],
        le=LOCATOR_MINUTES_RANGE[1],
        description=f"the locator's training time; the reader's fine-tune ({READER_MINUTES:g} "
        f"minutes) follows, and the whole step ends within both and {OVERHEAD_MINUTES:g} "
        "minutes for the scenes, exports and check (the training shrinks when those run "
        "long)",
    )


class DeckPublic(BaseModel):
    """A taught deck and, while it is being taught, its draft."""

    name: str
    family: str
    family_cards: list[str] = Field(description="every card of the family, in deck order")
    stored: bool = Field(description="a deck is stored under this name")
    adapted: bool = Field(description="the stored deck has its adapted reading")
    locator: bool = Field(
        default=False,
        description="the stored deck has its own adapted locator (`shanghai deck locator`)",
    )
    reader: bool = Field(
        default=False,
        description="the stored deck has its own fine-tuned reader (the same step)",
    )
    locator_teachable: bool = Field(
        default=False,
        description="this server can adapt the deck's own locator now (stored, adapted, "
        "and the train extra installed): `POST .../locator`",
    )
    cards: list[str] = Field(description="the cards of the stored deck")
    missing: list[str] = Field(
        description="cards of the family not taught (of the draft while there is one, else "
        "of the stored deck): they keep the shipped reading"
    )
    draft: list[DeckCardPublic] | None = Field(
        description="the cards found in the photos so far (none: not being taught)"
    )
    photos: int
    adapting: DeckAdaptPublic | None


class DeckPhotoPublic(BaseModel):
    """The cards found in one photo, and the deck as it now stands."""

    found: list[DeckCardPublic]
    deck: DeckPublic


class DeckCardRename(BaseModel):
    card: Text = Field(max_length=10, description="the card's name", examples=["7h", "JK", "ROOK"])
