"""The parser of ``sorry-arena openapi``: the file to write the OpenAPI document to, or ``--check`` it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEFAULT_OUTPUT = Path("openapi") / "openapi.json"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "openapi",
        help="write the OpenAPI document to a file",
        description="Write the API's OpenAPI 3 document (as served at /openapi.json) to a file.",
    )
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, metavar="PATH", help=f"default: {DEFAULT_OUTPUT}"
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the file is stale")
    parser.set_defaults(parser=parser)
