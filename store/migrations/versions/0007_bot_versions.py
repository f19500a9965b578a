"""bot versions and unique bot names

- ``bot_versions``: a bot's versions (number, url, note, created_at); every existing bot gets its version 1, at its
  current url and its registration time.
- ``results.version_ids``: the version of each seat's bot; every existing result was played by versions 1 (0 at a
  challenge's person, bot id 0, who is no bot).
- ``uq_bots_active_name``: two active bots never share a name. Where active bots share one now, the oldest keeps it
  and each other is renamed ``<name>-<bot id>`` (cut to 64 characters).

Revision ID: 0007
Revises: '0006'
Create Date: 2026-11-25 12:00:00.000000
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 1000
"""Results rewritten per statement batch while their version ids are filled in."""


def upgrade() -> None:
    op.create_table(
        "bot_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=True),
        sa.Column("note", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("bot_id", "number"),
    )
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bot_versions_bot_id"), ["bot_id"], unique=False)
    connection = op.get_bind()
    connection.execute(
        sa.text(
            "INSERT INTO bot_versions (bot_id, number, url, created_at) SELECT id, 1, url, created_at FROM bots"
        )
    )

    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.add_column(sa.Column("version_ids", sa.JSON(), nullable=True))
    first: dict[int, int] = {
        bot: version for bot, version in connection.execute(sa.text("SELECT bot_id, id FROM bot_versions"))
    }
    results = sa.table("results", sa.column("id", sa.Integer()), sa.column("version_ids", sa.JSON()))
    rows = connection.execute(sa.text("SELECT id, bot_ids FROM results ORDER BY id")).all()
    for start in range(0, len(rows), BATCH):
        connection.execute(
            results.update().where(results.c.id == sa.bindparam("result_id")),
            [
                {"result_id": result_id, "version_ids": [first[bot] if bot else 0 for bot in decoded(bot_ids)]}
                for result_id, bot_ids in rows[start : start + BATCH]
            ],
        )
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.alter_column("version_ids", existing_type=sa.JSON(), nullable=False)

    taken: set[str] = set()
    bots = connection.execute(sa.text("SELECT id, name FROM bots WHERE active ORDER BY id")).all()
    for bot_id, name in bots:
        while name in taken:  # "-<id>" makes it unique unless another bot already bears that name: once more
            name = f"{name[: 63 - len(str(bot_id))]}-{bot_id}"
            connection.execute(
                sa.text("UPDATE bots SET name = :name WHERE id = :id"), {"name": name, "id": bot_id}
            )
        taken.add(name)
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.create_index(
            "uq_bots_active_name",
            ["name"],
            unique=True,
            sqlite_where=sa.text("active"),
            postgresql_where=sa.text("active"),
        )


def decoded(value: Any) -> list[int]:
    """A JSON column's value as the driver returns it (a list, or its text on some drivers)."""
    items = json.loads(value) if isinstance(value, str) else value
    return [int(item) for item in items]


def downgrade() -> None:
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_bots_active_name", sqlite_where=sa.text("active"), postgresql_where=sa.text("active")
        )
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.drop_column("version_ids")
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bot_versions_bot_id"))
    op.drop_table("bot_versions")
