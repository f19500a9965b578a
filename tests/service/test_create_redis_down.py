"""Creating a tournament or a match while Redis is down (a real redis-server of this test's own, stopped; SQLite
and PostgreSQL): the creation is saved whole and answered 201 (never a 500 that a client would retry into a
duplicate), its start job left to the workers' clock, which starts it once Redis answers again; a retry with the same
``Idempotency-Key`` is given the same answer and creates nothing more. Nor does anything else that writes and then
tells Redis fail after its write: a seat taken, a move (their wake-ups are lost, logged), a cancellation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import rq
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from runtime.jobqueue import QUEUE_NAME, RQQueue
from store.models import Tournament, now
from tests.apikit import API, Player, new_player
from tests.arenakit import arena_app, register
from tests.conftest import dispose
from tests.databases import unavailable
from tests.servers import PrivateRedis, ServerError
from tests.tournament.test_runs import job_context
from tournament.dispatch import starts


@pytest.fixture
def redis_server() -> Iterator[PrivateRedis]:
    server = PrivateRedis(databases=1)
    try:
        server.start()
    except (ServerError, OSError) as error:
        server.close()
        unavailable(f"cannot start a private redis-server: {error}")
    yield server
    server.close()


@pytest.fixture
def redis_app(database_url: str, redis_server: PrivateRedis) -> Iterator[Flask]:
    app = arena_app(database_url, redis_server.url)
    yield app
    dispose(app)


def tournaments(app: Flask) -> int:
    with app.extensions["db_sessions"]() as session:
        return int(session.scalar(select(func.count(Tournament.id))) or 0)


def post(client: FlaskClient, owner: Player, path: str, body: dict[str, Any], key: str | None) -> Any:
    headers = {**owner.headers, **({"Idempotency-Key": key} if key is not None else {})}
    return client.post(f"{API}{path}", json=body, headers=headers)


def test_creates_while_redis_is_down_are_saved_whole_and_started_once_it_answers(
    redis_app: Flask, redis_server: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    client = redis_app.test_client()
    owner = new_player(client, "owner")
    bots = [register(client, owner, f"puller{n}", None, games=("card",))["id"] for n in range(2)]
    redis_server.stop()

    tournament = {"game": "card", "bot_ids": bots, "table_size": 2, "rounds": 1, "seed": 3}
    first = post(client, owner, "/tournaments", tournament, "create-once")
    assert first.status_code == 201, first.get_data(as_text=True)
    assert first.get_json()["status"] == "scheduled"
    again = post(client, owner, "/tournaments", tournament, "create-once")
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.get_json() == first.get_json()
    assert tournaments(redis_app) == 1  # the retry created nothing

    keyless = post(client, owner, "/tournaments", tournament, None)
    assert keyless.status_code == 201, keyless.get_data(as_text=True)
    match = {"game": "card", "bot_a": bots[0], "bot_b": bots[1], "seed": 5, "elo0": -5, "elo1": 5, "max_games": 20}
    matched = post(client, owner, "/matches", match, "match-once")
    assert matched.status_code == 201, matched.get_data(as_text=True)
    assert post(client, owner, "/matches", match, "match-once").headers.get("Idempotent-Replayed") == "true"
    assert tournaments(redis_app) == 3  # a match is played as a tournament of its own
    assert "its start job was not queued" in caplog.text

    # nothing else that writes and then tells Redis fails after its write either: seats taken, a move, a cancellation
    bob = new_player(client, "bob")
    game = client.post(f"{API}/games", json={"game": "card", "seats": 2, "seed": 1}, headers=owner.headers)
    assert game.status_code == 201, game.get_data(as_text=True)
    game_id = game.get_json()["id"]
    for player in (owner, bob):
        taken = client.post(f"{API}/games/{game_id}/seats", json={}, headers=player.headers)
        assert taken.status_code == 201, taken.get_data(as_text=True)
    for player in (owner, bob):
        offered = client.get(f"{API}/games/{game_id}/actions", headers=player.headers).get_json()
        if offered["your_decision"]:
            body = {"action": offered["actions"][0]["id"], "expected_ply": offered["ply"]}
            moved = client.post(f"{API}/games/{game_id}/actions", json=body, headers=player.headers)
            assert moved.status_code == 200, moved.get_data(as_text=True)
    assert "wake-ups not sent (Redis:" in caplog.text
    cancelled = client.post(f"{API}/tournaments/{keyless.get_json()['id']}/cancel", headers=owner.headers)
    assert cancelled.status_code == 200, cancelled.get_data(as_text=True)

    # Redis is back: a worker's clock starts every one of them, whole, once
    redis_server.start()
    queue = RQQueue(redis_server.url)
    ctx = job_context(redis_app.extensions["db_sessions"], queue)  # type: ignore[arg-type]
    started = starts.start_overdue(ctx, now())
    created = {first.get_json()["id"], matched.get_json()["tournament_id"]}  # (the keyless one was cancelled)
    assert set(started) == created
    assert starts.start_overdue(ctx, now()) == []
    assert len(rq.Queue(QUEUE_NAME, connection=queue.connection)) > 0  # their games are queued for the workers
    with redis_app.extensions["db_sessions"]() as session:
        statuses = session.scalars(select(Tournament.status).where(Tournament.id.in_(created))).all()
    assert statuses == ["running"] * 2
