"""The connection budget: health's latency while streams of many accounts hold one ``sorry-arena serve`` worker.

    .venv/bin/python benchmarks/connections.py [--streams 1000] [--connections 1000] [--probes 100]
        [--budgets default,none] [--json]

Each budget starts the real service, ``sorry-arena serve --connections C`` (the embedded default: one gevent
worker, SQLite in a temporary directory, no Redis; the account rate limits off, since the attack's accounts come
from one address here), with ``SORRY_ARENA_MAX_WAITING_PER_PROCESS`` unset (``default``: half of the connections)
or set to the connections (``none``: every connection may wait, as before the budget). Then ``--streams``
decision streams (``GET /api/v1/decisions/stream``) are opened at once, 8 per account (each account within its own
cap), 100 connecting at a time, each on a connection of its own (asyncio, in this process): a stream answered 200
is held open (its keep-alive comments read), a 429 is counted by the cap its message names and closed, a stream
not answered within 20 s counts as unanswered (its connection waits in the listen queue: the worker has no
connection left). While the streams are held:

- health: ``--probes`` ``GET /api/v1/health``, one after another on new connections (p50, p90, p99 and the worst;
  a probe unanswered in 5 s counts as 5 s, and probing stops after 3 of those);
- an ordinary request: ``GET /api/v1/games`` once, its time;
- the machine's 1-minute load average.

Single-core figures on a shared machine: compare the budgets within a run, not across machines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import waiting  # noqa: E402
from benchmarks.waiting import http, percentile  # noqa: E402

PER_ACCOUNT = 8
OPENING_AT_ONCE = 100
ANSWER_S = 20.0
PROBE_TIMEOUT_S = 5.0
BUSY = "the service is busy"


@contextmanager
def serve(connections: int, budget: str) -> Iterator[int]:
    """``benchmarks.waiting.serve`` (gevent) with ``--connections``, the process budget its default (half of them)
    or, with ``budget`` ``none``, all of them (the service before the budget); its port."""
    settings = {"SORRY_ARENA_ACCESS_LOG": "off"}
    if budget == "none":
        settings["SORRY_ARENA_MAX_WAITING_PER_PROCESS"] = str(connections)
    with waiting.serve("gevent", ("--connections", str(connections)), **settings) as (port, _):
        yield port


class Streams:
    """The attack's streams: the writers of those held open, and how each attempt ended."""

    def __init__(self) -> None:
        self.held: list[asyncio.StreamWriter] = []
        self.drains: list[asyncio.Task[None]] = []
        self.outcomes: dict[str, int] = {}

    def count(self, outcome: str) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    async def open(self, port: int, token: str, gate: asyncio.Semaphore) -> None:
        async with gate:
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), ANSWER_S)
            except (TimeoutError, OSError):
                self.count("unanswered")
                return
            head = f"GET /api/v1/decisions/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n"
            writer.write(head.encode())
            try:
                status_line = await asyncio.wait_for(reader.readline(), ANSWER_S)
            except (TimeoutError, OSError):
                self.count("unanswered")
                writer.close()
                return
            if b" 200 " in status_line:
                self.count("open")
                self.held.append(writer)
                self.drains.append(asyncio.create_task(drain(reader)))
                return
            try:
                body = await asyncio.wait_for(answer_body(reader), ANSWER_S)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
                body = b""
            writer.close()
            if b" 429 " not in status_line:
                self.count(f"status {status_line.split()[1].decode() if status_line else '?'}")
            elif BUSY.encode() in body:
                self.count("429 process")
            else:
                self.count("429 other")

    def close(self) -> None:
        for writer in self.held:
            writer.close()
        for task in self.drains:
            task.cancel()


async def answer_body(reader: asyncio.StreamReader) -> bytes:
    """The body of an answer whose status line is read: its headers, then Content-Length bytes."""
    headers = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in headers.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return await reader.readexactly(length)


async def drain(reader: asyncio.StreamReader) -> None:
    with suppress(OSError):
        while await reader.read(4096):
            pass


async def measure(port: int, streams: int, probes: int) -> dict[str, Any]:
    accounts = []
    for number in range(-(-streams // PER_ACCOUNT)):
        status, body = await http(port, "POST", "/api/v1/players", body={"name": f"attacker{number}"})
        assert status == 201, body
        accounts.append(body["token"])
    attack = Streams()
    gate = asyncio.Semaphore(OPENING_AT_ONCE)
    started = time.monotonic()
    await asyncio.gather(*(attack.open(port, accounts[n // PER_ACCOUNT], gate) for n in range(streams)))
    opening_s = time.monotonic() - started
    health: list[float] = []
    slow = 0
    try:
        for _ in range(probes):
            begun = time.monotonic()
            try:
                await http(port, "GET", "/api/v1/health", timeout=PROBE_TIMEOUT_S)
                health.append(time.monotonic() - begun)
            except (TimeoutError, OSError):
                health.append(PROBE_TIMEOUT_S)
                slow += 1
                if slow >= 3:
                    break
            await asyncio.sleep(0.02)
        begun = time.monotonic()
        try:
            await http(port, "GET", "/api/v1/games", timeout=PROBE_TIMEOUT_S)
            ordinary = time.monotonic() - begun
        except (TimeoutError, OSError):
            ordinary = PROBE_TIMEOUT_S
        load = os.getloadavg()[0]
    finally:
        attack.close()
    return {
        "streams": streams,
        "outcomes": attack.outcomes,
        "opening_s": opening_s,
        "health_p50_ms": 1000 * percentile(health, 0.5),
        "health_p90_ms": 1000 * percentile(health, 0.9),
        "health_p99_ms": 1000 * percentile(health, 0.99),
        "health_max_ms": 1000 * max(health),
        "health_unanswered": slow,
        "ordinary_ms": 1000 * ordinary,
        "load1": load,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=1000, help="streams the attack opens (8 per account)")
    parser.add_argument("--connections", type=int, default=1000, help="serve's --connections")
    parser.add_argument("--probes", type=int, default=100, help="health probes while the streams are held")
    parser.add_argument("--budgets", default="default,none", help="default (half the connections) and/or none")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    results = {}
    for budget in args.budgets.split(","):
        with serve(args.connections, budget) as port:
            results[budget] = asyncio.run(measure(port, args.streams, args.probes))
        print(f"{budget}: {results[budget]}", file=sys.stderr)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"sorry-arena serve --connections {args.connections} (one gevent worker, SQLite); {args.streams} streams"
    )
    print(
        f"{'budget':>8} {'open':>5} {'429':>5} {'unanswered':>10} {'health p50':>11} {'p90':>9} {'p99':>9} "
        f"{'max':>9} {'GET /games':>10} {'load1':>6}"
    )
    for budget, f in results.items():
        refused = sum(count for outcome, count in f["outcomes"].items() if outcome.startswith("429"))
        print(
            f"{budget:>8} {f['outcomes'].get('open', 0):>5} {refused:>5} {f['outcomes'].get('unanswered', 0):>10} "
            f"{f['health_p50_ms']:>9.1f}ms {f['health_p90_ms']:>7.1f}ms {f['health_p99_ms']:>7.1f}ms "
            f"{f['health_max_ms']:>7.1f}ms {f['ordinary_ms']:>8.1f}ms {f['load1']:>6.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
