"""``sorry-arena worker``: run an RQ worker that plays tournament games, several at once (any number of workers, on
any machine that reaches Redis and the database), with a clock that starts the runs due (start times, repeats).
Its log lines carry the time, level, process and logger (``runtime/logs.py``), and its leases its name; with
``--metrics-port`` it serves its metrics (``runtime/metrics.py``). Its parser: ``cli/parsers/worker.py``; the flags are checked
before SQLAlchemy, Redis and RQ load. A database newer than this release is refused at once (exit 2, one line)."""

from __future__ import annotations

import argparse
import os
import sys


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not args.redis_url:
        parser.error("a worker needs --redis-url or REDIS_URL (the queue lives in Redis)")
    if not args.redis_url.startswith(("redis://", "rediss://", "unix://")):
        parser.error(f"--redis-url must start with redis://, rediss:// or unix://, got {args.redis_url!r}")
    # the flags are checked: now the libraries of the workers (none loads for a usage error of the flags)
    from redis.exceptions import RedisError
    from sqlalchemy.exc import SQLAlchemyError

    from cli.database import check_url, database_error, refuse_newer

    check_url(args.database_url, parser)
    refuse_newer(args.database_url, "worker")
    os.environ["DATABASE_URL"] = args.database_url
    os.environ["REDIS_URL"] = args.redis_url
    from runtime.settings import Settings

    try:
        settings = Settings.from_env()
    except ValueError as error:  # a bad or unknown setting: one line naming it
        print(f"sorry-arena worker: {error}", file=sys.stderr)
        return 2
    try:
        from runtime import logs
        from tournament.dispatch import worker

        logs.configure(
            settings.log_format, settings.log_level, process=f"worker:{args.name}" if args.name else "worker"
        )
        worker.run(
            burst=args.burst,
            with_clock=not args.no_clock,
            maintenance_interval=args.maintenance_interval,
            name=args.name,
            games=args.games or settings.games_per_worker,
            metrics_port=args.metrics_port or settings.worker_metrics_port,
        )
    except ValueError as error:  # a URL redis-py or the database's driver cannot read, a metrics port taken
        print(f"sorry-arena worker: {error}", file=sys.stderr)
        return 2
    except RedisError as error:
        print(f"sorry-arena worker: Redis at {args.redis_url}: {error}", file=sys.stderr)
        return 1
    except SQLAlchemyError as error:
        print(f"sorry-arena worker: the database: {database_error(error)}", file=sys.stderr)
        return 1
    return 0
