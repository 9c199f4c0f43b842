"""Tables. Every change goes through an Alembic migration in `migrations/versions/`
(`tests/server/test_migrations.py` checks the migrations produce exactly these).

A game keeps a snapshot of its variant (the TOML text it was created with), so a game
reads the same after a built-in variant or a house-rule file changes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

__all__ = [
    "GAME_NAME_LENGTH",
    "PLAYER_NAME_LENGTH",
    "SQL_INT_MAX",
    "VARIANT_NAME_LENGTH",
    "VARIANT_TITLE_LENGTH",
    "Base",
    "Buy",
    "Game",
    "Hand",
    "Player",
    "Scan",
]

# Sizes of the columns that hold text from a request (the API's schemas are bounded by
# them: PostgreSQL refuses longer text where SQLite would store it).
GAME_NAME_LENGTH = 100
PLAYER_NAME_LENGTH = 60
VARIANT_NAME_LENGTH = 100
VARIANT_TITLE_LENGTH = 200
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


def _now() -> Mapped[dt.datetime]:
    return mapped_column(DateTime(timezone=True), server_default=func.now(), nullable=False)


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(GAME_NAME_LENGTH), nullable=False, default="")
    variant_name: Mapped[str] = mapped_column(String(VARIANT_NAME_LENGTH), nullable=False)
    variant_title: Mapped[str] = mapped_column(String(VARIANT_TITLE_LENGTH), nullable=False)
    variant_origin: Mapped[str] = mapped_column(String(20), nullable=False)
    variant_toml: Mapped[str] = mapped_column(Text, nullable=False)
    target_score: Mapped[int | None] = mapped_column(Integer, nullable=True)
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


class Hand(Base):
    """A player's score for one round: the cards left, points, and how they were known."""

    __tablename__ = "hands"
    __table_args__ = (
        UniqueConstraint("game_id", "round_number", "player_id", name="uq_hands_round_player"),
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
    corrections: Mapped[list[dict[str, Any]]] = mapped_column(JSON, nullable=False)
    created_at: Mapped[dt.datetime] = _now()
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    @property
    def points(self) -> int:
        return self.hand_points + self.bonus


class Buy(Base):
    """One buy (the discard plus penalty cards, out of turn) by a player in a round."""

    __tablename__ = "buys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True
    )
    round_number: Mapped[int] = mapped_column(Integer, nullable=False)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), nullable=False
    )
    created_at: Mapped[dt.datetime] = _now()
