"""Two workers writing the last results of a tournament at once, on PostgreSQL (READ COMMITTED: each statement sees
what committed before it): the stored standings must still end equal to a recomputation from the stored results.

Both races were found by the restart tests (after an outage, the workers resume their games together and finish
them within milliseconds of each other); here each is played out step by step.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import delete, event, insert, select, update

from store.models import RatingPool, Result, Tournament
from store.models.tournaments import RatingElo, RatingPoint, RatingTally
from tests.apikit import new_player
from tests.arenakit import (
    arena_app,
    create_tournament,
    push_bots,
    random_choice,
    register,
    wait_done,
    write_result,
)
from tests.conftest import dispose
from tests.reliability.servers import PrivatePostgres
from tournament.standings import tables


@pytest.fixture
def finished(private_postgres: PrivatePostgres) -> Iterator[tuple[Flask, int]]:
    """An app on a fresh database and a rated two-game tournament it played (on its own threads)."""
    app = arena_app(private_postgres.new_database())
    client = app.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice) as servers:
        ids = [register(client, owner, name, server.url)["id"] for name, server in zip("ab", servers, strict=True)]
        created = create_tournament(client, owner, ids, game="card", settings={"pawns": 1})
        wait_done(client, created["id"], timeout=60)
    app.extensions["queue"].wait(timeout=30)
    yield app, created["id"]
    dispose(app)


def result_rows(app: Flask) -> list[dict[str, Any]]:
    """The stored results as rows to insert again (without their ids), in the order they were written."""
    with app.extensions["db_sessions"]() as session:
        results = session.scalars(select(Result).order_by(Result.id)).all()
        columns = [column.key for column in Result.__table__.columns if column.key != "id"]
        return [{column: getattr(result, column) for column in columns} for result in results]


def test_the_pool_counts_a_result_committed_after_a_later_one(finished: tuple[Flask, int]) -> None:
    """Result ids are taken in one order and committed in another: the pool must not take "the same last id" for
    "the same results". The second writer waits at the pool's lock (its count in the pool's state) until the first
    commits, and each refit, whatever it reads, leaves the table of both results."""
    app, _ = finished
    sessions = app.extensions["db_sessions"]
    first, second = result_rows(app)
    with sessions() as session:
        for model in (Result, RatingTally, RatingPoint, RatingElo, RatingPool):
            session.execute(delete(model))
        session.commit()
    failures: list[BaseException] = []

    def late_writer() -> None:
        try:
            with sessions() as late:
                write_result(late, second)  # takes the higher id, then waits for the pool's lock
                late.commit()
                tables.refresh_pool(late, "card", "standard", 2)
        except BaseException as error:  # reported below
            failures.append(error)

    with sessions() as early:
        write_result(early, first)  # takes the lower id and the pool's lock, not committed yet
        late = threading.Thread(target=late_writer)
        late.start()
        early.commit()
        tables.refresh_pool(early, "card", "standard", 2)
        late.join(timeout=60)
    assert not failures and not late.is_alive()
    with sessions() as session:
        pool = session.scalars(select(RatingPool)).one()
        assert (pool.through, pool.games, pool.table) == tables.pool_table(session, "card", "standard", 2)
        assert pool.games == 2 and pool.counted == 2


def test_the_table_of_every_result_has_its_intervals_whoever_refits_it(finished: tuple[Flask, int]) -> None:
    """A refit that counted one result short (not the last: no intervals) and then read them all must not store a
    complete table without intervals, which the refit of the last result could then not replace."""
    app, tournament_id = finished
    sessions = app.extensions["db_sessions"]
    engine = app.extensions["db_engine"]
    second = result_rows(app)[1]
    with sessions() as session:
        session.execute(delete(Result).where(Result.tournament_game_id == second["tournament_game_id"]))
        session.execute(
            update(Tournament)
            .where(Tournament.id == tournament_id)
            .values(status="running", finished_at=None, standings=None, standings_through=0)
        )
        session.commit()
    landed: list[bool] = []

    def last_result_lands(connection: Any, cursor: Any, statement: str, *_: Any) -> None:
        """Right after the refit counted the results, the other worker's last result commits."""
        if "count(results.id)" in statement and not landed:
            landed.append(True)
            with sessions() as other:
                other.execute(insert(Result).values(second))
                other.commit()

    event.listen(engine, "after_cursor_execute", last_result_lands)
    try:
        with sessions() as session:
            tables.refresh_tournament(session, tournament_id)  # counts one result, reads two
    finally:
        event.remove(engine, "after_cursor_execute", last_result_lands)
    assert landed
    with sessions() as session:
        tables.refresh_tournament(session, tournament_id)  # the worker that wrote the last result
        tournament = session.get(Tournament, tournament_id)
        assert tournament is not None and tournament.standings_through == 2
        recomputed = tables.tournament_table(session, tournament.id, tournament.bot_ids)
        assert tournament.standings == recomputed
        assert any(row["low"] < row["elo"] < row["high"] for row in recomputed["standings"])
