"""Migrations 0008 and 0011 on a database with data (store/migrations/versions/0008_rating_state.py,
0011_result_places.py): a pool with rated results (here one without a stored table yet) is flagged for a recount,
which the next refit makes from the stored results (``tournament.standings.tables.refresh_pool`` ->
``tournament.standings.poolstate.rebuild``), placing every result counted; downgrading drops what each made."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, inspect, select, text

from store import migrate
from store.database import sessions
from store.models import RatingPool, Result
from store.models.tournaments import RatingElo, RatingPoint, RatingTally
from tests.store.test_bot_versions_migration import at_0006, fill  # noqa: F401 (a fixture)
from tournament.standings import tables


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
            tables.refresh_pool(session, "card", "standard", 2)
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


def test_a_counted_pool_is_counted_again_after_0011_which_places_its_results(at_0006: str) -> None:  # noqa: F811
    engine = create_engine(at_0006)
    try:
        fill(engine)
        migrate.upgrade(at_0006, "0010")
        with engine.begin() as connection:  # the pool as 0010's code leaves it once counted: no place to note
            connection.execute(text("UPDATE rating_pools SET rebuild = false, counted = 1"))
        assert migrate.upgrade(at_0006) == migrate.head()
        with sessions(engine)() as session:
            assert session.execute(select(RatingPool.rebuild, RatingPool.counted)).one() == (True, 1)
            assert session.scalars(select(Result.counted)).all() == [None]
            tables.refresh_pool(session, "card", "standard", 2)
            session.expire_all()
            assert session.execute(select(RatingPool.rebuild, RatingPool.counted)).one() == (False, 1)
            assert session.scalars(select(Result.counted)).all() == [1]
        command.downgrade(migrate.alembic_config(at_0006), "0010")
        assert "counted" not in {column["name"] for column in inspect(engine).get_columns("results")}
    finally:
        engine.dispose()
