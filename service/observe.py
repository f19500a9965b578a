"""What the API tells about each request: its metrics and its access log line, and ``/metrics`` itself.

:class:`Observe` is the outermost WSGI middleware (``service/app.py``), so it also sees the requests that the move
path and the inbox path (``service/api/movepath.py``, ``service/api/inboxpath.py``) answer before Flask's dispatch.
Each request is labelled by its route's template (``/api/v1/games/<int:game_id>``, never the path: the labels'
values stay few): Flask's URL rule, noted in the environ by a ``before_request`` hook (:func:`note_route`), or the
short cut's own (:data:`ROUTE` key); a path no route matches is ``other``. The time counted is from the request's
arrival to its answer's headers (a stream's or a long poll's includes its wait before the headers, not the stream
after them). The account is the one whose token the request carried (``ACCOUNT``, set by ``service/auth.py``).

The database pools' use is sampled at most once a second per process (:func:`sample_pools`), on a request's way
out. ``/metrics`` is answered here when ``SORRY_ARENA_METRICS=on`` (guarded: ``runtime/metricserver.py``); with
``off`` or a port, it is a path like any other (a 404).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, request
from sqlalchemy import Engine
from sqlalchemy.pool import QueuePool

from runtime import metrics
from runtime.logs import ACCESS
from runtime.metricserver import Guard, MetricsApp, parse_networks
from runtime.settings import Settings
from service.bodylimit import WSGIApp

ROUTE = "sorry_arena.route"
"""The environ's key of the request's route template."""
ACCOUNT = "sorry_arena.account"
"""The environ's key of the account whose token the request carried."""
OTHER = "other"
METRICS_PATH = "/metrics"
POOL_SAMPLE_SECONDS = 1.0

access_log = logging.getLogger(ACCESS)


def note_route() -> None:
    """Flask's ``before_request`` hook: the request's route template, for :class:`Observe`."""
    rule = request.url_rule
    if rule is not None:
        request.environ[ROUTE] = rule.rule


class Observe:
    """The WSGI middleware: ``app.wsgi_app = Observe(app, app.wsgi_app, settings)``."""

    def __init__(self, app: Flask, wsgi_app: WSGIApp, settings: Settings) -> None:
        self.app = wsgi_app
        self.engines: list[Engine] = [app.extensions["db_engine"]]
        self.access = settings.access_log
        self.metrics = (
            MetricsApp(Guard(settings.operator_token, parse_networks(settings.metrics_allow)))
            if settings.metrics == "on"
            else None
        )
        self.sampled = float("-inf")

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if self.metrics is not None and environ.get("PATH_INFO") == METRICS_PATH:
            return self.metrics(environ, start_response)
        started = time.perf_counter()
        method = environ.get("REQUEST_METHOD", "")

        def observed(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            elapsed = time.perf_counter() - started
            route = environ.get(ROUTE) or OTHER
            code = status[:3]
            metrics.child(metrics.REQUESTS, method, route, code).inc()
            metrics.child(metrics.REQUEST_SECONDS, method, route).observe(elapsed)
            if self.access:
                access_log.info(
                    "%s %s %s %.1f ms account=%s",
                    method,
                    route,
                    code,
                    elapsed * 1000,
                    environ.get(ACCOUNT, "-"),
                    extra={
                        "fields": {
                            "method": method,
                            "route": route,
                            "status": int(code) if code.isdigit() else code,
                            "ms": round(elapsed * 1000, 1),
                            "account": environ.get(ACCOUNT),
                        }
                    },
                )
            if started - self.sampled >= POOL_SAMPLE_SECONDS:
                self.sampled = started
                sample_pools(self.engines)
            return start_response(status, headers, exc_info)

        return self.app(environ, observed)


def sample_pools(engines: list[Engine]) -> None:
    """The pools' connections in use and their size (a pool without those counts, SQLite's, reads as none)."""
    checked_out = size = 0
    for engine in engines:
        pool = engine.pool
        if isinstance(pool, QueuePool):  # PostgreSQL's; SQLite's pools keep no such counts
            checked_out += pool.checkedout()
            size += pool.size()
    metrics.POOL_CHECKED_OUT.set(checked_out)
    metrics.POOL_SIZE.set(size)
