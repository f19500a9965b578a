"""The operator's powers against real processes: ``sorry-arena serve`` (gunicorn) and a ``sorry-arena worker`` on
PostgreSQL and Redis, with a second API process (an app on the same database and Redis). A tournament of pull bots
that never move is being played by the worker; the workers' figures reach the service through Redis; disabling its
owner's account through ``serve`` refuses the owner's token and its bots' at once in both API processes, cancels
the tournament and drops its queued games."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.arenakit import arena_app
from tests.conftest import dispose
from tests.servers import tail
from tests.service.test_waiting_attacks import server
from tests.tournament.test_rq import Workers

OPERATOR_TOKEN = "op-" + "s" * 40
OPERATOR = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
DEADLINE_S = 90.0


def until(what: str, check: Any, log: Path) -> Any:
    """Wait (generously: the machine is loaded) until ``check()`` returns something true; that."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"{what} did not come in {DEADLINE_S} s\n{tail(log)}"
        time.sleep(0.2)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_disabled_account_is_refused_by_both_api_processes_and_its_games_dropped(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    env = {"DATABASE_URL": database_url, "REDIS_URL": redis_url, "SORRY_ARENA_OPERATOR_TOKEN": OPERATOR_TOKEN}
    log = tmp_path / "serve.log"
    workers = Workers(database_url, redis_url, tmp_path)
    second = arena_app(database_url, redis_url, operator_token=OPERATOR_TOKEN)
    try:
        with server([sys.executable, "-m", "cli.main", "serve"], env, log) as found:
            api = found.url("/api/v1")
            http = requests.Session()
            http.trust_env = False
            made = http.post(f"{api}/players", json={"name": "ada"}, timeout=30).json()
            ada = {"Authorization": f"Bearer {made['token']}"}
            bots = [
                http.post(f"{api}/bots", json={"name": name, "games": ["card"]}, headers=ada, timeout=30).json()
                for name in ("ada1", "ada2")
            ]
            bot_token = {"Authorization": f"Bearer {bots[0]['token']}"}
            body = {
                "game": "card",
                "settings": {"pawns": 2},
                "bot_ids": [bot["id"] for bot in bots],
                "move_timeout_ms": 60_000,
                "rounds": 2,
            }
            created = http.post(f"{api}/tournaments", json=body, headers=ada, timeout=30)
            assert created.status_code == 201, created.text
            tournament_id = created.json()["id"]
            workers.start()

            def playing() -> Any:
                queue = http.get(f"{api}/admin/queue", headers=OPERATOR, timeout=30).json()
                mine = [row for row in queue["accounts"] if row["account_id"] == made["id"]]
                return mine and mine[0]["running"] >= 1 and mine[0]

            queued = until("a game played by the worker", playing, log)
            total = queued["fed"] + queued["unfed"] + queued["running"]
            assert total == created.json()["progress"]["total"]

            def busy_worker() -> Any:
                listed = http.get(f"{api}/admin/workers", headers=OPERATOR, timeout=30).json()
                return [worker for worker in listed["workers"] if worker["busy"] >= 1]

            worker = until("the worker's figures", busy_worker, log)[0]
            assert worker["slots"] >= worker["busy"] >= 1 and worker["seen_seconds_ago"] < 15
            client = second.test_client()
            for headers in (ada, bot_token):
                assert http.get(f"{api}/decisions", headers=headers, timeout=30).status_code == 200
                assert client.get("/api/v1/decisions", headers=headers).status_code == 200
            done = http.post(f"{api}/admin/accounts/{made['id']}/disable", headers=OPERATOR, timeout=60)
            assert done.status_code == 200, done.text
            assert done.json()["cancelled_tournaments"] == [tournament_id]
            for headers in (ada, bot_token):  # at once, in both processes: no wait
                refused = http.get(f"{api}/decisions", headers=headers, timeout=30)
                assert refused.status_code == 403 and "disabled" in refused.json()["message"]
                assert client.get("/api/v1/decisions", headers=headers).status_code == 403
            queue = http.get(f"{api}/admin/queue", headers=OPERATOR, timeout=30).json()
            assert all(row["account_id"] != made["id"] for row in queue["accounts"]), queue
            assert http.get(f"{api}/tournaments/{tournament_id}", timeout=30).json()["status"] == "cancelled"
            until(
                "the worker's slots given back",
                lambda: all(w["busy"] == 0 for w in busy_worker() or [{"busy": 0}]),
                log,
            )
            actions = http.get(f"{api}/admin/audit", headers=OPERATOR, timeout=30).json()["actions"]
            assert [(row["action"], row["target_id"]) for row in actions] == [("disable", made["id"])]
    finally:
        workers.stop()
        dispose(second)
