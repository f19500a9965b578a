"""ladder fit: ladders.rated, standings, fitted, fit_requested_at; ladder_entries.fitted_rating, fitted_low, fitted_high

A ladder's standings are the fit of its rated results (``tournament/standings/ladderfit.py``), stored on its row with
the count of results it covers, and each entry's current version's row on the entry (the standings sort by it); ``rated`` counts the ladder's rated results as they come, so that a fit falling
behind is found without counting results. New columns only: the downgrade drops them.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-29 20:25:40.199662
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("ladders", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rated", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("standings", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("fitted", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("fit_requested_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("ladder_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fitted_rating", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("fitted_low", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("fitted_high", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ladder_entries", schema=None) as batch_op:
        batch_op.drop_column("fitted_high")
        batch_op.drop_column("fitted_low")
        batch_op.drop_column("fitted_rating")
    with op.batch_alter_table("ladders", schema=None) as batch_op:
        batch_op.drop_column("fit_requested_at")
        batch_op.drop_column("fitted")
        batch_op.drop_column("standings")
        batch_op.drop_column("rated")
