"""``sorry-arena openapi``: write the API's OpenAPI 3 document (the one served at ``/openapi.json``) to a file.

The file is committed (``openapi/openapi.json``) so that clients can be generated without running the service;
``tests/service/test_openapi_file.py`` fails when it is stale, and ``--check`` does the same from the command line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DEFAULT_OUTPUT = Path("openapi") / "openapi.json"


def spec_text() -> str:
    """The spec as written to the file: JSON, sorted keys, indent 2, a trailing newline."""
    from runtime.settings import Settings
    from service.app import create_app

    app = create_app(Settings(database_url="sqlite://"))  # nothing connects: the spec needs no database
    with app.app_context():
        spec = app.extensions["api"].spec.to_dict()
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


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
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    path: Path = args.output
    text = spec_text()
    if args.check:
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != text:
            print(f"{path} is stale: run `sorry-arena openapi --output {path}` to refresh it", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    if path.is_dir():
        parser.error(f"--output {path} is a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"sorry-arena openapi: cannot write {path}: {error}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0
