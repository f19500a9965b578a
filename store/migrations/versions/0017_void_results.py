"""results.void_reason: a game whose seat forfeited for a reason on the service's side is void, not rated

A result with a ``void_reason`` (``rejected``: the bot refused the service's signature from the game's start on;
``excluded``: the bot was excluded by its health checks when the game began) keeps its game and its row, but no
rating, standings, match test or tally counts it (``tournament/play/voids.py``, docs/ratings.md "Void games"). The
results written before this migration are not judged again: none is void. A partial index holds the void results of
each tournament, which its page lists.

Revision ID: 0017
Revises: '0016'
Create Date: 2026-11-29 15:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.add_column(sa.Column("void_reason", sa.String(length=32), nullable=True))
        batch_op.create_index(
            "ix_results_void",
            ["tournament_id", "id"],
            unique=False,
            sqlite_where=sa.text("void_reason IS NOT NULL"),
            postgresql_where=sa.text("void_reason IS NOT NULL"),
        )


def downgrade() -> None:
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.drop_index("ix_results_void")
        batch_op.drop_column("void_reason")
