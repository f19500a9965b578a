"""The parser of ``sorry-arena worker``: the database, the Redis of the queue, burst mode, whether this worker's clock
starts the runs due, the games played at once, the maintenance interval, the port of its metrics and the worker's name."""

from __future__ import annotations

import os
from typing import Any

from cli.options import add_database_url, bounded_int


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "worker",
        help="run an RQ worker that plays tournament games",
        description="Take tournament games from the Redis queue and play them, several at once; also start the "
        "tournament runs due (start times, repeats).",
    )
    add_database_url(parser)
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL") or None,
        metavar="URL",
        help="the Redis of the queue (default: $REDIS_URL; required)",
    )
    parser.add_argument("--burst", action="store_true", help="stop when the queue is empty")
    parser.add_argument(
        "--no-clock",
        "--no-scheduler",
        dest="no_clock",
        action="store_true",
        help="do not start the tournament runs due from this worker (another worker's clock does)",
    )
    parser.add_argument(
        "--games",
        type=bounded_int(1, 256, "games"),
        default=None,
        help="games played at once (default: $SORRY_ARENA_GAMES_PER_WORKER, else 8)",
    )
    parser.add_argument(
        "--maintenance-interval",
        type=bounded_int(1, 3600, "seconds"),
        default=5,
        help="seconds between maintenance runs, which re-enqueue (first in the queue) games whose worker died or "
        "whose job was lost, and fold finished games into their bots' tallies (default 5)",
    )
    parser.add_argument(
        "--metrics-port",
        type=bounded_int(1, 65535, "port"),
        default=None,
        help="serve this worker's Prometheus metrics on this port, guarded as the API's (default: "
        "$SORRY_ARENA_WORKER_METRICS_PORT, else none)",
    )
    parser.add_argument(
        "--name", default=None, help="the worker's name, in RQ and on the games it leases (default: host:pid)"
    )
    parser.set_defaults(parser=parser)
