"""Bot versions and unique names through the API (service/api/bots.py): version 1 at registration, a new version
for a new url or when the owner declares new code (with a note), listed by ``GET /bots/{id}`` (a version's url to
the owner only); a name that an active bot has is a 409, before any call to the bot, and free again once that bot
is deleted; two registrations of one name at once make one bot. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.apikit import API, Player, new_player
from tests.arenakit import SECRET, arena_app, push_bots, random_choice
from tests.botservers import BotServer, reply
from tests.conftest import dispose


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


def pull_bot(client: FlaskClient, owner: Player, name: str, **fields: Any) -> Any:
    return client.post(f"{API}/bots", json={"name": name, "games": ["card"], **fields}, headers=owner.headers)


def shown(client: FlaskClient, bot_id: int, player: Player | None = None) -> dict[str, Any]:
    response = client.get(f"{API}/bots/{bot_id}", headers=player.headers if player else {})
    assert response.status_code == 200
    body: dict[str, Any] = response.get_json()
    return body


def test_a_new_url_or_declared_code_starts_a_version(client: FlaskClient, owner: Player) -> None:
    other = new_player(client, "other")
    with push_bots(random_choice) as (server,):
        made = client.post(
            f"{API}/bots",
            json={
                "name": "evolving",
                "url": server.url,
                "games": ["card"],
                "secret": SECRET,
                "version_note": "v0",
            },
            headers=owner.headers,
        )
        assert made.status_code == 201 and made.get_json()["version"] == 1
        bot_id = made.get_json()["id"]
        declared = client.patch(
            f"{API}/bots/{bot_id}",
            json={"new_version": True, "version_note": "deeper search"},
            headers=owner.headers,
        )
        assert declared.status_code == 200 and declared.get_json()["version"] == 2
        moved = client.patch(f"{API}/bots/{bot_id}", json={"url": server.url + "/v3"}, headers=owner.headers)
        assert moved.status_code == 200 and moved.get_json()["version"] == 3
        for change in ({"name": "renamed"}, {"games": ["board", "card"]}, {"open_to_others": True}):
            answer = client.patch(f"{API}/bots/{bot_id}", json=change, headers=owner.headers)
            assert answer.status_code == 200, answer.get_data(as_text=True)
        server.secret, server.previous_secrets = "n" * 40, [SECRET]
        rotated = client.patch(f"{API}/bots/{bot_id}", json={"secret": "n" * 40}, headers=owner.headers)
        assert rotated.status_code == 200
    mine = shown(client, bot_id, owner)
    assert mine["version"] == 3  # neither a name, games, consent nor a secret makes a version
    assert [(v["number"], v["url"], v["note"]) for v in mine["versions"]] == [
        (1, server.url, "v0"),
        (2, server.url, "deeper search"),
        (3, server.url + "/v3", None),
    ]
    assert all(v["ratings"] == [] for v in mine["versions"])  # no rated game yet
    created = [v["created_at"] for v in mine["versions"]]
    assert created == sorted(created)
    theirs = shown(client, bot_id, other)
    assert [v["url"] for v in theirs["versions"]] == [None, None, None]  # an endpoint is its owner's business
    listed = client.get(f"{API}/bots").get_json()["bots"]
    assert [(bot["id"], bot["version"]) for bot in listed] == [(bot_id, 3)] and "versions" not in listed[0]


def test_a_pull_bot_gets_versions_when_its_owner_says_so(client: FlaskClient, owner: Player) -> None:
    bot_id = pull_bot(client, owner, "puller").get_json()["id"]
    answer = client.patch(f"{API}/bots/{bot_id}", json={"new_version": True}, headers=owner.headers)
    assert answer.status_code == 200
    assert [(v["number"], v["url"], v["note"]) for v in answer.get_json()["versions"]] == [
        (1, None, None),
        (2, None, None),
    ]
    assert (
        client.patch(f"{API}/bots/{bot_id}", json={"new_version": False}, headers=owner.headers).status_code == 200
    )
    assert shown(client, bot_id)["version"] == 2


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"version_note": "faster"}, "version_note: a note goes with a new version"),
        ({"version_note": "faster", "new_version": False}, "version_note: a note goes with a new version"),
        ({"version_note": "faster", "url": None}, "version_note: a note goes with a new version"),  # unchanged
        ({"version_note": "", "new_version": True}, "version_note"),
        ({"version_note": "x" * 201, "new_version": True}, "version_note"),
        ({"new_version": "often"}, "new_version"),
    ],
)
def test_a_bad_version_change_is_a_422_that_says_why(
    client: FlaskClient, owner: Player, change: dict[str, Any], says: str
) -> None:
    bot_id = pull_bot(client, owner, "puller").get_json()["id"]
    answer = client.patch(f"{API}/bots/{bot_id}", json=change, headers=owner.headers)
    assert answer.status_code == 422 and says in answer.get_json()["message"]
    assert shown(client, bot_id)["version"] == 1


def test_a_taken_name_is_a_409_until_its_bot_is_deleted(client: FlaskClient, owner: Player) -> None:
    other = new_player(client, "other")
    first = pull_bot(client, owner, "greedy").get_json()
    for who in (owner, other):
        again = pull_bot(client, who, "greedy")
        assert again.status_code == 409
        assert again.get_json()["message"] == "name: a bot named 'greedy' already exists: choose another name"
    with BotServer(reply()) as server:  # refused before the endpoint is called
        pushed = client.post(
            f"{API}/bots",
            json={"name": "greedy", "url": server.url(), "games": ["card"], "secret": SECRET},
            headers=other.headers,
        )
        assert pushed.status_code == 409 and server.received == []
    second = pull_bot(client, owner, "random").get_json()
    renamed = client.patch(f"{API}/bots/{second['id']}", json={"name": "greedy"}, headers=owner.headers)
    assert renamed.status_code == 409 and "a bot named 'greedy' already exists" in renamed.get_json()["message"]
    same = client.patch(f"{API}/bots/{first['id']}", json={"name": "greedy"}, headers=owner.headers)
    assert same.status_code == 200  # its own name
    assert [bot["name"] for bot in client.get(f"{API}/bots").get_json()["bots"]] == ["greedy", "random"]
    assert client.delete(f"{API}/bots/{first['id']}", headers=owner.headers).status_code == 204
    reused = pull_bot(client, other, "greedy")
    assert reused.status_code == 201 and reused.get_json()["id"] != first["id"]


def test_one_name_registered_at_once_makes_one_bot(arena: Flask, owner: Player) -> None:
    codes: list[int] = []

    def attempt() -> None:
        codes.append(pull_bot(arena.test_client(), owner, "twin").status_code)

    threads = [threading.Thread(target=attempt) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(codes) == [201] + [409] * 7
    names = [bot["name"] for bot in arena.test_client().get(f"{API}/bots").get_json()["bots"]]
    assert names == ["twin"]
