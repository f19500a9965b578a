"""Waiting clients: 50 and 500 clients long-polling one ``sorry-arena serve``, gevent workers against gthread.

    .venv/bin/python benchmarks/waiting.py [--clients 50,500] [--rounds 2] [--workers gevent,gthread] [--json]

Each round starts the real service, ``sorry-arena serve --worker-class K`` (the embedded default: one process,
SQLite in a temporary directory, no Redis; rate limits off), for each number of clients and each worker class in
turn (interleaved: a round runs every pair once, so the machine's drift hits both alike). Before the clock starts,
each client gets an account and a 2-seat board game against one mover account, seeded so that the mover decides
first and its first action hands the decision to the client. Then every client long-polls
``GET /games/{id}/actions?wait=30`` on a connection of its own (asyncio, in this process), and while they wait:

- health: 40 ``GET /api/v1/health``, one after another on new connections (p50, p99; a probe unanswered in 5 s
  counts as 5 s, and probing stops after 3 of those);
- the server's memory: the resident set (VmRSS from /proc) of gunicorn's master and workers, summed; and the
  machine's 1-minute load average;
- wake-up: the mover moves in each game, one after another; a client's wake-up is the time from the start of its
  game's move (the POST sent) to its long poll's answer with the decision. Polls not answered so within 40 s of
  the last move (their wait ended first, or they never got a thread) are counted as unanswered.

Single-core figures on a shared machine: compare the two classes within a run, not across machines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from benchmarks.servers import free_port  # noqa: E402

WAIT_S = 30
PROBES = 40
PROBE_TIMEOUT_S = 5.0
ANSWER_GRACE_S = 40.0


async def http(
    port: int, method: str, path: str, token: str | None = None, body: Any = None, timeout: float = 60
) -> tuple[int, Any]:
    """One request on a new connection (``Connection: close``): its status and JSON body."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
    try:
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        writer.write(head.encode() + b"\r\n" + data)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    header, _, content = raw.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in header.lower():
        content = dechunk(content)
    return status, json.loads(content) if content else None


def dechunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out, data = out + data[:size], data[size + 2 :]
    return out


def hands_over(seed: int) -> bool:
    """Seat 0 decides first and its first legal action hands the decision to seat 1."""
    state = engine.new_game("board", {"players": 2}, seed)
    first = engine.decision(state)
    if first is None or first.seat != 0:
        return False
    engine.apply(state, engine.legal_actions(state, 0)[0].id, 0)
    then = engine.decision(state)
    return then is not None and then.seat == 1


@contextmanager
def serve(
    worker_class: str = "gevent", flags: tuple[str, ...] = (), **settings: str
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """``sorry-arena serve`` on a free port and a SQLite file of its own, without rate limits or maintenance
    (``flags``: more of serve's flags; ``settings``: more variables of its environment), until it answers health:
    its port and process, stopped at the end."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="sorry-arena-waiting-") as folder:
        env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")}
        env.update(
            DATABASE_URL=f"sqlite:///{folder}/arena.db",
            SORRY_ARENA_LIMIT_ACCOUNTS="off",
            SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY="off",
            SORRY_ARENA_LIMIT_MOVES="off",
            SORRY_ARENA_MAINTENANCE_SECONDS="off",
            **settings,
        )
        argv = [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--worker-class", worker_class]
        argv += flags
        with open(Path(folder) / "serve.log", "wb") as log:
            process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if asyncio.run(http(port, "GET", "/api/v1/health", timeout=2))[0] == 200:
                        break
                except OSError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the server did not start:\n{(Path(folder) / 'serve.log').read_text()}")
                time.sleep(0.2)
            yield port, process
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def rss_bytes(pid: int) -> int:
    """VmRSS of ``pid`` and its children (gunicorn's workers)."""
    pids = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                pids.append(int(entry))
    total = 0
    for each in pids:
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


async def setup(port: int, clients: int) -> tuple[str, list[tuple[int, str, str]]]:
    """The mover's token, and per client: its game, its token, the mover's first action there."""
    _, mover = await http(port, "POST", "/api/v1/players", body={"name": "mover"})
    seeds = [seed for seed in range(10 * clients + 100) if hands_over(seed)][:clients]
    games = []
    for n, seed in enumerate(seeds):
        _, player = await http(port, "POST", "/api/v1/players", body={"name": f"client{n}"})
        body = {"game": "board", "settings": {}, "seats": 2, "seed": seed}
        status, game = await http(port, "POST", "/api/v1/games", mover["token"], body)
        assert status == 201, game
        await http(port, "POST", f"/api/v1/games/{game['id']}/seats", mover["token"], {"seat": 0})
        await http(port, "POST", f"/api/v1/games/{game['id']}/seats", player["token"], {"seat": 1})
        _, actions = await http(port, "GET", f"/api/v1/games/{game['id']}/actions", mover["token"])
        games.append((game["id"], player["token"], actions["actions"][0]["id"]))
    return mover["token"], games


async def measure(port: int, pid: int, clients: int) -> dict[str, Any]:
    mover, games = await setup(port, clients)
    answered: dict[int, float] = {}

    async def poll(game_id: int, token: str) -> None:
        try:
            status, body = await http(
                port, "GET", f"/api/v1/games/{game_id}/actions?wait={WAIT_S}", token, timeout=WAIT_S + 60
            )
            if status == 200 and body["your_decision"]:  # woken by the move (not its wait's end)
                answered[game_id] = time.monotonic()
        except (TimeoutError, OSError):
            pass

    polls = [asyncio.create_task(poll(game_id, token)) for game_id, token, _ in games]
    await asyncio.sleep(2.0)  # the polls connect and start waiting
    health: list[float] = []
    slow = 0
    for _ in range(PROBES):
        started = time.monotonic()
        try:
            await http(port, "GET", "/api/v1/health", timeout=PROBE_TIMEOUT_S)
            health.append(time.monotonic() - started)
        except (TimeoutError, OSError):
            health.append(PROBE_TIMEOUT_S)
            slow += 1
            if slow >= 3:
                break
        await asyncio.sleep(0.05)
    rss, load = rss_bytes(pid), os.getloadavg()[0]
    moved: dict[int, float] = {}
    for game_id, _, action in games:
        moved[game_id] = time.monotonic()
        body = {"action": action, "expected_ply": 0}
        try:
            await http(port, "POST", f"/api/v1/games/{game_id}/actions", mover, body, timeout=PROBE_TIMEOUT_S)
        except (TimeoutError, OSError):
            break  # the server takes no move: the clients not moved for count as unanswered
    await asyncio.wait(polls, timeout=ANSWER_GRACE_S)
    for task in polls:
        task.cancel()
    wakes = [answered[game_id] - moved[game_id] for game_id in moved if game_id in answered]
    return {
        "health_p50_ms": 1000 * percentile(health, 0.5),
        "health_p99_ms": 1000 * percentile(health, 0.99),
        "health_unanswered": slow,
        "wake_p50_ms": 1000 * percentile(wakes, 0.5),
        "wake_p99_ms": 1000 * percentile(wakes, 0.99),
        "unanswered": clients - len(wakes),
        "rss_mib": rss / 2**20,
        "load1": load,
    }


def rows(sizes: list[int], kinds: list[str], rounds: int) -> dict[str, dict[str, float]]:
    """The medians over ``rounds`` interleaved rounds, by ``"<clients> <worker class>"``."""
    results: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for round_ in range(rounds):
        for clients in sizes:
            for kind in kinds:
                with serve(kind) as (port, process):
                    figures = asyncio.run(measure(port, process.pid, clients))
                results.setdefault((clients, kind), []).append(figures)
                print(f"round {round_ + 1}: {clients} clients, {kind}: {figures}", file=sys.stderr)
    return {
        f"{clients} {kind}": {key: statistics.median(f[key] for f in runs) for key in runs[0]}
        for (clients, kind), runs in results.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="50,500", help="numbers of waiting clients, comma-separated")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds")
    parser.add_argument("--workers", default="gevent,gthread", help="worker classes, comma-separated")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    summary = rows([int(text) for text in args.clients.split(",")], args.workers.split(","), args.rounds)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"medians of {args.rounds} interleaved round(s); sorry-arena serve, SQLite, one process, wait={WAIT_S}")
    print(
        f"{'clients':>7} {'worker':>8} {'health p50':>11} {'p99':>9} {'wake p50':>9} {'p99':>9} "
        f"{'unanswered':>10} {'RSS MiB':>8} {'load1':>6}"
    )
    for name, f in summary.items():
        size, kind = name.split()
        print(
            f"{size:>7} {kind:>8} {f['health_p50_ms']:>9.1f}ms {f['health_p99_ms']:>7.1f}ms "
            f"{f['wake_p50_ms']:>7.1f}ms {f['wake_p99_ms']:>7.1f}ms {f['unanswered']:>10.0f} "
            f"{f['rss_mib']:>8.1f} {f['load1']:>6.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
