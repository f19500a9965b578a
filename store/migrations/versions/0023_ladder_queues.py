"""ladder queues: partial indexes of a ladder's idle bots and of its games not settled

Matchmaking (``tournament/plans/ladders.py``) takes the idle bot with the fewest games (a newcomer first; among
equals, the one idle longest) and counts the ladder's games in play at every game it makes: along these partial
indexes it reads a few rows, whatever the ladder's size or history (``ix_ladder_entries_fewest``: the entries that
may be matched, by their games, then the time they fell idle; ``ix_ladder_games_unsettled``: the games made and not
settled). New indexes only.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-29 20:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IDLE = "busy = 0 AND NOT paused AND left_at IS NULL"
UNSETTLED = "NOT settled"


def upgrade() -> None:
    with op.batch_alter_table("ladder_entries", schema=None) as batch_op:
        batch_op.create_index(
            "ix_ladder_entries_fewest",
            ["ladder_id", "games", "free_at"],
            unique=False,
            sqlite_where=sa.text(IDLE),
            postgresql_where=sa.text(IDLE),
        )
    with op.batch_alter_table("ladder_games", schema=None) as batch_op:
        batch_op.create_index(
            "ix_ladder_games_unsettled",
            ["ladder_id"],
            unique=False,
            sqlite_where=sa.text(UNSETTLED),
            postgresql_where=sa.text(UNSETTLED),
        )


def downgrade() -> None:
    with op.batch_alter_table("ladder_games", schema=None) as batch_op:
        batch_op.drop_index("ix_ladder_games_unsettled")
    with op.batch_alter_table("ladder_entries", schema=None) as batch_op:
        batch_op.drop_index("ix_ladder_entries_fewest")
