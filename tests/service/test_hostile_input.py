"""Hostile input gets a 4xx with a message, never a 500, on SQLite and PostgreSQL (``service/inputguard.py``,
``service.schemas.Text``):

- a 30,000-deep JSON array (which exhausts Python's JSON decoder) on every endpoint that takes a JSON body: a 422
  "request body nests deeper than 64 levels"; a body 64 levels deep, or with brackets inside its strings, passes;
- a lone surrogate (``"\\ud800"``) or a NUL in a player, bot or tournament name: a 422 naming the field (neither
  database stores them);
- a NUL in a query string (``GET /standings?variant=%00``, which PostgreSQL refused with a 500): a 422.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.inputguard import MAX_DEPTH, NUL_IN_QUERY, TOO_DEEP, nests_deeper
from tests.apikit import API, Player, new_player, started_game

DEEP = "[" * 30_000 + "]" * 30_000
UNSTORABLE = "must not contain NUL or lone surrogate characters"


def refused(response: Any, status: int = 422) -> str:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["code"] == status and body["message"], body
    return str(body["message"])


@pytest.fixture
def ada(client: FlaskClient) -> Player:
    return new_player(client, "ada")


def pull_bot(client: FlaskClient, owner: Player) -> int:
    response = client.post(f"{API}/bots", json={"name": "pully", "games": ["card"]}, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    return int(response.get_json()["id"])


def json_routes(client: FlaskClient, owner: Player) -> list[tuple[str, str]]:
    """Every operation of the API that takes a JSON body (from its OpenAPI document), with real ids."""
    game_id, _ = started_game(client)
    ids = {"game_id": game_id, "bot_id": pull_bot(client, owner), "tournament_id": 1}
    spec = client.get("/openapi.json").get_json()
    routes = [
        (method.upper(), path.format(**ids))
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if isinstance(operation, dict)
        and "application/json" in operation.get("requestBody", {}).get("content", {})
    ]
    assert len(routes) >= 7, routes  # players, games, seats, actions, bots, bot, tournaments
    return routes


def test_a_deeply_nested_body_is_refused_on_every_json_endpoint(client: FlaskClient, ada: Player) -> None:
    for method, path in json_routes(client, ada):
        response = client.open(
            path, method=method, data=DEEP, content_type="application/json", headers=ada.headers
        )
        assert refused(response) == TOO_DEEP, (method, path)
        chunked = client.open(  # no Content-Length: as a server passes on a chunked body (decoded, terminated)
            path,
            method=method,
            input_stream=io.BytesIO(DEEP.encode()),
            headers={**ada.headers, "Content-Type": "application/json", "Transfer-Encoding": "chunked"},
            environ_overrides={"wsgi.input_terminated": True},
        )
        assert refused(chunked) == TOO_DEEP, (method, path)
    assert "64 levels" in TOO_DEEP


def test_nesting_up_to_the_limit_and_brackets_in_strings_pass(client: FlaskClient, ada: Player) -> None:
    inner: Any = 1
    for _ in range(MAX_DEPTH - 2):  # the body and settings are two levels
        inner = [inner]
    response = client.post(
        f"{API}/games", json={"game": "card", "settings": {"deck": inner}, "seats": 2}, headers=ada.headers
    )
    assert "deck" in refused(response)  # the engine's judgement of the settings, not the guard's
    bracketed = client.post(f"{API}/players", json={"name": "[{" * 32})
    assert bracketed.status_code == 201, bracketed.get_data(as_text=True)
    assert bracketed.get_json()["name"] == "[{" * 32


def test_the_depth_scan() -> None:
    assert not nests_deeper(b"[" * 64 + b"]" * 64)
    assert nests_deeper(b"[" * 65 + b"]" * 65)
    assert nests_deeper(b'{"a":' * 65 + b"1" + b"}" * 65)
    assert not nests_deeper(b'["' + b"[" * 1000 + b'"]')
    assert not nests_deeper(b'["\\"' + b"[" * 1000 + b'"]')  # an escaped quote does not end the string
    assert not nests_deeper(b"[]" * 1000)  # many brackets, shallow


@pytest.mark.parametrize("bad", ["\ud800", "ab\udfff", "a\x00b"])
def test_unstorable_characters_in_names_are_refused(client: FlaskClient, ada: Player, bad: str) -> None:
    message = refused(client.post(f"{API}/players", json={"name": bad}))
    assert message == f"invalid request: json.name: {UNSTORABLE}"
    bot = {"name": bad, "games": ["card"]}
    assert UNSTORABLE in refused(client.post(f"{API}/bots", json=bot, headers=ada.headers))
    bot_id = pull_bot(client, ada)
    renamed = client.patch(f"{API}/bots/{bot_id}", json={"name": bad}, headers=ada.headers)
    assert refused(renamed) == f"invalid request: json.name: {UNSTORABLE}"
    tournament = {"name": bad, "game": "card", "bot_ids": [bot_id, bot_id]}
    assert f"json.name: {UNSTORABLE}" in refused(
        client.post(f"{API}/tournaments", json=tournament, headers=ada.headers)
    )
    game = {"game": "card", "settings": {bad: 1}, "seats": 2}
    assert UNSTORABLE in refused(client.post(f"{API}/games", json=game, headers=ada.headers))
    # a surrogate pair is an ordinary character
    assert client.post(f"{API}/players", json={"name": "ok \ud83d\ude00"}).get_json()["name"] == "ok \U0001f600"


@pytest.mark.parametrize(
    "path",
    [
        f"{API}/standings?game=board&variant=%00",
        f"{API}/standings?game=board&variant=a%00b",
        f"{API}/games?status=%00",
        f"{API}/tournaments?status=x%00",
        f"{API}/bots?limit=%00",
        "/?lang=%00",
    ],
)
def test_a_nul_in_a_query_string_is_refused(client: FlaskClient, path: str) -> None:
    assert refused(client.get(path)) == NUL_IN_QUERY


def test_standings_of_an_odd_variant_are_empty_not_an_error(client: FlaskClient) -> None:
    response = client.get(f"{API}/standings", query_string={"game": "board", "variant": "\u00e9t\u00e9"})
    assert response.status_code == 200 and response.get_json()["standings"] == []
