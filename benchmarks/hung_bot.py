"""A hung bot costs only its own games: the rate of the other games with one bot hung, against no fault.

    .venv/bin/python benchmarks/hung_bot.py [--games-per-worker 8] [--rounds 4] [--repeat 3] [--timeout-ms 1000]
        [--database-url URL] [--json]

Four push bots on loopback: three example random bots (``python -m clients --bot random --push``, a process each)
and a fourth of this file's own, a random bot that can be switched to hang (it takes the request and never
answers). One ``sorry-arena worker`` (``--games-per-worker`` games at once) on a private ``redis-server`` started
for the run (no Redis database of the machine is touched) and a fresh database (a SQLite file in a temporary
directory, or ``--database-url``). After a warm-up tournament (not counted), ``--repeat`` times, interleaved:

- no fault: a 2-seat board round robin between the four (``--rounds`` rounds, 12 games a round) with every bot
  answering;
- hung: the same with the fourth bot hung: each of its moves times out (``--timeout-ms``), the third in a row
  forfeits its game.

The figure of each run is the rate of the games without the fourth bot: their number divided by the time from the
tournament's creation to the last of their results, as stored in the database. It prints the medians, the ratio
hung / no fault (the goal: at least 0.8, the other games keep 80% of their rate) and the load average beside them.
``--games-per-worker 1`` shows the old one-game worker, where every slot sat in the hung bot's games.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from benchmarks.servers import end_on_sigterm, free_port, private_redis  # noqa: E402
from benchmarks.tournament import SECRET, bot_processes, wait_for  # noqa: E402
from runtime.settings import Settings  # noqa: E402
from service.app import create_app  # noqa: E402
from store import migrate  # noqa: E402
from store.models import Result, Tournament  # noqa: E402


def switchable_bot(port: int, hung: Any) -> None:
    """A random push bot (signatures unchecked: this is a benchmark's own) that hangs on moves while ``hung``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            if self.path.endswith("/move") and hung.value:
                time.sleep(3600)  # the service cuts the call at its deadline
            if self.path.endswith("/info"):
                reply = {"nonce": body.get("nonce"), "name": "switchable"}
            elif self.path.endswith("/move"):
                reply = {"action": random.choice(body["actions"])["id"]}
            else:
                reply = {}
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


@contextmanager
def worker(database_url: str, redis_url: str, games: int) -> Iterator[None]:
    # one account's tournament: every slot of the worker, not an account's share (SORRY_ARENA_ACCOUNT_SHARE_PERCENT)
    env = {**os.environ, "SORRY_ARENA_BOT_ALLOW": "loopback", "SORRY_ARENA_ACCOUNT_SHARE_PERCENT": "100"}
    command = [
        sys.executable,
        "-m",
        "cli.main",
        "worker",
        "--database-url",
        database_url,
        "--redis-url",
        redis_url,
    ]
    process = subprocess.Popen(
        [*command, "--games", str(games)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        yield
    finally:
        process.terminate()
        process.wait(30)


def healthy_games_rate(
    client: Any, token: str, bot_ids: list[int], hung_id: int, args: Any, sessions: Any
) -> float:
    headers = {"Authorization": f"Bearer {token}"}
    body = {
        "game": "board",
        "bot_ids": bot_ids,
        "table_size": 2,
        "rounds": args.rounds,
        "rated": False,
        "move_timeout_ms": args.timeout_ms,
    }
    created = client.post("/api/v1/tournaments", json=body, headers=headers)
    assert created.status_code == 201, created.get_data(as_text=True)
    tournament_id = created.get_json()["id"]
    while client.get(f"/api/v1/tournaments/{tournament_id}").get_json()["status"] != "done":
        time.sleep(0.25)
    with sessions() as session:
        results = session.execute(
            select(Result.bot_ids, Result.finished_at).where(Result.tournament_id == tournament_id)
        ).all()
        created_at = session.get(Tournament, tournament_id).created_at
        assert session.scalar(select(func.count(Result.id)).where(Result.tournament_id == tournament_id))
    healthy = [finished for bots, finished in results if hung_id not in bots]
    return float(len(healthy) / (max(healthy) - created_at).total_seconds())


def main() -> int:
    end_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games-per-worker", type=int, default=8, choices=range(1, 65), metavar="1..64")
    parser.add_argument("--rounds", type=int, default=4, choices=range(1, 21), metavar="1..20")
    parser.add_argument("--repeat", type=int, default=3, choices=range(1, 11), metavar="1..10")
    parser.add_argument("--timeout-ms", type=int, default=1000, choices=range(100, 10001), metavar="100..10000")
    parser.add_argument("--database-url", default=None, help="default: a SQLite file in a temporary directory")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    hung = multiprocessing.Value("b", 0)
    port = free_port()
    switchable = multiprocessing.Process(target=switchable_bot, args=(port, hung), daemon=True)
    switchable.start()
    figures: dict[str, list[float]] = {"no fault": [], "hung": []}
    load: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as scratch, private_redis() as redis_url, bot_processes(3) as urls:
            database_url = args.database_url or f"sqlite:///{Path(scratch) / 'bench.db'}"
            migrate.upgrade(database_url)
            app = create_app(Settings(database_url=database_url, redis_url=redis_url, bot_allow="loopback"))
            client = app.test_client()
            owner = client.post("/api/v1/players", json={"name": "bench"}).get_json()
            switch_url = f"http://127.0.0.1:{port}/bot"
            wait_for(switch_url)
            bot_ids = []
            for number, url in enumerate([*urls, switch_url]):
                bot = client.post(
                    "/api/v1/bots",
                    json={"name": f"bot{number}", "url": url, "games": ["board"], "secret": SECRET},
                    headers={"Authorization": f"Bearer {owner['token']}"},
                )
                assert bot.status_code == 201, bot.get_data(as_text=True)
                bot_ids.append(bot.get_json()["id"])
            sessions = app.extensions["db_sessions"]
            with worker(database_url, redis_url, args.games_per_worker):
                healthy_games_rate(client, owner["token"], bot_ids, bot_ids[-1], args, sessions)  # warm-up
                for _ in range(args.repeat):
                    for key, value in (("no fault", 0), ("hung", 1)):
                        hung.value = value
                        load.append(os.getloadavg()[0])
                        figures[key].append(
                            healthy_games_rate(client, owner["token"], bot_ids, bot_ids[-1], args, sessions)
                        )
            app.extensions["db_engine"].dispose()
    finally:
        switchable.terminate()
    medians = {key: statistics.median(values) for key, values in figures.items()}
    report = {
        "games_per_worker": args.games_per_worker,
        "healthy_games_per_s": {key: round(value, 3) for key, value in medians.items()},
        "hung_vs_no_fault": round(medians["hung"] / medians["no fault"], 3),
        "goal": 0.8,
        "load_average_1min": [round(value, 2) for value in load],
        "runs": figures,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"one worker, {args.games_per_worker} games at once, 4 board bots (one hung in half the runs)")
        print(f"games without the hung bot, no fault: {medians['no fault']:7.3f} /s")
        print(f"games without the hung bot, hung:     {medians['hung']:7.3f} /s")
        print(f"hung / no fault:                      {report['hung_vs_no_fault']:7.3f}   (goal >= 0.8)")
        print(f"load average (1 min) at each run:     {', '.join(f'{value:.2f}' for value in load)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
