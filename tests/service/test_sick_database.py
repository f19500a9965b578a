"""The API on a database that refuses writes: PostgreSQL read-only, SQLite read-only or with a full disk. Every
operation of the OpenAPI document is answered without a 500: those that must write are 503s with ``Retry-After``
whose message says why, logged in one line for the outage, never a traceback; once the database takes writes again,
the same requests are answered (a connection opened while it was read-only is replaced after its first refusal)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.errors import DATABASE_RETRY_AFTER_S
from tests.apikit import SHORT_CARD, Player, asked_seat, create_game, get_actions, new_player, started_game
from tests.arenakit import SECRET, arena_app, register, wait_for
from tests.conftest import dispose
from tests.service.test_errors import assert_error
from tests.sickdatabase import Sickness

OPENAPI = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
OPERATOR_TOKEN = "op-" + "s" * 40
WRITES = {
    ("post", "/api/v1/players"),
    ("post", "/api/v1/games"),
    ("post", "/api/v1/games/{game_id}/seats"),
    ("post", "/api/v1/games/{game_id}/actions"),
    ("post", "/api/v1/bots"),
    ("patch", "/api/v1/bots/{bot_id}"),
    ("post", "/api/v1/tournaments"),
    ("post", "/api/v1/ladders"),
    ("post", "/api/v1/ladders/{ladder_id}/bots"),
    ("post", "/api/v1/admin/accounts/{player_id}/disable"),
    ("post", "/api/v1/admin/bots/{bot_id}/pause"),
}
"""Operations that write whatever else they do: each must be a 503 while the database refuses writes."""
WHY = {"read-only": "read-only", "full": "disk is full"}


class World:
    """What the walk's requests name: players, a game in play and one open, two bots of the owner's, an open ladder
    of the owner's, an account for the operator's powers."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.game_id, self.players = started_game(client, *SHORT_CARD, seed=21)
        seat = asked_seat(client, self.game_id)
        assert seat is not None
        self.mover = self.players[seat]
        self.action = get_actions(client, self.game_id, self.mover)["actions"][0]["id"]
        self.owner = new_player(client, "owner")
        self.bystander = new_player(client, "bystander")  # the operator's powers act on this one's account
        self.open_game = create_game(client, self.owner, *SHORT_CARD)["id"]
        self.bots = [register(client, self.owner, name, None, ("card",))["id"] for name in ("pull1", "pull2")]
        ladder = client.post("/api/v1/ladders", json={"game": "card"}, headers=self.owner.headers)
        assert ladder.status_code == 201, ladder.get_data(as_text=True)
        self.ladder_id = ladder.get_json()["id"]

    def request(self, method: str, template: str) -> Any:
        path = template.format(
            game_id=self.open_game if template.endswith("/seats") else self.game_id,
            player_id=self.bystander.id,
            bot_id=self.bots[0],
            seat=0,
            tournament_id=1,
            match_id=1,
            gauntlet_id=1,
            challenge_id=1,
            ladder_id=self.ladder_id,
        )
        who: Player = self.mover if template.endswith("/actions") else self.owner
        headers = {"Authorization": f"Bearer {OPERATOR_TOKEN}"} if "/admin/" in template else dict(who.headers)
        body = self.body(method, template)
        return self.client.open(path, method=method.upper(), json=body, headers=headers)

    def body(self, method: str, template: str) -> dict[str, Any] | None:
        if method in ("get", "delete"):
            return None
        bodies: dict[str, dict[str, Any]] = {
            "/api/v1/players": {"name": "newcomer"},
            "/api/v1/games": {"game": "card", "settings": SHORT_CARD[1], "seats": 2},
            "/api/v1/games/{game_id}/seats": {"seat": 0},
            "/api/v1/games/{game_id}/actions": {"action": self.action, "expected_ply": 0},
            "/api/v1/bots": {"name": "pull3", "url": None, "games": ["card"], "secret": SECRET},
            "/api/v1/bots/{bot_id}": {"name": "renamed"},
            "/api/v1/tournaments": {"game": "card", "bot_ids": self.bots},
            "/api/v1/matches": {"game": "card", "bot_ids": self.bots},
            "/api/v1/gauntlets": {"game": "card", "bot_id": self.bots[0], "opponent_ids": self.bots[1:]},
            "/api/v1/challenges": {"game": "card", "bot_ids": self.bots[:1]},
            "/api/v1/ladders": {"game": "card"},
            "/api/v1/ladders/{ladder_id}/bots": {"bot_id": self.bots[1]},
        }
        return bodies.get(template, {})


def operations() -> list[tuple[str, str]]:
    """Every operation of the OpenAPI document but the event streams (a stream's end is its own test's)."""
    document = json.loads(OPENAPI.read_text())
    return [
        (method, path)
        for path, item in document["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete") and not path.endswith("/stream")
    ]


def walk(world: World, kind: str) -> None:
    """Every operation while the database refuses writes: none a 500, each that writes a 503 saying why."""
    refused = set()
    for method, template in operations():
        response = world.request(method, template)
        text = response.get_data(as_text=True)
        assert response.status_code < 500 or response.status_code == 503, (method, template, text)
        assert "Traceback" not in text and "psycopg" not in text and "sqlite" not in text.lower(), text
        if response.status_code == 503 and template != "/api/v1/ready":  # readiness says which check failed
            assert_error(response, 503, "the database could not complete this request", WHY[kind])
            assert response.headers["Retry-After"] == str(DATABASE_RETRY_AFTER_S)
            refused.add((method, template))
    assert WRITES <= refused, WRITES - refused


def served_again(world: World, move: bool = True) -> None:
    """Once the database takes writes: a write is answered (after at most a 503 per connection still holding
    the read-only session it opened with): the move (unless one that fitted in the full disk's pages was made),
    a new game and a new player."""

    def answered(method: str, template: str, status: int) -> bool:
        response = world.request(method, template)
        assert response.status_code in (status, 503), response.get_data(as_text=True)
        return bool(response.status_code == status)

    if move:
        wait_for("a move", lambda: answered("post", "/api/v1/games/{game_id}/actions", 200), timeout=30)
    wait_for("a new game", lambda: answered("post", "/api/v1/games", 201), timeout=30)
    wait_for("a new player", lambda: answered("post", "/api/v1/players", 201), timeout=30)


def logged_once(caplog: pytest.LogCaptureFixture, kind: str) -> None:
    (line,) = [record for record in caplog.records if record.name == "service.errors"]
    assert line.levelno == logging.WARNING and line.exc_info is None
    assert line.getMessage().startswith("requests failed on the database: ") and f"({kind})" in line.getMessage()
    assert all(record.exc_info is None for record in caplog.records) and "Traceback" not in caplog.text


@pytest.fixture
def arena(database_url: str) -> Any:
    app = arena_app(database_url, operator_token=OPERATOR_TOKEN)
    yield app
    dispose(app)


def test_a_database_that_refuses_writes_makes_every_writing_operation_a_503_and_none_a_500(
    arena: Flask, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL read-only (its SQLSTATE 25006, an ``InternalError`` to psycopg), SQLite read-only
    (``SQLITE_READONLY``)."""
    world = World(arena.test_client())
    sickness = Sickness(database_url, arena.extensions["db_engine"], sqlite_kind="read-only")
    sickness.on()
    try:
        with caplog.at_level(logging.WARNING):
            walk(world, "read-only")
        logged_once(caplog, "read-only")
        unready = world.client.get("/api/v1/ready")  # a load balancer sends no writes to it meanwhile
        assert unready.status_code == 503 and unready.get_json()["checks"]["database"].startswith("read-only: ")
    finally:
        sickness.off()
    served_again(world)
    wait_for("ready again", lambda: world.client.get("/api/v1/ready").status_code == 200, timeout=30)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_full_sqlite_disk_makes_a_write_a_503_saying_so(
    arena: Flask, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """``SQLITE_FULL``: a write that needs a page more than the file may hold (the first writes fit in the pages
    there are)."""
    world = World(arena.test_client())
    sickness = Sickness(database_url, arena.extensions["db_engine"], sqlite_kind="full")
    sickness.on()
    try:
        with caplog.at_level(logging.WARNING):

            def refused() -> Any:
                response = world.request("post", "/api/v1/games")
                assert response.status_code in (201, 503), response.get_data(as_text=True)
                return response if response.status_code == 503 else None

            full = wait_for("a write that finds the disk full", refused, timeout=60)
            assert_error(full, 503, "the database could not complete this request", "disk is full")
            assert full.headers["Retry-After"] == str(DATABASE_RETRY_AFTER_S)
            for method, template in operations():
                response = world.request(method, template)
                assert response.status_code < 500 or response.status_code == 503, (method, template)
        logged_once(caplog, "full")
    finally:
        sickness.off()
    served_again(world, move=False)
