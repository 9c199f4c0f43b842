"""Scans keep the scan contract's warnings (what the person must check before a scan
counts), so a scan read back later says what it said when it was made, and what the
photo showed (`hand`: one player's hand; `table`: the whole table, a hand per seat).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("scans") as batch:
        batch.add_column(sa.Column("warnings", sa.JSON(), nullable=False, server_default="[]"))
        batch.add_column(
            sa.Column("photo", sa.String(length=20), nullable=False, server_default="hand")
        )


def downgrade() -> None:
    with op.batch_alter_table("scans") as batch:
        batch.drop_column("photo")
        batch.drop_column("warnings")
