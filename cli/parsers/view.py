"""The parser of ``sorry-arena view``: the file of game records to show, and the port on 127.0.0.1."""

from __future__ import annotations

from typing import Any

from cli.options import bounded_int


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "view",
        help="open the games of a records file in the web viewer (on 127.0.0.1)",
        description="Check the game records of FILE, load them into a temporary database and serve the web "
        "viewer for them on 127.0.0.1 until Ctrl-C. Records that do not check are refused.",
    )
    parser.add_argument("file", metavar="FILE", help="a JSON-lines file of game records; - for stdin")
    parser.add_argument(
        "--port", type=bounded_int(0, 65535, "a port"), default=0, help="port on 127.0.0.1 (default: a free one)"
    )
    parser.set_defaults(parser=parser)
