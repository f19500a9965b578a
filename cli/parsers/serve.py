"""The parser of ``sorry-arena serve``: where to listen, gunicorn's workers (their number, their kind, the connections
or threads of each), the database, the Redis of the wake-ups, whether to migrate first and to log each request."""

from __future__ import annotations

import os
from typing import Any

from cli.options import add_database_url, bounded_int, port

WORKER_CLASSES = ("gevent", "gthread")
"""gunicorn's worker kinds that ``serve`` runs: an event loop per process, or a thread per request."""
DEFAULT_CONNECTIONS = 1000
"""As ``runtime.settings.DEFAULT_CONNECTIONS`` (not imported: the parsers load nothing of the service's)."""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "serve",
        help="run the REST service under gunicorn",
        description="Migrate the database, then serve the REST API under gunicorn (gevent workers: long polls and "
        "slow clients hold no thread).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--port", type=port, default=8000, help="the port to listen on")
    parser.add_argument(
        "--workers",
        type=bounded_int(1, 64, "a number of workers"),
        default=None,
        help="worker processes (default: 2 with Redis, else 1; more than 1 needs Redis)",
    )
    parser.add_argument(
        "--worker-class",
        choices=WORKER_CLASSES,
        default="gevent",
        help="gunicorn's worker: gevent (an event loop per process) or gthread (a thread per request)",
    )
    parser.add_argument(
        "--connections",
        type=bounded_int(1, 100_000, "a number of connections"),
        default=DEFAULT_CONNECTIONS,
        help=f"gevent: clients served at once per worker process (default {DEFAULT_CONNECTIONS}); waiting long polls "
        "and streams may take half of them (SORRY_ARENA_MAX_WAITING_PER_PROCESS)",
    )
    parser.add_argument(
        "--threads",
        type=bounded_int(1, 1000, "a number of threads"),
        default=32,
        help="gthread: threads per worker process (each waiting long poll holds one)",
    )
    add_database_url(parser)
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL") or None,
        metavar="URL",
        help="Redis for long-poll wake-ups across processes (default: $REDIS_URL, else in-process)",
    )
    parser.add_argument("--no-migrate", action="store_true", help="do not migrate the database first")
    parser.add_argument(
        "--access-log",
        action="store_true",
        help="also log each request in gunicorn's own format (the service logs a line per request already, with "
        "its route: SORRY_ARENA_ACCESS_LOG)",
    )
    parser.set_defaults(parser=parser)
