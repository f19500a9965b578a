"""Load: many pull clients play concurrently through the API for a bounded time; no 5xx, no lost or duplicated move.

    .venv/bin/python benchmarks/load.py [--clients 16] [--seconds 30] [--games 4] [--seats 2,3,4]
        [--kinds board,card] [--wait 5] [--threads 32] [--workers N --redis-url URL]
        [--database postgresql://postgres@127.0.0.1:5432/postgres] [--limits] [--seed 1] [--json]

It starts the real service, ``sorry-arena serve`` (gunicorn gthread, its own migrations, no control socket), on
127.0.0.1 with a free port, against a fresh database: a SQLite file in a temporary directory by default; with
``--database`` a PostgreSQL server URL, a new database created on that server and dropped afterwards. Rate limits
are switched off for the run (``SORRY_ARENA_LIMIT_*=off``), so that what is measured is the service, not its quotas.

Each of ``--clients`` client processes has its own account and, before the clock starts, creates ``--games`` games
of a kind from ``--kinds`` with a number of seats from ``--seats`` (random, from the run's seed), sitting in one
seat (a random one) and seating other clients' accounts in the others, so that every client sits in several games
of 2 to 4 seats at once, against different opponents. For ``--seconds``, every client loops as a pull bot does:
``GET /decisions?wait=W`` (the long-polled inbox) and, for each decision listed, ``POST /games/{id}/actions`` (a
random legal action and ``expected_ply``; again at once while the answer says it decides again). The client whose
move ends a game creates a new one, so the load does not drain. Each request's latency is recorded.

Afterwards, from the database (the server stopped first, so nothing is in flight):

- every game's stored action log has the plies 0 .. n-1 and the game's ply is n;
- the log replayed by ``engine.replay`` gives exactly the stored state (and status and result);
- the moves the clients saw accepted (a 200 answer) are exactly the stored actions, game by game: same count,
  same plies, seats and action ids. A move stored but not seen accepted, seen accepted twice, or seen but not
  stored fails the run.

It prints the accepted moves per second (counted while the clock runs), the p50/p95/p99/max latency of move
submissions and of inbox polls (a poll's time includes its long-poll wait, up to ``--wait``), the 5xx (must be 0),
the 409s and any other unexpected answer, and the checks. The exit status is 1 if any check fails.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from benchmarks.api import (  # noqa: E402
    API,
    fresh_database,
    new_session,
    positive,
    register,
    run_clients,
    wait_for_start,
    wait_until_up,
)
from benchmarks.servers import free_port  # noqa: E402

REQUEST_TIMEOUT = 60.0
"""Seconds a client waits for any answer (a long poll waits at most ``--wait``): past it, the request failed."""


# --- the server -----------------------------------------------------------------------------------------------


def limits_off() -> dict[str, str]:
    """``off`` for each of the service's rate limits (``service/ratelimits.py``): the run measures the service and
    its guarantees, not its quotas (the accounts limit would refuse the run's own registrations)."""
    from service import ratelimits

    return {limit.variable: "off" for limit in (ratelimits.ACCOUNTS, ratelimits.BOTS, ratelimits.MOVES)}


@contextlib.contextmanager
def serve(
    database_url: str, redis_url: str | None, workers: int, threads: int, limits: bool = False
) -> Iterator[tuple[str, list[str]]]:
    """Run ``sorry-arena serve`` on a free port; yield its base URL once /health answers, and a list that holds,
    once the server has stopped, the error lines of its log (tracebacks, gunicorn's errors and timeouts)."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), **({} if limits else limits_off())}
    env.pop("REDIS_URL", None)
    script = Path(sys.executable).with_name("sorry-arena")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "cli.main"]
    command += [
        "serve",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--database-url", database_url,
        "--workers", str(workers),
        "--threads", str(threads),
    ]  # fmt: skip
    if redis_url:
        command += ["--redis-url", redis_url]
    problems: list[str] = []
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            yield wait_until_up(process, log, f"http://127.0.0.1:{port}"), problems
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.seek(0)
            lines = log.read().decode(errors="replace").splitlines()
            problems.extend(line for line in lines if re.search(r"Traceback|\[ERROR\]|WORKER TIMEOUT", line))
            if problems:
                print("the server's log (its end):\n" + "\n".join(lines[-60:]), file=sys.stderr)


# --- the clients ----------------------------------------------------------------------------------------------


class LoadClient:
    """One client process: its account, its random bot, the games it makes, and what it saw."""

    def __init__(self, base: str, tokens: list[str], me: int, args: argparse.Namespace, seed: int) -> None:
        self.base = base
        self.tokens = tokens
        self.me = me
        self.kinds: list[str] = args.kinds
        self.seats: list[int] = args.seats
        self.wait: float = args.wait
        self.rng = random.Random(seed)
        self.session = new_session(tokens[me])
        self.deadline = float("inf")
        self.counts: Counter[str] = Counter()
        self.move_ms: list[float] = []
        self.poll_ms: list[float] = []
        self.accepted: list[tuple[int, int, int, str]] = []
        """(game id, ply answered, seat, action id) of every move answered 200."""
        self.unexpected: list[str] = []

    def request(self, method: str, path: str, expected: int, **kwargs: Any) -> requests.Response | None:
        """One request, counted by its status; ``None`` (and counted as failed) when no answer came."""
        try:
            response = self.session.request(method, f"{self.base}{API}{path}", timeout=REQUEST_TIMEOUT, **kwargs)
        except requests.RequestException as error:
            self.counts["failed"] += 1
            self.note(f"{method} {path}: {type(error).__name__}: {error}")
            return None
        status = response.status_code
        if status >= 500:
            self.counts["5xx"] += 1
            self.note(f"{method} {path}: {status} {response.text[:300]}")
        elif status == 409:
            self.counts["409"] += 1
        elif status != expected:
            self.counts["other"] += 1
            self.note(f"{method} {path}: {status} {response.text[:300]}")
        return response

    def note(self, line: str) -> None:
        if len(self.unexpected) < 20:
            self.unexpected.append(line)

    def create_game(self) -> None:
        """A new game in which this client holds a random seat and other clients' accounts hold the others."""
        kind, seats = self.rng.choice(self.kinds), self.rng.choice(self.seats)
        others = self.rng.sample([n for n in range(len(self.tokens)) if n != self.me], seats - 1)
        holders = [self.me, *others]
        self.rng.shuffle(holders)
        body = {"game": kind, "settings": {}, "seats": seats, "seed": self.rng.getrandbits(62)}
        created = self.request("POST", "/games", 201, json=body)
        if created is None or created.status_code != 201:
            return
        game_id = created.json()["id"]
        for seat, holder in enumerate(holders):
            auth = {"Authorization": f"Bearer {self.tokens[holder]}"}
            self.request("POST", f"/games/{game_id}/seats", 201, json={"seat": seat}, headers=auth)
        self.counts["games_created"] += 1

    def poll(self) -> list[dict[str, Any]]:
        wait = round(max(0.0, min(self.wait, self.deadline - time.monotonic())), 3)
        started = time.perf_counter()
        response = self.request("GET", "/decisions", 200, params={"wait": wait})
        self.poll_ms.append((time.perf_counter() - started) * 1000)
        if response is None or response.status_code != 200:
            return []
        decisions: list[dict[str, Any]] = response.json()["decisions"]
        return decisions

    def play(self, game_id: int, seat: int, ply: int, actions: list[dict[str, Any]]) -> None:
        """Answer a decision, and the next ones while the answer says this seat decides again."""
        while True:
            action = self.rng.choice(actions)["id"]
            started = time.perf_counter()
            response = self.request(
                "POST", f"/games/{game_id}/actions", 200, json={"action": action, "expected_ply": ply}
            )
            self.move_ms.append((time.perf_counter() - started) * 1000)
            if response is None or response.status_code != 200:
                return
            self.accepted.append((game_id, ply, seat, action))
            self.counts["moves_total"] += 1
            if time.monotonic() <= self.deadline:
                self.counts["moves"] += 1
            moved = response.json()
            if moved["status"] == "over":
                self.counts["games_ended"] += 1
                if time.monotonic() < self.deadline:
                    self.create_game()
                return
            if not moved["your_decision"]:
                return
            ply, actions = moved["ply"], moved["actions"]


def load_client(
    base: str,
    tokens: list[str],
    me: int,
    args: argparse.Namespace,
    ready: Any,
    start: Any,
    results: Any,
) -> None:
    client = LoadClient(base, tokens, me, args, seed=args.seed * 1_000_003 + me)
    for _ in range(args.games):
        client.create_game()
    wait_for_start(client.session, base, ready, start)
    client.deadline = time.monotonic() + args.seconds
    while time.monotonic() < client.deadline:
        for decision in client.poll():
            client.play(decision["game_id"], decision["seat"], decision["ply"], decision["actions"])
    results.put(
        {
            "counts": dict(client.counts),
            "move_ms": client.move_ms,
            "poll_ms": client.poll_ms,
            "accepted": client.accepted,
            "unexpected": client.unexpected,
        }
    )


# --- the checks -----------------------------------------------------------------------------------------------


def stored_games(database_url: str) -> tuple[list[dict[str, Any]], dict[int, list[tuple[int, int, str]]]]:
    """Every game row, and every game's action log as (ply, seat, action id) in ply order."""
    from sqlalchemy import create_engine, select

    from store.models import ActionRecord, Game

    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            games = [
                dict(row._mapping)
                for row in connection.execute(
                    select(
                        Game.id,
                        Game.game,
                        Game.settings,
                        Game.seed,
                        Game.status,
                        Game.ply,
                        Game.state,
                        Game.result,
                    ).order_by(Game.id)
                )
            ]
            logs: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
            rows = connection.execute(
                select(ActionRecord.game_id, ActionRecord.ply, ActionRecord.seat, ActionRecord.action).order_by(
                    ActionRecord.game_id, ActionRecord.ply
                )
            )
            for game_id, ply, seat, action in rows:
                logs[game_id].append((ply, seat, action))
    finally:
        engine.dispose()
    return games, logs


def check_database(database_url: str, accepted: list[tuple[int, int, int, str]]) -> dict[str, Any]:
    """Replay every stored game and compare its log with the moves the clients saw accepted; the problems found."""
    import engine

    games, logs = stored_games(database_url)
    problems: list[str] = []
    seen: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for game_id, ply, seat, action in accepted:
        seen[game_id].append((ply, seat, action))
    lost = duplicated = phantom = 0
    for game in games:
        game_id, log = game["id"], logs.get(game["id"], [])
        where = f"game {game_id}"
        if [ply for ply, _, _ in log] != list(range(len(log))):
            problems.append(f"{where}: the stored plies are not 0..{len(log) - 1}")
        if game["ply"] != len(log):
            problems.append(f"{where}: ply {game['ply']} but {len(log)} stored actions")
        try:
            state = engine.replay(game["game"], game["settings"], game["seed"], [action for _, _, action in log])
        except Exception as error:  # any failure to replay is a finding, not a crash of the check
            problems.append(f"{where}: its log does not replay: {type(error).__name__}: {error}")
        else:
            if json.loads(json.dumps(engine.to_json(state))) != json.loads(game["state"]):
                problems.append(f"{where}: the replayed state differs from the stored state")
            over = engine.is_over(state)
            if game["status"] not in ("active", "over") or (game["status"] == "over") != over:
                problems.append(
                    f"{where}: status {game['status']!r} but the replay is {'over' if over else 'not over'}"
                )
            result = engine.result(state) if over else None
            if result is not None and json.loads(json.dumps(result.to_json())) != game["result"]:
                problems.append(f"{where}: the stored result differs from the replay's")
        mine = seen.pop(game_id, [])
        answered = Counter(ply for ply, _, _ in mine)
        duplicated += sum(count - 1 for count in answered.values() if count > 1)
        stored, saw = Counter(log), Counter(mine)
        lost += sum((stored - saw).values())
        phantom += sum((saw - stored).values())
        if stored != saw:
            problems.append(
                f"{where}: {len(log)} actions stored, {len(mine)} seen accepted "
                f"(stored, not seen: {sorted(stored - saw)[:3]}; seen, not stored: {sorted(saw - stored)[:3]})"
            )
    for game_id, mine in seen.items():
        phantom += len(mine)
        problems.append(f"game {game_id}: {len(mine)} moves seen accepted in a game that is not stored")
    return {
        "games": len(games),
        "games_over": sum(game["status"] == "over" for game in games),
        "stored_actions": sum(len(log) for log in logs.values()),
        "accepted_seen": len(accepted),
        "stored_not_seen": lost,
        "seen_twice": duplicated,
        "seen_not_stored": phantom,
        "problems": problems,
    }


# --- the run --------------------------------------------------------------------------------------------------


def percentiles(values: list[float]) -> dict[str, float | int | None]:
    """count, p50, p95, p99 and max of ``values`` (milliseconds, rounded); ``None`` without values."""
    if not values:
        return {"count": 0, "p50": None, "p95": None, "p99": None, "max": None}
    cuts = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else [values[0]] * 99
    return {
        "count": len(values),
        "p50": round(cuts[49], 2),
        "p95": round(cuts[94], 2),
        "p99": round(cuts[98], 2),
        "max": round(max(values), 2),
    }


def play_and_check(args: argparse.Namespace, database_url: str) -> dict[str, Any]:
    """The whole run against an empty database at ``database_url``: serve, play, stop, check; the figures."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    ready, start, results = context.Queue(), (context.Event(), context.Event()), context.Queue()
    with serve(database_url, args.redis_url, args.workers, args.threads, args.limits) as (base, server_problems):
        tokens = register(base, args.clients, "load")
        targets = [(load_client, (base, tokens, me, args, ready, start, results)) for me in range(args.clients)]
        reports, _ = run_clients(targets, context, ready, start, results)
    counts: Counter[str] = Counter()
    for report in reports:
        counts.update(report["counts"])
    accepted = [tuple(move) for report in reports for move in report["accepted"]]
    checked = check_database(database_url, accepted)
    failures = list(checked["problems"])
    if counts["5xx"]:
        failures.append(f"{counts['5xx']} server errors (5xx)")
    if counts["failed"] or counts["other"]:
        failures.append(f"{counts['failed']} requests without an answer, {counts['other']} unexpected statuses")
    if server_problems:
        failures.append(f"the server logged {len(server_problems)} error lines, the first: {server_problems[0]}")
    if not checked["accepted_seen"]:
        failures.append("no move was accepted")
    return {
        "settings": {
            "clients": args.clients,
            "seconds": args.seconds,
            "games_per_client": args.games,
            "seats": args.seats,
            "kinds": args.kinds,
            "wait": args.wait,
            "workers": args.workers,
            "threads": args.threads,
            "database": "postgresql" if database_url.startswith("postgresql") else "sqlite",
            "redis": bool(args.redis_url),
            "rate_limits": "as configured" if args.limits else "off",
        },
        "moves": counts["moves"],
        "moves_per_s": round(counts["moves"] / args.seconds, 1),
        "games_created": counts["games_created"],
        "games_ended": counts["games_ended"],
        "latency_ms": {
            "move": percentiles([ms for report in reports for ms in report["move_ms"]]),
            "poll": percentiles([ms for report in reports for ms in report["poll_ms"]]),
        },
        "5xx": counts["5xx"],
        "409": counts["409"],
        "other": counts["other"],
        "failed": counts["failed"],
        "unexpected": [line for report in reports for line in report["unexpected"]][:20],
        "check": {key: value for key, value in checked.items() if key != "problems"},
        "failures": failures,
    }


def print_report(figures: dict[str, Any]) -> None:
    s, check = figures["settings"], figures["check"]
    print(
        f"{s['clients']} pull clients x {s['games_per_client']} games made each "
        f"({'/'.join(s['kinds'])}, {'/'.join(map(str, s['seats']))} seats), inbox long poll {s['wait']:g} s, "
        f"{s['seconds']:g} s; sorry-arena serve: {s['workers']} worker(s) x {s['threads']} threads, "
        f"{s['database']}{' + redis' if s['redis'] else ''}, rate limits {s['rate_limits']}"
    )
    print(
        f"moves accepted while the clock ran: {figures['moves']:,} ({figures['moves_per_s']:,.1f} moves/s); "
        f"games created {figures['games_created']}, played to the end {figures['games_ended']}"
    )
    print(f"{'latency (ms)':<22}{'count':>8}{'p50':>9}{'p95':>9}{'p99':>9}{'max':>9}")
    for name, key in (("move submission", "move"), ("inbox poll (incl. wait)", "poll")):
        row = figures["latency_ms"][key]
        cells = "".join(
            f"{'-' if row[q] is None else format(row[q], ',.1f'):>9}" for q in ("p50", "p95", "p99", "max")
        )
        print(f"{name:<22}{row['count']:>8,}{cells}")
    print(
        f"5xx: {figures['5xx']}; 409: {figures['409']}; other unexpected statuses: {figures['other']}; "
        f"requests without an answer: {figures['failed']}"
    )
    print(
        f"database: {check['games']} games ({check['games_over']} over), {check['stored_actions']:,} stored "
        f"actions; moves seen accepted {check['accepted_seen']:,}; stored but not seen {check['stored_not_seen']}, "
        f"seen twice {check['seen_twice']}, seen but not stored {check['seen_not_stored']}"
    )
    for line in figures["unexpected"]:
        print(f"  unexpected: {line}")
    if figures["failures"]:
        print(f"FAILED ({len(figures['failures'])}):")
        for failure in figures["failures"][:30]:
            print(f"  {failure}")
    else:
        print(
            "OK: no 5xx; every game's log replays to its stored state and ply; accepted moves = stored, per game"
        )


def number_list(allowed: set[str] | None = None, kind: type = int) -> Any:
    def parse(text: str) -> list[Any]:
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items or (allowed is not None and not set(items) <= allowed):
            raise argparse.ArgumentTypeError(f"expected a comma-separated list of {sorted(allowed or [])}")
        return [kind(item) for item in items]

    return parse


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=positive(int), default=16, help="client processes (default 16)")
    parser.add_argument("--seconds", type=positive(float), default=30.0, help="length of the run (default 30)")
    parser.add_argument(
        "--games", type=positive(int), default=4, help="games each client makes before the clock (default 4)"
    )
    parser.add_argument(
        "--seats", type=number_list({"2", "3", "4"}), default=[2, 3, 4], help="seats per game (default 2,3,4)"
    )
    parser.add_argument(
        "--kinds", type=number_list({"board", "card"}, str), default=["board", "card"], help="default board,card"
    )
    parser.add_argument("--wait", type=positive(float), default=5.0, help="inbox long poll ?wait= (default 5)")
    parser.add_argument("--threads", type=positive(int), default=32, help="threads per worker (default 32)")
    parser.add_argument("--workers", type=positive(int), help="gunicorn workers (default: 2 with Redis, else 1)")
    parser.add_argument("--redis-url", help="the service's Redis (long polls wake across workers)")
    parser.add_argument(
        "--database",
        "--database-url",
        dest="database",
        help="a PostgreSQL server URL (a fresh database is made on it, dropped afterwards); default SQLite",
    )
    parser.add_argument(
        "--limits",
        action="store_true",
        help="keep the service's rate limits as configured (default: SORRY_ARENA_LIMIT_*=off; a 429 fails the run)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the games and of the random bots")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.workers is None:
        args.workers = 2 if args.redis_url else 1
    if args.workers > 1 and not args.redis_url:
        parser.error("--workers above 1 needs --redis-url (as sorry-arena serve does)")
    if args.clients < max(args.seats):
        parser.error(f"--clients ({args.clients}) must be at least the largest --seats ({max(args.seats)})")
    if args.wait > 30:
        parser.error("--wait must be at most 30 (the API's limit)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with fresh_database(args.database) as database_url:
        figures = play_and_check(args, database_url)
    if args.json:
        print(json.dumps(figures))
    else:
        print_report(figures)
    return 1 if figures["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
