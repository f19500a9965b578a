"""``sorry-arena serve``: run the REST service under gunicorn, migrating the database first (as ``sorry-arena db
upgrade`` does, the tables it left behind refit too); a database newer than this release is refused, with
``--no-migrate`` too (exit 2, one line).

Workers are gunicorn's ``gevent`` kind by default: each connection is a greenlet of an event loop, so a waiting
long poll (``GET /decisions?wait=``, ``GET .../actions?wait=``) holds no thread, and a client that sends its request
slowly (slowloris) holds only its own connection while the loop answers the others; up to ``--connections``
clients per worker at once, of which at most half (``SORRY_ARENA_MAX_WAITING_PER_PROCESS``:
:func:`waiting_per_process`) may be waiting requests, so that the others stay for health and the requests that
answer at once. gevent's monkey-patching is applied by gunicorn in each worker before the app is
loaded, so the database drivers (psycopg 3 picks its gevent-aware wait, SQLite is called directly), redis-py, the
Redis listener of ``runtime/wakeups.py`` and the embedded job queue's threads all become cooperative.
``--worker-class gthread`` is the thread-per-request worker (``--threads`` per process, each waiting long poll
holding one), kept as the baseline of ``benchmarks/waiting.py`` (docs/guarantees.md compares them).

SIGHUP reloads: gunicorn starts new workers, then stops the old ones; a stopping worker (a reload, or SIGTERM)
answers its waiting long polls and ends its streams at once (``cli/server.py``), and gives the requests under way
:data:`GRACEFUL_TIMEOUT` seconds (docs/deploy.md, Health checks, restarts and reloads).

Long polls wake through Redis across processes, so more than one worker needs ``--redis-url`` (or
``REDIS_URL``); without it the service runs one worker. gunicorn's control socket (``~/.gunicorn/gunicorn.ctl`` by
default in gunicorn 27) is disabled: nothing here uses it, and several servers on one machine would fight over it.

Its lines, gunicorn's included, are in the service's log format (``runtime/logs.py``). With
``SORRY_ARENA_METRICS`` on or a port, the workers keep their metrics in a directory made for the run (removed at its
end), and with a port the master serves them all there (``run_server``).

Its parser is ``cli/parsers/serve.py``; the flags are checked (:func:`options_from`) before SQLAlchemy, gunicorn
and Flask load, and the gunicorn application is ``cli/server.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
from typing import Any

from runtime.settings import Settings

GRACEFUL_TIMEOUT = 10
"""Seconds a stopping worker gives its requests under way (gunicorn's default: 30). Waiting long polls and streams
end at once (``cli/server.py``), so this is for a slow move or page only; compose's ``stop_grace_period`` for the
API (15 s) exceeds it."""


def options_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """gunicorn's settings from the flags; flags that cannot work together are usage errors."""
    if not args.host.strip():
        parser.error("--host must not be empty")
    if args.redis_url is not None and not args.redis_url.startswith(("redis://", "rediss://", "unix://")):
        parser.error(f"--redis-url must start with redis://, rediss:// or unix://, got {args.redis_url!r}")
    workers = args.workers if args.workers is not None else (2 if args.redis_url else 1)
    if workers > 1 and not args.redis_url:
        parser.error(
            "--workers above 1 needs --redis-url (or REDIS_URL): long polls wake through Redis across "
            "processes; without it run one worker and raise --threads"
        )
    host = f"[{args.host}]" if ":" in args.host and not args.host.startswith("[") else args.host
    options: dict[str, Any] = {
        "bind": [f"{host}:{args.port}"],
        "workers": workers,
        "worker_class": args.worker_class,
        "control_socket_disable": True,
        "graceful_timeout": GRACEFUL_TIMEOUT,
        "proc_name": "sorry-arena",
    }
    if args.worker_class == "gevent":
        options["worker_connections"] = args.connections
    else:
        options["threads"] = args.threads
    if args.access_log:
        options["accesslog"] = "-"
    return options


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    options = options_from(args, parser)
    try:
        settings = Settings.from_env()
    except ValueError as error:  # a bad or unknown setting: one line naming it
        print(f"sorry-arena serve: {error}", file=sys.stderr)
        return 2
    # the flags are checked: now the libraries of the service (none loads for a usage error of the flags)
    from sqlalchemy.exc import SQLAlchemyError

    from cli.database import check_url, database_error, refuse_newer, shown

    check_url(args.database_url, parser)
    refuse_newer(args.database_url, "serve")
    settings = dataclasses.replace(
        settings,
        database_url=args.database_url,
        redis_url=args.redis_url,
        max_waiting_per_process=waiting_per_process(settings, args.connections),
    )
    if not args.no_migrate:
        from cli.db import refit, told
        from store import migrate

        try:
            revision = migrate.upgrade(settings.database_url, say=told)
            refit(settings.database_url)
        except SQLAlchemyError as error:
            print(
                f"sorry-arena serve: cannot migrate {shown(settings.database_url)}: {database_error(error)}",
                file=sys.stderr,
            )
            return 1
        print(f"{shown(settings.database_url)}: at revision {revision}", file=sys.stderr)
    run_server(settings, options, args.host)
    return 0


def waiting_per_process(settings: Settings, connections: int) -> int:
    """The waiting requests a worker may hold at once (``service/waiting.py``): ``SORRY_ARENA_MAX_WAITING_PER_PROCESS``,
    else half of its ``--connections``, so that the other half stays for health and the requests that answer at
    once. A cap set at or above the connections is used as set, with a warning: it no longer keeps any for them."""
    if settings.max_waiting_per_process is None:
        return max(1, connections // 2)
    if settings.max_waiting_per_process >= connections:
        print(
            f"sorry-arena serve: warning: SORRY_ARENA_MAX_WAITING_PER_PROCESS ({settings.max_waiting_per_process}) "
            f"is not below --connections ({connections}): waiting clients may take every connection of a worker, "
            "and /api/v1/health then waits for one of them",
            file=sys.stderr,
        )
    return settings.max_waiting_per_process


def run_server(settings: Settings, options: dict[str, Any], host: str) -> None:
    """gunicorn, its logs in the service's format (``runtime/logs.py``); with metrics, every worker's values in a
    directory made for this run (prometheus_client's multiprocess mode) and removed after it, a dead worker's marked
    so, and with a metrics port, the master serving them there (``runtime/metricserver.py``)."""
    import multiprocessing

    from cli.server import Server
    from runtime import logs

    multiprocessing.current_process().name = "serve"
    options = {
        **options,
        "logconfig_dict": logs.gunicorn_config(
            settings.log_format, settings.log_level, gunicorn_access="accesslog" in options
        ),
    }
    if settings.metrics == "off":
        Server(settings, options).run()
        return
    folder = tempfile.mkdtemp(prefix="sorry-arena-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = (
        folder  # before prometheus_client is first imported, here or in a worker
    )
    from prometheus_client import multiprocess

    from runtime import metricserver

    def child_exit(server: Any, worker: Any) -> None:
        multiprocess.mark_process_dead(worker.pid)

    options["child_exit"] = child_exit
    if settings.metrics.isdigit():
        guard = metricserver.Guard(settings.operator_token, metricserver.parse_networks(settings.metrics_allow))

        def when_ready(server: Any) -> None:
            metricserver.serve(metricserver.MetricsApp(guard), int(settings.metrics), host.strip("[]"))

        options["when_ready"] = when_ready
    try:
        Server(settings, options).run()
    finally:
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
        shutil.rmtree(folder, ignore_errors=True)
