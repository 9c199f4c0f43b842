"""Tables. Every change goes through an Alembic migration in `migrations/versions/`
(`tests/server/test_storage.py` checks the migrations produce exactly these).

A game keeps a snapshot of its variant (the TOML text it was created with), so a game
reads the same after a built-in variant or a house-rule file changes.

The rules that two requests sent at once could both pass are the database's to keep, the
same on SQLite and PostgreSQL: one player out per round (`uq_hands_one_out`, a partial
unique index), a player's buys in a round numbered in slots (`uq_buys_slot`), every
correction of a hand its own row (`hand_corrections`). Every change to a round (a hand
entered or corrected, a buy, a round reopened) is a row of `round_changes`, with who made
it and when, and whether it was undone. Times are UTC (`UtcDateTime`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

__all__ = [
    "DECK_NAME_LENGTH",
    "GAME_NAME_LENGTH",
    "PLAYER_NAME_LENGTH",
    "SQL_INT_MAX",
    "VARIANT_NAME_LENGTH",
    "VARIANT_TITLE_LENGTH",
    "Base",
    "Buy",
    "Game",
    "Hand",
    "HandCorrection",
    "Player",
    "RoundChange",
    "Scan",
    "UtcDateTime",
]

# Sizes of the columns that hold text from a request (the API's schemas are bounded by
# them: PostgreSQL refuses longer text where SQLite would store it).
GAME_NAME_LENGTH = 100
PLAYER_NAME_LENGTH = 60
VARIANT_NAME_LENGTH = 100
VARIANT_TITLE_LENGTH = 200
DECK_NAME_LENGTH = 40
"""A taught deck's name (`vision.deck_store.NAME_PATTERN`)."""
SQL_INT_MAX = 2**31 - 1
"""The largest value of an `Integer` column (ids, round numbers, points) on PostgreSQL."""

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class UtcDateTime(TypeDecorator[dt.datetime]):
    """A time with its zone, always read back as UTC (`tzinfo=UTC`): PostgreSQL's
    `timestamptz` answers in the session's zone, SQLite keeps UTC text without one."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"a time without a zone cannot be stored: {value!r}")
        utc = value.astimezone(dt.UTC)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(
        self, value: dt.datetime | None, dialect: Dialect
    ) -> dt.datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def _now() -> Mapped[dt.datetime]:
    return mapped_column(UtcDateTime(), server_default=func.now(), nullable=False)


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(GAME_NAME_LENGTH), nullable=False, default="")
    variant_name: Mapped[str] = mapped_column(String(VARIANT_NAME_LENGTH), nullable=False)
    variant_title: Mapped[str] = mapped_column(String(VARIANT_TITLE_LENGTH), nullable=False)
    variant_origin: Mapped[str] = mapped_column(String(20), nullable=False)
    variant_toml: Mapped[str] = mapped_column(Text, nullable=False)
    target_score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    deck: Mapped[str | None] = mapped_column(String(DECK_NAME_LENGTH), nullable=True)
    """The taught deck its scans read with (`vision.deck_store`), None: the shipped
    reading."""
    created_at: Mapped[dt.datetime] = _now()

    players: Mapped[list[Player]] = relationship(
        back_populates="game", order_by="Player.seat", cascade="all, delete-orphan"
    )


class Player(Base):
    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("game_id", "seat", name="uq_players_game_seat"),
        UniqueConstraint("game_id", "name", name="uq_players_game_name"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True
    )
    seat: Mapped[int] = mapped_column(Integer, nullable=False)
    name: Mapped[str] = mapped_column(String(PLAYER_NAME_LENGTH), nullable=False)

    game: Mapped[Game] = relationship(back_populates="players")


class Scan(Base):
    """Evidence: one photo or live frame of a player's cards and what was read in it."""

    __tablename__ = "scans"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True
    )
    round_number: Mapped[int] = mapped_column(Integer, nullable=False)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), nullable=False, index=True
    )
    source: Mapped[str] = mapped_column(String(20), nullable=False)
    image: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    image_type: Mapped[str] = mapped_column(String(40), nullable=False)
    width: Mapped[int] = mapped_column(Integer, nullable=False)
    height: Mapped[int] = mapped_column(Integer, nullable=False)
    detections: Mapped[list[dict[str, Any]]] = mapped_column(JSON, nullable=False)
    warnings: Mapped[list[dict[str, Any]]] = mapped_column(
        JSON, nullable=False, default=list, server_default="[]"
    )
    """The scan's warnings (`ScanWarning.to_json()`): what to check before it counts."""
    photo: Mapped[str] = mapped_column(
        String(20), nullable=False, default="hand", server_default="hand"
    )
    """What the photo showed: `hand` (one player's) or `table` (a hand per seat, each
    detection with its `seat`)."""
    player: Mapped[Player] = relationship()
    annotated_jpeg: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    scanner: Mapped[str] = mapped_column(String(200), nullable=False)
    created_at: Mapped[dt.datetime] = _now()

    def proposed_cards(self, seat: int | None = None) -> list[str]:
        """The cards this scan proposes for a hand (not melds on the table): a hand
        photo's every card; a table photo's hand at `seat` (default: the scanned
        player's seat)."""
        if self.photo != "table":
            return [str(d["card"]) for d in self.detections if d.get("hand", True)]
        if seat is None:
            seat = self.player.seat
        return [str(d["card"]) for d in self.detections if d.get("hand") and d.get("seat") == seat]


class Hand(Base):
    """A player's score for one round: the cards left, points, and how they were known."""

    __tablename__ = "hands"
    __table_args__ = (
        UniqueConstraint("game_id", "round_number", "player_id", name="uq_hands_round_player"),
        Index(
            "uq_hands_one_out",
            "game_id",
            "round_number",
            unique=True,
            sqlite_where=text("went_out"),
            postgresql_where=text("went_out"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True
    )
    round_number: Mapped[int] = mapped_column(Integer, nullable=False)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), nullable=False
    )
    cards: Mapped[str] = mapped_column(Text, nullable=False)
    hand_points: Mapped[int] = mapped_column(Integer, nullable=False)
    bonus: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    went_out: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    blind: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    scan_id: Mapped[int | None] = mapped_column(
        ForeignKey("scans.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[dt.datetime] = _now()
    updated_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime(), nullable=True)

    corrections: Mapped[list[HandCorrection]] = relationship(
        order_by="HandCorrection.id", cascade="all, delete-orphan", passive_deletes=True
    )
    """Every card removed from or added to the hand, oldest first: from the scan it
    confirms, then each later correction."""

    @property
    def points(self) -> int:
        return self.hand_points + self.bonus


class HandCorrection(Base):
    """One card removed from or added to a hand (a row each, so corrections sent at
    once are all kept)."""

    __tablename__ = "hand_corrections"
    __table_args__ = (CheckConstraint("action IN ('added', 'removed')", name="action"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand_id: Mapped[int] = mapped_column(
        ForeignKey("hands.id", ondelete="CASCADE"), nullable=False, index=True
    )
    action: Mapped[str] = mapped_column(String(10), nullable=False)
    card: Mapped[str] = mapped_column(String(10), nullable=False)
    author: Mapped[str | None] = mapped_column(String(PLAYER_NAME_LENGTH), nullable=True)
    """Who made the correction (a device's or player's name, or `host`); none: stored
    before authors were kept, or the scan's misreads when its hand was confirmed."""
    created_at: Mapped[dt.datetime] = _now()


class RoundChange(Base):
    """One change to a round, in the round's history: a hand `entered` or `corrected`,
    a hand taken back to reopen a finished game (`reopened`), a `buy` or a buy taken back
    (`buy-back`). `before` and `after` hold the hand as it was and became (`cards`,
    `hand_points`, `bonus`, `went_out`, `blind`, `scan_id`, `corrections`) or the buy's
    `slot`; undoing the change puts `before` back and dates `undone_at`."""

    __tablename__ = "round_changes"
    __table_args__ = (
        CheckConstraint(
            "kind IN ('entered', 'corrected', 'reopened', 'buy', 'buy-back')", name="kind"
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True
    )
    round_number: Mapped[int] = mapped_column(Integer, nullable=False)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), nullable=False
    )
    kind: Mapped[str] = mapped_column(String(10), nullable=False)
    round_complete: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    """The round was already scored (every hand in) when the change was made."""
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    author: Mapped[str] = mapped_column(String(PLAYER_NAME_LENGTH), nullable=False)
    created_at: Mapped[dt.datetime] = _now()
    undone_by: Mapped[str | None] = mapped_column(String(PLAYER_NAME_LENGTH), nullable=True)
    undone_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime(), nullable=True)

    player: Mapped[Player] = relationship()


class Buy(Base):
    """One buy (the discard plus penalty cards, out of turn) by a player in a round,
    in one of the round's slots (1 to the variant's limit): two buys sent at once that
    take the same slot cannot both be stored."""

    __tablename__ = "buys"
    __table_args__ = (
        UniqueConstraint("game_id", "round_number", "player_id", "slot", name="uq_buys_slot"),
        CheckConstraint("slot >= 1", name="slot"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True
    )
    round_number: Mapped[int] = mapped_column(Integer, nullable=False)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), nullable=False
    )
    slot: Mapped[int] = mapped_column(Integer, nullable=False)
    created_at: Mapped[dt.datetime] = _now()
