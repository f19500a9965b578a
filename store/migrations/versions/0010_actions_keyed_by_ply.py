"""actions keyed by (game_id, ply): the surrogate ``id`` and its index go

An action is named by its game and the ply it answered, which its unique key already said; the ``id`` column and
the primary-key index on it cost some 30 bytes a move on PostgreSQL (a fifth of what a move takes once events are
derived). ``(game_id, ply)`` becomes the primary key. On PostgreSQL the column is dropped in place (existing rows
keep its bytes until the table is rewritten, e.g. by ``VACUUM FULL``); SQLite copies the table. A downgrade numbers
the actions again (in their physical order on PostgreSQL, by rowid on SQLite) under the old keys.

Revision ID: 0010
Revises: '0009'
Create Date: 2026-11-26 07:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = "game_id, ply, seat, action, latency_ms, fault, created_at, fault_detail, debug"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE actions DROP CONSTRAINT pk_actions, DROP COLUMN id")
        op.execute(
            "ALTER TABLE actions DROP CONSTRAINT uq_actions_game_id_ply, "
            "ADD CONSTRAINT pk_actions PRIMARY KEY (game_id, ply)"
        )
        return
    rebuilt(keyed_by_ply=True)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE actions DROP CONSTRAINT pk_actions")
        op.execute("ALTER TABLE actions ADD COLUMN id SERIAL")
        op.execute(
            "ALTER TABLE actions ADD CONSTRAINT pk_actions PRIMARY KEY (id), "
            "ADD CONSTRAINT uq_actions_game_id_ply UNIQUE (game_id, ply)"
        )
        return
    rebuilt(keyed_by_ply=False)


def rebuilt(keyed_by_ply: bool) -> None:
    """SQLite: the actions table made again with the new keys (or the old ones), its rows copied."""
    keys: list[sa.Column[int]] = [] if keyed_by_ply else [sa.Column("id", sa.Integer(), nullable=False)]
    constraints: list[sa.Constraint] = [
        sa.PrimaryKeyConstraint(*(("game_id", "ply") if keyed_by_ply else ("id",)), name="pk_actions"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_actions_game_id_games", ondelete="CASCADE"),
    ]
    if not keyed_by_ply:
        constraints.append(sa.UniqueConstraint("game_id", "ply", name="uq_actions_game_id_ply"))
    op.create_table(
        "actions_rebuilt",
        *keys,
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=200), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("fault", sa.String(length=16), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("fault_detail", sa.String(length=120), nullable=True),
        sa.Column("debug", sa.String(length=1024), nullable=True),
        *constraints,
    )
    numbered = "" if keyed_by_ply else "id, "
    source = COLUMNS if keyed_by_ply else f"rowid, {COLUMNS}"
    op.execute(f"INSERT INTO actions_rebuilt ({numbered}{COLUMNS}) SELECT {source} FROM actions ORDER BY rowid")
    op.drop_table("actions")
    op.rename_table("actions_rebuilt", "actions")
