"""ix_actions_faulted: a bot's list of faults searches its games' faulted moves, not every move

A partial index of the moves a bot faulted (``fault`` set, and not ``forfeit``: a move played for a seat already
out is no answer of its bot), keyed by game, seat and ply: ``GET /api/v1/bots/{id}/faults`` looks up each game of
the bot in it instead of reading all of the game's moves. It holds only the faulted moves, a small part of the
table.

Revision ID: 0013
Revises: '0012'
Create Date: 2026-11-25 01:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FAULTED = sa.text("fault IS NOT NULL AND fault != 'forfeit'")


def upgrade() -> None:
    op.create_index(
        "ix_actions_faulted",
        "actions",
        ["game_id", "seat", "ply"],
        unique=False,
        sqlite_where=FAULTED,
        postgresql_where=FAULTED,
    )


def downgrade() -> None:
    op.drop_index("ix_actions_faulted", table_name="actions", sqlite_where=FAULTED, postgresql_where=FAULTED)
