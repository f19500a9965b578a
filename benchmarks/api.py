"""API speed: move submissions/s of complete games played by pull clients, against a trivial endpoint's requests/s.

    .venv/bin/python benchmarks/api.py [--workers 2] [--threads 4] [--clients 8] [--game board] [--seats 2]
        [--seconds 6] [--rounds 3] [--wait 5] [--redis-url URL] [--database-url URL] [--json]

It starts gunicorn (gthread, ``--workers`` x ``--threads``, no control socket) on 127.0.0.1 with a free port,
serving ``service.app:create_app()`` against a fresh database: by default a SQLite file in a temporary directory
(WAL, as ``service/db.py`` sets it); with ``--database-url postgresql+psycopg://postgres@127.0.0.1:5432`` a fresh
database created on that server and dropped afterwards. ``--redis-url`` sets the service's ``REDIS_URL``, so a
long poll waiting in one gunicorn worker wakes when a move is made in another (without it, the embedded notifier
wakes waiters of its own process only). Each waiting long poll holds a gthread thread: with as many waiting
clients as a worker has threads, the client that must move queues behind them until their ?wait= runs out.

Then, ``--rounds`` times, interleaved, with ``--clients`` client processes (multiprocessing, so that the GIL does
not limit the clients; each with one ``requests.Session(trust_env=False)``), for ``--seconds`` each:

- baseline: every client loops ``GET /api/v1/health``; the figure is 200 responses per second.
- games: the clients, in groups of ``--seats``, play complete games of ``--game`` between random bots through the
  API. The first client of a group creates each game and seats its group (one registered player per client); then
  every client loops ``GET /games/{id}/actions?wait=W`` and, when ``your_decision``, ``POST /games/{id}/actions``
  with a random legal action and ``expected_ply``. When a game is over, its group moves on to a new one. The
  figure is accepted (200) move submissions per second; 409s and 5xx responses are counted too (5xx must be 0).

It prints the median of each figure and the ratio "move submissions/s as a fraction of the trivial endpoint's
requests/s" (the goal is at least 0.5); ``--json`` prints one JSON object instead. The machine is shared and
noisy: compare the ratio, measured in one run, rather than absolute figures across runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import queue
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

API = "/api/v1"
GOAL = 0.5


# --- the database ---------------------------------------------------------------------------------------------


def create_schema(url: str) -> None:
    """Create the service's tables: through its migrations when they exist, else from the models."""
    try:
        from service.migrate import upgrade  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        from sqlalchemy import create_engine

        from service.models import Base

        engine = create_engine(url)
        try:
            Base.metadata.create_all(engine)
        finally:
            engine.dispose()
    else:
        upgrade(url)


@contextlib.contextmanager
def fresh_database(server_url: str | None) -> Iterator[str]:
    """The URL of an empty database: a SQLite file in a temporary directory, or a new PostgreSQL database on
    ``server_url``'s server (dropped afterwards). Any other URL is used as it is."""
    if server_url is None:
        directory = tempfile.mkdtemp(prefix="sorry-arena-bench-")
        try:
            yield f"sqlite:///{directory}/bench.db"
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = make_url(server_url)
    if url.drivername in ("postgres", "postgresql"):
        url = url.set(drivername="postgresql+psycopg")  # as the service does: psycopg 3 is the installed driver
    if not url.drivername.startswith("postgresql"):
        yield server_url
        return
    name = f"sorry_arena_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url.set(database=url.database or "postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield url.set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


# --- the server -----------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def gunicorn(database_url: str, redis_url: str | None, workers: int, threads: int) -> Iterator[str]:
    """Serve the app with gunicorn on a free port; yield its base URL once /health answers; always stop it."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    if redis_url:
        env["REDIS_URL"] = redis_url
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers),
        "--threads", str(threads),
        "--worker-class", "gthread",
        "--no-control-socket",
        "--log-level", "warning",
        "service.app:create_app()",
    ]  # fmt: skip
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            yield wait_until_up(process, log, f"http://127.0.0.1:{port}")
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.seek(0)
            text = log.read().decode(errors="replace")
            if any(word in text for word in ("Traceback", "ERROR", "TIMEOUT")):
                print(f"gunicorn's log (its end):\n{text[-4000:]}", file=sys.stderr)


def wait_until_up(process: subprocess.Popen[bytes], log: Any, base: str) -> str:
    deadline = time.monotonic() + 30
    with new_session() as session:
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"gunicorn exited with {process.returncode}:\n{log.read().decode()[-3000:]}")
            with contextlib.suppress(requests.ConnectionError):
                if session.get(f"{base}{API}/health", timeout=2).status_code == 200:
                    return base
            if time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not answer /api/v1/health within 30 s")
            time.sleep(0.1)


# --- the clients ----------------------------------------------------------------------------------------------


def new_session(token: str | None = None) -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # no proxy lookup per request (MEASURED.md: 1.13-1.37x)
    if token is not None:
        session.headers["Authorization"] = f"Bearer {token}"
    return session


def health_client(base: str, start: Any, seconds: float, results: Any) -> None:
    """Loop GET /health for ``seconds`` from the common start; report (200s, other statuses, 5xx)."""
    session = new_session()
    url = f"{base}{API}/health"
    session.get(url)  # open the connection before the clock starts
    ok = other = errors = 0
    start.wait()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = session.get(url).status_code
        if status == 200:
            ok += 1
        else:
            other += 1
            errors += status >= 500
    results.put({"ok": ok, "other": other, "5xx": errors})


def game_client(
    base: str,
    tokens: list[str],
    seat: int,
    game: str,
    inbox: Any,
    outboxes: list[Any],
    start: Any,
    seconds: float,
    wait: float,
    seed: int,
    results: Any,
) -> None:
    """Play seat ``seat`` of a group's games for ``seconds``; seat 0 creates each game and seats the group."""
    rng = random.Random(seed)
    session = new_session(tokens[seat])
    counts = {"moves": 0, "409": 0, "5xx": 0, "other": 0, "games_done": 0, "requests": 0}

    def check(response: requests.Response, expected: int) -> dict[str, Any]:
        counts["requests"] += 1
        if response.status_code != expected:
            raise RuntimeError(f"{response.request.method} {response.url}: {response.status_code} {response.text}")
        body: dict[str, Any] = response.json()
        return body

    def next_game() -> int | None:
        """The group's next game (None: the run is over first); seat 0 creates it and seats the group."""
        if seat == 0:
            created = check(
                session.post(
                    f"{base}{API}/games", json={"game": game, "seats": len(tokens), "seed": rng.getrandbits(62)}
                ),
                201,
            )
            game_id: int = created["id"]
            for number, token in enumerate(tokens):
                check(
                    session.post(
                        f"{base}{API}/games/{game_id}/seats",
                        json={"seat": number},
                        headers={"Authorization": f"Bearer {token}"},
                    ),
                    201,
                )
            for outbox in outboxes:
                outbox.put(game_id)
            return game_id
        try:
            announced: int = inbox.get(timeout=max(0.0, deadline - time.monotonic()) + 1.0)
        except queue.Empty:
            return None
        return announced

    session.get(f"{base}{API}/health")  # open the connection before the clock starts
    start.wait()
    began = time.monotonic()
    deadline = began + seconds
    game_id = next_game()
    while game_id is not None and (now := time.monotonic()) < deadline:
        response = session.get(
            f"{base}{API}/games/{game_id}/actions", params={"wait": round(min(wait, deadline - now), 3)}
        )
        counts["requests"] += 1
        if response.status_code >= 500:
            counts["5xx"] += 1
            continue
        asked = check(response, 200)
        if asked["status"] == "over":
            counts["games_done"] += 1
            game_id = next_game()
            continue
        if not asked["your_decision"]:
            continue  # the long poll timed out (or woke for another seat's decision)
        action = rng.choice(asked["actions"])["id"]
        response = session.post(
            f"{base}{API}/games/{game_id}/actions", json={"action": action, "expected_ply": asked["ply"]}
        )
        counts["requests"] += 1
        if response.status_code == 200:
            if time.monotonic() <= deadline:
                counts["moves"] += 1
        elif response.status_code == 409:
            counts["409"] += 1
        elif response.status_code >= 500:
            counts["5xx"] += 1
        else:
            counts["other"] += 1
    results.put(counts)


def reporting(target: Any, args: tuple[Any, ...], results: Any) -> None:
    """Run a client; on failure, report the traceback instead of its counts so that the run stops at once."""
    try:
        target(*args)
    except BaseException:
        results.put({"error": traceback.format_exc()})
        raise


def run_clients(
    targets: list[tuple[Any, tuple[Any, ...]]], context: Any, start: Any, results: Any
) -> list[dict[str, Any]]:
    processes = [
        context.Process(target=reporting, args=(target, args, results), daemon=True) for target, args in targets
    ]
    for process in processes:
        process.start()
    time.sleep(0.3)  # let every client connect before the clock starts
    start.set()
    try:
        reports = [results.get(timeout=120) for _ in processes]
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()
    failures = [report["error"] for report in reports if "error" in report]
    if failures:
        raise RuntimeError(f"{len(failures)} client(s) failed; the first:\n{failures[0]}")
    return reports


def register(base: str, count: int) -> list[str]:
    with new_session() as session:
        tokens = []
        for index in range(count):
            response = session.post(f"{base}{API}/players", json={"name": f"bench-{index}"})
            response.raise_for_status()
            tokens.append(response.json()["token"])
        return tokens


def baseline_round(base: str, args: argparse.Namespace, context: Any) -> dict[str, float]:
    start, results = context.Event(), context.Queue()
    targets = [(health_client, (base, start, args.seconds, results)) for _ in range(args.clients)]
    reports = run_clients(targets, context, start, results)
    return {
        "requests_per_s": sum(r["ok"] for r in reports) / args.seconds,
        "other": sum(r["other"] for r in reports),
        "5xx": sum(r["5xx"] for r in reports),
    }


def games_round(
    base: str, tokens: list[str], args: argparse.Namespace, context: Any, round_: int
) -> dict[str, float]:
    start, results = context.Event(), context.Queue()
    targets = []
    for group in range(args.clients // args.seats):
        members = tokens[group * args.seats : (group + 1) * args.seats]
        inboxes = [context.Queue() for _ in members]
        for seat in range(args.seats):
            seed = args.seed * 1_000_003 + round_ * 1009 + group * 17 + seat
            targets.append(
                (
                    game_client,
                    (base, members, seat, args.game, inboxes[seat], inboxes[1:] if seat == 0 else [],
                     start, args.seconds, args.wait, seed, results),
                )
            )  # fmt: skip
    reports = run_clients(targets, context, start, results)
    totals = {key: sum(r[key] for r in reports) for key in reports[0]}
    return {
        "moves_per_s": totals["moves"] / args.seconds,
        "requests_per_s": totals["requests"] / args.seconds,
        "games_done": totals["games_done"] / args.seats,
        "409": totals["409"],
        "5xx": totals["5xx"],
        "other": totals["other"],
    }


# --- the command ----------------------------------------------------------------------------------------------


def positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value

    parse.__name__ = kind.__name__
    return parse


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=positive(int), default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--threads", type=positive(int), default=4, help="gthread threads per worker (default 4)")
    parser.add_argument("--clients", type=positive(int), default=8, help="client processes (default 8)")
    parser.add_argument(
        "--game", choices=["board", "card"], default="board", help="the game played (default board)"
    )
    parser.add_argument("--seats", type=int, choices=[2, 3, 4], default=2, help="players per game (default 2)")
    parser.add_argument("--seconds", type=positive(float), default=6.0, help="length of each run (default 6)")
    parser.add_argument("--rounds", type=positive(int), default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--wait", type=positive(float), default=5.0, help="long poll ?wait= seconds (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games and of the random bots")
    parser.add_argument(
        "--database-url",
        help="a PostgreSQL server URL (a fresh database is created on it and dropped after); default: SQLite",
    )
    parser.add_argument("--redis-url", help="the service's REDIS_URL (long polls wake across workers)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.clients % args.seats:
        parser.error(f"--clients ({args.clients}) must be a multiple of --seats ({args.seats})")
    if args.wait > 30:
        parser.error("--wait must be at most 30 (the API's limit)")
    if args.workers > 1 and not args.redis_url:
        print(
            "note: several workers without --redis-url: a long poll wakes only for moves made in its own worker; "
            "the others wait out their ?wait=",
            file=sys.stderr,
        )
    return args


def measure(args: argparse.Namespace) -> dict[str, Any]:
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    baselines: list[dict[str, float]] = []
    games: list[dict[str, float]] = []
    with fresh_database(args.database_url) as database_url:
        create_schema(database_url)
        with gunicorn(database_url, args.redis_url, args.workers, args.threads) as base:
            tokens = register(base, args.clients)
            for round_ in range(args.rounds):
                baselines.append(baseline_round(base, args, context))
                games.append(games_round(base, tokens, args, context, round_))
    health = statistics.median(b["requests_per_s"] for b in baselines)
    moves = statistics.median(g["moves_per_s"] for g in games)
    return {
        "settings": {
            "workers": args.workers,
            "threads": args.threads,
            "clients": args.clients,
            "game": args.game,
            "seats": args.seats,
            "seconds": args.seconds,
            "rounds": args.rounds,
            "wait": args.wait,
            "database": "postgresql"
            if args.database_url and args.database_url.startswith("postgres")
            else "sqlite",
            "redis": bool(args.redis_url),
        },
        "health_requests_per_s": round(health, 1),
        "moves_per_s": round(moves, 1),
        "game_requests_per_s": round(statistics.median(g["requests_per_s"] for g in games), 1),
        "ratio": round(moves / health, 3) if health else None,
        "goal": GOAL,
        "games_done": sum(g["games_done"] for g in games),
        "409": sum(g["409"] for g in games),
        "5xx": sum(g["5xx"] for g in games) + sum(b["5xx"] for b in baselines),
        "rounds": [
            {"health_requests_per_s": round(b["requests_per_s"], 1), **{k: round(v, 1) for k, v in g.items()}}
            for b, g in zip(baselines, games, strict=True)
        ],
    }


def print_table(figures: dict[str, Any]) -> None:
    s = figures["settings"]
    print(
        f"gunicorn gthread {s['workers']} workers x {s['threads']} threads, {s['database']}"
        f"{' + redis' if s['redis'] else ''}; {s['clients']} client processes; {s['seats']}-player {s['game']} games; "
        f"{s['rounds']} rounds of {s['seconds']:g} s"
    )
    print(
        f"{'round':>5}  {'health req/s':>12}  {'moves/s':>8}  {'game req/s':>10}  {'games':>5}  {'409':>4}  {'5xx':>4}"
    )
    for number, r in enumerate(figures["rounds"], 1):
        print(
            f"{number:>5}  {r['health_requests_per_s']:>12,.1f}  {r['moves_per_s']:>8,.1f}  {r['requests_per_s']:>10,.1f}"
            f"  {r['games_done']:>5g}  {r['409']:>4g}  {r['5xx']:>4g}"
        )
    print(
        f"median  {figures['health_requests_per_s']:>10,.1f}  {figures['moves_per_s']:>8,.1f}  "
        f"{figures['game_requests_per_s']:>10,.1f}"
    )
    verdict = "met" if figures["ratio"] is not None and figures["ratio"] >= GOAL else "NOT met"
    print(
        f"move submissions/s as a fraction of the trivial endpoint's requests/s: {figures['ratio']} "
        f"(goal >= {GOAL}: {verdict}); 409s: {figures['409']}, 5xx: {figures['5xx']}"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    figures = measure(args)
    if args.json:
        print(json.dumps(figures))
    else:
        print_table(figures)
    return 1 if figures["5xx"] else 0


if __name__ == "__main__":
    sys.exit(main())
