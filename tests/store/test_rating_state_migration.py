"""Migration 0008 on a database with data (store/migrations/versions/0008_rating_state.py): a pool with rated results
(here one without a stored table yet) is flagged for a recount, which the next refit makes from the stored results
(``tournament.standings.refresh_pool`` -> ``tournament.poolstate.rebuild``); downgrading drops what it made."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, inspect, select

from store import migrate
from store.database import sessions
from store.models import RatingPool
from store.models.tournaments import RatingElo, RatingPoint, RatingTally
from tests.store.test_bot_versions_migration import at_0006, fill  # noqa: F401 (a fixture)
from tournament import standings


def test_existing_results_are_counted_once_after_the_migration(at_0006: str) -> None:  # noqa: F811
    engine = create_engine(at_0006)
    try:
        fill(engine)
        assert migrate.upgrade(at_0006) == migrate.head()
        with sessions(engine)() as session:
            pool = session.scalars(select(RatingPool)).one()
            assert (pool.game, pool.variant, pool.rebuild, pool.counted, pool.games) == (
                "card",
                "standard",
                True,
                0,
                0,
            )
            standings.refresh_pool(session, "card", "standard")
            session.expire_all()
            pool = session.scalars(select(RatingPool)).one()
            assert (pool.rebuild, pool.counted, pool.games) == (False, 1, 1)
            assert session.scalars(select(RatingTally.count)).all() == [1]
            assert sorted(session.scalars(select(RatingElo.games))) == [1, 1]
            assert len(session.scalars(select(RatingPoint.id)).all()) == 2
        command.downgrade(migrate.alembic_config(at_0006), "0007")
        assert "rating_points" not in inspect(engine).get_table_names()
        assert "counted" not in {column["name"] for column in inspect(engine).get_columns("rating_pools")}
    finally:
        engine.dispose()
