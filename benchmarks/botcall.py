"""Bot call speed: round trips/s of ``BotConnection.move`` to a push bot, against bare HTTP clients in one run.

    .venv/bin/python benchmarks/botcall.py [--repeat 5] [--seconds 2] [--game board] [--compare OTHER.py] [--json]

It starts one example bot (``python -m clients --bot random --push``, on loopback) and, ``--repeat`` times,
interleaved, lets each contender call its ``/move`` for ``--seconds`` with a real, signed move request (a position
of ``--game`` with its legal actions; benchmarks/tournament.py):

- ``botconnection``: :class:`botlink.calls.BotConnection` ``.move(payload)``, as a tournament worker calls a bot
  (it serialises the payload, signs it, checks the reply: everything but the game);
- ``requests``: a bare ``requests.Session(trust_env=False)`` posting the signed body; ``urllib3``: a bare
  ``HTTPConnectionPool``; ``http.client``: a bare ``HTTPConnection``. Each signs
  the body per request and reads the reply, nothing more.
- with ``--compare OTHER.py``: ``compare``, the ``BotConnection`` of another version of ``botlink/calls.py``
  loaded from that file, e.g. the last committed one::

      git show HEAD:botlink/calls.py > /tmp/botcall_old.py
      .venv/bin/python benchmarks/botcall.py --compare /tmp/botcall_old.py

Every contender keeps one connection alive for its whole round. It prints the median round trips/s of each and
the median, over the rounds, of its ratio to ``requests`` in the same round (steadier than a ratio of medians when
the machine's load changes between rounds). The machine is shared and noisy (the bot and this process share 2
cores): compare the ratios of one run, not figures across runs. The 1-minute load average is printed at each
round's start and at the end.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.tournament import SECRET, bot_processes, load_average, move_request  # noqa: E402
from botlink import calls as botcall  # noqa: E402
from botlink import netguard, signing  # noqa: E402

LOOPBACK = netguard.parse_allowlist("loopback")
WARM_UP = 20
"""Calls before the clock starts: the connection is open and every code path warm."""

Contender = Callable[[str, bytes, float], float]
"""``(bot base URL, move request body, seconds) -> round trips/s``."""


def timed(call: Callable[[], None], seconds: float) -> float:
    for _ in range(WARM_UP):
        call()
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        call()
        count += 1
    return count / (time.perf_counter() - started)


def with_connection(connection_class: type[Any]) -> Contender:
    def run(url: str, body: bytes, seconds: float) -> float:
        payload = json.loads(body)
        with connection_class(url, SECRET, LOOPBACK) as connection:

            def call() -> None:
                reply = connection.move(payload)
                if not reply.ok:
                    raise RuntimeError(f"the bot failed: {reply.fault} {reply.detail}")

            return timed(call, seconds)

    return run


def bare_requests(url: str, body: bytes, seconds: float) -> float:
    with requests.Session() as session:
        session.trust_env = False

        def call() -> None:
            signed = signing.headers(SECRET, "POST", urlsplit(url).path + "/move", body)
            headers = {"Content-Type": "application/json", **signed}
            response = session.post(url + "/move", data=body, headers=headers, timeout=5)
            response.raise_for_status()
            response.json()

        return timed(call, seconds)


def bare_urllib3(url: str, body: bytes, seconds: float) -> float:
    parts = urlsplit(url)
    assert parts.hostname is not None
    with urllib3.HTTPConnectionPool(parts.hostname, parts.port, maxsize=1, timeout=5.0, retries=False) as pool:

        def call() -> None:
            signed = signing.headers(SECRET, "POST", parts.path + "/move", body)
            headers = {"Content-Type": "application/json", **signed}
            response = pool.urlopen("POST", parts.path + "/move", body=body, headers=headers, redirect=False)
            if response.status != 200:
                raise RuntimeError(f"HTTP {response.status}")
            json.loads(response.data)

        return timed(call, seconds)


def bare_http_client(url: str, body: bytes, seconds: float) -> float:
    parts = urlsplit(url)
    assert parts.hostname is not None
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5.0)

    def call() -> None:
        signed = signing.headers(SECRET, "POST", parts.path + "/move", body)
        headers = {"Content-Type": "application/json", **signed}
        connection.request("POST", parts.path + "/move", body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status}")
        json.loads(data)

    try:
        return timed(call, seconds)
    finally:
        connection.close()


def load_connection_class(path: str) -> type[Any]:
    """``BotConnection`` of another version of botlink/calls.py, loaded as a module of its own."""
    spec = importlib.util.spec_from_file_location("botcall_compared", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module.BotConnection  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, choices=range(1, 21), metavar="1..20")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--game", choices=["board", "card"], default="board")
    parser.add_argument("--compare", metavar="OTHER.py", help="another version of botlink/calls.py")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    contenders: dict[str, Contender] = {"botconnection": with_connection(botcall.BotConnection)}
    if args.compare:
        contenders["compare"] = with_connection(load_connection_class(args.compare))
    contenders.update({"requests": bare_requests, "urllib3": bare_urllib3, "http.client": bare_http_client})
    figures: dict[str, list[float]] = {name: [] for name in contenders}
    load: list[float] = []
    body = move_request(args.game)
    with bot_processes(1) as urls:
        for _ in range(args.repeat):
            load.append(load_average())
            for name, contender in contenders.items():
                figures[name].append(contender(urls[0], body, args.seconds))
        load.append(load_average())
    medians = {name: statistics.median(values) for name, values in figures.items()}
    ratios = {
        name: statistics.median(value / base for value, base in zip(values, figures["requests"], strict=True))
        for name, values in figures.items()
    }
    report = {
        "game": args.game,
        "request_bytes": len(body),
        "round_trips_per_s": {name: round(value, 1) for name, value in medians.items()},
        "vs_requests": {name: round(value, 3) for name, value in ratios.items()},
        "runs": {name: [round(value, 1) for value in values] for name, values in figures.items()},
        "load_average_1min": load,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"one random push bot, a {args.game} move request of {len(body)} bytes, median of {args.repeat} rounds"
        )
        for name, value in medians.items():
            print(f"{name:14} {value:8.1f} round trips/s   {ratios[name]:6.3f} x requests")
        print(f"1-minute load average at each round's start, then at the end: {', '.join(map(str, load))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
