"""Three ``sorry-arena worker`` processes playing a tournament on PostgreSQL and a private Redis database, as an
operator runs them: no fault, so not one WARNING (or worse) line in any worker's log (the recovery's "no live job"
warnings were false alarms of a race between the feeding and the recovery: ``tournament/dispatch/feed.py``), every
game played once, RQ's failed registry empty (a game job sent back to the queue was failed a minute later as "stuck
in intermediate queue": ``ArenaWorker.clean_intermediate``), and each worker's metrics, scraped on its port, adding up
to the games played."""

from __future__ import annotations

import re
import time
from pathlib import Path

import redis
import requests
from flask import Flask
from prometheus_client.parser import text_string_to_metric_families
from rq import Queue
from rq.registry import FailedJobRegistry
from sqlalchemy import func, select

from runtime.jobqueue import QUEUE_NAME
from store.models import Result, TournamentGame
from tests.apikit import new_player
from tests.arenakit import create_tournament, push_bots, random_choice, register, wait_done
from tests.servers import free_port
from tests.tournament.test_rq import Workers, arena, pg_url, rq_redis  # noqa: F401 (fixtures)

LINE = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) worker:\w+\[\d+\] \S+: "
)
"""A worker's text log line: its time (UTC), level, process (``worker:NAME[pid]``) and logger, then its message."""


def scrape(port: int) -> dict[str, float]:
    """A worker's metrics without labels, by sample name (the labelled ones summed)."""
    text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[sample.name] = found.get(sample.name, 0.0) + sample.value
    return found


def test_three_workers_play_a_tournament_once_without_a_warning(
    arena: Flask,  # noqa: F811 (the fixture)
    pg_url: str,  # noqa: F811 (the fixture)
    rq_redis: str,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    workers = Workers(pg_url, rq_redis, tmp_path, lease_seconds=None)  # the default lease, as operators run it
    ports = [free_port() for _ in range(3)]
    try:
        with push_bots(random_choice, random_choice, random_choice) as servers:
            ids = [
                register(client, owner, name, server.url)["id"]
                for name, server in zip("abc", servers, strict=True)
            ]
            created = create_tournament(client, owner, ids, game="card", rounds=5)
            for name, port in zip(("north", "south", "east"), ports, strict=True):
                workers.start("--name", name, "--metrics-port", str(port), allow_metrics=True)
            done = wait_done(client, created["id"], timeout=240)
            total = done["progress"]["total"]
            assert done["progress"] == {"done": total, "total": total} and total == 30
            deadline = time.monotonic() + 60
            while True:  # every worker's counters are in (a game's result is written before its count)
                scraped = [scrape(port) for port in ports]
                finished = sum(found.get("sorry_arena_games_finished_total", 0) for found in scraped)
                if finished >= total:
                    break
                assert time.monotonic() < deadline, scraped
                time.sleep(0.2)
            time.sleep(6)  # a maintenance pass or more (every second here) after the end: none may warn
            lines = {log.name: log.read_text().splitlines() for log in sorted(tmp_path.glob("worker*.log"))}
    finally:
        workers.stop()
    assert finished == total
    assert sum(found.get("sorry_arena_games_started_total", 0) for found in scraped) == total
    assert all(
        found.get("sorry_arena_moves_total", 0) > 0
        for found in scraped
        if found.get("sorry_arena_games_finished_total")
    ), scraped
    assert all(found["sorry_arena_worker_ready"] == 1 for found in scraped)
    assert sum(found.get("sorry_arena_recovered_games_total", 0) for found in scraped) == 0
    with arena.extensions["db_sessions"]() as session:
        assert session.scalar(select(func.count(Result.id))) == total
        scheduled = session.scalars(select(TournamentGame)).all()
        assert {game.status for game in scheduled} == {"done"}
        assert [game.attempts for game in scheduled] == [1] * total, "a game played twice, or taken over"
    connection = redis.Redis.from_url(rq_redis)
    try:
        failed = FailedJobRegistry(queue=Queue(QUEUE_NAME, connection=connection))
        assert failed.get_job_ids() == [], "RQ's failed registry, though no game failed"
    finally:
        connection.close()
    assert len(lines) == 3 and all(lines.values()), lines
    for name, log in lines.items():
        for line in log:
            assert LINE.match(line), f"{name}: {line}"
            assert not re.match(r"\S+ (WARNING|ERROR|CRITICAL) ", line), f"{name}: {line}"
        assert not any("Job OK" in line for line in log), "RQ's line per job"
