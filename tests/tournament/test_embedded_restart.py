"""The embedded mode (no Redis: the service plays tournaments on its own threads) survives its own kill.

A real ``sorry-arena serve`` on a SQLite file plays a tournament between push bots; it is killed (SIGKILL) in the
middle and started again on the same database. Its maintenance takes up every game the dead process left (pending,
or running under a lease that runs out) and the tournament ends, each game played once to its end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests
from sqlalchemy import func, select

from store import migrate
from store.models import TournamentGame
from tests.arenakit import SECRET, push_bots, random_choice
from tests.botservers import closed_port
from tests.conftest import dispose, make_app
from tests.reliability.harness import check_tournament

ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 2


def slow_random(request: dict[str, Any]) -> str:
    time.sleep(0.01)  # a game lasts a few seconds: long enough to be killed in the middle
    return random_choice(request)


@contextmanager
def serve(database_url: str, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "SORRY_ARENA_BOT_ALLOW": "loopback",
        "SORRY_ARENA_LEASE_SECONDS": str(LEASE_SECONDS),
        "SORRY_ARENA_MAINTENANCE_SECONDS": "0.5",
        "SORRY_ARENA_GAMES_PER_WORKER": "2",
    }
    env.pop("REDIS_URL", None)
    with open(log, "ab") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=1).ok:
                    break
            except requests.RequestException:
                pass
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(30)


def test_a_killed_embedded_service_goes_on_with_its_tournament_when_started_again(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'arena.db'}"
    migrate.upgrade(database_url)
    port = closed_port()
    api = f"http://127.0.0.1:{port}/api/v1"
    log = tmp_path / "serve.log"
    with push_bots(slow_random, slow_random, slow_random) as bots:
        with serve(database_url, port, log) as first:
            owner = requests.post(f"{api}/players", json={"name": "owner"}, timeout=10).json()
            headers = {"Authorization": f"Bearer {owner['token']}"}
            ids = []
            for number, bot in enumerate(bots):
                body = {"name": f"bot{number}", "url": bot.url, "games": ["board"], "secret": SECRET}
                registered = requests.post(f"{api}/bots", json=body, headers=headers, timeout=30)
                assert registered.status_code == 201, registered.text
                ids.append(registered.json()["id"])
            body = {"game": "board", "bot_ids": ids, "table_size": 2, "rounds": 1}
            created = requests.post(f"{api}/tournaments", json=body, headers=headers, timeout=30)
            assert created.status_code == 201, created.text
            tournament = created.json()["id"]
            deadline = time.monotonic() + 120
            while requests.get(f"{api}/tournaments/{tournament}", timeout=10).json()["progress"]["done"] < 1:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(30)
        app = make_app(database_url)
        try:
            with app.extensions["db_sessions"]() as session:
                left = session.scalar(
                    select(func.count(TournamentGame.id)).where(
                        TournamentGame.tournament_id == tournament, TournamentGame.status != "done"
                    )
                )
        finally:
            dispose(app)
        assert left, "the tournament ended before the kill: nothing was left to take up"
        state = requests.Session()
        with serve(database_url, port, log):
            deadline = time.monotonic() + 180
            while True:
                shown = state.get(f"{api}/tournaments/{tournament}", timeout=10).json()
                if shown["status"] == "done":
                    break
                assert time.monotonic() < deadline, f"{shown['status']} {shown['progress']}\n{log.read_text()}"
                time.sleep(0.2)
    assert shown["progress"] == {"done": 6, "total": 6}
    app = make_app(database_url)
    try:
        assert len(check_tournament(app, tournament)) == 6
    finally:
        dispose(app)
