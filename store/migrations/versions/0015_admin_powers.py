"""admin powers: players.disabled and players.operator, bots.paused, and the audit log admin_actions

The operator's account is marked (``players.operator``) so that it stays bound to the current operator token: the
account that owns the official tournaments is the operator's.

Revision ID: 0015
Revises: '0014'
Create Date: 2026-11-29 08:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("disabled", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.add_column(sa.Column("operator", sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table("bots") as batch:
        batch.add_column(sa.Column("paused", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.execute("UPDATE players SET operator = true WHERE id IN (SELECT owner_id FROM tournaments WHERE official)")
    op.create_table(
        "admin_actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("target_kind", sa.String(length=16), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["actor_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_admin_actions_at", "admin_actions", ["at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_admin_actions_at", table_name="admin_actions")
    op.drop_table("admin_actions")
    with op.batch_alter_table("bots") as batch:
        batch.drop_column("paused")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("operator")
        batch.drop_column("disabled")
