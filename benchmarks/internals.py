"""The library internals the project leaned on, each against the library's public API: CPU per unit of work of the
internal variant and of the plain one, measured in interleaved rounds in one run (medians, the 1-minute load
average beside them). docs/performance.md, "Library internals: kept or replaced", holds the figures and decisions.

    .venv/bin/python benchmarks/internals.py botcall --internal-root OLD [--rounds 5] [--seconds 2] [--threads 8]
    .venv/bin/python benchmarks/internals.py worker [--internal-root OLD] [--rounds 5] [--jobs 300]
    .venv/bin/python benchmarks/internals.py database --internal-root OLD [--rounds 5] [--games 4]
    .venv/bin/python benchmarks/internals.py groupcommit [--rounds 5] [--threads 8] [--moves 100]

(``worker``, ``database`` and ``groupcommit`` on SQLite and on PostgreSQL: ``--database-url`` names the server,
default postgresql+psycopg://postgres@127.0.0.1:5432, where a database of the benchmark's own is created and
dropped; ``''``: SQLite only; ``--no-sqlite``: PostgreSQL only). ``OLD`` is a checkout of the code that used the
internals, e.g. ``git archive 625f2f8 | tar -x -C /tmp/before``: a variant replaced by the public API lives on only
there, and each measurement runs in a process of its own from its checkout (as ``benchmarks/tournament.py
--compare-root``). The gain printed is the first variant's CPU over the other's: 1.1 is a tenth less CPU per unit.

- ``botcall``: botlink's call to a push bot (``BotConnection.move`` with a real move request, ``--threads`` threads
  on their own connections to two bots, as a worker's game slots call): CPU of the calling threads per call.
  ``OLD``'s rewired urllib3 connections (one write per request, a socket subclass without timeout, no poll) against
  this checkout's public ``urllib3.connection.HTTPConnection`` and its watchdog.
- ``worker``: the RQ worker's CPU per game job (``--jobs`` jobs of games that are not there to play, so each is the
  worker's bookkeeping of a job, a look-up of its game and the queue's top-up) for this checkout's worker and, in
  the same checkout, the same worker with RQ's own lifecycle of a job, heartbeat, state and suspension check
  (:class:`PlainWorker`: what RQ's documented ``SimpleWorker`` does); with ``OLD``, its worker too (whose look-up
  and top-up ran the fast lane's compiled statements).
- ``database``: the statements of a move: a worker's saves of a game, 64 moves per transaction (``gamelog.advance``
  + ``save`` + commit, and a game's creation), CPU per move, ``OLD``'s fast lane (statements compiled once, run on
  a DB-API cursor, reading private attributes of SQLAlchemy's compiler) against this checkout's plain Core
  (``connection.execute``); and a pull bot's move through the API (``GET`` then ``POST .../actions`` on a Flask
  test client), CPU per move of the service's process, this checkout's request lane (compiled) against
  :class:`PlainLane` (SQLAlchemy's public API).
- ``groupcommit``: ``--threads`` threads each saving one-move writes of a game of its own through the process's
  writer (``store.groupcommit``: the moves that come together saved in one transaction), against a transaction per
  write, in this checkout: moves/s and the process's CPU per move (and the PostgreSQL server's).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rq import SimpleWorker  # noqa: E402
from sqlalchemy.exc import IntegrityError  # noqa: E402

from benchmarks.servers import end_on_sigterm, own_redis  # noqa: E402
from benchmarks.tournament import (  # noqa: E402
    bare_calls_of,
    cpu_seconds,
    load_average,
    move_payload,
    own_database,
    push_bots,
)
from runtime.jobqueue import GAME_JOB, QUEUE_NAME  # noqa: E402
from tournament.dispatch.worker import ArenaWorker  # noqa: E402

DEFAULT_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"


def medians(found: list[dict[str, Any]]) -> dict[str, float]:
    """The median over the rounds of each figure (and of each ratio, taken within its round)."""
    keys = [key for key in found[0] if key != "round"]
    return {key: round(statistics.median(row[key] for row in found), 3) for key in keys}


def interleaved(
    measurements: dict[str, Callable[[], float]], rounds: int, unit: str
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """``rounds`` rounds of every measurement (in order in odd rounds, reversed in even ones, so that a drift of
    the machine's load falls on all alike); each round's figures, the gain of each over the first (the first's CPU
    over its own: 1.1 is a tenth less CPU per unit than the first's), the load."""
    found: list[dict[str, Any]] = []
    names = list(measurements)
    for number in range(rounds):
        row: dict[str, Any] = {"round": number + 1}
        for name in names if number % 2 == 0 else reversed(names):
            row[f"{name}_{unit}"] = round(measurements[name](), 2)
        for name in names[1:]:
            row[f"{name}_gain"] = round(row[f"{names[0]}_{unit}"] / row[f"{name}_{unit}"], 3)
        row["load"] = load_average()
        found.append(row)
        print("  " + "  ".join(f"{key} {value}" for key, value in row.items()), file=sys.stderr, flush=True)
    return found, medians(found)


# --- botcall ---------------------------------------------------------------------------------------------------


def botcall(internal_root: Path, rounds: int, seconds: float, threads: int) -> dict[str, Any]:
    """CPU per call of each variant's bare client (``benchmarks.tournament.bare_calls`` in its checkout)."""
    payload = move_payload("board")
    with push_bots(2) as running:
        urls = [url for url, _ in running]

        def measure(root: Path) -> Callable[[], float]:
            def cpu_per_call() -> float:
                timed = bare_calls_of(root, urls, payload, threads, seconds)
                return timed.cpu_seconds / timed.calls * 1e6

            return cpu_per_call

        found, median = interleaved(
            {"plain": measure(ROOT), "internal": measure(internal_root)}, rounds, "us_per_call"
        )
    return {"rounds": found, "median": median}


# --- worker ----------------------------------------------------------------------------------------------------


class PlainWorker(ArenaWorker):
    """The project's worker with RQ's own handling of a job, heartbeat, state and suspension check (what
    ``SimpleWorker`` does): a game's job goes through RQ's lifecycle (``perform_job``: its registries, its
    execution record, its result), every heartbeat and state is written, every dequeue checks for a suspension.
    The worker's own needs stay (its slots, its warm stop, its watch for a lost Redis, its recovery)."""

    def hand_over(self, job: Any, queue: Any) -> None:
        SimpleWorker.execute_job(self, job, queue)

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        self._last_beat = float("-inf")  # no beat skipped
        super().heartbeat(timeout, pipeline)

    def set_state(self, state: str, pipeline: Any = None) -> None:
        SimpleWorker.set_state(self, state, pipeline)

    def handle_execution_ended(self, job: Any, queue: Any, heartbeat_ttl: int) -> None:
        SimpleWorker.handle_execution_ended(self, job, queue, heartbeat_ttl)

    def check_for_suspension(self, burst: bool) -> None:
        self._suspension_checked = float("-inf")
        super().check_for_suspension(burst)


WORKER_CHILD = (
    "import sys\n"
    "sys.path.insert(0, '.')\n"
    "from tournament.dispatch import worker\n"
    "if sys.argv[1] == 'plain':\n"
    "    from benchmarks.internals import PlainWorker\n"
    "    worker.ArenaWorker = PlainWorker\n"
    "worker.run(burst=False, with_clock=False, maintenance_interval=3600, games=8)\n"
)
"""A worker process of the checkout it runs in: its own worker, or (``plain``) :class:`PlainWorker`."""


def worker_jobs(root: Path, variant: str, database_url: str, redis_url: str, jobs: int) -> float:
    """The CPU of a worker process (of the checkout at ``root``) per game job, over ``jobs`` jobs of games that
    are not there to play (each job: the worker's bookkeeping, a look-up of its game, the queue's top-up)."""
    import redis
    from rq import Queue, Worker
    from rq.job import Job, JobStatus

    connection = redis.Redis.from_url(redis_url)
    queue = Queue(QUEUE_NAME, connection=connection)
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url, "SORRY_ARENA_BOT_ALLOW": "loopback"}
    process = subprocess.Popen(
        [sys.executable, "-c", WORKER_CHILD, variant],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120  # its imports take seconds on a loaded machine
        while not Worker.all(connection=connection):
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"the worker of {root} did not start")
            time.sleep(0.05)
        ids = [f"bench-{variant}-{number}-{time.monotonic_ns()}" for number in range(jobs)]
        started = cpu_seconds([process.pid])
        with connection.pipeline() as pipeline:
            for number, job_id in enumerate(ids):
                queue.enqueue(GAME_JOB, 10**9 + number, [], job_id=job_id, pipeline=pipeline)
            pipeline.execute()
        while True:
            statuses = [job.get_status(refresh=False) if job else None for job in Job.fetch_many(ids, connection)]
            if all(status in (JobStatus.FINISHED, JobStatus.FAILED) for status in statuses):
                break
            if process.poll() is not None:
                raise RuntimeError("the worker ended")
            time.sleep(0.1)
        used = cpu_seconds([process.pid]) - started
    finally:
        process.terminate()
        process.wait(20)
        connection.flushdb()  # the benchmark's own Redis: its workers, jobs and registries
        connection.close()
    return used / jobs * 1e6


def worker(
    internal_root: Path | None, rounds: int, jobs: int, server_url: str | None, sqlite: bool
) -> dict[str, Any]:
    """Per database (PostgreSQL at ``server_url``, SQLite): the rounds of each variant's CPU per game job."""
    found: dict[str, Any] = {}
    for server in [*([server_url] if server_url else []), *([None] if sqlite else [])]:
        kind = "sqlite" if server is None else "postgresql"
        print(f"{kind}:", file=sys.stderr, flush=True)
        with own_redis(None) as redis_url, own_database(server) as database_url:
            variants: dict[str, Callable[[], float]] = {
                "plain": functools.partial(worker_jobs, ROOT, "plain", database_url, redis_url, jobs),
                "internal": functools.partial(worker_jobs, ROOT, "own", database_url, redis_url, jobs),
            }
            if internal_root is not None:
                variants["old"] = functools.partial(
                    worker_jobs, internal_root, "own", database_url, redis_url, jobs
                )
            rows, median = interleaved(variants, rounds, "us_per_job")
        found[f"{kind}_worker"] = {"rounds": rows, "median": median}
    return found


# --- database --------------------------------------------------------------------------------------------------

DATABASE_MEASURED = """
import json, os, sys, time
sys.path.insert(0, '.')
import engine
from store import gamelog
from store.database import make_engine, sessions
from store.models import Player

def saves(url, games):
    # a worker's saves: each game created, then its moves saved 64 to a transaction (the writes made beforehand)
    database = make_engine(url)
    cpu = moves = 0
    with sessions(database)() as session:
        players = [Player(name=f"saver{n}-{time.monotonic_ns()}", token_hash=f"{n:032x}{time.monotonic_ns():032x}")
                   for n in range(2)]
        session.add_all(players)
        session.commit()
        ids = [player.id for player in players]
        for number in range(games):
            state = engine.new_game("board", {"players": 2}, number)
            started = time.process_time()
            game = gamelog.create(session, "board", {"players": 2}, number, 2, ids[0], ids)
            session.commit()
            cpu += time.process_time() - started
            writes, batch, ply = [], [], 0
            while (asked := engine.decision(state)) is not None:
                action = engine.legal_actions(state, asked.seat)[0].id
                engine.apply(state, action, asked.seat, events=False)
                batch.append(gamelog.Move(ply, asked.seat, action, 1.5))
                ply += 1
                if len(batch) == 64 or engine.decision(state) is None:
                    writes.append(gamelog.advance(game.id, batch, state, engine.result(state)))
                    batch = []
            started = time.process_time()
            for write in writes:
                assert gamelog.save(session, write)
                session.commit()
            cpu += time.process_time() - started
            moves += ply
    database.dispose()
    return {"us_per_move": cpu / moves * 1e6}

def pulls(url, games, plain_lane=False):
    # a pull bot's moves through the API: GET .../actions, then POST the first action offered
    if plain_lane:  # the request's lane with SQLAlchemy's public API (benchmarks.internals.PlainLane)
        import service.db
        from benchmarks.internals import PlainLane
        service.db.Lane = PlainLane
    os.environ.update(DATABASE_URL=url, SORRY_ARENA_LIMIT_MOVES="off", SORRY_ARENA_LIMIT_ACCOUNTS="off")
    os.environ.update(SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY="off")
    from runtime.settings import Settings
    from service.app import create_app
    app = create_app(Settings.from_env())
    client = app.test_client()
    names = [f"puller{n}-{time.monotonic_ns()}" for n in range(2)]
    tokens = [client.post("/api/v1/players", json={"name": name}).get_json()["token"] for name in names]
    heads = [{"Authorization": f"Bearer {token}"} for token in tokens]
    cpu = moves = 0
    for number in range(games):
        made = client.post("/api/v1/games", json={"game": "card", "seats": 2, "seed": number}, headers=heads[0])
        game_id = made.get_json()["id"]
        for seat in range(2):
            assert client.post(f"/api/v1/games/{game_id}/seats", json={"seat": seat}, headers=heads[seat]).status_code == 201
        started = time.process_time()
        seat, over = 0, False
        while not over:
            asked = client.get(f"/api/v1/games/{game_id}/actions", headers=heads[seat]).get_json()
            if not asked["actions"]:
                seat = 1 - seat
                continue
            body = {"action": asked["actions"][0]["id"], "expected_ply": asked["ply"]}
            moved = client.post(f"/api/v1/games/{game_id}/actions", json=body, headers=heads[seat])
            assert moved.status_code == 200, moved.get_data(as_text=True)
            moves += 1
            over = moved.get_json()["status"] == "over"
        cpu += time.process_time() - started
    app.extensions["db_engine"].dispose()
    return {"us_per_move": cpu / moves * 1e6}

asked = json.loads(sys.stdin.read())
if asked["what"] == "saves":
    found = saves(asked["database_url"], asked["games"])
else:
    found = pulls(asked["database_url"], asked["games"], asked["what"] == "plain pulls")
print(json.dumps(found))
"""
"""A measurement of the database's statements in a checkout (run there as text, with that checkout's code, through
APIs every version has): ``saves``, a worker's saves of games, or ``pulls``, pull moves through the API (``plain
pulls``: with :class:`PlainLane`); the CPU of the process per move."""


def database_of(root: Path, database_url: str, what: str, games: int) -> float:
    """:data:`DATABASE_MEASURED`'s CPU per move, in a process of its own with the checkout at ``root``'s code."""
    done = subprocess.run(
        [sys.executable, "-c", DATABASE_MEASURED],
        cwd=root,
        input=json.dumps({"database_url": database_url, "what": what, "games": games}),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the database measurement of {root} failed: {done.stderr.strip()[-2000:]}")
    return float(json.loads(done.stdout.splitlines()[-1])["us_per_move"])


PLAIN_OF = {"saves": "saves", "pulls": "plain pulls"}
"""The measurement of the plain variant (in its checkout) of each."""


def database(internal_root: Path, rounds: int, games: int, server_url: str | None, sqlite: bool) -> dict[str, Any]:
    """Per database (PostgreSQL at ``server_url``, SQLite), per measurement: the rounds. ``saves``: this checkout's
    worker (plain Core) against ``internal_root``'s (the fast lane's compiled statements); ``pulls``: this
    checkout's request lane (compiled statements) against :class:`PlainLane` in this checkout."""
    found: dict[str, Any] = {}
    for server in [*([server_url] if server_url else []), *([None] if sqlite else [])]:
        with own_database(server) as url:
            kind = "sqlite" if server is None else "postgresql"
            for what in ("saves", "pulls"):
                print(f"{kind} {what}:", file=sys.stderr, flush=True)
                plain, internal = (ROOT, internal_root) if what == "saves" else (ROOT, ROOT)
                variants: dict[str, Callable[[], float]] = {
                    "plain": functools.partial(database_of, plain, url, PLAIN_OF[what], games),
                    "internal": functools.partial(database_of, internal, url, what, games),
                }
                rows, median = interleaved(variants, rounds, "us_per_move")
                found[f"{kind}_{what}"] = {"rounds": rows, "median": median}
    return found


class PlainLane:
    """The request's fast lane (``store.fastlane.Lane``) with SQLAlchemy's public API only: Core statements on a
    pooled ``Connection`` (whose statement cache compiles each once), reading in autocommit on PostgreSQL
    (``isolation_level="AUTOCOMMIT"``); a write as one statement in autocommit where it has a one-statement form
    (PostgreSQL), else a transaction of its own (no group commit: the benchmark's pull moves come one at a time)."""

    integrity_error: type[Exception] = IntegrityError

    def __init__(self, statements: Any) -> None:
        self.engine = statements.engine
        self.postgresql = self.engine.dialect.name == "postgresql"
        self._connection: Any = None

    def connection(self) -> Any:
        if self._connection is None:
            self._connection = self.engine.connect()
            if self.postgresql:
                self._connection.execution_options(isolation_level="AUTOCOMMIT")
        return self._connection

    def execute(self, statement: Any, values: Any = None) -> Any:
        return self.connection().execute(statement, values or {})

    def scalar(self, statement: Any, values: Any = None) -> Any:
        return self.execute(statement, values).scalar()

    def rollback(self) -> None:
        if self._connection is not None:
            self._connection.rollback()

    def release(self) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            connection.close()

    def write(self, key: int, condition: Any, *then: Any) -> bool:
        from store.fastlane import _ONE_STATEMENT

        statement, values = condition
        connection = self.connection()
        connection.rollback()
        combined = _ONE_STATEMENT.get((id(statement), id(then[0][0]))) if len(then) == 1 else None
        if self.postgresql and combined is not None and len(then[0][1]) == 1:
            found = connection.execute(combined, {**values, **then[0][1][0]}, execution_options=_ROWCOUNT)
            return bool(found.rowcount == 1)
        if self.postgresql:
            self.release()
            with self.engine.begin() as writing:
                return self._steps(writing, condition, then)
        with connection.begin():
            return self._steps(connection, condition, then)

    @staticmethod
    def _steps(connection: Any, condition: Any, then: Any) -> bool:
        statement, values = condition
        if connection.execute(statement, values).rowcount != 1:
            return False
        for following, rows in then:
            connection.execute(following, rows)
        return True


_ROWCOUNT = {"preserve_rowcount": True}
"""SQLAlchemy keeps an INSERT's row count only when asked."""


# --- groupcommit -----------------------------------------------------------------------------------------------


def one_move_writes(url: str, games: int) -> list[tuple[int, list[Any]]]:
    """``games`` new games of cards, each with the one-move writes that play it to its end (made beforehand)."""
    import engine
    from store import gamelog
    from store.database import make_engine, sessions
    from store.models import Player

    database = make_engine(url)
    made = []
    with sessions(database)() as session:
        stamp = time.monotonic_ns()
        players = [Player(name=f"writer{n}-{stamp}", token_hash=f"{n:032x}{stamp:032x}") for n in range(2)]
        session.add_all(players)
        session.commit()
        ids = [player.id for player in players]
        for number in range(games):
            game = gamelog.create(session, "card", {"players": 2}, number, 2, ids[0], ids)
            session.commit()
            state = engine.new_game("card", {"players": 2}, number)
            writes, ply = [], 0
            while (asked := engine.decision(state)) is not None:
                action = engine.legal_actions(state, asked.seat)[0].id
                engine.apply(state, action, asked.seat, events=False)
                writes.append(
                    gamelog.advance(game.id, [gamelog.Move(ply, asked.seat, action)], state, engine.result(state))
                )
                ply += 1
            made.append((game.id, writes))
    database.dispose()
    return made


def group_commit_moves(url: str, threads: int, moves: int, group_commit: bool) -> dict[str, float]:
    """``threads`` threads, each saving the one-move writes of a game of its own (at most ``moves``) through a lane
    of its own (``store.fastlane``, as the API's requests do), with or without the process's group commit: the
    process's CPU per move (and the PostgreSQL server's), and moves/s."""
    from benchmarks.tournament import server_cpu_seconds, server_cpu_used
    from store.database import make_engine, sessions
    from store.fastlane import Lane, Statements

    games = one_move_writes(url, threads)
    database = make_engine(url)
    statements = Statements(database, group_commit=group_commit)
    barrier = threading.Barrier(threads + 1)
    saved = [0] * threads

    def play(number: int) -> None:
        lane = Lane(statements)
        game_id, writes = games[number]
        barrier.wait()
        for write in writes[:moves]:
            assert lane.write(game_id, write.condition, *write.then)
            saved[number] += 1
        lane.release()

    workers = [threading.Thread(target=play, args=(number,)) for number in range(threads)]
    for worker_thread in workers:
        worker_thread.start()
    factory = sessions(database)
    server = server_cpu_seconds(factory)
    cpu, clock = time.process_time(), time.perf_counter()
    barrier.wait()
    for worker_thread in workers:
        worker_thread.join()
    cpu, clock = time.process_time() - cpu, time.perf_counter() - clock
    server_used = server_cpu_used(server, server_cpu_seconds(factory))
    database.dispose()
    total = sum(saved)
    found = {"us_per_move": cpu / total * 1e6, "moves_per_s": total / clock}
    if server_used is not None:
        found["server_us_per_move"] = server_used / total * 1e6
    return found


def groupcommit(rounds: int, threads: int, moves: int, server_url: str | None, sqlite: bool) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for server in [*([server_url] if server_url else []), *([None] if sqlite else [])]:
        kind = "sqlite" if server is None else "postgresql"
        print(f"{kind}:", file=sys.stderr, flush=True)
        with own_database(server) as url:
            rows: list[dict[str, Any]] = []
            for number in range(rounds):
                row: dict[str, Any] = {"round": number + 1}
                for variant in (True, False) if number % 2 == 0 else (False, True):
                    name = "group" if variant else "alone"
                    measured = group_commit_moves(url, threads, moves, variant)
                    row.update({f"{name}_{key}": round(value, 1) for key, value in measured.items()})
                row["group_gain"] = round(row["alone_us_per_move"] / row["group_us_per_move"], 3)
                row["group_rate_gain"] = round(row["group_moves_per_s"] / row["alone_moves_per_s"], 3)
                row["load"] = load_average()
                rows.append(row)
                print(
                    "  " + "  ".join(f"{key} {value}" for key, value in row.items()), file=sys.stderr, flush=True
                )
            found[kind] = {"rounds": rows, "median": medians(rows)}
    return found


# --- command ---------------------------------------------------------------------------------------------------


def report(name: str, unit: str, result: dict[str, Any]) -> None:
    median = result["median"]
    figures = ", ".join(f"{key} {value}" for key, value in median.items())
    print(f"{name} median: {figures} ({unit}; load {median['load']:.2f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    call = commands.add_parser("botcall", help="botlink's call to a bot: CPU per call")
    call.add_argument("--internal-root", type=Path, required=True)
    call.add_argument("--rounds", type=int, default=5)
    call.add_argument("--seconds", type=float, default=2.0)
    call.add_argument("--threads", type=int, default=8)
    work = commands.add_parser("worker", help="the RQ worker: CPU per game job")
    work.add_argument("--internal-root", type=Path, default=None)
    work.add_argument("--rounds", type=int, default=5)
    work.add_argument("--jobs", type=int, default=300)
    data = commands.add_parser("database", help="the statements of a move: CPU per move")
    data.add_argument("--internal-root", type=Path, required=True)
    data.add_argument("--rounds", type=int, default=5)
    data.add_argument("--games", type=int, default=4)
    group = commands.add_parser("groupcommit", help="group commit against a transaction per write")
    group.add_argument("--rounds", type=int, default=5)
    group.add_argument("--threads", type=int, default=8)
    group.add_argument("--moves", type=int, default=100)
    for command in (work, data, group):
        command.add_argument("--database-url", default=DEFAULT_SERVER, help="a PostgreSQL server ('' for none)")
        command.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    for command in (call, work, data, group):
        command.add_argument("--json", action="store_true", help="print the rounds and medians as JSON")
    args = parser.parse_args(argv)
    root = getattr(args, "internal_root", None)
    if root is not None and not (root / "cli" / "main.py").is_file():
        parser.error(f"--internal-root {root} is no checkout of this project (no cli/main.py)")
    if getattr(args, "rounds", 1) < 1:
        parser.error("--rounds must be at least 1")
    if getattr(args, "database_url", None) and not args.database_url.startswith("postgresql"):
        parser.error("--database-url names a PostgreSQL server ('' for none)")
    end_on_sigterm()  # after the usage errors: those end at once, and leave a caller's own handler alone
    if args.command == "botcall":
        results = {"botcall": botcall(args.internal_root, args.rounds, args.seconds, args.threads)}
        unit = "CPU us per call"
    elif args.command == "worker":
        server = args.database_url or None
        results = worker(args.internal_root, args.rounds, args.jobs, server, not args.no_sqlite)
        unit = "worker CPU us per game job"
    elif args.command == "database":
        server = args.database_url or None
        results = database(args.internal_root, args.rounds, args.games, server, not args.no_sqlite)
        unit = "process CPU us per move"
    else:
        server = args.database_url or None
        results = groupcommit(args.rounds, args.threads, args.moves, server, not args.no_sqlite)
        unit = "process CPU us per move, moves/s"
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for name, result in results.items():
            report(name, unit, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
