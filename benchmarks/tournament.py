"""Tournament speed: the worker's CPU per move beyond its bot calls, and the machine's moves/s against its ceiling.

    .venv/bin/python benchmarks/tournament.py [--bots 4] [--game board] [--rounds 6] [--repeat 3] [--slots 8]
        [--seconds 3] [--redis-url EMPTY_DATABASE] [--database-url postgresql+psycopg://HOST:PORT]
        [--compare-root OTHER_CHECKOUT] [--idle-cores] [--json]

It starts ``--bots`` example bots (``python -m clients --bot random --push``, one process each, on loopback) and a
database of its own: a SQLite file in a temporary directory, or, with ``--database-url`` naming a PostgreSQL
server, a uniquely named database it creates there and drops at the end. Its queue is a private ``redis-server``
(or the empty Redis database of ``--redis-url``, emptied again at the end: ``benchmarks/servers.py``), so no
other user of Redis is touched or adds its load. Then ``--repeat`` rounds, each of three
measurements (in this order in the first, third... rounds, the reverse in the others, so that a drift of the
machine's load falls on all of them alike):

- bare: what the worker's own bot client does alone, in a process of its own (as a worker's is). ``--slots``
  threads (as many as a worker's game slots, the games it plays at once), each with its own
  :class:`botlink.calls.BotConnection` to one of the bots (thread ``i`` to bot ``i % bots``), call ``move`` for
  ``--seconds`` with a real move request (a position of ``--game`` with its legal actions; the connection
  serialises, signs, sends, reads and checks it): calls/s, all threads together.
- 1 worker, then one worker per core (``sorry-arena worker --games SLOTS`` processes, started and registered with
  Redis before the clock starts): a round robin of ``--game`` between the bots (table of 2, ``--rounds`` rounds) is
  created through the API and played to its end. The figure is the moves saved by the workers divided by the time
  from the tournament's creation to its last game's result, both as stored in the database (the final standings
  fit comes after and is not counted; this process polls only every 0.25 s).

With ``--compare-root``, each round also plays the 1-worker tournament with a worker started from another checkout
of the project (another version of the worker, e.g. ``git archive <commit> | tar -x -C DIR``; it must work with
this checkout's database schema), and measures that checkout's bare client too: an A/B of two versions of the
worker, each figure below taken for both in the same rounds.

The cores are kept awake throughout (:func:`awake_cores`: one spinning process per core at Linux's lowest
priority, ``SCHED_IDLE``, which runs only when nothing else wants the core), unless ``--idle-cores``. A core left
to sleep between a call and its answer wakes slowly (on this virtual machine, a halted vCPU), and that cost falls on
the bare client, whose threads mostly wait, far more than on a worker, which keeps its cores busy: with sleeping
cores the bare rate drops by a third to a half in some rounds and not in others, and the ratio flatters the worker.
The 1-minute load average printed counts the spinners (one per core).

Each measurement also reads the CPU time used meanwhile (Linux's /proc): by the bare client's threads and by the
bots, per call; by the workers (from the tournament's creation to its end) and by the bots, per move; on PostgreSQL
(a server on this machine), by the server's processes that serve the benchmark's database, per move (the work the
workers' statements cost the server, on the same cores). Every round is printed with the 1-minute load average
before and after it, then the medians over the rounds of the figures, each taken within its round:

- the worker's CPU per move beyond the bot call: the 1-worker CPU per move minus the bare client's CPU per call
  (the engine, the request's making, the saves, a game's start and end, the queue; goal <= 150 us);
- moves per worker core-second: moves over the 1 worker's CPU seconds;
- the machine's share of its ceiling: the moves/s of one worker per core over cores / (the workers', the bots' and
  the database server's CPU per move, in that run): how much of the machine the moves use (goal >= 0.85);
- one worker per core's moves/s over one worker's.

Throughput ratios of processes that share the machine's cores with the bots and the load of others are not the
worker's cost: CPU per move is. The machine is shared: compare figures of one run, not across runs.

:func:`rows` runs the measurements and returns one dict per round, for other benchmarks to call.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import redis
from sqlalchemy import create_engine, func, make_url, select, text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from benchmarks.servers import end_on_sigterm, free_port, own_redis  # noqa: E402
from botlink import netguard  # noqa: E402
from botlink.calls import BotConnection  # noqa: E402
from runtime.settings import Settings  # noqa: E402
from service.app import create_app  # noqa: E402
from store import migrate  # noqa: E402
from store.models import (  # noqa: E402
    ActionRecord,
    Result,
    Tournament,
)

SECRET = "benchmark-secret-" + "x" * 24
DEFAULT_SLOTS = 8
"""A worker's game slots by default (``SORRY_ARENA_GAMES_PER_WORKER``)."""
GOAL_BEYOND_CALL_US = 150
"""The most CPU a move may cost a worker beyond its bot call (us)."""
GOAL_CEILING_SHARE = 0.85
"""The least share of the machine's ceiling (cores over the CPU per move of workers, bots and database) that one
worker per core reaches."""
CORES = os.cpu_count() or 1
WARM_UP_CALLS = 10
"""Calls each bare thread makes before the clock starts: its connection open, every code path warm."""


SPIN = "import os\nos.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\nwhile True:\n    pass\n"
"""A process that spins at the lowest priority Linux has: it takes a core only when nothing else wants it."""


@contextmanager
def awake_cores(count: int | None = None) -> Iterator[list[int]]:
    """``count`` (default: one per core) :data:`SPIN` processes for the time of the block: their ids. No core sleeps
    meanwhile, so a call's answer never waits for a core to wake; the spinners yield at once to any other work."""
    processes = [
        subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(count or os.cpu_count() or 1)
    ]
    try:
        yield [process.pid for process in processes]
    finally:
        for process in processes:  # back to the normal policy first: killed, a process must still run to exit, and
            with contextlib.suppress(OSError):  # at the lowest priority a busy machine might not run it for long
                os.sched_setscheduler(process.pid, os.SCHED_OTHER, os.sched_param(0))
        end_all(processes, kill=True)


def end_all(processes: list[subprocess.Popen[bytes]], *, kill: bool = False, timeout: float = 10) -> None:
    """Stop the processes (SIGTERM, or SIGKILL with ``kill``), all at once, and wait for each, ``timeout`` seconds
    in all. One still running then is killed, with every other, and the wait's ``TimeoutExpired`` raised: a process
    that ignores SIGTERM is an error to report, and none outlives the benchmark. Killed ones are waited for as long
    as they take (none can refuse; on a loaded machine, one may take a while to be run and end)."""
    for process in processes:
        if kill:
            process.kill()
        else:
            process.terminate()
    if kill:
        for process in processes:
            process.wait()
        return
    end = time.monotonic() + timeout
    try:
        for process in processes:
            process.wait(max(0.0, end - time.monotonic()))
    except subprocess.TimeoutExpired:
        for process in processes:
            process.kill()
            process.wait()
        raise


def load_average() -> float:
    """The machine's 1-minute load average."""
    return round(os.getloadavg()[0], 2)


def cpu_seconds(pids: list[int]) -> float:
    """The CPU time (user and system) the processes ``pids`` have used so far (Linux's /proc)."""
    total = 0.0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def server_cpu_seconds(sessions: Any) -> dict[int, float] | None:
    """The CPU time used so far by each PostgreSQL server process serving this benchmark's database (its
    connections' backends, as ``pg_stat_activity`` lists them, read from /proc); ``None`` on SQLite, or when the
    server runs on another machine (a process of that id here is no backend of this database)."""
    with sessions() as session:
        if session.get_bind().dialect.name != "postgresql":
            return None
        name = session.scalar(text("SELECT current_database()"))
        pids = session.scalars(text("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")).all()
    found = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                serving = f" {name} ".encode() in cmdline.read()
            seconds = cpu_seconds([pid])
        except OSError:  # ended meanwhile, or not on this machine
            continue
        if serving:
            found[pid] = seconds
    return found if found else None


def server_cpu_used(before: dict[int, float] | None, after: dict[int, float] | None) -> float | None:
    """The server's CPU time between two :func:`server_cpu_seconds` (a backend started meanwhile: all of its time;
    one ended meanwhile is not counted)."""
    if before is None or after is None:
        return None
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


@contextmanager
def bot_processes(count: int) -> Iterator[list[str]]:
    """``count`` random push bots, one process each: their URLs."""
    with push_bots(count) as bots:
        yield [url for url, _ in bots]


@contextmanager
def push_bots(count: int) -> Iterator[list[tuple[str, int]]]:
    """``count`` random push bots, one process each: their URLs and process ids."""
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
        yield [(url, process.pid) for url, process in zip(urls, processes, strict=True)]
    finally:
        end_all(processes)


def wait_for(url: str) -> None:
    """Until the bot at ``url`` answers its info route, whatever its answer (20 s at most)."""
    deadline = time.monotonic() + 20
    with BotConnection(url, SECRET, netguard.parse_allowlist("loopback")) as connection:
        while connection.call("info", {"type": "info", "nonce": "x"}).fault in ("connection", "timeout"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the bot at {url} never answered")
            time.sleep(0.1)


def move_payload(game: str) -> dict[str, Any]:
    """A real move request: a position some moves into a game, its view and legal actions."""
    state = engine.new_game(game, {"players": 2}, 3)
    for _ in range(12):
        engine.apply(state, engine.fallback_action(state))
    decision = engine.decision(state)
    assert decision is not None
    return {
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


def move_request(game: str) -> bytes:
    """:func:`move_payload` as the bytes sent."""
    return json.dumps(move_payload(game), separators=(",", ":")).encode()


def bare_rate(urls: list[str], payload: dict[str, Any], threads: int, seconds: float) -> float:
    """Calls/s of ``threads`` threads, each calling ``move`` on its own :class:`BotConnection` to a bot (thread
    ``i`` to ``urls[i % len(urls)]``) for ``seconds``, all together."""
    timed = bare_calls(urls, payload, threads, seconds)
    return timed.calls / timed.seconds


class Bare(NamedTuple):
    calls: int
    """Timed calls (the warm-up calls not counted)."""
    seconds: float
    cpu_seconds: float
    """The CPU time of the threads over their timed calls."""


BARE_IN_CHECKOUT = (
    "import json, sys\n"
    "sys.path.insert(0, '.')\n"
    "from benchmarks.tournament import bare_calls\n"
    "asked = json.loads(sys.stdin.read())\n"
    "found = bare_calls(asked['urls'], asked['payload'], asked['threads'], asked['seconds'])\n"
    "print(json.dumps(found._asdict()))\n"
)
"""What :func:`bare_calls_of` runs in the checkout's directory: its own :func:`bare_calls`, and so its own client."""


def bare_calls_of(root: Path, urls: list[str], payload: dict[str, Any], threads: int, seconds: float) -> Bare:
    """:func:`bare_calls` as the checkout at ``root`` makes them (its own bot client), in a process of its own, as
    a worker's client is alone in its process (not beside this one's app and threads). The process's start-up is
    not timed: the figures are those its ``bare_calls`` returns."""
    asked = {"urls": urls, "payload": payload, "threads": threads, "seconds": seconds}
    done = subprocess.run(
        [sys.executable, "-c", BARE_IN_CHECKOUT],
        cwd=root,
        input=json.dumps(asked),
        capture_output=True,
        text=True,
        timeout=seconds + 120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the bare client of {root} failed: {done.stderr.strip()[-2000:]}")
    return Bare(**json.loads(done.stdout.splitlines()[-1]))


def bare_calls(urls: list[str], payload: dict[str, Any], threads: int, seconds: float) -> Bare:
    """:func:`bare_rate`'s timed calls, seconds and CPU time (after ``WARM_UP_CALLS`` calls of each thread)."""
    allow = netguard.parse_allowlist("loopback")
    ready = threading.Barrier(threads + 1)
    counts = [0] * threads
    cpu = [0.0] * threads
    stop = threading.Event()
    failures: list[str] = []

    def run(number: int) -> None:
        with BotConnection(urls[number % len(urls)], SECRET, allow) as connection:
            for _ in range(WARM_UP_CALLS):
                connection.move(payload)
            ready.wait()
            started = time.thread_time()
            while not stop.is_set():
                reply = connection.move(payload)
                if not reply.ok:
                    failures.append(f"{reply.fault}: {reply.detail}")
                    return
                counts[number] += 1
            cpu[number] = time.thread_time() - started

    pool = [threading.Thread(target=run, args=(number,), daemon=True) for number in range(threads)]
    for thread in pool:
        thread.start()
    ready.wait()
    started = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"a bot failed: {failures[0]}")
    return Bare(sum(counts), elapsed, sum(cpu))


@contextmanager
def workers(
    count: int,
    database_url: str,
    redis_url: str,
    connection: Any,
    slots: int = DEFAULT_SLOTS,
    root: Path = ROOT,
    account_share: int | None = 100,
) -> Iterator[list[int]]:
    """``count`` ``sorry-arena worker`` processes of ``slots`` games each, run from the checkout at ``root``,
    registered with Redis; stopped at the end. Yields their process ids. ``account_share``: their
    ``SORRY_ARENA_ACCOUNT_SHARE_PERCENT`` (100, every slot for one account, as the throughput figures are measured;
    ``None``: the setting's default; an older checkout, which has no such setting, is given none)."""
    from rq import Worker

    env = {**os.environ, "SORRY_ARENA_BOT_ALLOW": "loopback"}
    if root == ROOT and account_share is not None:
        env["SORRY_ARENA_ACCOUNT_SHARE_PERCENT"] = str(account_share)
    before = len(Worker.all(connection=connection))
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
    processes = [
        subprocess.Popen(
            [*command, "--games", str(slots)],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]
    try:
        deadline = time.monotonic() + 120  # their imports take seconds on a loaded machine
        while len(Worker.all(connection=connection)) < before + count:  # registered: ready for jobs
            if time.monotonic() > deadline:
                raise RuntimeError("the workers did not start")
            time.sleep(0.05)
        yield [process.pid for process in processes]
    finally:
        end_all(processes, timeout=20)
        deadline = time.monotonic() + 20
        while len(Worker.all(connection=connection)) > before and time.monotonic() < deadline:
            time.sleep(0.05)


def register(client: Any, urls: list[str], game: str) -> tuple[str, list[int]]:
    """An account and its bots at ``urls``, registered through the API: its token and the bots' ids."""
    owner = client.post("/api/v1/players", json={"name": "bench"}).get_json()
    bot_ids = []
    for number, bot_url in enumerate(urls):
        bot = client.post(
            "/api/v1/bots",
            json={"name": f"random{number}", "url": bot_url, "games": [game], "secret": SECRET},
            headers={"Authorization": f"Bearer {owner['token']}"},
        )
        assert bot.status_code == 201, bot.get_data(as_text=True)
        bot_ids.append(bot.get_json()["id"])
    return str(owner["token"]), bot_ids


def tournament_rate(client: Any, token: str, bot_ids: list[int], game: str, rounds: int, sessions: Any) -> float:
    """Moves/s of one round robin played to its end: moves saved over creation to last result, as stored."""
    moves, elapsed = tournament_moves(client, token, bot_ids, game, rounds, sessions)
    return moves / elapsed


def tournament_moves(
    client: Any, token: str, bot_ids: list[int], game: str, rounds: int, sessions: Any, *, rated: bool = False
) -> tuple[int, float]:
    """:func:`tournament_rate`'s moves and seconds (``rated``: the tournament counts in its rating pool)."""
    headers = {"Authorization": f"Bearer {token}"}
    body = {"game": game, "bot_ids": bot_ids, "table_size": 2, "rounds": rounds, "rated": rated}
    created = client.post("/api/v1/tournaments", json=body, headers=headers)
    assert created.status_code == 201, created.get_data(as_text=True)
    tournament = created.get_json()
    while tournament["status"] != "done":
        time.sleep(0.25)  # rarely: this process's polling would take CPU from the workers and bots
        tournament = client.get(f"/api/v1/tournaments/{tournament['id']}").get_json()
    with sessions() as session:  # the moves and the clock, from the database: creation to the last game's result
        games = select(Result.game_id).where(Result.tournament_id == tournament["id"])  # every game, however many
        moves = session.scalar(select(func.count()).where(ActionRecord.game_id.in_(games)))
        created_at = session.get(Tournament, tournament["id"]).created_at
        last = session.scalar(select(func.max(Result.finished_at)).where(Result.tournament_id == tournament["id"]))
    return int(moves or 0), float((last - created_at).total_seconds())


@contextmanager
def own_database(server_url: str | None) -> Iterator[str]:
    """A fresh database of the benchmark's own: a SQLite file in a temporary directory (``None``), or a uniquely
    named database created on the PostgreSQL server of ``server_url`` and dropped afterwards (its connections
    ended). Migrated to the head revision."""
    if server_url is None:
        with tempfile.TemporaryDirectory() as scratch:
            url = f"sqlite:///{Path(scratch) / 'bench.db'}"
            migrate.upgrade(url)
            yield url
        return
    admin_url = make_url(server_url).set(database="postgres")
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"sorry_arena_bench_{os.getpid()}_{uuid.uuid4().hex[:8]}"  # whose it is, beside other runs
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        url = admin_url.set(database=name).render_as_string(hide_password=False)
        migrate.upgrade(url)
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))  # the one created above
        admin.dispose()


def rows(
    *,
    database_url: str | None = None,
    redis_url: str | None = None,
    bots: int = 4,
    game: str = "board",
    rounds: int = 6,
    repeat: int = 3,
    seconds: float = 3.0,
    slots: int = DEFAULT_SLOTS,
    compare_root: Path | None = None,
    awake: bool = True,
) -> list[dict[str, Any]]:
    """Run the benchmark (the module's docstring): one dict per round, with its figures, its ratios and the
    1-minute load average before and after it. ``database_url``: a PostgreSQL server to create a database on, or
    ``None`` for SQLite; ``redis_url``: an empty Redis database, or ``None`` for a private server
    (:func:`benchmarks.servers.own_redis`); ``compare_root``: another checkout whose worker plays the 1-worker
    tournament too; ``awake``: the cores kept awake (:func:`awake_cores`)."""
    found: list[dict[str, Any]] = []
    with own_redis(redis_url) as queue_url:
        connection = redis.Redis.from_url(queue_url)
        with (
            own_database(database_url) as url,
            push_bots(bots) as running,
            awake_cores() if awake else contextlib.nullcontext(),
        ):
            urls = [bot_url for bot_url, _ in running]
            bot_pids = [pid for _, pid in running]
            app = create_app(Settings(database_url=url, redis_url=queue_url, bot_allow="loopback"))
            client = app.test_client()
            token, bot_ids = register(client, urls, game)
            payload = move_payload(game)
            sessions = app.extensions["db_sessions"]

            def bare(key: str, root: Path = ROOT) -> Callable[[], dict[str, float]]:
                def measure() -> dict[str, float]:
                    bots_cpu = cpu_seconds(bot_pids)
                    timed = bare_calls_of(root, urls, payload, slots, seconds)
                    bots_cpu = cpu_seconds(bot_pids) - bots_cpu
                    return {
                        f"{key}_calls_per_s": timed.calls / timed.seconds,
                        f"{key}_client_cpu_us_per_call": timed.cpu_seconds / timed.calls * 1e6,
                        f"{key}_bots_cpu_us_per_call": bots_cpu / (timed.calls + WARM_UP_CALLS * slots) * 1e6,
                    }

                return measure

            def on_workers(key: str, count: int, root: Path = ROOT) -> Callable[[], dict[str, float]]:
                def measure() -> dict[str, float]:
                    with workers(count, url, queue_url, connection, slots, root) as pids:
                        worker_cpu, bots_cpu = cpu_seconds(pids), cpu_seconds(bot_pids)
                        server_cpu = server_cpu_seconds(sessions)
                        moves, elapsed = tournament_moves(client, token, bot_ids, game, rounds, sessions)
                        worker_cpu, bots_cpu = cpu_seconds(pids) - worker_cpu, cpu_seconds(bot_pids) - bots_cpu
                        server_used = server_cpu_used(server_cpu, server_cpu_seconds(sessions))  # workers still up
                    figures = {
                        f"{key}_moves_per_s": moves / elapsed,
                        f"{key}_cpu_us_per_move": worker_cpu / moves * 1e6,
                        f"{key}_bots_cpu_us_per_move": bots_cpu / moves * 1e6,
                    }
                    if server_used is not None:
                        figures[f"{key}_database_cpu_us_per_move"] = server_used / moves * 1e6
                    return figures

                return measure

            measurements: dict[str, Callable[[], dict[str, float]]] = {
                "bare": bare("bare"),
                "one_worker": on_workers("one_worker", 1),
                "core_workers": on_workers("core_workers", CORES),
            }
            if compare_root is not None:
                measurements["one_worker_compare"] = on_workers("one_worker_compare", 1, compare_root)
                measurements["bare_compare"] = bare("bare_compare", compare_root)
            for number in range(repeat):
                row: dict[str, Any] = {"round": number + 1, "load_before": load_average()}
                order = list(measurements) if number % 2 == 0 else list(reversed(measurements))
                for key in order:
                    row.update({name: round(value, 1) for name, value in measurements[key]().items()})
                row["load_after"] = load_average()
                row.update(derived(row, "one_worker", "bare"))
                row["ceiling_share"] = ceiling_share(row, "core_workers")
                row["core_workers_vs_one"] = round(
                    row["core_workers_moves_per_s"] / row["one_worker_moves_per_s"], 3
                )
                if compare_root is not None:
                    row.update(
                        {
                            f"{name}_of_compare": value
                            for name, value in derived(row, "one_worker_compare", "bare_compare").items()
                        }
                    )
                found.append(row)
            app.extensions["db_engine"].dispose()
        connection.close()
    return found


def derived(row: dict[str, Any], worker: str, bare: str) -> dict[str, float]:
    """A round's figures of the worker ``worker`` against its bare client ``bare``: its CPU per move beyond the
    client's CPU per call (us), and its moves per CPU second."""
    cpu = row[f"{worker}_cpu_us_per_move"]
    return {
        "worker_beyond_call_us": round(cpu - row[f"{bare}_client_cpu_us_per_call"], 1),
        "moves_per_worker_core_s": round(1e6 / cpu, 1),
    }


def ceiling_share(row: dict[str, Any], workers: str) -> float:
    """The moves/s of the run ``workers`` over the machine's ceiling: its cores over the CPU per move of that run's
    workers, bots and database server (none on SQLite, whose work is the workers')."""
    per_move = sum(float(row.get(f"{workers}_{part}cpu_us_per_move", 0.0)) for part in ("", "bots_", "database_"))
    return round(float(row[f"{workers}_moves_per_s"]) / (CORES * 1e6 / per_move), 3)


def summary(found: list[dict[str, Any]]) -> dict[str, float]:
    """The medians over the rounds of each figure and each ratio (each ratio taken within its round); a figure
    some round could not take (the database server's CPU, its backends gone) is left out."""
    keys = [key for key in found[0] if key != "round" and all(key in row for row in found)]
    return {key: round(statistics.median(row[key] for row in found), 3) for key in keys}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=4, choices=range(2, 9), metavar="2..8")
    parser.add_argument("--game", choices=["board", "card"], default="board")
    parser.add_argument("--rounds", type=int, default=6, choices=range(1, 51), metavar="1..50")
    parser.add_argument("--repeat", type=int, default=3, choices=range(1, 21), metavar="1..20")
    parser.add_argument("--slots", type=int, default=DEFAULT_SLOTS, choices=range(1, 65), metavar="1..64")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument(
        "--redis-url",
        default=None,
        help="an empty Redis database (emptied again at the end); default: a private one",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="a PostgreSQL server (e.g. postgresql+psycopg://postgres@127.0.0.1:5432) to create a database of the "
        "benchmark's own on; default: a SQLite file in a temporary directory",
    )
    parser.add_argument(
        "--compare-root",
        type=Path,
        default=None,
        help="another checkout whose worker plays the 1-worker tournament too",
    )
    parser.add_argument(
        "--idle-cores",
        action="store_true",
        help="let the cores sleep between calls (no SCHED_IDLE spinners): the bare rate then varies between rounds",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.compare_root is not None and not (args.compare_root / "cli" / "main.py").is_file():
        parser.error(f"--compare-root {args.compare_root} is no checkout of this project (no cli/main.py)")
    if args.database_url is not None and not args.database_url.startswith("postgresql"):
        parser.error("--database-url names a PostgreSQL server; leave it out for SQLite")
    if not args.seconds > 0:
        parser.error("--seconds must be positive")
    end_on_sigterm()  # once the flags are good: a usage error starts nothing
    found = rows(
        database_url=args.database_url,
        redis_url=args.redis_url,
        bots=args.bots,
        game=args.game,
        rounds=args.rounds,
        repeat=args.repeat,
        seconds=args.seconds,
        slots=args.slots,
        compare_root=args.compare_root,
        awake=not args.idle_cores,
    )
    medians = summary(found)
    database = "sqlite" if args.database_url is None else "postgresql"
    games = args.bots * (args.bots - 1) * args.rounds
    if args.json:
        print(
            json.dumps(
                {
                    "game": args.game,
                    "bots": args.bots,
                    "games": games,
                    "slots": args.slots,
                    "database": database,
                    "cores": "idle" if args.idle_cores else "awake",
                    "median": medians,
                    "rounds": found,
                },
                indent=2,
            )
        )
        return 0
    print(
        f"{args.game} on {database}, {args.bots} random push bots, {games} games per tournament, "
        f"{args.slots} slots per worker and bare threads, "
        + ("cores left to sleep" if args.idle_cores else "cores kept awake (the load counts one spinner per core)")
    )
    print(
        f"round  load before/after  worker beyond call us/move  moves per worker core-s  {CORES} workers moves/s"
        "  share of ceiling"
    )
    for row in found:
        print(
            f"{row['round']:5}  {row['load_before']:6.2f} / {row['load_after']:<6.2f}"
            f"  {row['worker_beyond_call_us']:26.0f}  {row['moves_per_worker_core_s']:23.0f}"
            f"  {row['core_workers_moves_per_s']:{len(str(CORES)) + 16}.1f}  {row['ceiling_share']:16.3f}"
        )
    database_part = (
        f", PostgreSQL {medians['core_workers_database_cpu_us_per_move']:.0f}"
        if "core_workers_database_cpu_us_per_move" in medians
        else ""
    )
    print(
        f"median worker CPU per move beyond the bot call: {medians['worker_beyond_call_us']:.0f} us"
        f" (goal <= {GOAL_BEYOND_CALL_US}; 1 worker {medians['one_worker_cpu_us_per_move']:.0f} us/move,"
        f" its bare client {medians['bare_client_cpu_us_per_call']:.0f} us/call)"
    )
    print(f"median moves per worker core-second: {medians['moves_per_worker_core_s']:.0f}")
    print(
        f"median share of the machine's ceiling, {CORES} workers: {medians['ceiling_share']:.3f}"
        f" (goal >= {GOAL_CEILING_SHARE}; CPU per move: workers {medians['core_workers_cpu_us_per_move']:.0f} us,"
        f" bots {medians['core_workers_bots_cpu_us_per_move']:.0f}{database_part};"
        f" {medians['core_workers_vs_one']:.2f}x the moves/s of 1 worker)"
    )
    if args.compare_root is not None:
        print(
            f"the worker of {args.compare_root}: CPU per move beyond the bot call"
            f" {medians['worker_beyond_call_us_of_compare']:.0f} us"
            f" (1 worker {medians['one_worker_compare_cpu_us_per_move']:.0f} us/move, its bare client"
            f" {medians['bare_compare_client_cpu_us_per_call']:.0f} us/call),"
            f" moves per worker core-second {medians['moves_per_worker_core_s_of_compare']:.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
