"""The rules requests sent at once could both pass are kept by the database:

- one player out per round: a partial unique index on `hands (game_id, round_number)`
  where `went_out`. A round that already holds two (stored by that race; the game could
  no longer be read) keeps its first, by id; the later ones are deleted, so the game reads
  again and those players enter their hands again (their scans stay);
- buys numbered in slots: `buys.slot`, unique per game, round and player (existing buys
  take 1, 2, ... in the order they were stored);
- corrections as rows: `hand_corrections` (one card removed or added each) instead of
  the JSON list `hands.corrections`, whose entries become rows, in order, dated when
  their hand was stored.

Times were already stored with a time zone (`timestamptz` on PostgreSQL, UTC text on
SQLite); the models read them back as UTC (`UtcDateTime`). The new table's too.

On SQLite each table is rebuilt (batch mode). `hands` is rebuilt before
`hand_corrections` exists: dropping the old `hands` would otherwise cascade to it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-27
"""

from __future__ import annotations

import logging
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

_hands = sa.table(
    "hands",
    sa.column("id", sa.Integer()),
    sa.column("game_id", sa.Integer()),
    sa.column("round_number", sa.Integer()),
    sa.column("went_out", sa.Boolean()),
    sa.column("corrections", sa.JSON()),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
_buys = sa.table(
    "buys",
    sa.column("id", sa.Integer()),
    sa.column("game_id", sa.Integer()),
    sa.column("round_number", sa.Integer()),
    sa.column("player_id", sa.Integer()),
    sa.column("slot", sa.Integer()),
)
_corrections = sa.table(
    "hand_corrections",
    sa.column("id", sa.Integer()),
    sa.column("hand_id", sa.Integer()),
    sa.column("action", sa.String()),
    sa.column("card", sa.String()),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def _one_out_per_round() -> None:
    earlier = _hands.alias("earlier")
    second_out = sa.exists().where(
        earlier.c.game_id == _hands.c.game_id,
        earlier.c.round_number == _hands.c.round_number,
        earlier.c.went_out.is_(True),
        earlier.c.id < _hands.c.id,
    )
    deleted = op.get_bind().execute(
        sa.delete(_hands).where(_hands.c.went_out.is_(True), second_out)
    )
    if deleted.rowcount:
        log.warning(
            "deleted %d hand(s) stored as a second player out in a round (kept the first)",
            deleted.rowcount,
        )


def _number_the_buys() -> None:
    op.add_column("buys", sa.Column("slot", sa.Integer(), nullable=True))
    before = _buys.alias("before")
    rank = (
        sa.select(sa.func.count())
        .where(
            before.c.game_id == _buys.c.game_id,
            before.c.round_number == _buys.c.round_number,
            before.c.player_id == _buys.c.player_id,
            before.c.id <= _buys.c.id,
        )
        .scalar_subquery()
    )
    op.get_bind().execute(sa.update(_buys).values(slot=rank))
    with op.batch_alter_table("buys") as batch:
        batch.alter_column("slot", existing_type=sa.Integer(), nullable=False)
        batch.create_unique_constraint(
            "uq_buys_slot", ["game_id", "round_number", "player_id", "slot"]
        )
        batch.create_check_constraint(op.f("ck_buys_slot"), "slot >= 1")


def upgrade() -> None:
    bind = op.get_bind()
    _one_out_per_round()
    stored = bind.execute(
        sa.select(_hands.c.id, _hands.c.corrections, _hands.c.created_at).order_by(_hands.c.id)
    ).all()
    rows: list[dict[str, Any]] = [
        {
            "hand_id": hand_id,
            "action": str(entry["action"]),
            "card": str(entry["card"]),
            "created_at": created_at,
        }
        for hand_id, corrections, created_at in stored
        for entry in corrections or []
    ]
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("corrections")
    op.create_index(
        "uq_hands_one_out",
        "hands",
        ["game_id", "round_number"],
        unique=True,
        sqlite_where=sa.text("went_out"),
        postgresql_where=sa.text("went_out"),
    )
    op.create_table(
        "hand_corrections",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("hand_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=10), nullable=False),
        sa.Column("card", sa.String(length=10), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.CheckConstraint(
            "action IN ('added', 'removed')", name=op.f("ck_hand_corrections_action")
        ),
        sa.ForeignKeyConstraint(
            ["hand_id"],
            ["hands.id"],
            name="fk_hand_corrections_hand_id_hands",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_hand_corrections"),
    )
    op.create_index("ix_hand_corrections_hand_id", "hand_corrections", ["hand_id"])
    if rows:
        bind.execute(sa.insert(_corrections), rows)
    _number_the_buys()


def downgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table("buys") as batch:
        batch.drop_constraint(op.f("ck_buys_slot"), type_="check")
        batch.drop_constraint("uq_buys_slot", type_="unique")
        batch.drop_column("slot")
    history: dict[int, list[dict[str, str]]] = {}
    for hand_id, action, card in bind.execute(
        sa.select(_corrections.c.hand_id, _corrections.c.action, _corrections.c.card).order_by(
            _corrections.c.id
        )
    ):
        history.setdefault(hand_id, []).append({"action": action, "card": card})
    op.drop_index("ix_hand_corrections_hand_id", table_name="hand_corrections")
    op.drop_table("hand_corrections")
    op.drop_index("uq_hands_one_out", table_name="hands")
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("corrections", sa.JSON(), nullable=False, server_default="[]"))
    for hand_id, corrections in history.items():
        bind.execute(
            sa.update(_hands).where(_hands.c.id == hand_id).values(corrections=corrections)
        )
    with op.batch_alter_table("hands") as batch:
        batch.alter_column("corrections", existing_type=sa.JSON(), server_default=None)
