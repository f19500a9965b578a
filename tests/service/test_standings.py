"""A rating pool's standings, ``GET /api/v1/standings`` and the page ``/standings/<game>/<variant>``, on SQLite and
PostgreSQL: the same results written in any order give the same table (the pool is fitted at once, as a tournament
is), every row has its 95% interval, ``wins`` counts games won (not opponents beaten) in the API and on the page
alike, and a pool's refit is asked for at most once per ``POOL_REFIT_SECONDS`` but always at a tournament's
last result. The results are those of a real tournament of 3-seat card games, written again in shuffled orders, each
counted in its pool's state in its transaction as the workers do (``tournament/standings/poolstate.py``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from ratings.pool import PoolRow
from runtime.jobqueue import FIT_JOB
from store.models import RatingPool, Result
from store.models.tournaments import RatingElo, RatingPoint, RatingTally
from tests.apikit import API, new_player
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
from tests.service.web.webkit import elements, page
from tournament.standings import poolfit, tables

NEVER = 1e9
"""A refit interval no test run reaches: a pool's refit is then asked for only at a tournament's last result
(and at its first, never asked for before)."""


@pytest.fixture
def played(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Flask, dict[str, Any]]]:
    """An app on a fresh database and a rated tournament of 3-seat card games it played (12 games), its pool
    refit as every pool's is, by a job off the game path: asked for at the first result and at the tournament's
    last."""
    monkeypatch.setattr(tables, "POOL_REFIT_SECONDS", NEVER)
    app = arena_app(database_url)
    client = app.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice, random_choice) as servers:
        bots = [
            register(client, owner, name, server.url)["id"] for name, server in zip("abc", servers, strict=True)
        ]
        created = create_tournament(
            client, owner, bots, game="card", settings={"players": 3, "pawns": 1}, table_size=3, rounds=4
        )
        done = wait_done(client, created["id"])
    app.extensions["queue"].wait(timeout=60)
    yield app, done
    dispose(app)


def result_rows(app: Flask) -> list[dict[str, Any]]:
    """The stored results as rows to insert again (without their ids)."""
    with app.extensions["db_sessions"]() as session:
        results = session.scalars(select(Result).order_by(Result.id)).all()
        columns = [column.key for column in Result.__table__.columns if column.key != "id"]
        return [{column: getattr(result, column) for column in columns} for result in results]


def rewrite(app: Flask, rows: list[dict[str, Any]]) -> None:
    """Write the results again in this order, the pool refit after each as the workers do."""
    sessions = app.extensions["db_sessions"]
    with sessions() as session:
        for model in (Result, RatingTally, RatingPoint, RatingElo, RatingPool):
            session.execute(delete(model))
        session.commit()
    for row in rows:
        with sessions() as session:
            write(session, row)
            tables.refresh_pool(session, "card", "standard", 3)


def write(session: Session, row: dict[str, Any]) -> None:
    """Write a result and count it in its pool's state, in one transaction (``tournament.play.results.finish``)."""
    write_result(session, row)
    session.commit()


def api_standings(client: FlaskClient) -> dict[str, Any]:
    answer = client.get(f"{API}/standings", query_string={"game": "card", "variant": "standard", "table_size": 3})
    assert answer.status_code == 200
    body: dict[str, Any] = answer.get_json()
    return body


def page_rows(client: FlaskClient) -> list[dict[str, str]]:
    html = page(client, "/standings/card/standard")
    keys = ("data-bot-id", "data-rating", "data-low", "data-high", "data-games", "data-wins", "data-mean-rank")
    return [{key: row[key] for key in keys} for row in elements(html, "tr", data_bot="*", data_rating="*")]


def as_page(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The API's rows as the page prints them."""
    return [
        {
            "data-bot-id": str(row["bot_id"]),
            "data-rating": f"{row['rating']:.1f}",
            "data-low": f"{row['low']:.1f}",
            "data-high": f"{row['high']:.1f}",
            "data-games": str(row["games"]),
            "data-wins": str(row["wins"]),
            "data-mean-rank": f"{row['mean_rank']:.2f}",
        }
        for row in rows
    ]


def test_shuffled_results_give_identical_standings_in_the_api_and_on_the_page(
    played: tuple[Flask, dict[str, Any]],
) -> None:
    app, _ = played
    client = app.test_client()
    rows = result_rows(app)
    assert len(rows) == 12
    first = api_standings(client)
    assert first["games"] == 12  # the tournament's last result refit the pool, although refits were throttled
    tables = []
    for seed in range(3):
        order = list(rows)
        random.Random(seed).shuffle(order)
        rewrite(app, order)
        body = api_standings(client)
        assert body["games"] == 12
        assert page_rows(client) == as_page(body["standings"])
        tables.append(body["standings"])
    assert tables[0] == tables[1] == tables[2] == first["standings"]


def test_every_row_has_its_interval_and_wins_are_games_won(played: tuple[Flask, dict[str, Any]]) -> None:
    app, done = played
    client = app.test_client()
    rows = result_rows(app)
    won = {bot: 0 for bot in rows[0]["bot_ids"]}
    for row in rows:
        best = min(row["ranks"])
        if row["ranks"].count(best) == 1:
            won[row["bot_ids"][row["ranks"].index(best)]] += 1
    body = api_standings(client)
    assert {row["bot_id"]: row["wins"] for row in body["standings"]} == won
    assert sum(row["wins"] for row in body["standings"]) <= 12  # pairwise wins would be up to 36
    assert all(row["games"] == 12 for row in body["standings"])
    assert body["updated_at"] is not None
    for row in body["standings"]:
        assert row["low"] < row["rating"] < row["high"]
        assert set(row) == {
            "bot_id",
            "name",
            "version",
            "rating",
            "low",
            "high",
            "games",
            "wins",
            "shared_wins",
            "mean_rank",
            "group",
            "forfeits",
            "forfeit_rate",
            "faults_per_100_moves",
        }
        assert row["group"] == 1 and row["forfeits"] == 0 and row["forfeit_rate"] == 0.0  # one group, no forfeit
    assert (body["groups"], body["forfeits_rated"]) == (1, True)
    # the tournament's own table counts the same games won
    tournament_wins = {row["bot_id"]: row["wins"] for row in done["standings"]}
    assert tournament_wins == won
    assert {row["data-bot-id"]: row["data-wins"] for row in page_rows(client)} == {
        str(bot): str(count) for bot, count in won.items()
    }


class Queue:
    """A queue that keeps what it is given."""

    def __init__(self) -> None:
        self.jobs: list[tuple[str, tuple[Any, ...]]] = []

    def enqueue(self, dotted: str, *args: Any, job_id: str | None = None, at_front: bool = False) -> bool:
        self.jobs.append((dotted, args))
        return True


def test_every_pool_is_refit_off_the_game_path_at_most_once_per_interval(
    played: tuple[Flask, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = played
    sessions = app.extensions["db_sessions"]
    rows = result_rows(app)
    rewrite(app, rows[:11])
    queue = Queue()
    with sessions() as session:
        write(session, rows[11])
        assert session.scalar(select(RatingPool.games)) == 11 and session.scalar(select(RatingPool.counted)) == 12
        assert tables.ask_refit(session, queue, "card", "standard", 3, NEVER) is True  # never asked for yet
        assert tables.ask_refit(session, queue, "card", "standard", 3, NEVER) is False  # asked for just now
        assert queue.jobs == [(FIT_JOB, ("card", "standard", 3))]
        assert tables.ask_refit(session, queue, "card", "standard", 3, 0.0) is True  # a tournament's last result
        assert len(queue.jobs) == 2
        assert session.scalar(select(RatingPool.games)) == 11  # the game path did not refit
    with sessions() as session:
        assert poolfit.fit(session, "card", "standard", 3) == "refitted"  # the job
        pool = session.scalars(select(RatingPool)).one()
        assert (pool.through, pool.games, pool.table) == tables.pool_table(session, "card", "standard", 3)
        assert pool.games == 12


def test_the_clock_asks_for_the_pools_behind_their_state(
    played: tuple[Flask, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = played
    rows = result_rows(app)
    rewrite(app, rows[:11])
    sessions = app.extensions["db_sessions"]
    queue = Queue()
    assert poolfit.ask_due(sessions, queue) == []  # type: ignore[arg-type]  # the table counts every result
    with sessions() as session:
        write(session, rows[11])
    monkeypatch.setattr(tables, "POOL_REFIT_SECONDS", 0.0)
    assert poolfit.ask_due(sessions, queue) == [("card", "standard", 3)]  # type: ignore[arg-type]
    assert queue.jobs == [(FIT_JOB, ("card", "standard", 3))]


def test_a_table_stored_before_the_pools_were_fitted_is_shown_as_none_then_refit(
    played: tuple[Flask, dict[str, Any]],
) -> None:
    app, _ = played
    client = app.test_client()
    elo_rows = [
        {"bot_id": row["bot_id"], "name": row["name"], "rating": 1500.0, "games": 12, "wins": 20, "draws": 0}
        for row in api_standings(client)["standings"]
    ]
    sessions = app.extensions["db_sessions"]
    with sessions() as session:
        session.execute(update(RatingPool).values(table=elo_rows, games=11))
        session.commit()
    assert api_standings(client)["standings"] == [] and api_standings(client)["games"] == 0
    assert page_rows(client) == []
    assert "card" in page(client, "/")
    with sessions() as session:  # its table is of the old kind: the next refit replaces it
        assert tables.refresh_pool(session, "card", "standard", 3) is True
    body = api_standings(client)
    assert body["games"] == 12 and [PoolRow.from_json(row).games for row in body["standings"]] == [12, 12, 12]
