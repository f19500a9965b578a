"""Tournaments on the production path: PostgreSQL, Redis, RQ workers in their own processes (``sorry-arena
worker``) and push bots on loopback. A worker killed mid-game (SIGKILL) leaves its game to another worker, which
finishes it once; scheduled starts and repeats run by the workers' clock; workers log with the time and lease under
their names."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

import engine
from store.models import ActionRecord, Game, Result, Tournament, TournamentGame, now
from tests.apikit import new_player
from tests.arenakit import arena_app, create_tournament, push_bots, random_choice, register, wait_done
from tests.conftest import dispose
from tests.databases import Templates

STAMPED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO|WARNING|ERROR|DEBUG) ")
"""A worker's log line: its time (ISO 8601, UTC), its level, then its process, source and message."""


@pytest.fixture
def rq_redis(redis_url: str) -> str:
    """The queue's Redis: a database of the tests' own private redis-server (``tests/conftest.py``), empty."""
    return redis_url


@pytest.fixture
def pg_url(templates: Templates) -> Iterator[str]:
    yield from templates.postgresql("sorry_arena_rq")


@pytest.fixture
def arena(pg_url: str, rq_redis: str) -> Iterator[Flask]:
    app = arena_app(pg_url, rq_redis)
    yield app
    dispose(app)


class Workers:
    def __init__(self, database_url: str, redis_url: str, logs: Path, lease_seconds: str | None = "2") -> None:
        self.database_url, self.redis_url, self.logs = database_url, redis_url, logs
        self.lease_seconds = lease_seconds
        """The workers' ``SORRY_ARENA_LEASE_SECONDS`` (``None``: the default)."""
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, *flags: str, allow_metrics: bool = False) -> subprocess.Popen[bytes]:
        env = {**os.environ, "SORRY_ARENA_BOT_ALLOW": "loopback"}
        if self.lease_seconds is not None:
            env["SORRY_ARENA_LEASE_SECONDS"] = self.lease_seconds
        if allow_metrics:
            env["SORRY_ARENA_METRICS_ALLOW"] = "127.0.0.0/8"
        log = open(self.logs / f"worker{len(self.processes)}.log", "wb")  # noqa: SIM115 (closed with the process)
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cli.main",
                "worker",
                "--database-url",
                self.database_url,
                "--redis-url",
                self.redis_url,
                "--maintenance-interval",
                "1",
                *flags,
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def workers(pg_url: str, rq_redis: str, tmp_path: Path) -> Iterator[Workers]:
    running = Workers(pg_url, rq_redis, tmp_path)
    yield running
    running.stop()


def slow_random(request: dict[str, Any]) -> str:
    time.sleep(0.004)
    return random_choice(request)


def test_two_workers_play_a_tournament_once(arena: Flask, workers: Workers) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice, random_choice) as servers:
        ids = [
            register(client, owner, name, server.url)["id"] for name, server in zip("abc", servers, strict=True)
        ]
        created = create_tournament(client, owner, ids, game="card", rounds=2)
        workers.start("--burst", "--name", "east")
        workers.start("--burst", "--name", "west")
        done = wait_done(client, created["id"], timeout=120)
    assert done["progress"] == {"done": 12, "total": 12}
    with arena.extensions["db_sessions"]() as session:
        assert session.scalar(select(func.count(Result.id))) == 12
        scheduled = session.scalars(select(TournamentGame)).all()
        assert {game.status for game in scheduled} == {"done"} and all(game.attempts == 1 for game in scheduled)
        assert {game.worker for game in scheduled} <= {"east", "west"}  # leases carry the workers' names
    workers.stop()
    lines = [line for log in sorted(workers.logs.glob("worker*.log")) for line in log.read_text().splitlines()]
    assert lines and all(STAMPED.match(line) for line in lines if line.strip()), "\n".join(lines)
    assert any("east" in line for line in lines) and any("west" in line for line in lines)


def test_a_game_whose_worker_is_killed_is_finished_by_another(arena: Flask, workers: Workers) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    sessions = arena.extensions["db_sessions"]
    with push_bots(slow_random, slow_random) as servers:
        ids = [register(client, owner, name, server.url)["id"] for name, server in zip("ab", servers, strict=True)]
        created = create_tournament(client, owner, ids, game="board")
        victim = workers.start("--no-clock")
        deadline = time.monotonic() + 60
        while True:  # wait until the victim is mid-game, with moves saved
            with sessions() as session:
                playing = session.execute(
                    select(TournamentGame.id, Game.ply)
                    .join(Game, Game.id == TournamentGame.game_id)
                    .where(TournamentGame.status == "running")
                ).first()
            if playing is not None and playing[1] > 20:
                break
            assert time.monotonic() < deadline, "the worker never got going"
            time.sleep(0.05)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(10)
        killed_game = playing[0]
        workers.start()
        done = wait_done(client, created["id"], timeout=90)
    assert done["progress"] == {"done": 2, "total": 2}
    with sessions() as session:
        scheduled = session.get(TournamentGame, killed_game)
        assert scheduled is not None and scheduled.status == "done" and scheduled.attempts == 2
        assert session.scalar(select(func.count(Result.id))) == 2
        game = session.get(Game, scheduled.game_id)
        assert game is not None and game.status == "over"
        actions = session.scalars(
            select(ActionRecord.action).where(ActionRecord.game_id == game.id).order_by(ActionRecord.ply)
        ).all()
        plies = session.scalars(select(ActionRecord.ply).where(ActionRecord.game_id == game.id)).all()
    assert sorted(plies) == list(range(len(actions))) == list(range(game.ply))
    replayed = engine.replay(game.game, game.settings, game.seed, list(actions))
    assert engine.to_json(replayed) == json.loads(game.state)  # the saved log replays to the saved position
    assert engine.is_over(replayed)


def test_scheduled_start_and_repeats_run_by_the_workers_clock(arena: Flask, workers: Workers) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice) as servers:
        ids = [register(client, owner, name, server.url)["id"] for name, server in zip("ab", servers, strict=True)]
        start = now() + timedelta(seconds=2)
        created = create_tournament(
            client, owner, ids, game="card", start_at=start.isoformat(), repeat_every=1, repeat_times=2
        )
        assert created["status"] == "scheduled"
        workers.start()
        first = wait_done(client, created["id"], timeout=60)
        deadline = time.monotonic() + 60
        while True:
            with arena.extensions["db_sessions"]() as session:
                runs = session.scalars(select(Tournament).where(Tournament.parent_id == created["id"])).all()
            if runs and runs[0].status == "done":
                break
            assert time.monotonic() < deadline, "the repeat never ran"
            time.sleep(0.2)
    with arena.extensions["db_sessions"]() as session:
        started = session.scalar(select(func.min(Game.created_at)))
    assert started is not None and started >= start  # not a moment before its time
    assert first["progress"]["done"] == 2 and len(runs) == 1 and runs[0].run == 2 and runs[0].seed != first["seed"]
