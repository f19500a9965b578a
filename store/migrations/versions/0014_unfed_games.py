"""ix_tournament_games_unfed: the queue's top-up reads each running tournament's next games, not all it has left

A partial index of the scheduled games not given a job yet (``status = 'pending' AND NOT fed``), keyed by tournament
and play order: at every game's end the top-up (``tournament/dispatch/feed.py``) takes each running tournament's first few
along it, at a cost that no longer grows with the games waiting.

Revision ID: 0014
Revises: '0013'
Create Date: 2026-11-25 01:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNFED = sa.text("status = 'pending' AND NOT fed")


def upgrade() -> None:
    op.create_index(
        "ix_tournament_games_unfed",
        "tournament_games",
        ["tournament_id", "number"],
        unique=False,
        sqlite_where=UNFED,
        postgresql_where=UNFED,
    )


def downgrade() -> None:
    op.drop_index(
        "ix_tournament_games_unfed", table_name="tournament_games", sqlite_where=UNFED, postgresql_where=UNFED
    )
