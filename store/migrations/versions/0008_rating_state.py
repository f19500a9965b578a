"""rating pools' running state: tallies, incremental Elo, chart points

- ``rating_pools``: ``counted`` (results the running state counts), ``rebuild`` (the state is to be recounted from
  the results), ``first_at`` / ``last_at`` (the first and latest result counted), ``fit_requested_at`` (when a
  refit was last asked for).
- ``rating_tallies``: per tournament, how many rated results had each configuration (versions and ranks).
- ``rating_elo``: per pool and bot version, its incremental Elo and counts.
- ``rating_points``: the chart's points, appended with each result.

The existing results are counted once, off the migration: every pool that has rated results gets ``rebuild`` set
(a row is made for a pool that has none), and the workers' upkeep (``tournament/standings/poolfit.py``) recounts it from the
results, as after a cancellation, then refits it.

Revision ID: 0008
Revises: '0007'
Create Date: 2026-11-26 06:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rating_pools", schema=None) as batch_op:
        batch_op.add_column(sa.Column("counted", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("rebuild", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column("first_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("last_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("fit_requested_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "rating_tallies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("config", sa.String(length=255), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name=op.f("fk_rating_tallies_tournament_id_tournaments")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_tallies")),
        sa.UniqueConstraint("tournament_id", "config", name=op.f("uq_rating_tallies_tournament_id_config")),
    )
    op.create_table(
        "rating_elo",
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("first", sa.Integer(), nullable=False),
        sa.Column("last", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["pool_id"], ["rating_pools.id"], name=op.f("fk_rating_elo_pool_id_rating_pools")),
        sa.PrimaryKeyConstraint("pool_id", "version_id", name=op.f("pk_rating_elo")),
    )
    op.create_table(
        "rating_points",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("counted", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("level", sa.SmallInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["pool_id"], ["rating_pools.id"], name=op.f("fk_rating_points_pool_id_rating_pools")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_points")),
    )
    with op.batch_alter_table("rating_points", schema=None) as batch_op:
        batch_op.create_index("ix_rating_points_line", ["pool_id", "version_id", "level"], unique=False)

    connection = op.get_bind()
    pools = sa.table(
        "rating_pools",
        sa.column("game", sa.String()),
        sa.column("variant", sa.String()),
        sa.column("through", sa.Integer()),
        sa.column("games", sa.Integer()),
        sa.column("cancelled", sa.Integer()),
        sa.column("table", sa.JSON()),
        sa.column("updated_at", sa.DateTime(timezone=True)),
    )
    known = {tuple(row) for row in connection.execute(sa.text("SELECT game, variant FROM rating_pools"))}
    rated = connection.execute(sa.text("SELECT DISTINCT game, variant FROM results WHERE rated")).all()
    missing = [
        {
            "game": game,
            "variant": variant,
            "through": 0,
            "games": 0,
            "cancelled": 0,
            "table": [],
            "updated_at": now,
        }
        for game, variant in rated
        if (game, variant) not in known
        for now in [datetime.now(UTC)]
    ]
    if missing:
        connection.execute(pools.insert(), missing)
    connection.execute(sa.text("UPDATE rating_pools SET rebuild = :yes"), {"yes": True})


def downgrade() -> None:
    with op.batch_alter_table("rating_points", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_points_line")
    op.drop_table("rating_points")
    op.drop_table("rating_elo")
    op.drop_table("rating_tallies")
    with op.batch_alter_table("rating_pools", schema=None) as batch_op:
        batch_op.drop_column("fit_requested_at")
        batch_op.drop_column("last_at")
        batch_op.drop_column("first_at")
        batch_op.drop_column("rebuild")
        batch_op.drop_column("counted")
