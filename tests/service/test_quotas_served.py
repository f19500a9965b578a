"""Quotas and limits against a real ``sorry-arena serve`` (gunicorn, threads) on PostgreSQL and SQLite.

- Requests of one account sent at once (tournaments, matches, challenges: 12 each) get in exactly as many as
  ``SORRY_ARENA_QUOTA_TOURNAMENTS`` allows, the rest a 429: the quotas are counted under a lock per account
  (``store/accountlocks.py``).
- A repeating tournament counts every game of its runs to come from its creation (``SORRY_ARENA_QUOTA_QUEUED``),
  and one tournament however many of its runs are under way (``SORRY_ARENA_QUOTA_TOURNAMENTS``).
- A bot closed to others leaves the later runs of another account's repeating tournament.
- New versions at the same url are limited per bot (``SORRY_ARENA_LIMIT_VERSIONS``) and a bot's detail shows its
  latest 20, every one paged at ``GET /bots/{id}/versions``.
- A bot registration refused by the client address's limit costs nothing of the account's own limit.

The pull bots here never move: their games stay running, so the games left to play stay counted.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from sqlalchemy import create_engine

from tests.servers import tail
from tests.service.test_waiting_attacks import Server, server

DEADLINE_S = 120.0
AT_ONCE = 12
QUOTA = 5


@pytest.fixture
def serve(database_url: str, tmp_path: Path) -> Iterator[Any]:
    """A factory: ``sorry-arena serve`` on the test's database (no Redis: the embedded queue and its clock) with
    the environment given; each one stopped at the end."""
    stack: list[Any] = []

    def start(**env: str) -> Server:
        full = {"DATABASE_URL": database_url, "SORRY_ARENA_MAINTENANCE_SECONDS": "0.5", **env}
        made = server(
            [
                sys.executable,
                "-m",
                "cli.main",
                "serve",
                "--worker-class",
                "gthread",
                "--threads",
                str(AT_ONCE + 4),
            ],
            full,
            tmp_path / "serve.log",
        )
        found = made.__enter__()
        stack.append(made)
        return found

    yield start
    for made in reversed(stack):
        made.__exit__(None, None, None)


class Api:
    """The served API as one account (a fresh ``requests`` session per call, so threads share nothing)."""

    def __init__(self, found: Server, name: str, address: str | None = None) -> None:
        self.base = found.url("/api/v1")
        self.log = found.log
        made = self.call("post", "/players", json={"name": name}, address=address)
        assert made.status_code == 201, made.text
        self.id = made.json()["id"]
        self.headers = {"Authorization": f"Bearer {made.json()['token']}"}

    def call(self, method: str, path: str, address: str | None = None, **kwargs: Any) -> requests.Response:
        http = requests.Session()
        http.trust_env = False
        headers = dict(getattr(self, "headers", {}))
        if address is not None:
            headers["X-Forwarded-For"] = address
        try:
            return http.request(method, self.base + path, headers=headers, timeout=120, **kwargs)
        finally:
            http.close()

    def pull_bot(self, name: str, **fields: Any) -> int:
        made = self.call("post", "/bots", json={"name": name, "games": ["card"], **fields})
        assert made.status_code == 201, made.text
        return int(made.json()["id"])

    def tournament(self, bot_ids: list[int], **fields: Any) -> requests.Response:
        body = {"game": "card", "settings": {"pawns": 2}, "bot_ids": bot_ids, "move_timeout_ms": 60_000, **fields}
        return self.call("post", "/tournaments", json=body)

    def until(self, what: str, check: Any) -> Any:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            found = check()
            if found:
                return found
            assert time.monotonic() < deadline, f"{what} did not come in {DEADLINE_S} s\n{tail(self.log)}"
            time.sleep(0.3)

    def runs_of(self, first_id: int) -> dict[int, dict[str, Any]]:
        """The runs of the repeating tournament ``first_id`` made so far, by run number."""
        listed = self.call("get", "/tournaments", params={"limit": 200}).json()["tournaments"]
        return {row["run"]: row for row in listed if first_id in (row["id"], row["parent_id"])}


def at_once(send: Any, count: int = AT_ONCE) -> Counter[int]:
    """``count`` calls of ``send()`` from as many threads, released together; their statuses counted."""
    start = threading.Barrier(count, timeout=120)
    answers: list[requests.Response] = []

    def run() -> None:
        start.wait()
        answers.append(send())

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert len(answers) == count, "a request did not come back"
    refused = [answer.json()["message"] for answer in answers if answer.status_code == 429]
    assert all("SORRY_ARENA_QUOTA_TOURNAMENTS" in message for message in refused), refused
    return Counter(answer.status_code for answer in answers)


SLOW_POSTGRESQL = (
    "CREATE FUNCTION slow_insert() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(0.2); RETURN NEW; END $$ "
    "LANGUAGE plpgsql",
    "CREATE TRIGGER slow_insert BEFORE INSERT ON tournaments FOR EACH ROW EXECUTE FUNCTION slow_insert()",
)
SLOW_SQLITE = (
    "CREATE TRIGGER slow_insert BEFORE INSERT ON tournaments BEGIN SELECT count(*) FROM (WITH RECURSIVE c(x) AS "
    "(SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT x FROM c); END",
)


def slow_inserts(database_url: str) -> None:
    """Make each insertion of a tournament take a while (a trigger: a sleep of 0.2 s on PostgreSQL, a count to
    200,000 on SQLite), as on a busy database: the time between a request's count of the quota and its commit,
    where requests of one account sent at once all counted what none of them had committed yet."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            for statement in SLOW_POSTGRESQL if engine.dialect.name == "postgresql" else SLOW_SQLITE:
                connection.exec_driver_sql(statement)
    finally:
        engine.dispose()


def test_requests_sent_at_once_get_in_exactly_as_many_as_the_quota(serve: Any, database_url: str) -> None:
    # a connection for each request sent at once, beside the embedded queue's (one game at a time: each waits for
    # a pull bot that never moves)
    found = serve(
        SORRY_ARENA_QUOTA_TOURNAMENTS=str(QUOTA),
        SORRY_ARENA_QUOTA_QUEUED="1000",
        SORRY_ARENA_LIVE_CHALLENGES="100",  # the tournaments' quota is the one under test for challenges too
        SORRY_ARENA_GAMES_PER_WORKER="1",
        SORRY_ARENA_DB_POOL_SIZE=str(AT_ONCE + 4),
    )
    slow_inserts(database_url)  # after serve's migrations
    ada, bob, cy = Api(found, "ada"), Api(found, "bob"), Api(found, "cy")
    bots = [ada.pull_bot(f"ada{number}") for number in range(2)]
    tournaments = at_once(lambda: ada.tournament(bots))
    assert tournaments == Counter({201: QUOTA, 429: AT_ONCE - QUOTA}), tournaments
    a, b = bob.pull_bot("bob1"), bob.pull_bot("bob2")
    body = {
        "game": "card",
        "settings": {"pawns": 2},
        "bot_a": a,
        "bot_b": b,
        "max_games": 2,
        "move_timeout_ms": 60_000,
    }
    matches = at_once(lambda: bob.call("post", "/matches", json=body))
    assert matches == Counter({201: QUOTA, 429: AT_ONCE - QUOTA}), matches
    opponent = cy.pull_bot("cy1")
    challenge = {"game": "card", "settings": {"pawns": 2}, "bot_ids": [opponent], "move_timeout_ms": 60_000}
    challenges = at_once(lambda: cy.call("post", "/challenges", json=challenge))
    assert challenges == Counter({201: QUOTA, 429: AT_ONCE - QUOTA}), challenges
    listed = ada.call("get", "/tournaments", params={"limit": 200}).json()["tournaments"]
    assert len(listed) == 3 * QUOTA  # what got in is all the service holds


def test_a_repeating_tournament_counts_all_its_runs_from_its_creation(serve: Any) -> None:
    found = serve(
        SORRY_ARENA_QUOTA_QUEUED="20",
        SORRY_ARENA_QUOTA_TOURNAMENTS="2",
        SORRY_ARENA_QUOTA_REPEATS="10",
        SORRY_ARENA_QUOTA_GAMES="100",
    )
    ada = Api(found, "ada")
    bots = [ada.pull_bot(f"ada{number}") for number in range(2)]
    # 4 games a run, 6 runs: 24 games, over the 20 in one request
    whole = ada.tournament(bots, rounds=2, repeat_every=3600, repeat_times=6)
    assert whole.status_code == 422, whole.text
    assert "SORRY_ARENA_QUOTA_QUEUED" in whole.json()["message"] and "24" in whole.json()["message"]
    # 2 games a run, 5 runs: 10 games left to play, though one run only is laid out
    weekly = ada.tournament(bots, repeat_every=3600, repeat_times=5)
    assert weekly.status_code == 201, weekly.text
    over = ada.tournament(bots, rounds=6)  # 12 more: 22
    assert over.status_code == 429, over.text
    assert "yours has 10" in over.json()["message"] and "SORRY_ARENA_QUOTA_QUEUED" in over.json()["message"]
    assert ada.tournament(bots, rounds=5).status_code == 201  # 10 more: 20
    # bob's repeat runs every second, its runs overlapping (its games are never played): one tournament
    bob = Api(found, "bob")
    theirs = [bob.pull_bot(f"bob{number}") for number in range(2)]
    first = bob.tournament(theirs, repeat_every=1, repeat_times=3)
    assert first.status_code == 201, first.text
    runs = bob.until(
        "three runs running",
        lambda: len([row for row in bob.runs_of(first.json()["id"]).values() if row["status"] == "running"]) == 3,
    )
    assert runs
    assert bob.tournament(theirs).status_code == 201  # the repeat (3 runs under way) and this one: 2
    third = bob.tournament(theirs)
    assert third.status_code == 429 and "SORRY_ARENA_QUOTA_TOURNAMENTS" in third.json()["message"], third.text


def test_a_bot_closed_to_others_leaves_the_later_runs_of_their_repeats(serve: Any) -> None:
    found = serve()
    carol, dave = Api(found, "carol"), Api(found, "dave")
    mine = [carol.pull_bot("carol1"), carol.pull_bot("carol2")]
    open_bots = [dave.pull_bot("dave1", open_to_others=True), dave.pull_bot("dave2", open_to_others=True)]
    # run 2 is due 20 s after the first: time to close dave's bots before it is made
    three = carol.tournament([*mine, open_bots[0]], repeat_every=20, repeat_times=2)
    two = carol.tournament([mine[0], open_bots[1]], repeat_every=20, repeat_times=2)
    assert three.status_code == 201 and two.status_code == 201, (three.text, two.text)
    for bot_id in open_bots:
        closed = dave.call("patch", f"/bots/{bot_id}", json={"open_to_others": False})
        assert closed.status_code == 200, closed.text
    later = carol.until("the second runs", lambda: all(2 in carol.runs_of(t.json()["id"]) for t in (three, two)))
    assert later
    runs = carol.runs_of(three.json()["id"])
    assert runs[1]["bot_ids"] == [*mine, open_bots[0]]  # the run under way keeps it
    assert runs[2]["bot_ids"] == mine and runs[2]["progress"]["total"] == 2  # the next one plays carol's two
    skipped = carol.runs_of(two.json()["id"])[2]
    assert skipped["bot_ids"] == [mine[0]] and skipped["status"] == "done" and skipped["progress"]["total"] == 0


def test_new_versions_are_limited_and_a_bots_versions_paged(serve: Any) -> None:
    found = serve(SORRY_ARENA_LIMIT_VERSIONS="24/hour")
    ada = Api(found, "ada")
    bot_id = ada.pull_bot("ada1")
    for _ in range(24):
        made = ada.call("patch", f"/bots/{bot_id}", json={"new_version": True})
        assert made.status_code == 200, made.text
    refused = ada.call("patch", f"/bots/{bot_id}", json={"new_version": True})
    assert refused.status_code == 429, refused.text
    assert refused.json()["message"].startswith("too many new versions of a bot at the same url: the limit is 24")
    assert int(refused.headers["Retry-After"]) > 0
    assert (
        ada.call("patch", f"/bots/{bot_id}", json={"name": "ada-one"}).status_code == 200
    )  # no version: not limited
    shown = ada.call("get", f"/bots/{bot_id}").json()
    assert [version["number"] for version in shown["versions"]] == list(range(6, 26))
    assert shown["versions_total"] == 25 and shown["version"] == 25
    page = ada.call("get", f"/bots/{bot_id}/versions", params={"page": 2, "page_size": 10})
    assert page.status_code == 200, page.text
    assert [version["number"] for version in page.json()["versions"]] == list(range(11, 21))
    assert json.loads(page.headers["X-Pagination"])["total"] == 25
    assert ada.call("get", "/bots/999999/versions").status_code == 404


def test_a_registration_refused_by_the_address_limit_costs_the_account_nothing(serve: Any) -> None:
    found = serve(
        SORRY_ARENA_LIMIT_ACCOUNTS="2/hour",
        SORRY_ARENA_LIMIT_BOTS="2/hour",
        SORRY_ARENA_TRUSTED_PROXIES="127.0.0.1/32",
    )
    first, second = "198.51.100.7", "203.0.113.9"
    ada = Api(found, "ada", address=first)  # the first address: 1 of 2
    body = {"games": ["card"]}
    assert ada.call("post", "/bots", json={"name": "b1", **body}, address=first).status_code == 201  # 2 of 2
    refused = ada.call("post", "/bots", json={"name": "b2", **body}, address=first)
    assert refused.status_code == 429 and "per client address" in refused.json()["message"], refused.text
    # ada's own registrations: 1 of 2 (the refused one given back), so one more is allowed from elsewhere
    again = ada.call("post", "/bots", json={"name": "b2", **body}, address=second)
    assert again.status_code == 201, again.text
    over = ada.call("post", "/bots", json={"name": "b3", **body}, address=second)
    assert over.status_code == 429 and "per account" in over.json()["message"], over.text
