"""API speed: the server's CPU time per request of pull clients playing complete games, against a trivial endpoint's.

    .venv/bin/python benchmarks/api.py [--workers N] [--threads 32] [--clients 8] [--client inbox|actions]
        [--games 32] [--game board] [--seats 2] [--seconds 6] [--rounds 3] [--wait 5] [--redis-url URL]
        [--database-url URL] [--json]

It starts gunicorn (gthread, ``--workers`` x ``--threads``, no control socket; by default as ``sorry-arena serve``
runs it: one worker, two with ``--redis-url``, 32 threads each) on 127.0.0.1 with a free port,
serving ``service.app:create_app()`` against a fresh database: by default a SQLite file in a temporary directory
(WAL, as ``store/database.py`` sets it); with ``--database-url postgresql+psycopg://postgres@127.0.0.1:5432`` a fresh
database created on that server and dropped afterwards. ``--redis-url`` sets the service's ``REDIS_URL``, so a
long poll waiting in one gunicorn worker wakes when a move is made in another (without it, the embedded notifier
wakes waiters of its own process only). Both measurements use this one server, so the same gunicorn settings.
Rate limits: the move limit is the service's (``SORRY_ARENA_LIMIT_MOVES``, its default unless set in the
environment), so that what is measured includes its cost; the account limit is off unless set, since every round
registers ``--clients`` players from one address.

Then, ``--rounds`` times, interleaved, with ``--clients`` client processes (multiprocessing, so that the GIL does
not limit the clients; each with one ``requests.Session(trust_env=False)``), for ``--seconds`` each:

- baseline: every client loops ``GET /api/v1/health``.
- games: the clients, in groups of ``--seats`` (one newly registered player per client and round), play complete
  games of ``--game`` between random bots through the API. Accepted (200) move submissions are counted while the
  clock runs; 409s and 5xx responses are counted too (5xx must be 0). Two kinds of pull client:

  - ``inbox`` (default), a bot that plays several games at once: each group keeps ``--games`` games going (its
    first client creates them and seats the group before the clock starts). Every client loops
    ``GET /decisions?wait=W`` (every game where it must decide now, with the ply and its legal actions) and
    answers each with ``POST /games/{id}/actions`` (a random legal action and ``expected_ply``); when that answer
    says it must decide again (``your_decision``), it posts again at once. The client that ends a game creates
    the group's next one and seats the group (inside the clock: those requests count against the moves).
  - ``actions``, a bot that plays one game at a time: every client loops ``GET /games/{id}/actions?wait=W`` and,
    when ``your_decision``, posts an action (again at once while the answer says ``your_decision``). The first
    client of a group creates each game and seats its group. Each waiting long poll holds a gthread thread: with
    as many waiting clients as a worker has threads, the client that must move queues behind them.

What is compared is the server's CPU time per request, which neither the clients' share of the 2 cores nor how
busy the server is changes: the utime + stime of gunicorn's master and workers (``/proc/<pid>/stat``; the master's
cutime + cstime too, so that a worker that was replaced still counts), read when a round's clock starts (every
client set up and connected) and once every client has reported. A round's figure is that CPU time divided by
every request the clients made in it: for the baseline its ``GET /health``; for games every request a pull client
makes, that is its move submissions (``POST /games/{id}/actions``, accepted or not), its decision reads
(``GET /decisions?wait`` or ``GET /games/{id}/actions?wait``) and the games it creates and seats in the round.
The ratio is (CPU per trivial request) / (CPU per game request), the goal at least 0.5; the CPU per accepted move
(everything the round's server did, divided by its moves) and the throughputs are printed beside it, and the
1-minute load average at each round's end; so is the CPU the server uses idle (measured for 3 s after the
rounds), which counts in both figures, more per request the fewer requests a second. It prints the median of each figure over the rounds; ``--json`` prints
one JSON object instead. :func:`rows` measures one or more databases and returns one row per database (for
``benchmarks/scale.py``).
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

from benchmarks.servers import free_port  # noqa: E402

API = "/api/v1"
GOAL = 0.5
IDLE_SECONDS = 3.0
START_SECONDS = 120
"""How long gunicorn may take to answer its first health check: its imports take seconds on a loaded machine."""


# --- the database ---------------------------------------------------------------------------------------------


def create_schema(url: str) -> None:
    """Create the service's tables: through its migrations when they exist, else from the models."""
    try:
        from store.migrate import upgrade  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        from sqlalchemy import create_engine

        from store.models import Base

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


@contextlib.contextmanager
def gunicorn(database_url: str, redis_url: str | None, workers: int, threads: int) -> Iterator[str]:
    """Serve the app with gunicorn on a free port; yield its base URL once /health answers; always stop it."""
    with served(database_url, redis_url, workers, threads) as (base, _):
        yield base


@contextlib.contextmanager
def served(database_url: str, redis_url: str | None, workers: int, threads: int) -> Iterator[tuple[str, int]]:
    """:func:`gunicorn`, yielding its master's pid besides."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    env.setdefault("SORRY_ARENA_LIMIT_ACCOUNTS", "off")  # each round registers --clients players from one address
    env.setdefault("SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY", "off")
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
            yield wait_until_up(process, log, f"http://127.0.0.1:{port}"), process.pid
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
    deadline = time.monotonic() + START_SECONDS
    with new_session() as session:
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"gunicorn exited with {process.returncode}:\n{log.read().decode()[-3000:]}")
            with contextlib.suppress(requests.ConnectionError, requests.Timeout):  # still booting (busy machine)
                if session.get(f"{base}{API}/health", timeout=5).status_code == 200:
                    return base
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not answer /api/v1/health within {START_SECONDS} s")
            time.sleep(0.1)


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def server_cpu_seconds(master: int) -> float:
    """The CPU time (user + system) gunicorn has used so far: its master's (with its ended children's) and its
    live workers' (every thread of each)."""

    def times(pid: int) -> tuple[int, list[int]]:
        """(parent pid, [utime, stime, cutime, cstime]) from /proc/<pid>/stat (the name may hold spaces)."""
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return int(fields[1]), [int(value) for value in fields[11:15]]

    ticks = sum(times(master)[1])
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != master:
            with contextlib.suppress(OSError, ValueError, IndexError):  # a process that ended meanwhile
                parent, used = times(int(entry))
                if parent == master:
                    ticks += used[0] + used[1]
    return ticks / CLOCK_TICKS


# --- the clients ----------------------------------------------------------------------------------------------


def new_session(token: str | None = None) -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # no proxy lookup from the environment per request
    if token is not None:
        session.headers["Authorization"] = f"Bearer {token}"
    return session


def wait_for_start(session: requests.Session, base: str, ready: Any, start: tuple[Any, Any]) -> None:
    """Report this client set up; then, once every client is, open the connection anew and wait for the clock. (An
    idle keep-alive connection is closed by gunicorn after 2 s: a client that waited longer for the others' setup
    would find its connection reset.)"""
    ready.put("set up")
    start[0].wait()
    session.get(f"{base}{API}/health")
    ready.put("connected")
    start[1].wait()


def health_client(base: str, ready: Any, start: Any, seconds: float, results: Any) -> None:
    """Loop GET /health for ``seconds`` from the common start; report (200s, other statuses, 5xx)."""
    session = new_session()
    url = f"{base}{API}/health"
    ok = other = errors = 0
    wait_for_start(session, base, ready, start)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = session.get(url).status_code
        if status == 200:
            ok += 1
        else:
            other += 1
            errors += status >= 500
    results.put({"ok": ok, "other": other, "5xx": errors})


class GamePlayer:
    """One client's player: its session, its random bot and its counts; it can create and seat its group's games."""

    def __init__(self, base: str, tokens: list[str], seat: int, game: str, seed: int) -> None:
        self.base = base
        self.tokens = tokens
        self.game = game
        self.rng = random.Random(seed)
        self.session = new_session(tokens[seat])
        self.deadline = float("inf")
        self.counts = {"moves": 0, "409": 0, "5xx": 0, "other": 0, "games_done": 0, "requests": 0}

    def check(self, response: requests.Response, expected: int) -> dict[str, Any]:
        self.counts["requests"] += 1
        if response.status_code != expected:
            raise RuntimeError(f"{response.request.method} {response.url}: {response.status_code} {response.text}")
        body: dict[str, Any] = response.json()
        return body

    def create_game(self) -> int:
        """A new game of the group, every member seated (by its own token)."""
        body = {"game": self.game, "seats": len(self.tokens), "seed": self.rng.getrandbits(62)}
        game_id: int = self.check(self.session.post(f"{self.base}{API}/games", json=body), 201)["id"]
        for number, token in enumerate(self.tokens):
            self.check(
                self.session.post(
                    f"{self.base}{API}/games/{game_id}/seats",
                    json={"seat": number},
                    headers={"Authorization": f"Bearer {token}"},
                ),
                201,
            )
        return game_id

    def play(self, game_id: int, ply: int, actions: list[dict[str, Any]]) -> str | None:
        """Answer a decision, and the next ones while the answer says it is still this seat's turn; the game's
        status after the last accepted action (``None`` if refused)."""
        while True:
            action = self.rng.choice(actions)["id"]
            response = self.session.post(
                f"{self.base}{API}/games/{game_id}/actions", json={"action": action, "expected_ply": ply}
            )
            self.counts["requests"] += 1
            if response.status_code != 200:
                status = response.status_code
                key = "409" if status == 409 else "5xx" if status >= 500 else "other"
                self.counts[key] += 1
                return None
            if time.monotonic() <= self.deadline:
                self.counts["moves"] += 1
            moved = response.json()
            if moved["status"] == "over" or not moved["your_decision"]:
                return str(moved["status"])
            ply, actions = moved["ply"], moved["actions"]


def inbox_client(
    base: str,
    tokens: list[str],
    seat: int,
    game: str,
    games: int,
    ready: Any,
    start: Any,
    seconds: float,
    wait: float,
    seed: int,
    results: Any,
) -> None:
    """Play seat ``seat`` of ``games`` games at once through the decisions inbox; seat 0 creates the first ones,
    and whoever ends a game creates the group's next."""
    player = GamePlayer(base, tokens, seat, game, seed)
    if seat == 0:
        for _ in range(games):
            player.create_game()
    player.counts.update(requests=0)
    wait_for_start(player.session, base, ready, start)
    player.deadline = time.monotonic() + seconds
    while (now := time.monotonic()) < player.deadline:
        response = player.session.get(
            f"{base}{API}/decisions", params={"wait": round(min(wait, player.deadline - now), 3)}
        )
        if response.status_code >= 500:
            player.counts["requests"] += 1
            player.counts["5xx"] += 1
            continue
        for decision in player.check(response, 200)["decisions"]:
            status = player.play(decision["game_id"], decision["ply"], decision["actions"])
            if status == "over":
                player.counts["games_done"] += 1
                if time.monotonic() < player.deadline:
                    player.create_game()
    results.put(player.counts)


def actions_client(
    base: str,
    tokens: list[str],
    seat: int,
    game: str,
    inbox: Any,
    outboxes: list[Any],
    ready: Any,
    start: Any,
    seconds: float,
    wait: float,
    seed: int,
    results: Any,
) -> None:
    """Play seat ``seat`` of a group's games, one at a time, for ``seconds``; seat 0 creates each game and seats
    the group."""
    player = GamePlayer(base, tokens, seat, game, seed)

    def next_game() -> int | None:
        """The group's next game (None: the run is over first); seat 0 creates it and seats the group."""
        if seat == 0:
            game_id = player.create_game()
            for outbox in outboxes:
                outbox.put(game_id)
            return game_id
        try:
            announced: int = inbox.get(timeout=max(0.0, player.deadline - time.monotonic()) + 1.0)
        except queue.Empty:
            return None
        return announced

    wait_for_start(player.session, base, ready, start)
    player.deadline = time.monotonic() + seconds
    game_id = next_game()
    while game_id is not None and (now := time.monotonic()) < player.deadline:
        response = player.session.get(
            f"{base}{API}/games/{game_id}/actions", params={"wait": round(min(wait, player.deadline - now), 3)}
        )
        if response.status_code >= 500:
            player.counts["requests"] += 1
            player.counts["5xx"] += 1
            continue
        asked = player.check(response, 200)
        if asked["status"] != "over" and asked["your_decision"]:
            if player.play(game_id, asked["ply"], asked["actions"]) != "over":
                continue
        elif asked["status"] != "over":
            continue  # the long poll timed out (or woke for another seat's decision)
        if seat == 0:
            player.counts["games_done"] += 1
        game_id = next_game()
    results.put(player.counts)


def reporting(target: Any, args: tuple[Any, ...], results: Any) -> None:
    """Run a client; on failure, report the traceback instead of its counts so that the run stops at once."""
    try:
        target(*args)
    except BaseException:
        results.put({"error": traceback.format_exc()})
        raise


def run_clients(
    targets: list[tuple[Any, tuple[Any, ...]]],
    context: Any,
    ready: Any,
    start: Any,
    results: Any,
    master: int | None = None,
) -> tuple[list[dict[str, Any]], float]:
    """Run the clients; their reports, and the server's CPU seconds from the clock's start to the last report
    (gunicorn's, ``master`` its pid; 0 without one)."""
    cpu_of = (lambda: server_cpu_seconds(master)) if master is not None else (lambda: 0.0)
    processes = [
        context.Process(target=reporting, args=(target, args, results), daemon=True) for target, args in targets
    ]
    for process in processes:
        process.start()
    try:
        for gate in start:  # every client set up (its first games made), then connected, before the clock starts
            for _ in processes:
                ready.get(timeout=120)
            if gate is start[-1]:
                started = cpu_of()
            gate.set()
        reports = [results.get(timeout=120) for _ in processes]
        cpu = cpu_of() - started
    finally:
        for gate in start:
            gate.set()
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()
    failures = [report["error"] for report in reports if "error" in report]
    if failures:
        raise RuntimeError(f"{len(failures)} client(s) failed; the first:\n{failures[0]}")
    return reports, cpu


def register(base: str, count: int, prefix: str) -> list[str]:
    with new_session() as session:
        tokens = []
        for index in range(count):
            response = session.post(f"{base}{API}/players", json={"name": f"{prefix}-{index}"})
            response.raise_for_status()
            tokens.append(response.json()["token"])
        return tokens


def baseline_round(base: str, master: int, args: argparse.Namespace, context: Any) -> dict[str, float]:
    ready, start, results = context.Queue(), (context.Event(), context.Event()), context.Queue()
    targets = [(health_client, (base, ready, start, args.seconds, results)) for _ in range(args.clients)]
    reports, cpu = run_clients(targets, context, ready, start, results, master)
    requests = sum(r["ok"] + r["other"] for r in reports)
    return {
        "requests_per_s": sum(r["ok"] for r in reports) / args.seconds,
        "cpu_us_per_request": 1e6 * cpu / max(1, requests),
        "requests": requests,
        "other": sum(r["other"] for r in reports),
        "5xx": sum(r["5xx"] for r in reports),
    }


def games_round(base: str, master: int, args: argparse.Namespace, context: Any, round_: int) -> dict[str, float]:
    ready, start, results = context.Queue(), (context.Event(), context.Event()), context.Queue()
    tokens = register(base, args.clients, f"bench-{round_}")  # fresh players: no game left over from a round
    targets: list[tuple[Any, tuple[Any, ...]]] = []
    for group in range(args.clients // args.seats):
        members = tokens[group * args.seats : (group + 1) * args.seats]
        inboxes = [context.Queue() for _ in members]
        for seat in range(args.seats):
            seed = args.seed * 1_000_003 + round_ * 1009 + group * 17 + seat
            common = (ready, start, args.seconds, args.wait, seed, results)
            if args.client == "inbox":
                targets.append((inbox_client, (base, members, seat, args.game, args.games, *common)))
            else:
                mail = (inboxes[seat], inboxes[1:] if seat == 0 else [])
                targets.append((actions_client, (base, members, seat, args.game, *mail, *common)))
    reports, cpu = run_clients(targets, context, ready, start, results, master)
    totals = {key: sum(r[key] for r in reports) for key in reports[0]}
    return {
        "moves_per_s": totals["moves"] / args.seconds,
        "requests_per_s": totals["requests"] / args.seconds,
        "cpu_us_per_request": 1e6 * cpu / max(1, totals["requests"]),
        "cpu_us_per_move": 1e6 * cpu / max(1, totals["moves"]),
        "requests": totals["requests"],
        "games_done": totals["games_done"],
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
    parser.add_argument(
        "--workers",
        type=positive(int),
        help="gunicorn workers (default, as `sorry-arena serve`: 2 with Redis, else 1)",
    )
    parser.add_argument(
        "--threads", type=positive(int), default=32, help="gthread threads per worker (default 32, as serve)"
    )
    parser.add_argument("--clients", type=positive(int), default=8, help="client processes (default 8)")
    parser.add_argument(
        "--client",
        choices=["inbox", "actions"],
        default="inbox",
        help="inbox: many games at once through GET /decisions (default); actions: one game at a time",
    )
    parser.add_argument(
        "--games",
        type=positive(int),
        default=32,
        help="inbox clients: games each group plays at once (default 32)",
    )
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
    if args.workers is None:
        args.workers = 2 if args.redis_url else 1
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
    rounds: list[dict[str, float]] = []
    with fresh_database(args.database_url) as database_url:
        create_schema(database_url)
        with served(database_url, args.redis_url, args.workers, args.threads) as (base, master):
            for round_ in range(args.rounds):
                health = baseline_round(base, master, args, context)
                games = games_round(base, master, args, context, round_)
                rounds.append(
                    {
                        "health_requests_per_s": health["requests_per_s"],
                        "health_cpu_us": health["cpu_us_per_request"],
                        **{k: v for k, v in games.items()},
                        "5xx": health["5xx"] + games["5xx"],
                        "ratio": health["cpu_us_per_request"] / games["cpu_us_per_request"],
                        "load1": os.getloadavg()[0],
                    }
                )
            time.sleep(1.0)  # the last long polls end
            before = server_cpu_seconds(master)
            time.sleep(IDLE_SECONDS)  # what the server uses with no request (its maintenance thread...)
            idle = (server_cpu_seconds(master) - before) / IDLE_SECONDS

    def median(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    return {
        "settings": {
            "workers": args.workers,
            "threads": args.threads,
            "clients": args.clients,
            "client": args.client,
            "games_at_once": args.games if args.client == "inbox" else 1,
            "game": args.game,
            "seats": args.seats,
            "seconds": args.seconds,
            "rounds": args.rounds,
            "wait": args.wait,
            "database": database_kind(args.database_url),
            "redis": bool(args.redis_url),
        },
        "health_cpu_us": round(median("health_cpu_us"), 1),
        "game_request_cpu_us": round(median("cpu_us_per_request"), 1),
        "move_cpu_us": round(median("cpu_us_per_move"), 1),
        "ratio": round(median("ratio"), 3),
        "ratio_per_move": round(statistics.median(r["health_cpu_us"] / r["cpu_us_per_move"] for r in rounds), 3),
        "goal": GOAL,
        "health_requests_per_s": round(median("health_requests_per_s"), 1),
        "moves_per_s": round(median("moves_per_s"), 1),
        "game_requests_per_s": round(median("requests_per_s"), 1),
        "games_done": sum(r["games_done"] for r in rounds),
        "409": sum(r["409"] for r in rounds),
        "5xx": sum(r["5xx"] for r in rounds),
        "load1": [round(r["load1"], 2) for r in rounds],
        "idle_cpu_ms_per_s": round(1000 * idle, 1),
        "rounds": [{k: round(v, 3 if k == "ratio" else 1) for k, v in r.items()} for r in rounds],
    }


def database_kind(url: str | None) -> str:
    return "postgresql" if url and url.startswith("postgres") else "sqlite"


def print_table(figures: dict[str, Any]) -> None:
    s = figures["settings"]
    print(
        f"gunicorn gthread {s['workers']} workers x {s['threads']} threads, {s['database']}"
        f"{' + redis' if s['redis'] else ''}; {s['clients']} {s['client']} client processes, "
        f"{s['games_at_once']} {s['seats']}-player {s['game']} game(s) at once per group; "
        f"{s['rounds']} rounds of {s['seconds']:g} s; server CPU in us per request"
    )
    print(
        f"{'round':>5}  {'health us':>9}  {'game req us':>11}  {'move us':>7}  {'ratio':>5}  {'health/s':>8}"
        f"  {'moves/s':>7}  {'game req/s':>10}  {'games':>5}  {'409':>4}  {'5xx':>4}  {'load1':>5}"
    )
    for number, r in enumerate(figures["rounds"], 1):
        print(
            f"{number:>5}  {r['health_cpu_us']:>9,.0f}  {r['cpu_us_per_request']:>11,.0f}  {r['cpu_us_per_move']:>7,.0f}"
            f"  {r['ratio']:>5.2f}  {r['health_requests_per_s']:>8,.0f}  {r['moves_per_s']:>7,.0f}"
            f"  {r['requests_per_s']:>10,.0f}  {r['games_done']:>5g}  {r['409']:>4g}  {r['5xx']:>4g}  {r['load1']:>5.2f}"
        )
    print(
        f"{'median':>5}  {figures['health_cpu_us']:>9,.0f}  {figures['game_request_cpu_us']:>11,.0f}"
        f"  {figures['move_cpu_us']:>7,.0f}  {figures['ratio']:>5.2f}  {figures['health_requests_per_s']:>8,.0f}"
        f"  {figures['moves_per_s']:>7,.0f}  {figures['game_requests_per_s']:>10,.0f}"
    )
    verdict = "met" if figures["ratio"] >= GOAL else "NOT met"
    print(
        f"server CPU per trivial request / per pull client's game request (its moves, decision reads and game "
        f"set-ups): {figures['ratio']} (goal >= {GOAL}: {verdict}); per accepted move, everything included: "
        f"{figures['ratio_per_move']}; 409s: {figures['409']}, 5xx: {figures['5xx']}"
    )
    print(
        f"the server idle (included above, as it ran during the rounds): {figures['idle_cpu_ms_per_s']} ms of CPU "
        f"per second"
    )


def rows(database_urls: list[str | None], argv: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per database (``None``: SQLite; else a server URL, as ``--database-url``), measured with the
    command's options ``argv`` (without ``--database-url``): what is compared, the CPU figures, the goal, whether
    it is met and the load averages."""
    found = []
    for url in database_urls:
        args = parse_args([*(argv or []), *([] if url is None else ["--database-url", url])])
        figures = measure(args)
        found.append(
            {
                "what": "server CPU per trivial request / per pull client's game request",
                "database": figures["settings"]["database"],
                "health_cpu_us": figures["health_cpu_us"],
                "game_request_cpu_us": figures["game_request_cpu_us"],
                "move_cpu_us": figures["move_cpu_us"],
                "ratio": figures["ratio"],
                "ratio_per_move": figures["ratio_per_move"],
                "goal": GOAL,
                "met": figures["ratio"] >= GOAL,
                "5xx": figures["5xx"],
                "load1": figures["load1"],
                "idle_cpu_ms_per_s": figures["idle_cpu_ms_per_s"],
            }
        )
    return found


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print(f"load average at the start: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    figures = measure(args)
    if args.json:
        print(json.dumps(figures))
    else:
        print_table(figures)
    return 1 if figures["5xx"] else 0


if __name__ == "__main__":
    sys.exit(main())
