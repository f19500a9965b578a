"""results.counted: a result's place in its rating pool's running state; rating_elo.faults

A result counted by its pool's running state (migration 0008) keeps its place, the pool's ``counted`` when it was
counted (its chart points carry the same number; both are indexed by it), so that after a cancellation the state
before the cancelled tournament's first counted result stands and only the results counted after it are counted
again (``tournament/standings/poolstate.py``). Each version's faults in the results counted are kept with its Elo
(``rating_elo.faults``), so that the standings' faults column reads a row per version instead of every move of the
pool's games. The results counted before this migration have no place and their faults are not kept: every pool that
counts any gets ``rebuild`` set, and the workers' upkeep recounts it once, as after migration 0008.

Revision ID: 0011
Revises: '0010'
Create Date: 2026-11-27 06:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.add_column(sa.Column("counted", sa.Integer(), nullable=True))
        batch_op.create_index("ix_results_place", ["game", "variant", "counted"], unique=False)
    with op.batch_alter_table("rating_points", schema=None) as batch_op:
        batch_op.create_index("ix_rating_points_place", ["pool_id", "version_id", "counted"], unique=False)
    with op.batch_alter_table("rating_elo", schema=None) as batch_op:
        batch_op.add_column(sa.Column("faults", sa.Integer(), server_default="0", nullable=False))
    op.execute("UPDATE rating_pools SET rebuild = TRUE WHERE counted > 0")


def downgrade() -> None:
    with op.batch_alter_table("rating_elo", schema=None) as batch_op:
        batch_op.drop_column("faults")
    with op.batch_alter_table("rating_points", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_points_place")
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.drop_index("ix_results_place")
        batch_op.drop_column("counted")
