"""The parser of ``sorry-arena config``: whether to check that the database and Redis answer."""

from __future__ import annotations

from typing import Any


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "config",
        help="print the effective settings and check the database and Redis",
        description="Print each setting of the service (DATABASE_URL, REDIS_URL, SORRY_ARENA_*) as the API and the "
        "workers read it from this environment, and where it came from (environment or default), secrets masked; "
        "then check that the database and Redis answer (exit 1 when not). A bad or unknown setting: exit 2.",
    )
    parser.add_argument(
        "--no-check", action="store_true", help="only print the settings; do not connect to the database or Redis"
    )
    parser.set_defaults(parser=parser)
