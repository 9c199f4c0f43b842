"""Every change to a round kept, with who and when: `round_changes` (a hand entered or
corrected, a hand taken back to reopen a finished game, a buy or a buy taken back; what
it was before and after; who made it; when; whether and by whom it was undone), and the
author of each card correction (`hand_corrections.author`, none for the rows stored
before: who made them was not kept).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("hand_corrections") as batch:
        batch.add_column(sa.Column("author", sa.String(length=60), nullable=True))
    op.create_table(
        "round_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("round_complete", sa.Boolean(), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("author", sa.String(length=60), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("undone_by", sa.String(length=60), nullable=True),
        sa.Column("undone_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "kind IN ('entered', 'corrected', 'reopened', 'buy', 'buy-back')",
            name=op.f("ck_round_changes_kind"),
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_round_changes_game_id_games", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name="fk_round_changes_player_id_players",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_round_changes"),
    )
    op.create_index("ix_round_changes_game_id", "round_changes", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_round_changes_game_id", table_name="round_changes")
    op.drop_table("round_changes")
    with op.batch_alter_table("hand_corrections") as batch:
        batch.drop_column("author")
