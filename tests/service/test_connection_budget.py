"""The connection budget of ``sorry-arena serve`` as it runs (gunicorn's gevent worker), on SQLite and PostgreSQL.

Streams with a token from many accounts, each within its own cap, until the process refuses: a worker serving
``--connections 50`` holds at most 25 waiting requests (``SORRY_ARENA_MAX_WAITING_PER_PROCESS``, default half of
its connections); the next stream, and the next long poll, is a 429 that names that cap, with ``Retry-After``, and
meanwhile ``/api/v1/health`` and an ordinary request answer at once; once the streams close, their slots are given
back. Without the cap, 56 streams (7 accounts x 8, every account within its own cap) take all 50 connections of
the worker and health waits for one of them: the 51st stream itself is never answered. Sized small so the test is
cheap: ``benchmarks/connections.py`` runs the 1,000-stream attack on the default 1,000 connections.

On the embedded default (one worker, SQLite or PostgreSQL) and on the compose file's api command line (two workers,
PostgreSQL and Redis: each worker counts its own budget, so the first refusal comes once one of them is full).
Account creations per address are limited per hour as well as per minute (``SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY``,
default 60/hour): with the minute's limit off, the 61st creation from one address is a 429 naming the hour's rate,
counted across the two workers of compose through Redis.
"""

from __future__ import annotations

import http.client
import re
import statistics
import sys
import time
from pathlib import Path

import pytest
import requests

from cli.serve import waiting_per_process
from runtime.settings import DEFAULT_CONNECTIONS, Settings
from service import waiting
from tests.servers import tail
from tests.service.test_streams_served import SLOTS, account, open_stream
from tests.service.test_waiting_attacks import (
    HEALTH_S,
    Server,
    compose_api_command,
    compose_api_environment,
    health_times,
    server,
)

CONNECTIONS = 50
BUDGET = CONNECTIONS // 2
"""The default cap of waiting requests per worker: half of its connections."""
ACCOUNTS = 7
"""Accounts whose streams, 8 each within their own cap, outnumber the worker's connections (56 > 50)."""
STREAMS = "/api/v1/decisions/stream"
BUSY = f"the service is busy: this API process already holds {BUDGET} waiting requests"


def stream_or_refusal(found: Server, token: str) -> tuple[http.client.HTTPConnection | None, tuple[int, str, str]]:
    """A stream of ``token``'s decisions: its connection while it is open (``None`` once refused and closed), and
    the answer's status, ``Retry-After`` and body (empty for a stream)."""
    connection, response = open_stream(found, STREAMS, token)
    if response.status == 200:
        return connection, (200, "", "")
    answer = (response.status, response.getheader("Retry-After") or "", response.read().decode())
    connection.close()
    return None, answer


def attack(found: Server, accounts: int) -> tuple[list[http.client.HTTPConnection], list[tuple[int, str, str]]]:
    """Up to 8 streams of each of ``accounts`` new accounts, one after another (the ones refused closed at once):
    the open ones, and every refusal."""
    tokens = [account(found, f"attacker{number}") for number in range(accounts)]
    opened, refused = [], []
    for token in tokens:
        for _ in range(SLOTS):
            connection, answer = stream_or_refusal(found, token)
            if connection is None:
                refused.append(answer)
            else:
                opened.append(connection)
    return opened, refused


def assert_busy(answers: list[tuple[int, str, str]], log: Path) -> None:
    for status, retry_after, body in answers:
        assert status == 429, (status, body, tail(log))
        assert retry_after == str(waiting.BUSY_RETRY_AFTER_SECONDS)
        assert BUSY in body and waiting.PER_PROCESS_VARIABLE in body, body


def assert_answered_at_once(found: Server) -> list[float]:
    """Health, probed one request after another on new connections, answers within HEALTH_S (milliseconds when
    unstarved; generous for a loaded machine, far below the starvation it catches, where health never answers), and
    so does an ordinary request. Health's times."""
    times = health_times(found, probes=6)
    assert max(times) < HEALTH_S, (times, tail(found.log))
    assert requests.get(found.url("/api/v1/games"), timeout=2 * HEALTH_S).status_code == 200
    return times


def close_all(connections: list[http.client.HTTPConnection]) -> None:
    for connection in connections:
        connection.close()


def test_streams_of_many_accounts_stop_at_the_process_budget_and_health_answers_meanwhile(
    database_url: str, tmp_path: Path
) -> None:
    argv = [sys.executable, "-m", "cli.main", "serve", "--connections", str(CONNECTIONS)]
    env = {"DATABASE_URL": database_url, "SORRY_ARENA_METRICS": "on", "SORRY_ARENA_METRICS_ALLOW": "127.0.0.0/8"}
    with server(argv, env, tmp_path / "serve.log") as found:
        late = account(found, "late")
        opened, refused = attack(found, ACCOUNTS)
        try:
            assert len(opened) == BUDGET, (len(opened), refused, tail(found.log))
            assert len(refused) == ACCOUNTS * SLOTS - BUDGET
            assert_busy(refused, found.log)
            times = assert_answered_at_once(found)
            print(
                f"health during {BUDGET} streams: median {statistics.median(times) * 1000:.0f} ms, times {times}"
            )
            # a long poll, of an account with none of the streams, takes of the process's budget too
            poll = requests.get(
                found.url("/api/v1/decisions?wait=20"), headers={"Authorization": f"Bearer {late}"}, timeout=60
            )
            assert_busy([(poll.status_code, poll.headers.get("Retry-After", ""), poll.text)], found.log)
            headers = {"Authorization": f"Bearer {late}"}
            assert requests.get(found.url("/api/v1/decisions"), headers=headers, timeout=30).ok  # no wait: served
            metrics = requests.get(found.url("/metrics"), timeout=30).text
            count = re.search(r'^sorry_arena_waiting_refused_total\{cap="process"\} ([\d.]+)$', metrics, re.M)
            assert count and float(count.group(1)) == len(refused) + 1, metrics
        finally:
            close_all(opened)
        # closed, their slots come back (each stream sees its client gone at its next keep-alive comment, 15 s)
        deadline = time.monotonic() + 120
        while True:
            connection, answer = stream_or_refusal(found, late)
            if connection is not None:
                connection.close()
                break
            assert time.monotonic() < deadline, (answer, tail(found.log))
            time.sleep(1.0)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_each_worker_of_compose_keeps_its_own_budget(database_url: str, redis_url: str, tmp_path: Path) -> None:
    """Two workers of 50 connections each: streams are refused once the worker that takes one is full (after 25 to
    49 of them), never beyond the two budgets, and health answers meanwhile on either worker."""
    argv = [*compose_api_command(), "--connections", str(CONNECTIONS)]
    env = {**compose_api_environment(), "DATABASE_URL": database_url, "REDIS_URL": redis_url}
    with server(argv, env, tmp_path / "serve.log") as found:
        opened, refused = attack(found, ACCOUNTS)
        try:
            assert BUDGET <= len(opened) <= 2 * BUDGET, (len(opened), tail(found.log))
            assert refused, tail(found.log)
            assert_busy(refused, found.log)
            assert_answered_at_once(found)
        finally:
            close_all(opened)


HOURLY = 60
"""``SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY``'s default: account creations per client address per hour."""


@pytest.mark.parametrize(
    ("kind", "database_url"), [("embedded", "sqlite"), ("compose", "postgresql")], indirect=["database_url"]
)
def test_account_creations_from_one_address_are_limited_per_hour(
    kind: str, database_url: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The minute's limit off (as an attacker spreading creations over minutes finds it), the hour's default
    refuses the 61st creation from one address, in the rate limits' one shape; on compose's two workers the count is
    shared through Redis."""
    if kind == "embedded":
        argv = [sys.executable, "-m", "cli.main", "serve"]
        env = {"DATABASE_URL": database_url}
    else:
        argv = compose_api_command()
        redis_url = request.getfixturevalue("redis_url")
        env = {**compose_api_environment(), "DATABASE_URL": database_url, "REDIS_URL": redis_url}
    env["SORRY_ARENA_LIMIT_ACCOUNTS"] = "off"
    with server(argv, env, tmp_path / "serve.log") as found:
        for number in range(HOURLY):
            account(found, f"p{number}")
        refused = requests.post(found.url("/api/v1/players"), json={"name": "one-more"}, timeout=30)
        assert refused.status_code == 429, (refused.text, tail(found.log))
        message = refused.json()["message"]
        assert message.startswith(
            f"too many account creations: the limit is {HOURLY} per 1 hour per client address; retry in "
        ), message
        assert 3000 <= int(refused.headers["Retry-After"]) <= 3600
        assert refused.headers["X-RateLimit-Limit"] == str(HOURLY)
        assert refused.headers["X-RateLimit-Remaining"] == "0"


# --- beside: the budget's default and its count, in-process ------------------------------------------------------


def test_the_budget_is_half_the_connections_unless_set(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.parsers import serve

    assert Settings.from_env({}).max_waiting_per_process is None
    assert serve.DEFAULT_CONNECTIONS == DEFAULT_CONNECTIONS
    assert waiting.per_process(Settings()) == DEFAULT_CONNECTIONS // 2 == 500  # a process not run by serve
    assert waiting_per_process(Settings(), CONNECTIONS) == BUDGET
    assert waiting_per_process(Settings(), 1) == 1
    given = Settings.from_env({waiting.PER_PROCESS_VARIABLE: "40"})
    assert waiting_per_process(given, CONNECTIONS) == 40 == waiting.per_process(given)
    assert capsys.readouterr().err == ""
    assert waiting_per_process(given, 40) == 40  # used as set, with a warning: nothing is kept for health
    assert "warning: SORRY_ARENA_MAX_WAITING_PER_PROCESS (40) is not below --connections (40)" in (
        capsys.readouterr().err
    )


def test_the_process_budget_counts_every_holder_and_gives_slots_back() -> None:
    from flask import Flask
    from werkzeug.exceptions import HTTPException

    budget = waiting.ProcessBudget(2)
    with Flask(__name__).test_request_context(), budget.held(), budget.held():
        assert budget.taken() == 2
        with pytest.raises(HTTPException) as refused, budget.held():
            pass
        assert refused.value.code == 429
    assert budget.taken() == 0
