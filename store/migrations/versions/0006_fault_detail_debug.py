"""actions: a fault's detail and the bot's debug text of each move

- ``actions.fault_detail``: what went wrong on a faulted move, in words (the first 120 characters; a status fault
  quotes the bot's error reply);
- ``actions.debug``: the bot's own debug text of the move (at most 1 KiB, control characters removed).

Revision ID: 0006
Revises: '0005'
Create Date: 2026-11-24 12:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("fault_detail", sa.String(length=120), nullable=True))
        batch.add_column(sa.Column("debug", sa.String(length=1024), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("debug")
        batch.drop_column("fault_detail")
