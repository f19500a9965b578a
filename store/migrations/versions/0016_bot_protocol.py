"""bots.protocol: the push protocol version a bot's requests are signed in (NULL: not known yet); bots.check_failure:
why its last health check failed

The bots registered before are left NULL: each is asked its version (v2, then the deprecated v1) at its next
health check, due at its next game.

Revision ID: 0016
Revises: '0015'
Create Date: 2026-11-29 14:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("bots") as batch:
        batch.add_column(sa.Column("protocol", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("check_failure", sa.String(length=400), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bots") as batch:
        batch.drop_column("check_failure")
        batch.drop_column("protocol")
