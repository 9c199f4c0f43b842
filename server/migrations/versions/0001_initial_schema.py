"""Initial schema: games, players, scans (evidence), hands (round scores), buys.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _created_at() -> sa.Column[object]:
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    )


def _fk(column: str, table: str, source: str, ondelete: str = "CASCADE") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{table}.id"], name=f"fk_{source}_{column}_{table}", ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("variant_name", sa.String(length=100), nullable=False),
        sa.Column("variant_title", sa.String(length=200), nullable=False),
        sa.Column("variant_origin", sa.String(length=20), nullable=False),
        sa.Column("variant_toml", sa.Text(), nullable=False),
        sa.Column("target_score", sa.Integer(), nullable=True),
        _created_at(),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        _fk("game_id", "games", "players"),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
        sa.UniqueConstraint("game_id", "name", name="uq_players_game_name"),
        sa.UniqueConstraint("game_id", "seat", name="uq_players_game_seat"),
    )
    op.create_index("ix_players_game_id", "players", ["game_id"])
    op.create_table(
        "buys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        _created_at(),
        _fk("game_id", "games", "buys"),
        _fk("player_id", "players", "buys"),
        sa.PrimaryKeyConstraint("id", name="pk_buys"),
    )
    op.create_index("ix_buys_game_id", "buys", ["game_id"])
    op.create_table(
        "scans",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.Column("image_type", sa.String(length=40), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("detections", sa.JSON(), nullable=False),
        sa.Column("annotated_jpeg", sa.LargeBinary(), nullable=False),
        sa.Column("scanner", sa.String(length=200), nullable=False),
        _created_at(),
        _fk("game_id", "games", "scans"),
        _fk("player_id", "players", "scans"),
        sa.PrimaryKeyConstraint("id", name="pk_scans"),
    )
    op.create_index("ix_scans_game_id", "scans", ["game_id"])
    op.create_index("ix_scans_player_id", "scans", ["player_id"])
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("cards", sa.Text(), nullable=False),
        sa.Column("hand_points", sa.Integer(), nullable=False),
        sa.Column("bonus", sa.Integer(), nullable=False),
        sa.Column("went_out", sa.Boolean(), nullable=False),
        sa.Column("blind", sa.Boolean(), nullable=False),
        sa.Column("scan_id", sa.Integer(), nullable=True),
        sa.Column("corrections", sa.JSON(), nullable=False),
        _created_at(),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        _fk("game_id", "games", "hands"),
        _fk("player_id", "players", "hands"),
        _fk("scan_id", "scans", "hands", ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_hands"),
        sa.UniqueConstraint("game_id", "round_number", "player_id", name="uq_hands_round_player"),
    )
    op.create_index("ix_hands_game_id", "hands", ["game_id"])


def downgrade() -> None:
    for table in ("hands", "scans", "buys", "players"):
        op.drop_index(f"ix_{table}_game_id", table_name=table)
        if table == "scans":
            op.drop_index("ix_scans_player_id", table_name="scans")
        op.drop_table(table)
    op.drop_table("games")
