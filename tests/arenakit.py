"""Helpers of the bot and tournament tests: an app that may call loopback bots, push bots served in threads,
registration and tournament creation through the API, and a wait for a tournament's end."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from clients.examples import greedy_bot, random_bot
from clients.push import PushServer, serve
from service.app import create_app
from service.config import Settings
from tests.apikit import API, Player

SECRET = "s" * 40
Choose = Callable[[dict[str, Any]], str]


def arena_app(database_url: str, redis_url: str | None = None, **settings: Any) -> Flask:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, bot_allow="loopback", **settings))
    app.config["TESTING"] = True
    return app


@contextmanager
def push_bots(*chooses: Choose, secret: str = SECRET) -> Iterator[list[PushServer]]:
    servers = [serve(choose, secret=secret, name=f"bot{n}").start_background() for n, choose in enumerate(chooses)]
    try:
        yield servers
    finally:
        for server in servers:
            server.shutdown()


def register(
    client: FlaskClient,
    owner: Player,
    name: str,
    url: str | None,
    games: tuple[str, ...] = ("board", "card"),
    secret: str = SECRET,
) -> dict[str, Any]:
    response = client.post(
        f"{API}/bots",
        json={"name": name, "url": url, "games": list(games), "secret": secret},
        headers=owner.headers,
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    body: dict[str, Any] = response.get_json()
    return body


def create_tournament(client: FlaskClient, owner: Player, bot_ids: list[int], **fields: Any) -> dict[str, Any]:
    body = {"game": "board", "bot_ids": bot_ids, "table_size": 2, "rounds": 1, "seed": 7, **fields}
    response = client.post(f"{API}/tournaments", json=body, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    created: dict[str, Any] = response.get_json()
    return created


def wait_done(client: FlaskClient, tournament_id: int, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get(f"{API}/tournaments/{tournament_id}").get_json()
        if body["status"] == "done":
            return body
        assert time.monotonic() < deadline, f"tournament not done in {timeout} s: {body['progress']}"
        time.sleep(0.1)


def random_choice(request: dict[str, Any]) -> str:
    return str(random_bot.choose(request))


def greedy_choice(request: dict[str, Any]) -> str:
    return str(greedy_bot.choose(request))


def illegal_choice(request: dict[str, Any]) -> str:
    return "no-such-action"


def sometimes_illegal(rate: float, seed: int = 0) -> Choose:
    generator = random.Random(seed)

    def choose(request: dict[str, Any]) -> str:
        return "no-such-action" if generator.random() < rate else random_choice(request)

    return choose
