"""Schemathesis over the app's own OpenAPI document: generated requests for every operation, on SQLite, never get
a server error (5xx). A valid bearer token goes with every request that has none, and half of the generated game
ids are replaced by games that exist (active, open, over), so that the checks reach past the 401s and 404s.

Generated strings hold no lone surrogates (nor NUL, under the names' pattern) and no body nests deep, so explicit
cases built from the same document send every operation those classes: a 30,000-deep JSON body, and NUL and lone
surrogates in each string of its body (values, array items, object keys) and each query parameter; each must be a
4xx with a message.

Each operation gets 25 generated examples in the default suite (about 25 s in all); ``make fuzz`` sets
``SORRY_ARENA_FUZZ_EXAMPLES`` for a much larger budget (``docs/guarantees.md`` has the last run's figures)."""

from __future__ import annotations

import json
import os
import random
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.apikit import create_game, new_player, play_to_end, started_game, take_seat
from tests.conftest import dispose, make_app
from tests.databases import Templates

# The OpenAPI document needs no database: an app whose database is never touched serves it at collection time.
# (schemathesis.pytest.from_fixture, the lazy loader, fails under pytest 9: it sets Node._nodeid, gone in pytest 9.)
SPEC = make_app("sqlite://").test_client().get("/openapi.json").get_json()
schema = schemathesis.openapi.from_dict(SPEC)
EXAMPLES = int(os.environ.get("SORRY_ARENA_FUZZ_EXAMPLES") or 25)
"""Generated examples per operation: 25 by default, ``SORRY_ARENA_FUZZ_EXAMPLES`` for a large run."""


@pytest.fixture
def seeded_app(tmp_path: Path, templates: Templates) -> Iterator[tuple[Any, list[int], str]]:
    """An app on a fresh SQLite file with an active, a finished and an open game, and an open ladder; the games' ids
    and a seated token."""
    url = templates.sqlite(tmp_path / "schemathesis.db")
    app = make_app(url)
    client = app.test_client()
    active, (ada, _bob) = started_game(client, "card", {}, seats=2, seed=1)
    over, players = started_game(client, "card", {"pawns": 1}, seats=2, seed=2)
    play_to_end(client, over, players, random.Random(2))
    waiting = create_game(client, ada, "board", {"variant": "points"}, seats=3)["id"]
    take_seat(client, waiting, new_player(client, "cy"))
    ladder = client.post(
        "/api/v1/ladders", json={"game": "card"}, headers={"Authorization": f"Bearer {ada.token}"}
    )
    assert ladder.status_code == 201, ladder.get_data(
        as_text=True
    )  # ladder 1, so that its operations reach past 404s
    yield app, [active, over, waiting], ada.token
    dispose(app)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_no_generated_request_gets_a_server_error(case: Any, seeded_app: tuple[Any, list[int], str]) -> None:
    app, games, token = seeded_app
    game_id = (case.path_parameters or {}).get("game_id")
    if isinstance(game_id, int) and game_id % 2 == 0:
        case.path_parameters["game_id"] = games[(game_id // 2) % len(games)]
    headers = {} if "Authorization" in (case.headers or {}) else {"Authorization": f"Bearer {token}"}
    response = case.call(app=app, headers=headers)
    case.validate_response(response, checks=[not_a_server_error], headers=headers)


# --- the classes of hostile input that generated strings miss -------------------------------------------------
# Hypothesis generates no lone surrogates (nor, under the names' pattern, NUL) and schemathesis no deep nesting:
# these cases, built from the same OpenAPI document, send each class to every operation that can receive it.

HOSTILE_STRINGS = {"nul": "a\x00b", "surrogate": "\ud800", "low-surrogate": "x\udfff"}
DEEP_BODY = "[" * 30_000 + "]" * 30_000
BASE_BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/api/v1/players"): {"name": "ada"},
    ("post", "/api/v1/games"): {"game": "card", "settings": {}, "seats": 2},
    ("post", "/api/v1/games/{game_id}/seats"): {},
    ("post", "/api/v1/games/{game_id}/actions"): {"action": "a", "expected_ply": 0},
    ("post", "/api/v1/bots"): {"name": "bot", "games": ["card"]},
    ("patch", "/api/v1/bots/{bot_id}"): {"name": "bot"},
    ("post", "/api/v1/tournaments"): {"game": "card", "bot_ids": [1, 2]},
    ("post", "/api/v1/ladders"): {"game": "card"},
}
"""A valid-looking body per operation, so that the hostile value is the only thing wrong (an operation missing
here is sent its hostile fields alone)."""


def resolved(schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    return SPEC["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else schema  # type: ignore[no-any-return]


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in SPEC["paths"].items()
        for method, operation in item.items()
        if method in {"get", "post", "put", "patch", "delete"}
    ]


def takes_strings(prop: dict[str, Any]) -> str | None:
    """How a body property holds strings: "value", "items" (an array of them), "keys" (an object's), or None."""
    kinds = prop.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "string" in kinds:
        return "value"
    if "array" in kinds and "string" in (resolved(prop.get("items") or {}).get("type") or ""):
        return "items"
    if "object" in kinds:
        return "keys"
    return None


def hostile_cases() -> list[Any]:
    cases = []
    for method, path, operation in operations():
        content = operation.get("requestBody", {}).get("content", {})
        if "application/json" in content:
            cases.append(pytest.param(method, path, "body", DEEP_BODY, id=f"{method} {path} deep"))
            properties = resolved(content["application/json"]["schema"]).get("properties", {})
            for name, prop in properties.items():
                holds = takes_strings(prop)
                for kind, text in HOSTILE_STRINGS.items():
                    value = {"value": text, "items": [text], "keys": {text: 1}, None: None}[holds]
                    if holds is not None:
                        base = BASE_BODIES.get((method, path), {})
                        body = json.dumps({**base, name: value})  # a surrogate goes out as its \u escape
                        cases.append(pytest.param(method, path, "body", body, id=f"{method} {path} {name} {kind}"))
        for parameter in operation.get("parameters", []):
            if parameter.get("in") == "query":
                for kind, text in HOSTILE_STRINGS.items():
                    query = f"{parameter['name']}={urllib.parse.quote(text, errors='surrogatepass')}"
                    cases.append(
                        pytest.param(
                            method, path, "query", query, id=f"{method} {path} ?{parameter['name']} {kind}"
                        )
                    )
    return cases


@pytest.mark.parametrize(("method", "path", "where", "payload"), hostile_cases())
def test_hostile_input_gets_a_client_error(
    seeded_app: tuple[Any, list[int], str], method: str, path: str, where: str, payload: str
) -> None:
    app, games, token = seeded_app
    client = app.test_client()
    url = path.format(game_id=games[0], bot_id=1, tournament_id=1, seat=0, ladder_id=1)
    headers = {"Authorization": f"Bearer {token}"}
    if where == "body":
        response = client.open(
            url, method=method.upper(), data=payload, content_type="application/json", headers=headers
        )
    else:
        response = client.open(f"{url}?{payload}", method=method.upper(), headers=headers)
    assert 400 <= response.status_code < 500, (response.status_code, response.get_data(as_text=True))
    assert response.get_json()["message"]
