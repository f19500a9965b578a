"""The API's cost of observing a request (``service/observe.py``): its metrics, and its access log line.

    .venv/bin/python benchmarks/observe.py [--requests 50000] [--repeat 5]

It wraps a trivial WSGI app (one that names its route, as Flask's hook and the short cuts do, and answers at once)
in :class:`service.observe.Observe` and calls both, the bare app and the wrapped one, ``--requests`` times in this
process, ``--repeat`` times each, reading this process's CPU time (``time.process_time``): the CPU the wrapping
adds per request, the median of the repeats. Twice: with the access log off (the metrics alone: a clock read, two
children found in a dict, a counter and a histogram), then on, its line formatted (``runtime/logs.py``'s text
format) and written to ``/dev/null``. A request the API answers costs it 1 to 3 ms of CPU (``benchmarks/api.py``),
which this puts in proportion; the machine's load counts little in CPU time, but the load average is printed.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask

from runtime import logs
from runtime.settings import Settings
from service.observe import ROUTE, Observe


def bare(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    environ[ROUTE] = "/api/v1/health"
    start_response("200 OK", [("Content-Type", "application/json")])
    return [b"{}"]


def cpu_us(app: Callable[..., Iterable[bytes]], requests: int) -> float:
    """CPU microseconds per call of ``app``, over ``requests`` calls."""

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        return None

    started = time.process_time()
    for _ in range(requests):
        app({"REQUEST_METHOD": "GET", "PATH_INFO": "/api/v1/health"}, start_response)
    return (time.process_time() - started) / requests * 1e6


def added(access: bool, requests: int, repeat: int) -> float:
    """The median CPU microseconds the wrapping adds per request."""
    app = Flask(__name__)

    class Engine:
        pool = None  # no pool counts to sample (the pools' sample is once a second at most anyway)

    app.extensions["db_engine"] = Engine()
    wrapped = Observe(app, bare, Settings(access_log=access))
    return statistics.median(cpu_us(wrapped, requests) - cpu_us(bare, requests) for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    off = added(False, args.requests, args.repeat)
    with open(os.devnull, "w") as sink:
        logs.configure("text", "INFO")
        root = logging.getLogger()
        for handler in root.handlers:
            if isinstance(handler, logging.StreamHandler):
                handler.setStream(sink)
        on = added(True, args.requests, args.repeat)
    print(f"metrics alone (access log off): {off:.1f} us of CPU added per request")
    print(f"metrics and the access log line (text, written): {on:.1f} us of CPU added per request")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
