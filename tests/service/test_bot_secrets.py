"""A push bot's secret is its owner's (service/api/bots.py): required at registration, with a 422 that says how to
get one (a secret the service made up would fail the proof: the bot could not know it); a pull bot needs none.
Rotation: the owner restarts the bot accepting the old and the new secret, sends the new one, which is proved
against the bot before the service keeps it, then drops the old one. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api.bots import SIGNATURE_REJECTED
from service.bot_schemas import SECRET_NEEDED
from store.models import Bot
from tests.apikit import API, Player, new_player
from tests.arenakit import SECRET, arena_app, push_bots, random_choice, register
from tests.botservers import BotServer, reply
from tests.conftest import dispose

NEW = "n" * 40


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url)
    yield app
    dispose(app)


@pytest.fixture
def client(arena: Flask) -> FlaskClient:
    return arena.test_client()


@pytest.fixture
def owner(client: FlaskClient) -> Player:
    return new_player(client, "owner")


def stored_secret(arena: Flask, bot_id: int) -> str:
    with arena.extensions["db_sessions"]() as session:
        bot = session.get(Bot, bot_id)
        assert bot is not None
        return bot.secret


def test_a_push_bot_without_a_secret_is_refused_with_the_way_to_register_it(
    client: FlaskClient, owner: Player
) -> None:
    with BotServer(reply()) as server:
        response = client.post(
            f"{API}/bots", json={"name": "pusher", "url": server.url(), "games": ["card"]}, headers=owner.headers
        )
        assert server.received == []  # refused before any call
    body = response.get_json()
    assert response.status_code == 422 and body["message"] == f"invalid request: json.secret: {SECRET_NEEDED}"
    assert "generate one" in body["message"] and "start the bot with it" in body["message"]
    assert client.get(f"{API}/bots").get_json()["bots"] == []


def test_a_pull_bot_needs_no_secret(client: FlaskClient, owner: Player) -> None:
    response = client.post(f"{API}/bots", json={"name": "puller", "games": ["card"]}, headers=owner.headers)
    assert response.status_code == 201 and response.get_json()["mode"] == "pull"


def test_a_new_secret_the_bot_does_not_accept_yet_changes_nothing(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with push_bots(random_choice) as (bot_server,):
        bot = register(client, owner, "pusher", bot_server.url)
        rotated = client.patch(f"{API}/bots/{bot['id']}", json={"secret": NEW}, headers=owner.headers)
    assert (rotated.status_code, rotated.get_json()["message"]) == (422, SIGNATURE_REJECTED)
    assert stored_secret(arena, bot["id"]) == SECRET


def test_a_rotation_proves_the_new_secret_then_signs_with_it(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with push_bots(random_choice) as (bot_server,):
        bot = register(client, owner, "pusher", bot_server.url)
        bot_server.secret, bot_server.previous_secrets = NEW, [SECRET]  # restarted accepting both
        rotated = client.patch(f"{API}/bots/{bot['id']}", json={"secret": NEW}, headers=owner.headers)
        assert rotated.status_code == 200, rotated.get_data(as_text=True)
        assert NEW not in rotated.get_data(as_text=True) and "secret" not in rotated.get_json()
        assert stored_secret(arena, bot["id"]) == NEW
        bot_server.previous_secrets = []  # the old secret dropped: the service's calls are signed with the new one
        moved = client.patch(
            f"{API}/bots/{bot['id']}", json={"url": bot_server.url + "/v2"}, headers=owner.headers
        )
        assert moved.status_code == 200, moved.get_data(as_text=True)


def test_a_pull_bot_gets_a_new_secret_unproved(arena: Flask, client: FlaskClient, owner: Player) -> None:
    made = client.post(f"{API}/bots", json={"name": "puller", "games": ["card"]}, headers=owner.headers)
    bot_id = made.get_json()["id"]
    assert client.patch(f"{API}/bots/{bot_id}", json={"secret": NEW}, headers=owner.headers).status_code == 200
    assert stored_secret(arena, bot_id) == NEW


def test_a_pull_bot_turned_push_brings_its_secret(arena: Flask, client: FlaskClient, owner: Player) -> None:
    made = client.post(f"{API}/bots", json={"name": "turning", "games": ["card"]}, headers=owner.headers)
    bot_id = made.get_json()["id"]
    with push_bots(random_choice, secret=NEW) as (bot_server,):
        url = bot_server.url + "/bot"
        refused = client.patch(f"{API}/bots/{bot_id}", json={"url": url}, headers=owner.headers)
        assert (refused.status_code, refused.get_json()["message"]) == (422, f"secret: {SECRET_NEEDED}")
        moved = client.patch(f"{API}/bots/{bot_id}", json={"url": url, "secret": NEW}, headers=owner.headers)
        assert moved.status_code == 200 and moved.get_json()["mode"] == "push"
    assert stored_secret(arena, bot_id) == NEW


@pytest.mark.parametrize(
    "secret", ["short", "x" * 129, "tab\tinside" + "x" * 30, None, 42], ids=["short", "long", "tab", "null", "int"]
)
def test_a_bad_new_secret_is_a_422_that_names_it(client: FlaskClient, owner: Player, secret: object) -> None:
    made = client.post(f"{API}/bots", json={"name": "puller", "games": ["card"]}, headers=owner.headers)
    response = client.patch(f"{API}/bots/{made.get_json()['id']}", json={"secret": secret}, headers=owner.headers)
    assert response.status_code == 422 and response.get_json()["message"].startswith(
        "invalid request: json.secret: "
    )
