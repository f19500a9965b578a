"""Hostile input gets a 4xx with a message, never a 500, on SQLite and PostgreSQL (``service/inputguard.py``,
``service.schemas.Text``):

- a 30,000-deep JSON array (which exhausts Python's JSON decoder) on every endpoint that takes a JSON body: a 422
  "request body nests deeper than 64 levels"; a body 64 levels deep, or with brackets inside its strings, passes;
- a lone surrogate (``"\\ud800"``) or a NUL in a player, bot or tournament name: a 422 naming the field (neither
  database stores them);
- a NUL in a query string (``GET /standings?variant=%00``, which PostgreSQL refused with a 500): a 422;
- an integer too long for Python to parse (4,301 digits and more: a 500 on every endpoint that takes a JSON body),
  or of more than 100 digits, in any field of any body: a 422 naming each field that holds one; every number of
  every request schema is bounded (a ``Range``), so a shorter one gets the schema's 422.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from marshmallow import Schema, fields, validate

from service.inputguard import (
    MAX_DEPTH,
    MAX_DIGITS,
    NUL_IN_QUERY,
    NUMBER_IN_BAD_JSON,
    TOO_DEEP,
    TOO_LONG,
    long_integers,
    nests_deeper,
)
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
    return body_operations(client.get("/openapi.json").get_json(), game_id, pull_bot(client, owner))


def body_operations(spec: dict[str, Any], game_id: int, bot_id: int) -> list[tuple[str, str]]:
    """The method and path of every operation of ``spec`` that takes a JSON body, with these ids."""
    ids = {"game_id": game_id, "bot_id": bot_id, "tournament_id": 1, "ladder_id": 1}
    routes = [
        (method.upper(), path.format(**ids))
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if isinstance(operation, dict)
        and "application/json" in operation.get("requestBody", {}).get("content", {})
    ]
    assert len(routes) >= 10, (
        routes
    )  # players, games, seats, actions, bots, bot, tournaments, matches, gauntlets...
    return routes


PYTHON_LIMIT = "9" * 4_301
"""One digit more than Python turns into an int (``sys.get_int_max_str_digits()``, 4,300 by default)."""
LONG_BODY = json.dumps({"name": "x", "game": "card", "seats": 2, "bot_ids": [1, 2]})[:-1] + (
    f', "seed": {PYTHON_LIMIT}, "settings": {{"turn_cap": [1, -{PYTHON_LIMIT}]}}}}'
)
"""A body with two integers too long to parse: one in a field (``seed``), one in a list in an object."""
LONG_FIELDS = {"json": {"seed": [TOO_LONG], "settings": {"turn_cap": {"1": [TOO_LONG]}}}}


def long_number_refused(response: Any) -> None:
    """``response`` is the 422 naming both long integers of :data:`LONG_BODY` (and saying that they are too long)."""
    assert refused(response) == f"invalid request: json.seed: {TOO_LONG}; json.settings.turn_cap.1: {TOO_LONG}"
    assert response.get_json()["errors"] == LONG_FIELDS


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


def test_an_integer_too_long_to_parse_is_refused_on_every_json_endpoint(client: FlaskClient, ada: Player) -> None:
    for method, path in json_routes(client, ada):
        response = client.open(
            path, method=method, data=LONG_BODY, content_type="application/json", headers=ada.headers
        )
        long_number_refused(response)
    bare = client.post(f"{API}/games", data=PYTHON_LIMIT, content_type="application/json", headers=ada.headers)
    assert refused(bare) == f"invalid request: json: {TOO_LONG}"
    broken = client.post(f"{API}/players", data='{"name": ' + PYTHON_LIMIT, content_type="application/json")
    assert refused(broken) == NUMBER_IN_BAD_JSON  # the parsers would have raised on the number before the end
    assert "100 digits" in TOO_LONG


def test_numbers_the_guard_lets_through_get_the_schema_s_answer(client: FlaskClient, ada: Player) -> None:
    game = {"game": "card", "seats": 2}
    for seed in (int("9" * MAX_DIGITS), -int("9" * MAX_DIGITS), 2**63):
        message = refused(client.post(f"{API}/games", json={**game, "seed": seed}, headers=ada.headers))
        assert message.startswith("invalid request: json.seed: Must be greater than or equal to 0"), message
    long_float = '{"game": "card", "seats": 2, "seed": ' + "9" * 5_000 + ".5}"  # a float, whatever its digits
    message = refused(
        client.post(f"{API}/games", data=long_float, content_type="application/json", headers=ada.headers)
    )
    assert message == "invalid request: json.seed: Number too large.", message
    digits = "1" * 5_000
    named = client.post(f"{API}/players", json={"name": digits})  # a long run of digits in a string
    assert refused(named) == "invalid request: json.name: Length must be between 1 and 64."


def test_the_long_integer_scan() -> None:
    many = "9" * (MAX_DIGITS + 1)
    assert long_integers(b'{"a": 1}') is None
    assert long_integers(("9" * MAX_DIGITS).encode()) is None
    assert long_integers(f"-{'9' * MAX_DIGITS}".encode()) is None
    assert long_integers(many.encode()) == {"json": [TOO_LONG]}
    assert long_integers(f'["{many}", 1.{many}, {many}e5, "a"]'.encode()) is None  # strings and floats
    assert long_integers(f'[[{{"b": [{many}]}}]]'.encode()) == {"json": {0: {0: {"b": {0: [TOO_LONG]}}}}}
    assert long_integers(f'{{"a": {many}'.encode()) == NUMBER_IN_BAD_JSON
    assert long_integers(f'{{"a": "{many}'.encode()) is None  # bad JSON, no long integer: its parser says so
    assert long_integers(b"\xff" + many.encode()) is None


def request_numbers(schema: Schema, prefix: str = "") -> Iterator[tuple[str, fields.Field]]:
    """Every number field a request of ``schema`` may hold (in lists and nested schemas too), by its path."""
    for name, field in schema.fields.items():
        if field.dump_only:
            continue
        inner = field.inner if isinstance(field, fields.List) else field
        if isinstance(inner, fields.Nested):
            yield from request_numbers(inner.schema, f"{prefix}{name}.")
        elif isinstance(inner, fields.Number):
            yield prefix + name, inner


def test_every_number_of_every_request_schema_is_bounded(app: Flask) -> None:
    checked = []
    for view in app.view_functions.values():
        view_class = getattr(view, "view_class", None)
        handlers = [getattr(view_class, method.lower()) for method in view_class.methods] if view_class else [view]
        for handler in handlers:
            for argument in getattr(handler, "_apidoc", {}).get("arguments", {}).get("parameters", []):
                schema = argument["schema"]() if isinstance(argument["schema"], type) else argument["schema"]
                for path, field in request_numbers(schema):
                    bounds = [check for check in field.validators if isinstance(check, validate.Range)]
                    assert bounds and bounds[0].min is not None and bounds[0].max is not None, (
                        f"{type(schema).__name__}.{path} has no Range"
                    )
                    checked.append(path)
    assert {"seed", "expected_ply", "bot_ids", "seat", "limit", "move_timeout_ms"} <= set(checked), checked
