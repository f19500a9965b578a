"""The fast lane (``store/fastlane.py``): on PostgreSQL a request's lane reads in autocommit, holding no
transaction open between its statements, and its connection goes back to the pool in transactions again, so that
a session that takes it next still rolls back what it did not commit; a write is a transaction of its own, through
the process's writer (SQLite's default) or on the lane's connection (PostgreSQL's); a statement whose values the
driver's call would skip is refused. The Core statements the workers run on a session's connection give their
columns' types both ways and take a list as one parameter."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
import sqlalchemy
from sqlalchemy import bindparam, false, func, insert, select, update

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


_RENAME = update(Player).where(Player.id == param("player_id")).values(name=param("name"))
_ADD = insert(Player).values(
    name=param("name"), token_hash=param("token_hash"), created_at=param("at"), disabled=false(), operator=false()
)


@pytest.mark.parametrize("group_commit", [False, True])
def test_a_write_of_several_statements_is_one_transaction(database_url, group_commit):
    """A write whose condition holds runs the statements that follow it, all or none (a unique key refusing the
    last undoes the first); one whose condition fails runs none; through the process's writer or alone, and the
    lane reads in autocommit again after a write of its own."""
    database = make_engine(database_url)
    try:
        with database.begin() as connection:
            owner = connection.execute(
                insert(Player).values(name="owner", token_hash="o" * 64)
            ).inserted_primary_key
        lane = Lane(Statements(database, group_commit=group_commit))
        assert (lane.statements.writer is not None) is group_commit
        moment = Player.created_at.default.arg(None)  # type: ignore[union-attr]

        def add(name: str, token: str) -> tuple[object, list[dict[str, object]]]:
            return (_ADD, [{"name": name, "token_hash": token * 64, "at": moment}])

        assert lane.write(1, (_RENAME, {"player_id": owner[0], "name": "renamed"}), add("a", "a"))
        with pytest.raises(lane.integrity_error):
            lane.write(1, (_RENAME, {"player_id": owner[0], "name": "again"}), add("b", "a"))
        assert not lane.write(1, (_RENAME, {"player_id": 10**6, "name": "x"}), add("c", "c"))
        for name, count in (("renamed", 1), ("again", 0), ("a", 1), ("b", 0), ("c", 0)):
            assert lane.scalar(_COUNT, {"name": name}) == count, name
        if database.dialect.name == "postgresql":
            assert lane.connection().driver_connection.autocommit is True
        lane.release()
    finally:
        database.dispose()


def test_the_group_commit_is_sqlites_only_by_default(database_url):
    database = make_engine(database_url)
    try:
        assert (Statements(database).writer is None) is (database.dialect.name == "postgresql")
    finally:
        database.dispose()


_NO_DEFAULT = insert(Player).values(name=param("name"), token_hash=param("token_hash"))
"""Leaves out ``created_at``, ``disabled`` and ``operator``, whose defaults SQLAlchemy computes at each execution."""


def test_a_statement_that_would_skip_a_column_default_or_a_list_parameter_is_refused(database_url):
    database = make_engine(database_url)
    try:
        statements = Statements(database)
        with pytest.raises(ValueError, match="defaults included: created_at"):
            statements.get(_NO_DEFAULT)
        with pytest.raises(ValueError, match="a list of values as one parameter"):
            statements.get(select(Player.id).where(Player.id.in_(bindparam("ids", expanding=True))))
    finally:
        database.dispose()


_BOTS_OF = select(Bot.id, Bot.games, Bot.created_at, Bot.active).where(
    Bot.id.in_(bindparam("bots", expanding=True))
)
_ACTIVE = select(func.count()).select_from(Bot).where(Bot.active.in_((True, False)), Bot.name.in_(("b0", "b1")))


def test_a_sessions_core_statements_give_their_columns_types_both_ways(database_url):
    """What the workers run (plain Core on the session's connection): rows as the ORM would give them (JSON
    decoded, aware UTC times, booleans); a list as one parameter; lists of literals; an UPDATE's row count."""
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
            connection = session.connection()
            rows = connection.execute(_BOTS_OF, {"bots": ids}).all()
            assert sorted(rows) == sorted((bot.id, bot.games, bot.created_at, True) for bot in made)
            assert all(row[2].tzinfo is not None and row[2].utcoffset() == timedelta(0) for row in rows)
            first = (made[0].id, made[0].games, made[0].created_at, True)
            assert connection.execute(_BOTS_OF, {"bots": ids[:1]}).first() == first
            assert connection.execute(_ACTIVE).first() == (2,)
            assert connection.execute(_RENAME, {"player_id": owner.id, "name": "renamed"}).rowcount == 1
            assert connection.execute(_RENAME, {"player_id": 10**6, "name": "nobody"}).rowcount == 0
            session.commit()
            assert session.scalar(select(Player.name).where(Player.id == owner.id)) == "renamed"
    finally:
        database.dispose()


def players(session, count):
    made = [Player(name=f"p{n}", token_hash=f"{n:064x}") for n in range(count)]
    session.add_all(made)
    session.flush()
    return made


def test_the_compiled_lanes_use_of_sqlalchemys_compiler_holds(database_url):
    """``fastlane.Compiled`` reads what SQLAlchemy's compiler keeps privately (SQLAlchemy is pinned to the versions
    tested, pyproject.toml): a statement's SQL, its parameters in the driver's order, their literal values, its bind
    parameters by name, and the columns whose defaults SQLAlchemy would compute. A new SQLAlchemy that changes any
    of them fails here."""
    assert sqlalchemy.__version__.startswith("2.1."), (
        f"SQLAlchemy {sqlalchemy.__version__}: check, then widen the pin"
    )
    database = make_engine(database_url)
    try:
        compiled = _NO_DEFAULT.compile(dialect=database.dialect, for_executemany=True)
        assert [column.name for column in compiled.insert_prefetch] == ["created_at", "disabled", "operator"]
        assert list(compiled.update_prefetch) == []
        assert {"name", "token_hash"} <= set(compiled.bind_names.values())
        assert isinstance(compiled.positional, bool) and isinstance(compiled.string, str)
        assert not compiled.positional or list(compiled.positiontup) == [
            "name",
            "token_hash",
            "created_at",
            "disabled",
            "operator",
        ]
        literal = select(Player.id).where(Player.name == "ada", Player.id == param("player_id"))
        found = Statements(database).get(literal)
        values = found.parameters({"player_id": 7})
        assert sorted(map(str, values.values() if isinstance(values, dict) else values)) == ["7", "ada"]
        with database.connect() as connection:
            connection.execute(insert(Player).values(name="ada", token_hash="a" * 64))
            cursor = connection.connection.cursor()
            cursor.execute(found.sql, found.parameters({"player_id": 1}))
            assert cursor.fetchall() == [(1,)]
            connection.rollback()
    finally:
        database.dispose()
