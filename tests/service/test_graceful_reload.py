"""Restarts without an outage, through ``sorry-arena serve`` as it runs (PostgreSQL, Redis, 2 gevent workers):

- SIGHUP reloads: gunicorn starts new workers, then stops the old ones, whose waiting long polls answer at once
  (their normal answer: nothing new) and whose streams end, so the old workers are gone in a few seconds, not
  after gunicorn's graceful timeout; clients sending health checks, game reads and long polls all along see no
  failed request.
- SIGTERM stops the service in a few seconds although long polls and a stream are open: each long poll answers
  normally and the stream ends cleanly (its client reconnects, to a service that runs on)."""

from __future__ import annotations

import http.client
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests import runs
from tests.databases import Templates
from tests.servers import tail
from tests.service.test_waiting_attacks import Server, server

POLL_WAIT = 12
"""Each long poll's wait: longer than serve's graceful timeout (10 s), so a poll that did not answer early would be
cut (a failed request, and gunicorn's "graceful timeout" in the log)."""
HELD = "Worker graceful timeout"
"""What gunicorn logs when a stopping worker's requests outlast the graceful timeout (it then cuts them)."""
STOP_S = 30.0
"""The longest the service may take to stop with long polls and a stream open: gunicorn's default graceful timeout,
what a stop took before; on an idle machine it takes a second or two, on one loaded tenfold (the tests' machine) the
processes' own exit takes seconds of CPU, so the figure is printed and the bound is loose. That no wait held the
stop is asserted by each request's answer and gunicorn's log."""


@pytest.fixture
def postgres_url(templates: Templates) -> Iterator[str]:
    yield from templates.postgresql()


@pytest.fixture
def served(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[Server]:
    argv = [sys.executable, "-m", "cli.main", "serve", "--workers", "2"]
    env = {"DATABASE_URL": postgres_url, "REDIS_URL": redis_url}
    with server(argv, env, tmp_path / "serve.log") as found:
        yield found


def workers_of(found: Server) -> set[int]:
    return {pid for pid in runs.children(found.pid) if not gone(pid)}


def gone(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie not yet waited for counts)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def wait_for(what: str, condition: Any, found: Server, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"{what}: {tail(found.log)}"
        time.sleep(0.05)
    return value


def game_of_two(found: Server) -> tuple[int, str]:
    """A started card game of two new accounts; its id and the token of the seat not to move (its long polls
    wait)."""
    tokens = []
    for name in ("ada", "bob"):
        made = requests.post(found.url("/api/v1/players"), json={"name": name}, timeout=30)
        assert made.status_code == 201, made.text
        tokens.append(made.json()["token"])
    headers = [{"Authorization": f"Bearer {token}"} for token in tokens]
    game = requests.post(
        found.url("/api/v1/games"),
        json={"game": "card", "settings": {}, "seats": 2},
        headers=headers[0],
        timeout=30,
    ).json()
    for seat in (0, 1):
        taken = requests.post(
            found.url(f"/api/v1/games/{game['id']}/seats"), json={"seat": seat}, headers=headers[seat], timeout=30
        )
        assert taken.status_code == 201, taken.text
    offered = requests.get(found.url(f"/api/v1/games/{game['id']}/actions"), headers=headers[0], timeout=30).json()
    waiting = 1 if offered["your_decision"] else 0
    return int(game["id"]), tokens[waiting]


class Traffic:
    """Clients sending requests until told to stop, each on a new connection: health and a game's read in one
    thread, a long poll after another in two more. A failure is an error or an answer other than 200."""

    def __init__(self, found: Server, game_id: int, token: str) -> None:
        self.found = found
        self.done = 0
        self.polls: list[float] = []
        """How long each long poll took."""
        self.failures: list[str] = []
        self.stopping = threading.Event()
        self.threads = [
            threading.Thread(target=self.reads, args=(game_id,), daemon=True),
            *(threading.Thread(target=self.long_polls, args=(token,), daemon=True) for _ in range(2)),
        ]

    def __enter__(self) -> Traffic:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(POLL_WAIT + 30)

    def get(self, path: str, **options: Any) -> None:
        try:
            response = requests.get(self.found.url(path), timeout=POLL_WAIT + 30, **options)
        except requests.RequestException as error:
            self.failures.append(f"{path}: {error}")
            return
        if response.status_code != 200:
            self.failures.append(f"{path}: {response.status_code} {response.text[:200]}")
        self.done += 1

    def reads(self, game_id: int) -> None:
        while not self.stopping.is_set():
            self.get("/api/v1/health")
            self.get(f"/api/v1/games/{game_id}")

    def long_polls(self, token: str) -> None:
        while not self.stopping.is_set():
            started = time.monotonic()
            self.get(f"/api/v1/decisions?wait={POLL_WAIT}", headers={"Authorization": f"Bearer {token}"})
            self.polls.append(time.monotonic() - started)


def test_a_reload_replaces_the_workers_without_a_failed_request(served: Server) -> None:
    old = wait_for("two workers", lambda: len(workers_of(served)) == 2 and workers_of(served), served)
    game_id, token = game_of_two(served)
    with Traffic(served, game_id, token) as traffic:
        wait_for("requests before the reload", lambda: traffic.done >= 20, served)
        time.sleep(0.5)  # the long polls are waiting (a poll sent later answers early all the same)
        os.kill(served.pid, signal.SIGHUP)
        sent = time.monotonic()
        new = wait_for("new workers", lambda: (found := workers_of(served)) and not found & old and found, served)
        replaced = time.monotonic() - sent
        wait_for("two new workers", lambda: len(workers_of(served)) == 2, served)
        after = traffic.done
        wait_for("requests after the reload", lambda: traffic.done >= after + 20, served)
    assert traffic.failures == [], (traffic.failures, tail(served.log))
    assert len(new) == 2 and not new & old
    assert HELD not in served.log.read_text(), tail(served.log)  # no request held an old worker to its timeout
    assert min(traffic.polls) < POLL_WAIT - 2, traffic.polls  # those under way answered early
    print(f"old workers replaced {replaced:.2f} s after SIGHUP; {traffic.done} requests, none failed")


def read_stream(
    connection: http.client.HTTPConnection, path: str, started: threading.Event, ended: list[str]
) -> None:
    connection.request("GET", path)
    response = connection.getresponse()
    assert response.status == 200
    try:
        assert response.readline().startswith(b"retry: ")
        started.set()
        response.read()  # until the stream ends
        ended.append("clean")
    except (OSError, http.client.HTTPException) as error:
        ended.append(f"broken: {error!r}")


def test_a_stop_with_long_polls_and_a_stream_open_takes_seconds(served: Server) -> None:
    game_id, token = game_of_two(served)
    answers: list[int] = []

    def long_poll() -> None:
        response = requests.get(
            served.url(f"/api/v1/decisions?wait={POLL_WAIT}"),
            headers={"Authorization": f"Bearer {token}"},
            timeout=POLL_WAIT + 30,
        )
        answers.append(response.status_code)

    ended: list[str] = []
    streaming = threading.Event()
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=POLL_WAIT + 30)
    threads = [threading.Thread(target=long_poll, daemon=True) for _ in range(3)]
    threads.append(
        threading.Thread(
            target=read_stream,
            args=(connection, f"/api/v1/games/{game_id}/events/stream", streaming, ended),
            daemon=True,
        )
    )
    for thread in threads:
        thread.start()
    assert streaming.wait(60), tail(served.log)
    time.sleep(1.0)  # the long polls, sent with the stream, are in too: the stop finds them waiting
    os.kill(served.pid, signal.SIGTERM)
    sent = time.monotonic()
    wait_for("the service to stop", lambda: gone(served.pid), served, timeout=60)
    stopped = time.monotonic() - sent
    for thread in threads:
        thread.join(30)
    connection.close()
    assert answers == [200, 200, 200], (answers, tail(served.log))
    assert ended == ["clean"], (ended, tail(served.log))
    assert HELD not in served.log.read_text(), tail(served.log)
    assert stopped < STOP_S, (stopped, tail(served.log))
    print(f"stopped {stopped:.2f} s after SIGTERM with 3 long polls and a stream open")
