"""Schemathesis over the app's own OpenAPI document: generated requests for every operation, on SQLite, never get
a server error (5xx). A valid bearer token goes with every request that has none, and half of the generated game
ids are replaced by games that exist (active, open, over), so that the checks reach past the 401s and 404s.

Each operation gets 25 generated examples in the default suite (about 25 s in all); ``make fuzz`` sets
``SORRY_ARENA_FUZZ_EXAMPLES`` for a much larger budget (``docs/operations.md`` has the last run's figures)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from store import migrate
from tests.apikit import create_game, new_player, play_to_end, started_game, take_seat
from tests.conftest import dispose, make_app

# The OpenAPI document needs no database: an app whose database is never touched serves it at collection time.
# (schemathesis.pytest.from_fixture, the lazy loader, fails under pytest 9: it sets Node._nodeid, gone in pytest 9.)
SPEC = make_app("sqlite://").test_client().get("/openapi.json").get_json()
schema = schemathesis.openapi.from_dict(SPEC)
EXAMPLES = int(os.environ.get("SORRY_ARENA_FUZZ_EXAMPLES") or 25)
"""Generated examples per operation: 25 by default, ``SORRY_ARENA_FUZZ_EXAMPLES`` for a large run."""


@pytest.fixture
def seeded_app(tmp_path: os.PathLike[str]) -> Iterator[tuple[Any, list[int], str]]:
    """An app on a fresh SQLite file with an active, a finished and an open game; the ids and a seated token."""
    url = f"sqlite:///{os.path.join(tmp_path, 'schemathesis.db')}"
    migrate.upgrade(url)
    app = make_app(url)
    client = app.test_client()
    active, (ada, _bob) = started_game(client, "card", {}, seats=2, seed=1)
    over, players = started_game(client, "card", {"pawns": 1}, seats=2, seed=2)
    play_to_end(client, over, players, random.Random(2))
    waiting = create_game(client, ada, "board", {"variant": "points"}, seats=3)["id"]
    take_seat(client, waiting, new_player(client, "cy"))
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
