"""The group-commit writer (``store/groupcommit.py``) running the fast lane's compiled statements
(``store/fastlane.py``): a batch is saved in one transaction, and a write that breaks a unique key gets the error
while the others are saved alone (SQLite); one leader at a time writes for many threads, every write saved exactly
once, in batches. Moves through the API that take this way are tested in ``tests/service/test_caches.py``."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import false, insert, select, update

from store.database import make_engine
from store.fastlane import Statements, param
from store.groupcommit import Write, Writer
from store.models import ActionRecord, Game, Player, now


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_batch_that_breaks_a_unique_key_saves_its_other_writes(database_url):
    """The writer saves a batch in one transaction; when one write breaks a unique key, the others are saved
    alone and only that write gets the error."""
    database = make_engine(database_url)
    try:
        with database.begin() as connection:
            connection.execute(insert(Player).values(id=1, name="ada", token_hash="x" * 64))
            for game_id in (1, 2):
                connection.execute(
                    insert(Game).values(
                        id=game_id, game="card", settings={}, seed=1, seats=2, status="active", ply=0, state="{}",
                        created_by=1,
                    )
                )  # fmt: skip
            connection.execute(insert(ActionRecord).values(game_id=2, ply=0, seat=0, action="taken"))
        statements = Statements(database)
        advance = statements.get(update(Game).where(Game.id == param("id"), Game.ply == 0).values(ply=1))
        record = statements.get(
            insert(ActionRecord).values(game_id=param("id"), ply=0, seat=0, action="x", created_at=param("at"))
        )

        def write(game_id: int) -> Write:
            return Write(
                game_id,
                [
                    (advance.sql, [advance.parameters({"id": game_id})]),
                    (record.sql, [record.parameters({"id": game_id, "at": Game.created_at.default.arg(None)})]),  # type: ignore[union-attr]
                ],
            )

        good, bad = write(1), write(2)
        connection = database.raw_connection()
        try:
            statements.writer._write(connection, [bad, good])
        finally:
            connection.close()
        assert good.saved and good.error is None
        assert not bad.saved and isinstance(bad.error, statements.integrity_error)
        with database.connect() as connection:
            assert connection.execute(select(Game.id, Game.ply).order_by(Game.id)).all() == [(1, 1), (2, 0)]
    finally:
        database.dispose()


def test_the_writer_runs_one_leader_at_a_time_and_hands_over():
    """Many threads save at once through a fake connection: every write is saved exactly once, in batches, and no
    two threads ever write at the same time."""

    class Connection:
        def __init__(self) -> None:
            self.active = 0
            self.batches: list[int] = []
            self.rows: list[Any] = []
            self.lock = threading.Lock()
            self.pending = 0

        def cursor(self) -> Connection:
            return self

        def execute(self, sql: str, row: Any) -> None:
            with self.lock:
                self.active += 1
                assert self.active == 1, "two writers at once"
            self.rowcount = 1
            self.rows.append(row)
            self.pending += 1
            with self.lock:
                self.active -= 1

        def executemany(self, sql: str, rows: list[Any]) -> None:
            self.rows.extend(rows)

        def commit(self) -> None:
            self.batches.append(self.pending)
            self.pending = 0

        def rollback(self) -> None:
            pass

    connection = Connection()

    class Engine:  # what the writer asks of an engine
        class dialect:
            name = "sqlite"

            class dbapi:
                IntegrityError = RuntimeError

        @staticmethod
        def raw_connection() -> Connection:
            return connection

    writer = Writer(Engine())  # type: ignore[arg-type]
    results: list[bool] = []
    barrier = threading.Barrier(16)

    def save(n: int) -> None:
        barrier.wait()
        for i in range(50):
            results.append(writer.save(Write(n, [("UPDATE", [(n, i)])])))

    threads = [threading.Thread(target=save, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == [True] * 800
    assert sorted(connection.rows) == sorted((n, i) for n in range(16) for i in range(50))
    assert sum(connection.batches) == 800 and len(connection.batches) <= 800


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_statement_alone_in_its_batch_commits_by_itself_on_postgresql(database_url):
    """A batch of one write of one statement runs in autocommit: it is saved (seen from another connection), a
    unique key's refusal reaches its write, and the writer's connection is back in transactions afterwards."""
    database = make_engine(database_url)
    try:
        with database.begin() as connection:
            connection.execute(insert(Player).values(id=1, name="ada", token_hash="ada"))
        statements = Statements(database, group_commit=True)
        add = statements.get(
            insert(Player).values(
                id=param("id"),
                name=param("name"),
                token_hash=param("name"),
                created_at=now(),
                disabled=false(),
                operator=false(),
            )
        )

        def write(player_id: int, name: str) -> Write:  # a player's name is its token hash here: unique
            return Write(player_id, [(add.sql, [add.parameters({"id": player_id, "name": name})])])

        assert statements.writer.save(write(2, "bo"))
        with pytest.raises(statements.integrity_error):
            statements.writer.save(write(3, "ada"))
        assert statements.writer.save(write(4, "cy"))
        assert statements.writer._connection.driver_connection.autocommit is False
        with database.connect() as connection:
            assert connection.execute(select(Player.id, Player.name).order_by(Player.id)).all() == [
                (1, "ada"),
                (2, "bo"),
                (4, "cy"),
            ]
    finally:
        database.dispose()
