"""The parser of ``sorry-arena replay``: the files of game records to check."""

from __future__ import annotations

from typing import Any


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "replay",
        help="check game records (JSON lines) against the engine",
        description="Replay every game record of the files with the engine: the actions must be legal for the "
        "seat asked, faults must be the seeded fallback, the result the engine's (forfeits applied). Exit status "
        "0: all hold; 1: some do not; 2: a file cannot be read.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="JSON-lines files of game records; - for stdin")
    parser.set_defaults(parser=parser)
