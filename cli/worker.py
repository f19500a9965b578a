"""``sorry-arena worker``: run an RQ worker that plays tournament games, several at once (any number of workers, on
any machine that reaches Redis and the database), with a clock that starts the runs due (start times, repeats).
Its log lines carry the time, and its leases its name."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from cli.options import add_database_url, bounded_int, database_error


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
        "--name", default=None, help="the worker's name, in RQ and on the games it leases (default: host:pid)"
    )
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not args.redis_url:
        parser.error("a worker needs --redis-url or REDIS_URL (the queue lives in Redis)")
    if not args.redis_url.startswith(("redis://", "rediss://", "unix://")):
        parser.error(f"--redis-url must start with redis://, rediss:// or unix://, got {args.redis_url!r}")
    os.environ["DATABASE_URL"] = args.database_url
    os.environ["REDIS_URL"] = args.redis_url
    try:
        from runtime.settings import Settings
        from tournament.dispatch import worker

        logging.basicConfig(level=logging.INFO, format=worker.LOG_FORMAT, datefmt=worker.DATE_FORMAT)
        games = args.games or Settings.from_env().games_per_worker
        worker.run(
            burst=args.burst,
            with_clock=not args.no_clock,
            maintenance_interval=args.maintenance_interval,
            name=args.name,
            games=games,
        )
    except ValueError as error:  # a bad setting in the environment (SORRY_ARENA_*)
        print(f"sorry-arena worker: {error}", file=sys.stderr)
        return 2
    except RedisError as error:
        print(f"sorry-arena worker: Redis at {args.redis_url}: {error}", file=sys.stderr)
        return 1
    except SQLAlchemyError as error:
        print(f"sorry-arena worker: the database: {database_error(error)}", file=sys.stderr)
        return 1
    return 0
