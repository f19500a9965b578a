"""One log format for every process: ``sorry-arena serve`` (its gunicorn master and workers, gunicorn's own lines
included: :func:`gunicorn_config`), ``sorry-arena worker`` and the commands that run long.

Each line has its time (UTC, ISO 8601 with milliseconds), level, process (its name and pid), logger and message:
as text (``SORRY_ARENA_LOG_FORMAT=text``, the default) or as one JSON object a line (``json``), at
``SORRY_ARENA_LOG_LEVEL`` (INFO). RQ's line per job ("Job OK", "default: ... (job id)") is at INFO: its loggers are
held to WARNING (they cost a worker's CPU on every game, and told nothing the metrics do not).

The access log (``sorry_arena.access``, a line per request, ``SORRY_ARENA_ACCESS_LOG``) is written by the API's
middleware (``service/observe.py``): method, route template, status, milliseconds and the account id when the
request had a valid token; never the path's query string, a header or a token.

What the code logs must never carry hidden information (a hand, a deck's order) or a secret (a token, a bot's
secret): the log lines name games, seats, bots and accounts by id.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

TEXT_FORMAT = "%(asctime)s %(levelname)s %(processName)s[%(process)d] %(name)s: %(message)s"
QUIET = ("rq.worker", "rq.queue", "rq.job", "rq.scheduler", "rq.intermediate_queue")
"""RQ's loggers held to WARNING: their INFO lines are one or two per job."""
ACCESS = "sorry_arena.access"


def timestamp(created: float) -> str:
    """``created`` (seconds since the epoch) in ISO 8601, UTC, to the millisecond: ``2026-11-29T08:35:34.123Z``."""
    return f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(created))}.{int(created * 1000) % 1000:03d}Z"


class TextFormatter(logging.Formatter):
    """The text lines: ``TIME LEVEL PROCESS[PID] LOGGER: MESSAGE``, a traceback's lines after it."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return timestamp(record.created)


class JSONFormatter(logging.Formatter):
    """One JSON object a line: ``time``, ``level``, ``process`` (name), ``pid``, ``logger``, ``message``, a
    traceback as ``exception``, and the fields a call passed in ``extra={"fields": {...}}``."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": timestamp(record.created),
            "level": record.levelname,
            "process": record.processName,
            "pid": record.process,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def formatter(kind: str) -> logging.Formatter:
    return JSONFormatter() if kind == "json" else TextFormatter()


def configure(kind: str = "text", level: str = "INFO", process: str | None = None) -> None:
    """Send every logger's lines, in ``kind``'s format, at ``level``, to stderr; once per process (a second call
    replaces the first's handler). ``process`` names the process in its lines (``multiprocessing``'s name)."""
    if process is not None:
        import multiprocessing

        multiprocessing.current_process().name = process
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(kind))
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "sorry_arena", False):
            root.removeHandler(old)
    handler.sorry_arena = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLevelName(level)))
    logging.Formatter.converter = time.gmtime


def gunicorn_config(kind: str, level: str, gunicorn_access: bool = False) -> dict[str, Any]:
    """gunicorn's ``logconfig_dict``: every logger of its processes (its own ``gunicorn.error`` too) through this
    format at ``level``; its own access log only with ``gunicorn_access`` (``serve --access-log``: the app's
    middleware writes one already, with the route template)."""
    class_name = f"{__name__}.{'JSONFormatter' if kind == 'json' else 'TextFormatter'}"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"sorry_arena": {"()": class_name}},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "sorry_arena", "stream": "ext://sys.stderr"}
        },
        "root": {"level": level, "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": level, "handlers": [], "propagate": True},
            "gunicorn.access": {"level": "INFO" if gunicorn_access else "WARNING", "propagate": gunicorn_access},
            **{name: {"level": "WARNING"} for name in QUIET},
        },
    }
