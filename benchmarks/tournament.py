"""Tournament speed: moves/s of RQ workers playing push bots over HTTP, against a bare requests.Session round trip.

    .venv/bin/python benchmarks/tournament.py [--bots 4] [--game board] [--rounds 2] [--repeat 3]
        [--redis-url redis://127.0.0.1:6379/5] [--database-url URL] [--seconds 3] [--json]

It starts ``--bots`` example bots (``python -m clients --bot random --push``, one process each, on loopback) and
a fresh database (a SQLite file in a temporary directory, or ``--database-url``); the Redis database of
``--redis-url`` is emptied first and last. Then ``--repeat`` times, interleaved:

- baseline: one ``requests.Session(trust_env=False)`` POSTs a real, signed move request (a position of the game
  with its legal actions) to one bot's ``/move`` for ``--seconds``: the bare round-trip rate.
- 1 worker, then 2 workers (``sorry-arena worker`` processes, started and registered with Redis before the clock
  starts): a round robin of ``--game`` between the bots (table of 2, ``--rounds`` rounds) is created through the
  API and played to its end. The figure is the moves saved by the workers divided by the time from the
  tournament's creation to its last game's result, both as stored in the database (the final standings fit
  comes after and is not counted; this process polls only every 0.25 s).

It prints the medians and two ratios, with the goals of the tournament issue: one worker's moves/s as a fraction of
the bare round-trip rate (goal >= 0.5), and two workers' moves/s over one worker's (goal >= 1.6). The machine is
shared and noisy (2 cores, which the bots, the workers and this process share): compare ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import redis
import requests
from sqlalchemy import func, select

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from botlink import signing  # noqa: E402
from runtime.settings import Settings  # noqa: E402
from service.app import create_app  # noqa: E402
from store import migrate  # noqa: E402
from store.models import (  # noqa: E402
    ActionRecord,
    Result,
    Tournament,
)

SECRET = "benchmark-secret-" + "x" * 24


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def bot_processes(count: int) -> Iterator[list[str]]:
    ports = [free_port() for _ in range(count)]
    env = {**os.environ, "SORRY_ARENA_SECRET": SECRET}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "clients", "--bot", "random", "--push", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    urls = [f"http://127.0.0.1:{port}/bot" for port in ports]
    try:
        for url in urls:
            wait_for(url)
        yield urls
    finally:
        for process in processes:
            process.terminate()
            process.wait(10)


def wait_for(url: str) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            body = json.dumps({"type": "info", "nonce": "x"}).encode()
            signed = signing.headers(SECRET, "POST", urlsplit(url).path + "/info", body)
            requests.post(url + "/info", data=body, headers=signed, timeout=1)
            return
        except requests.RequestException:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the bot at {url} never answered") from None
            time.sleep(0.1)


def move_request(game: str) -> bytes:
    """A real move request: a position some moves into a game, its view and legal actions."""
    state = engine.new_game(game, {"players": 2}, 3)
    for _ in range(12):
        engine.apply(state, engine.fallback_action(state))
    decision = engine.decision(state)
    assert decision is not None
    payload = {
        "type": "move",
        "game_id": 1,
        "tournament_id": 1,
        "seat": decision.seat,
        "ply": 12,
        "decision": decision.kind,
        "view": engine.view(state, decision.seat),
        "actions": [action.to_json() for action in engine.legal_actions(state, decision.seat)],
        "deadline_ms": 1000,
        "last_latency_ms": 1.0,
    }
    return json.dumps(payload, separators=(",", ":")).encode()


def bare_round_trips(url: str, body: bytes, seconds: float) -> float:
    session = requests.Session()
    session.trust_env = False
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        signed = signing.headers(SECRET, "POST", urlsplit(url).path + "/move", body)
        headers = {"Content-Type": "application/json", **signed}
        response = session.post(url + "/move", data=body, headers=headers, timeout=5)
        response.raise_for_status()
        count += 1
    return count / (time.perf_counter() - started)


@contextmanager
def workers(count: int, database_url: str, redis_url: str, connection: Any) -> Iterator[None]:
    from rq import Worker

    env = {**os.environ, "SORRY_ARENA_BOT_ALLOW": "loopback"}
    before = len(Worker.all(connection=connection))
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "cli.main", "worker", "--database-url", database_url, "--redis-url", redis_url],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]
    try:
        deadline = time.monotonic() + 30
        while len(Worker.all(connection=connection)) < before + count:  # registered: ready for jobs
            if time.monotonic() > deadline:
                raise RuntimeError("the workers did not start")
            time.sleep(0.05)
        yield
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(20)
        deadline = time.monotonic() + 20
        while len(Worker.all(connection=connection)) > before and time.monotonic() < deadline:
            time.sleep(0.05)


def tournament_rate(client: Any, token: str, bot_ids: list[int], game: str, rounds: int, sessions: Any) -> float:
    headers = {"Authorization": f"Bearer {token}"}
    body = {"game": game, "bot_ids": bot_ids, "table_size": 2, "rounds": rounds, "rated": False}
    created = client.post("/api/v1/tournaments", json=body, headers=headers)
    assert created.status_code == 201, created.get_data(as_text=True)
    tournament = created.get_json()
    while tournament["status"] != "done":
        time.sleep(0.25)  # rarely: this process's polling would take CPU from the workers and bots
        tournament = client.get(f"/api/v1/tournaments/{tournament['id']}").get_json()
    game_ids = [result["game_id"] for result in tournament["results"]]
    with sessions() as session:  # the clock, from the database: creation to the last game's result
        moves = session.scalar(select(func.count(ActionRecord.id)).where(ActionRecord.game_id.in_(game_ids)))
        created_at = session.get(Tournament, tournament["id"]).created_at
        last = session.scalar(select(func.max(Result.finished_at)).where(Result.tournament_id == tournament["id"]))
    elapsed = (last - created_at).total_seconds()
    return float(moves or 0) / float(elapsed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=4, choices=range(2, 9), metavar="2..8")
    parser.add_argument("--game", choices=["board", "card"], default="board")
    parser.add_argument("--rounds", type=int, default=2, choices=range(1, 51), metavar="1..50")
    parser.add_argument("--repeat", type=int, default=3, choices=range(1, 21), metavar="1..20")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/5")
    parser.add_argument("--database-url", default=None, help="default: a SQLite file in a temporary directory")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    connection = redis.Redis.from_url(args.redis_url)
    connection.flushdb()
    with tempfile.TemporaryDirectory() as scratch:
        database_url = args.database_url or f"sqlite:///{Path(scratch) / 'bench.db'}"
        migrate.upgrade(database_url)
        app = create_app(Settings(database_url=database_url, redis_url=args.redis_url, bot_allow="loopback"))
        client = app.test_client()
        owner = client.post("/api/v1/players", json={"name": "bench"}).get_json()
        figures: dict[str, list[float]] = {"bare": [], "one": [], "two": []}
        with bot_processes(args.bots) as urls:
            bot_ids = []
            for number, url in enumerate(urls):
                bot = client.post(
                    "/api/v1/bots",
                    json={"name": f"random{number}", "url": url, "games": [args.game], "secret": SECRET},
                    headers={"Authorization": f"Bearer {owner['token']}"},
                )
                assert bot.status_code == 201, bot.get_data(as_text=True)
                bot_ids.append(bot.get_json()["id"])
            body = move_request(args.game)
            sessions = app.extensions["db_sessions"]
            for _ in range(args.repeat):
                figures["bare"].append(bare_round_trips(urls[0], body, args.seconds))
                for key, count in (("one", 1), ("two", 2)):
                    with workers(count, database_url, args.redis_url, connection):
                        rate = tournament_rate(client, owner["token"], bot_ids, args.game, args.rounds, sessions)
                    figures[key].append(rate)
        app.extensions["db_engine"].dispose()
    connection.flushdb()
    medians = {key: statistics.median(values) for key, values in figures.items()}
    report = {
        "game": args.game,
        "bots": args.bots,
        "games_per_tournament": args.bots * (args.bots - 1) * args.rounds,
        "database": "sqlite" if args.database_url is None else "given",
        "bare_round_trips_per_s": round(medians["bare"], 1),
        "one_worker_moves_per_s": round(medians["one"], 1),
        "two_workers_moves_per_s": round(medians["two"], 1),
        "one_worker_vs_bare": round(medians["one"] / medians["bare"], 3),
        "two_workers_vs_one": round(medians["two"] / medians["one"], 3),
        "runs": figures,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{args.game}, {args.bots} random push bots, {report['games_per_tournament']} games per tournament")
        print(f"bare requests.Session round trips: {medians['bare']:8.1f} /s")
        print(f"1 worker:                          {medians['one']:8.1f} moves/s")
        print(f"2 workers:                         {medians['two']:8.1f} moves/s")
        print(f"1 worker / bare round trip:        {report['one_worker_vs_bare']:8.3f}   (goal >= 0.5)")
        print(f"2 workers / 1 worker:              {report['two_workers_vs_one']:8.3f}   (goal >= 1.6)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
