"""The fast lane (``store/fastlane.py``): on PostgreSQL a request's lane reads in autocommit, holding no
transaction open between its statements, and its connection goes back to the pool in transactions again, so that
a session that takes it next still rolls back what it did not commit; a session's statements run compiled, with
their columns' types both ways, and a statement whose values the driver's call would skip is refused."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from sqlalchemy import bindparam, func, insert, select, update

from store import fastlane
from store.database import make_engine, sessions
from store.fastlane import Lane, Statements, param
from store.models import Bot, Player

_COUNT = select(func.count()).select_from(Player).where(Player.name == param("name"))


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_lane_reads_in_autocommit_and_gives_its_connection_back_in_transactions(database_url):
    database = make_engine(database_url)
    try:
        lane = Lane(Statements(database))
        assert lane.scalar(_COUNT, {"name": "ada"}) == 0
        driver = lane.connection().driver_connection
        assert driver.autocommit is True
        assert driver.info.transaction_status == psycopg.pq.TransactionStatus.IDLE, "no transaction left open"
        lane.release()
        assert database.pool.checkedin() == 1
        with sessions(database)() as session:
            assert session.connection().connection.driver_connection is driver, "the pool's one connection"
            assert driver.autocommit is False
            session.execute(insert(Player).values(name="ada", token_hash="a" * 64))
            session.rollback()
        assert lane.scalar(_COUNT, {"name": "ada"}) == 0, "the session's rollback undid its insert"
        lane.release()
    finally:
        database.dispose()


_BOTS_OF = select(Bot.id, Bot.games, Bot.created_at, Bot.active).where(fastlane.one_of(Bot.id, "bot", 3))
_ACTIVE = select(func.count()).select_from(Bot).where(Bot.active.in_((True, False)), Bot.name.in_(("b0", "b1")))
"""Lists of literals in a statement without parameters: bound item by item."""
_RENAME = update(Player).where(Player.id == param("player_id")).values(name=param("name"))
_NO_DEFAULT = insert(Player).values(name=param("name"), token_hash=param("token_hash"))
"""Leaves out ``created_at``, whose default SQLAlchemy computes at each execution."""


def test_a_sessions_statements_run_compiled_with_their_columns_types_both_ways(database_url):
    """``fastlane.rows`` gives what the ORM would (JSON decoded, aware UTC times, booleans); ``one_of`` takes up to
    its size of values; a list of literals in the statement is bound item by item; ``execute`` tells its rows."""
    database = make_engine(database_url)
    try:
        with sessions(database)() as session:
            owner = Player(name="owner", token_hash="o" * 64)
            session.add(owner)
            session.flush()
            made = [
                Bot(
                    owner_id=owner.id,
                    player_id=player.id,
                    name=f"b{n}",
                    url=None,
                    games=["card", "board"][: n + 1],
                    secret="s" * 32,
                )
                for n, player in enumerate(players(session, 2))
            ]
            session.add_all(made)
            session.commit()
            ids = [bot.id for bot in made]
            rows = fastlane.rows(session, _BOTS_OF, fastlane.listed("bot", ids, 3))
            assert sorted(rows) == sorted((bot.id, bot.games, bot.created_at, True) for bot in made)
            assert all(row[2].tzinfo is not None and row[2].utcoffset() == timedelta(0) for row in rows)
            first = (made[0].id, made[0].games, made[0].created_at, True)
            assert fastlane.first(session, _BOTS_OF, fastlane.listed("bot", ids[:1], 3)) == first
            assert fastlane.first(session, _ACTIVE) == (2,)
            assert fastlane.execute(session, _RENAME, {"player_id": owner.id, "name": "renamed"}).rowcount == 1
            assert fastlane.first(session, _ACTIVE) == (2,)
            assert fastlane.execute(session, _RENAME, {"player_id": 10**6, "name": "nobody"}).rowcount == 0
            session.commit()
            assert session.scalar(select(Player.name).where(Player.id == owner.id)) == "renamed"
    finally:
        database.dispose()


def players(session, count):
    made = [Player(name=f"p{n}", token_hash=f"{n:064x}") for n in range(count)]
    session.add_all(made)
    session.flush()
    return made


def test_a_statement_that_would_skip_a_column_default_or_a_list_parameter_is_refused(database_url):
    database = make_engine(database_url)
    try:
        with pytest.raises(ValueError, match="defaults included: created_at"):
            fastlane.compiled(_NO_DEFAULT, database)
        with pytest.raises(ValueError, match="one_of"):
            fastlane.compiled(select(Player.id).where(Player.id.in_(bindparam("ids", expanding=True))), database)
        with pytest.raises(ValueError, match="one_of"):  # a list of literals beside a parameter
            fastlane.compiled(
                select(Player.id).where(Player.name.in_(("a", "b")), Player.id == param("player_id")), database
            )
        with pytest.raises(ValueError, match="1 to 3 values"):
            fastlane.listed("bot", [], 3)
        with pytest.raises(ValueError, match="1 to 3 values"):
            fastlane.listed("bot", [1, 2, 3, 4], 3)
    finally:
        database.dispose()
