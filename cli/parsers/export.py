"""The parser of ``sorry-arena export``: the tournament, where to read its games (the service, ``--api``, or its
database, ``--database-url``), the bearer token and the file to write."""

from __future__ import annotations

import os
from typing import Any

from cli.options import bounded_int, database_url
from cli.parsers.tournament import DEFAULT_API


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "export",
        help="a tournament's finished games as game records (JSON lines)",
        description="Write the records of a tournament's finished games, one JSON line each (the format: "
        "docs/bots.md, Replays and exports), downloaded from the service or read from its database.",
    )
    parser.add_argument("--tournament", type=bounded_int(1, 2**31 - 1, "a tournament id"), required=True)
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--api",
        default=None,
        help=f"service URL (default: $SORRY_ARENA_API, else {DEFAULT_API})",
    )
    source.add_argument(
        "--database-url", type=database_url, default=None, metavar="URL", help="read this database instead"
    )
    parser.add_argument("--token", default=os.environ.get("SORRY_ARENA_TOKEN"), help="bearer token, if needed")
    parser.add_argument("--output", "-o", default="-", metavar="FILE", help="the file to write (default: stdout)")
    parser.set_defaults(parser=parser)
