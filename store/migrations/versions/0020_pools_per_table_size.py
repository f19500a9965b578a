"""rating pools per table size: ``rating_pools.table_size``, one pool per game, variant and table size

The Elo scale of a game depends on its table size, so a pool now counts the games of one table size only (unique
game, variant and table size). A pool whose rated tournaments all seated one table size keeps its row, its state and
its table, now of that size (2 for a pool without any). A pool that mixed table sizes is split: its row becomes the
pool of its smallest table size, a row is made for each other size, and each is flagged for the rebuild that
recounts its running state from its results (``tournament/standings/poolstate.py``, ``rebuild``; the upgrade's upkeep
and the workers' clock run it), its mixed table, incremental Elo, chart points and results' places cleared first.

The downgrade merges the pools of a game and variant back into the row of the smallest id, flagged for the same
rebuild over every table size (the release before this one counts them all in one pool), and drops the column.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-29 17:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

POOLS = sa.table(
    "rating_pools",
    sa.column("id", sa.Integer()),
    sa.column("game", sa.String()),
    sa.column("variant", sa.String()),
    sa.column("table_size", sa.Integer()),
    sa.column("through", sa.Integer()),
    sa.column("games", sa.Integer()),
    sa.column("cancelled", sa.Integer()),
    sa.column("table", sa.JSON()),
    sa.column("updated_at", sa.DateTime(timezone=True)),
    sa.column("counted", sa.Integer()),
    sa.column("rebuild", sa.Boolean()),
    sa.column("first_at", sa.DateTime(timezone=True)),
    sa.column("last_at", sa.DateTime(timezone=True)),
)
RESULTS = sa.table(
    "results",
    sa.column("game", sa.String()),
    sa.column("variant", sa.String()),
    sa.column("counted", sa.Integer()),
)
CLEARED = {
    "through": 0,
    "games": 0,
    "cancelled": 0,
    "table": [],
    "counted": 0,
    "rebuild": True,
    "first_at": None,
    "last_at": None,
}
"""A pool row emptied for a rebuild of its state and a refit of its table."""


def _clear(connection: sa.Connection, pool_ids: list[int], game: str, variant: str) -> None:
    """Empty these pools' running states (their tallies are per tournament and stay) and their results' places."""
    ids = ", ".join(str(int(pool)) for pool in pool_ids)
    connection.execute(sa.text(f"DELETE FROM rating_points WHERE pool_id IN ({ids})"))
    connection.execute(sa.text(f"DELETE FROM rating_elo WHERE pool_id IN ({ids})"))
    connection.execute(
        sa.update(RESULTS).where(RESULTS.c.game == game, RESULTS.c.variant == variant).values(counted=None)
    )


def upgrade() -> None:
    with op.batch_alter_table("rating_pools", schema=None) as batch_op:
        batch_op.add_column(sa.Column("table_size", sa.Integer(), nullable=True))
        batch_op.drop_constraint("uq_rating_pools_game_variant", type_="unique")
    connection = op.get_bind()
    pools = connection.execute(sa.select(POOLS.c.id, POOLS.c.game, POOLS.c.variant).order_by(POOLS.c.id)).all()
    for pool, game, variant in pools:
        sizes = sorted(
            int(size)
            for (size,) in connection.execute(
                sa.text(
                    "SELECT DISTINCT table_size FROM tournaments WHERE game = :game AND variant = :variant AND rated"
                ),
                {"game": game, "variant": variant},
            )
        ) or [2]
        connection.execute(sa.update(POOLS).where(POOLS.c.id == pool).values(table_size=sizes[0]))
        if len(sizes) == 1:
            continue
        _clear(connection, [pool], game, variant)
        connection.execute(sa.update(POOLS).where(POOLS.c.id == pool).values(**CLEARED))
        connection.execute(
            sa.insert(POOLS),
            [
                {"game": game, "variant": variant, "table_size": size, "updated_at": datetime.now(UTC), **CLEARED}
                for size in sizes[1:]
            ],
        )
    with op.batch_alter_table("rating_pools", schema=None) as batch_op:
        batch_op.alter_column("table_size", existing_type=sa.Integer(), nullable=False)
        batch_op.create_unique_constraint(
            "uq_rating_pools_game_variant_table_size", ["game", "variant", "table_size"]
        )


def downgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(POOLS.c.id, POOLS.c.game, POOLS.c.variant).order_by(POOLS.c.id)).all()
    by_pool: dict[tuple[str, str], list[int]] = {}
    for pool, game, variant in rows:
        by_pool.setdefault((game, variant), []).append(int(pool))
    for (game, variant), ids in by_pool.items():
        if len(ids) == 1:
            continue
        _clear(connection, ids, game, variant)
        connection.execute(sa.delete(POOLS).where(POOLS.c.id.in_(ids[1:])))
        connection.execute(sa.update(POOLS).where(POOLS.c.id == ids[0]).values(**CLEARED))
    with op.batch_alter_table("rating_pools", schema=None) as batch_op:
        batch_op.drop_constraint("uq_rating_pools_game_variant_table_size", type_="unique")
        batch_op.create_unique_constraint("uq_rating_pools_game_variant", ["game", "variant"])
        batch_op.drop_column("table_size")
