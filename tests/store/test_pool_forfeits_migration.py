"""Migration 0021 on a database with data (store/migrations/versions/0021_pool_forfeits.py): a counted pool is
flagged for a recount, which writes its tallies again with the seats that forfeited marked (``ratings.tallies``), and
its table is fitted with its forfeit rates; the downgrade drops ``rating_pools.forfeits_rated`` and flags the pool
again (an older release reads no marks), its table's ``games`` set to 0 when that table left forfeits out, so that
the older release's first refit replaces it."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, inspect, select, text

from store import migrate
from store.database import sessions
from store.models import RatingPool
from store.models.tournaments import RatingTally
from tests.store.test_bot_versions_migration import at_0006, fill  # noqa: F401 (a fixture)
from tournament.standings import tables


def test_a_counted_pool_gets_its_forfeits_marked_and_the_downgrade_flags_it_again(at_0006: str) -> None:  # noqa: F811
    engine = create_engine(at_0006)
    try:
        fill(engine)
        migrate.upgrade(at_0006, "0019")
        with engine.begin() as connection:  # a forfeit in the result; the pool counted, as 0019's code leaves it
            connection.execute(text("UPDATE results SET forfeited = '[1]'"))
            connection.execute(text("UPDATE rating_pools SET rebuild = false, counted = 1"))
        assert migrate.upgrade(at_0006) == migrate.head()
        with sessions(engine)() as session:
            assert session.execute(select(RatingPool.rebuild, RatingPool.forfeits_rated)).one() == (True, True)
            tables.refresh_pool(session, "card", "standard", 2, forfeits_rated=False)
            session.expire_all()
            pool = session.scalars(select(RatingPool)).one()
            assert (pool.rebuild, pool.games, pool.forfeits_rated) == (False, 1, False)
            assert [key.count(":f") for key in session.scalars(select(RatingTally.config))] == [1]
            assert pool.table == []  # its one game had a forfeit: nothing rated
        command.downgrade(migrate.alembic_config(at_0006), "0019")
        assert "forfeits_rated" not in {column["name"] for column in inspect(engine).get_columns("rating_pools")}
        with engine.begin() as connection:
            assert connection.execute(text("SELECT rebuild, games FROM rating_pools")).one() == (True, 0)
    finally:
        engine.dispose()
