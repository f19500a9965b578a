"""rating_pools.forfeits_rated; the pools' tallies mark the seats that forfeited

A pool's tallies (``rating_tallies.config``, ``ratings.tallies``) now mark each seat that forfeited (``version:rank:f``),
so that the standings show each bot's forfeit rate and a pool may leave the games with a forfeit out of its fit
(``SORRY_ARENA_RATE_FORFEITS``); ``rating_pools.forfeits_rated`` says which setting the stored table was fitted
under. The tallies counted before this migration have no marks: every pool that counts any gets ``rebuild`` set, and
the workers' upkeep recounts it once, as after migration 0011. The downgrade drops the column and sets ``rebuild``
again (an older release reads no marks: its rebuild writes the tallies without them before any fit reads them); a
pool whose table left the forfeited games out gets ``games = 0``, so that the older release's next refit, which rates
them, replaces it.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-29 17:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rating_pools", schema=None) as batch_op:
        batch_op.add_column(sa.Column("forfeits_rated", sa.Boolean(), server_default=sa.true(), nullable=False))
    op.execute("UPDATE rating_pools SET rebuild = TRUE WHERE counted > 0")


def downgrade() -> None:
    op.execute("UPDATE rating_pools SET games = 0 WHERE NOT forfeits_rated")
    op.execute("UPDATE rating_pools SET rebuild = TRUE WHERE counted > 0")
    with op.batch_alter_table("rating_pools", schema=None) as batch_op:
        batch_op.drop_column("forfeits_rated")
