"""Rate limits (``service/ratelimits.py``): account creation per client address, bot registration and move
submission per account, counted in memory (the embedded default) and in Redis.

Each limit answers a 429 in the one error shape, its message naming the limit and the wait, with ``Retry-After``
and the ``X-RateLimit-*`` headers; another address or account is not limited; two apps on one Redis share the
count; a window's end resets it; ``off`` switches a limit off; a bad ``SORRY_ARENA_LIMIT_*`` is refused at startup
naming the variable; an unreachable Redis lets requests through. Redis is an empty database of each test's own
(tests/conftest.py ``redis_url``): unreachable, the Redis tests are skipped locally and fail in CI.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from runtime.settings import (
    DEFAULT_LIMIT_ACCOUNTS,
    DEFAULT_LIMIT_ACCOUNTS_HOURLY,
    DEFAULT_LIMIT_BOTS,
    DEFAULT_LIMIT_MOVES,
    Settings,
)
from runtime.settingvalues import parse_rate
from service.app import create_app
from service.ratelimits import MemoryCounter, RedisCounter
from tests.apikit import API, Player, new_player, started_game
from tests.conftest import TEST_LIMITS, dispose
from tests.databases import Templates

WAIT = re.compile(r"; retry in (\d+(?:\.\d)?) s$")


@pytest.fixture
def database(tmp_path: Path, templates: Templates) -> str:
    return templates.sqlite(tmp_path / "limits.db")


@pytest.fixture
def limits_redis(redis_url: str) -> str:
    """An empty Redis database of the test's own, where the counts start from nothing."""
    return redis_url


@pytest.fixture(params=["memory", "redis"])
def storage(request: pytest.FixtureRequest) -> str | None:
    """Where the limits are counted: ``None`` (this process's memory) or a Redis URL."""
    if request.param == "memory":
        return None
    return request.getfixturevalue("limits_redis")  # type: ignore[no-any-return]


@pytest.fixture
def apps(database: str, storage: str | None) -> Iterator[Any]:
    """A factory of apps on one database and one storage, with the limits given (the others: the tests' high ones)."""
    made: list[Flask] = []

    def make(**limits: str) -> Flask:
        app = create_app(Settings(database_url=database, redis_url=storage, **{**TEST_LIMITS, **limits}))
        app.config["TESTING"] = True
        made.append(app)
        return app

    yield make
    for app in made:
        dispose(app)


def assert_limited(response: TestResponse, message: str) -> float:
    """A 429 whose message is ``message`` followed by the wait, with its headers; the wait in seconds."""
    assert response.status_code == 429, response.get_data(as_text=True)
    body = response.get_json()
    assert body["code"] == 429 and body["status"] == "Too Many Requests"
    assert body["message"].startswith(message + "; retry in "), body["message"]
    match = WAIT.search(body["message"])
    assert match, body["message"]
    wait = float(match.group(1))
    retry_after = int(response.headers["Retry-After"])
    assert retry_after >= 1 and retry_after - 1 <= wait <= retry_after
    amount = re.search(r"the limit is (\d+) per", message)
    assert amount and response.headers["X-RateLimit-Limit"] == amount.group(1)
    assert response.headers["X-RateLimit-Remaining"] == "0"
    assert 0 <= int(response.headers["X-RateLimit-Reset"]) - time.time() <= retry_after + 1
    return wait


def create_account(client: FlaskClient, name: str, address: str = "127.0.0.1") -> TestResponse:
    return client.post(f"{API}/players", json={"name": name}, environ_base={"REMOTE_ADDR": address})


def register_pull_bot(client: FlaskClient, owner: Player, name: str) -> TestResponse:
    return client.post(f"{API}/bots", json={"name": name, "url": None, "games": ["card"]}, headers=owner.headers)


def submit(client: FlaskClient, game_id: int, player: Player, action: str, ply: int) -> TestResponse:
    body = {"action": action, "expected_ply": ply}
    return client.post(f"{API}/games/{game_id}/actions", json=body, headers=player.headers)


def asked(client: FlaskClient, game_id: int, players: list[Player]) -> tuple[Player, Player, int, str]:
    """The player asked now, another one, the ply and one of the asked player's legal actions."""
    for number, player in enumerate(players):
        body = client.get(f"{API}/games/{game_id}/actions", headers=player.headers).get_json()
        if body["your_decision"]:
            return player, players[1 - number], body["ply"], body["actions"][0]["id"]
    raise AssertionError("no one is asked")


# --- each limit -------------------------------------------------------------------------------------------------


def test_account_creation_is_limited_per_client_address(apps: Any) -> None:
    client = apps(limit_accounts="3/minute").test_client()
    for number in range(3):
        assert create_account(client, f"p{number}").status_code == 201
    wait = assert_limited(
        create_account(client, "p3"),
        "too many account creations: the limit is 3 per 1 minute per client address",
    )
    assert 50 <= wait <= 60
    assert create_account(client, "elsewhere", address="192.0.2.7").status_code == 201  # another address
    assert create_account(client, "p4").status_code == 429  # still refused (and refusals are counted too)


def test_account_creation_is_limited_per_hour_as_well(apps: Any) -> None:
    """Within the minute's rate, the hour's refuses: a 429 of the same shape, naming the hour's rate."""
    client = apps(limit_accounts="10/minute", limit_accounts_hourly="3/hour").test_client()
    for number in range(3):
        assert create_account(client, f"p{number}").status_code == 201
    wait = assert_limited(
        create_account(client, "p3"),
        "too many account creations: the limit is 3 per 1 hour per client address",
    )
    assert 3500 <= wait <= 3600
    assert create_account(client, "elsewhere", address="192.0.2.7").status_code == 201  # another address
    client = apps(limit_accounts="10/minute", limit_accounts_hourly="off").test_client()
    address = "192.0.2.8"
    assert [create_account(client, f"q{n}", address).status_code for n in range(5)] == [201] * 5


def test_bot_registration_is_limited_per_account(apps: Any) -> None:
    client = apps(limit_bots="2/hour").test_client()
    owner, other = new_player(client, "owner"), new_player(client, "other")
    assert register_pull_bot(client, owner, "a").status_code == 201
    assert register_pull_bot(client, owner, "b").status_code == 201
    wait = assert_limited(
        register_pull_bot(client, owner, "c"),
        "too many bot registrations and changes of a bot's url or secret: the limit is 2 per 1 hour per account",
    )
    assert 3500 <= wait <= 3600
    assert register_pull_bot(client, other, "d").status_code == 201  # another account
    # without a token (or with an unknown one) it is a 401, and nothing is counted
    for headers in ({}, {"Authorization": "Bearer sa_unknown"}):
        response = client.post(f"{API}/bots", json={"name": "x", "url": None, "games": ["card"]}, headers=headers)
        assert response.status_code == 401


def test_move_submission_is_limited_per_account(apps: Any) -> None:
    client = apps(limit_moves="3/minute").test_client()
    game_id, players = started_game(client, "card", seats=2, seed=3)
    mover, other, ply, action = asked(client, game_id, players)
    for _ in range(3):  # a stale ply is a 409, and counts: the limit is on submissions
        assert submit(client, game_id, mover, action, ply + 5).status_code == 409
    assert_limited(
        submit(client, game_id, mover, action, ply),
        "too many move submissions: the limit is 3 per 1 minute per account",
    )
    game = client.get(f"{API}/games/{game_id}", headers=mover.headers).get_json()
    assert game["ply"] == ply  # the refused move was not played
    assert submit(client, game_id, other, action, ply).status_code == 409  # another account: not its turn
    assert (
        client.post(f"{API}/games/{game_id}/actions", json={"action": action, "expected_ply": ply}).status_code
        == 401
    )


def test_a_limit_resets_when_its_window_ends(apps: Any) -> None:
    client = apps(limit_moves="2/second", limit_accounts="2/second").test_client()
    game_id, players = started_game(client, "card", seats=2, seed=4)
    mover, _, ply, action = asked(client, game_id, players)
    for _attempt in range(5):  # on a busy machine a window may end between two requests: try again
        statuses = [submit(client, game_id, mover, action, ply + 9).status_code for _ in range(3)]
        if statuses == [409, 409, 429]:
            break
        time.sleep(1.1)
    else:
        raise AssertionError(f"no 429 after two submissions within one second: {statuses}")
    response = submit(client, game_id, mover, action, ply)
    if response.status_code == 429:
        wait = assert_limited(response, "too many move submissions: the limit is 2 per 1 second per account")
        assert wait <= 1.0
        time.sleep(wait + 0.15)
        response = submit(client, game_id, mover, action, ply)
    assert response.status_code == 200, response.get_data(as_text=True)  # the next window: the move is played
    for _ in range(5):
        if create_account(client, "x").status_code == 429:
            break
    else:
        raise AssertionError("no 429 from 5 account creations at 2 per second")
    time.sleep(1.1)
    assert create_account(client, "y").status_code == 201


def test_off_switches_a_limit_off(apps: Any) -> None:
    client = apps(limit_accounts="off", limit_bots="OFF").test_client()
    for number in range(30):  # above the default 20 per minute
        assert create_account(client, f"p{number}").status_code == 201
    owner = new_player(client, "owner")
    for number in range(3):
        assert register_pull_bot(client, owner, f"bot{number}").status_code == 201


@pytest.mark.parametrize("storage", ["redis"], indirect=True)
def test_two_apps_on_one_redis_share_the_count(apps: Any) -> None:
    first, second = apps(limit_accounts="4/minute").test_client(), apps(limit_accounts="4/minute").test_client()
    for number in range(2):
        assert create_account(first, f"a{number}").status_code == 201
        assert create_account(second, f"b{number}").status_code == 201
    assert create_account(first, "a2").status_code == 429
    assert create_account(second, "b2").status_code == 429


@pytest.mark.parametrize("storage", ["memory"], indirect=True)
def test_apps_without_redis_count_apart(apps: Any) -> None:
    """The embedded default is one process: two apps without Redis each keep their own count."""
    first, second = apps(limit_accounts="2/minute").test_client(), apps(limit_accounts="2/minute").test_client()
    for client in (first, second):
        assert [create_account(client, "p").status_code for _ in range(3)] == [201, 201, 429]


@pytest.mark.parametrize("storage", ["redis"], indirect=True)
def test_redis_holds_no_token_only_player_ids_and_addresses(apps: Any, storage: str) -> None:
    import redis

    client = apps(limit_bots="5/hour", limit_moves="50/minute", limit_accounts="50/minute").test_client()
    game_id, players = started_game(client, "card", seats=2, seed=5)
    mover, _, ply, action = asked(client, game_id, players)
    assert submit(client, game_id, mover, action, ply).status_code == 200
    assert register_pull_bot(client, players[0], "bot").status_code == 201
    keys = sorted(key.decode() for key in redis.Redis.from_url(storage).keys("*"))
    assert keys == [
        "sorry-arena:limits:accounts/127.0.0.1/100000/1/hour",  # the tests' high hourly one
        "sorry-arena:limits:accounts/127.0.0.1/50/1/minute",
        f"sorry-arena:limits:bots/{players[0].id}/5/1/hour",
        f"sorry-arena:limits:moves/{mover.id}/50/1/minute",
    ]
    for player in players:
        digest = hashlib.sha256(player.token.encode()).hexdigest()
        assert not any(player.token in key or digest in key for key in keys)


def test_a_large_limit_is_counted_in_shares_across_processes(limits_redis: str) -> None:
    """At 200 per window a process takes 10 at a time: one Redis call per 10 requests, and two processes sharing the
    count are refused at most 9 requests early (what the other took and did not use)."""
    first, second = RedisCounter(limits_redis), RedisCounter(limits_redis)
    calls: list[int] = []

    def counted(script: Any) -> Any:
        def call(**kwargs: Any) -> Any:
            calls.append(kwargs["args"][1])  # the requests taken at once
            return script(**kwargs)

        return call

    for counter in (first, second):
        counter.script = counted(counter.script)
    allowed = 0
    for _ in range(150):
        for counter in (first, second):
            ok, left = counter.hit("moves/1/200/1/minute", 200, 60.0)
            allowed += ok
            assert 55 < left <= 60
    assert 200 - 9 <= allowed <= 200
    assert set(calls) == {10}
    assert len(calls) <= 300 - allowed + allowed // 10 + 2  # one per share taken, one per refused request
    assert not first.hit("moves/1/200/1/minute", 200, 60.0)[0]
    assert first.hit("moves/2/200/1/minute", 200, 60.0)[0]  # another account


def test_the_memory_counter_is_exact() -> None:
    counter = MemoryCounter()
    assert [counter.hit("k", 300, 60.0)[0] for _ in range(301)] == [True] * 300 + [False]
    assert counter.hit("other", 300, 60.0)[0]


# --- the defaults and the settings ------------------------------------------------------------------------------


def test_the_defaults(database: str) -> None:
    settings = Settings.from_env({})
    assert (settings.limit_accounts, settings.limit_bots, settings.limit_moves) == (
        DEFAULT_LIMIT_ACCOUNTS,
        DEFAULT_LIMIT_BOTS,
        DEFAULT_LIMIT_MOVES,
    )
    assert (DEFAULT_LIMIT_ACCOUNTS, DEFAULT_LIMIT_BOTS) == ("20/minute", "30/hour")
    assert settings.limit_accounts_hourly == DEFAULT_LIMIT_ACCOUNTS_HOURLY == "60/hour"
    (moves,) = parse_rate("SORRY_ARENA_LIMIT_MOVES", DEFAULT_LIMIT_MOVES)
    # far above what one pull bot submits: benchmarks/api.py's clients, each in 32 games at once, make ~50/s
    assert moves.amount / moves.get_expiry() >= 200
    app = create_app(Settings(database_url=database))
    try:
        client = app.test_client()
        assert [create_account(client, f"p{n}").status_code for n in range(21)] == [201] * 20 + [429]
    finally:
        dispose(app)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20/minute", ["20 per 1 minute"]),
        (" 100 per second ", ["100 per 1 second"]),
        ("5/2 minutes", ["5 per 2 minute"]),
        ("10/second;1000/hour", ["10 per 1 second", "1000 per 1 hour"]),
        ("off", []),
        ("Off", []),
    ],
)
def test_rates_in_flask_limiters_notation(text: str, expected: list[str]) -> None:
    environ = {"SORRY_ARENA_LIMIT_MOVES": text}
    settings = Settings.from_env(environ)
    assert [str(item) for item in parse_rate("SORRY_ARENA_LIMIT_MOVES", settings.limit_moves)] == expected


@pytest.mark.parametrize(
    "variable",
    [
        "SORRY_ARENA_LIMIT_ACCOUNTS",
        "SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY",
        "SORRY_ARENA_LIMIT_BOTS",
        "SORRY_ARENA_LIMIT_MOVES",
    ],
)
@pytest.mark.parametrize("text", ["fast", "100", "100/sec", "-1/second", "0/second", "1/0 seconds", "5/minute;x"])
def test_a_bad_rate_is_refused_naming_its_variable(variable: str, text: str) -> None:
    with pytest.raises(ValueError) as raised:
        Settings.from_env({variable: text})
    assert variable in str(raised.value) and repr(text) in str(raised.value)


def test_a_bad_rate_given_to_the_app_is_refused_naming_its_variable(database: str) -> None:
    with pytest.raises(ValueError, match="SORRY_ARENA_LIMIT_BOTS must be a rate such as"):
        create_app(Settings(database_url=database, limit_bots="lots"))


def test_serve_refuses_a_bad_rate_in_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    monkeypatch.setenv("SORRY_ARENA_LIMIT_MOVES", "0/second")
    assert main(["serve", "--port", "8000"]) == 2
    assert capsys.readouterr().err.startswith(
        "sorry-arena serve: SORRY_ARENA_LIMIT_MOVES must allow at least 1 request"
    )


# --- the storage down -------------------------------------------------------------------------------------------


def test_an_unreachable_redis_lets_requests_through(database: str, caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(Settings(database_url=database, redis_url="redis://127.0.0.1:1/0", limit_accounts="2/minute"))
    try:
        client = app.test_client()
        with caplog.at_level(logging.WARNING, logger="service.ratelimits"):
            assert [create_account(client, f"p{n}").status_code for n in range(4)] == [201] * 4
        warnings = [record.getMessage() for record in caplog.records if record.name == "service.ratelimits"]
        assert len(warnings) == 1 and "requests pass unlimited" in warnings[0]
    finally:
        dispose(app)


def test_the_openapi_document_lists_the_429s() -> None:
    app = create_app(Settings(database_url="sqlite://"))
    spec = app.test_client().get("/openapi.json").get_json()
    limited = {
        (path, method)
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if method != "parameters" and "429" in operation["responses"]
    }
    assert limited == {
        # rate limits
        ("/api/v1/players", "post"),
        ("/api/v1/bots", "post"),
        ("/api/v1/bots/{bot_id}", "patch"),
        ("/api/v1/games/{game_id}/actions", "post"),
        # quotas of queued games
        ("/api/v1/tournaments", "post"),
        ("/api/v1/matches", "post"),
        ("/api/v1/gauntlets", "post"),
        ("/api/v1/challenges", "post"),
        ("/api/v1/ladders", "post"),  # the open ladders of an account
        # the cap on an account's waiting requests
        ("/api/v1/games/{game_id}/actions", "get"),
        ("/api/v1/decisions", "get"),
        ("/api/v1/games/{game_id}/events/stream", "get"),
        ("/api/v1/decisions/stream", "get"),
    }
    response = spec["paths"]["/api/v1/games/{game_id}/actions"]["post"]["responses"]["429"]
    assert "Retry-After" in response["headers"]
