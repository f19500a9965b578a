"""archived games: the records of finished games whose action rows retention deleted

``SORRY_ARENA_KEEP_MOVES_DAYS`` (default off) has the maintenance archive the finished games older than that: each
game's record (its compact JSON line, compressed with zlib) goes into ``archived_games`` and its action rows are
deleted, a batch at a time (``store/retention.py``). Nothing is archived by the migration itself; its downgrade
writes the archived games' action rows back from their records.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-29 14:30:00.000000
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "archived_games",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("record", sa.LargeBinary(), nullable=True),
        sa.Column("details", sa.JSON(), nullable=True),
        sa.Column("archived_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id"),
    )


def downgrade() -> None:
    """The archived games' action rows come back from their records (a game's moves are its record's actions,
    each faulted move's detail from ``details``), then the table goes."""
    archived = sa.table(
        "archived_games",
        sa.column("game_id", sa.Integer()),
        sa.column("record", sa.LargeBinary()),
        sa.column("details", sa.JSON()),
    )
    actions = sa.table(
        "actions",
        sa.column("game_id", sa.Integer()),
        sa.column("ply", sa.Integer()),
        sa.column("seat", sa.Integer()),
        sa.column("action", sa.String()),
        sa.column("latency_ms", sa.Float()),
        sa.column("fault", sa.String()),
        sa.column("fault_detail", sa.String()),
        sa.column("debug", sa.String()),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    games = sa.table("games", sa.column("id", sa.Integer()), sa.column("updated_at", sa.DateTime(timezone=True)))
    connection = op.get_bind()
    after = 0
    while True:
        rows = connection.execute(
            sa.select(archived.c.game_id, archived.c.record, archived.c.details, games.c.updated_at)
            .join(games, games.c.id == archived.c.game_id)
            .where(archived.c.game_id > after, archived.c.record.is_not(None))
            .order_by(archived.c.game_id)
            .limit(100)
        ).all()
        if not rows:
            break
        restored = []
        for game_id, record, details, finished in rows:
            for move in json.loads(zlib.decompress(record))["actions"]:
                restored.append(
                    {
                        "game_id": game_id,
                        "ply": move["ply"],
                        "seat": move["seat"],
                        "action": move["action"],
                        "latency_ms": move.get("latency_ms"),
                        "fault": move.get("fault"),
                        "fault_detail": (details or {}).get(str(move["ply"])),
                        "debug": move.get("debug"),
                        "created_at": finished,
                    }
                )
        if restored:
            connection.execute(sa.insert(actions), restored)
        after = rows[-1][0]
    op.drop_table("archived_games")
