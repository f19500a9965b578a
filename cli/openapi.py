"""``sorry-arena openapi``: write the API's OpenAPI 3 document (the one served at ``/openapi.json``) to a file.

The file is committed (``openapi/openapi.json``) so that clients can be generated without running the service;
``tests/service/test_openapi_file.py`` fails when it is stale, and ``--check`` does the same from the command line.
Its parser: ``cli/parsers/openapi.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def spec_text() -> str:
    """The spec as written to the file: JSON, sorted keys, indent 2, a trailing newline."""
    from runtime.settings import Settings
    from service.app import create_app

    app = create_app(Settings(database_url="sqlite://"))  # nothing connects: the spec needs no database
    with app.app_context():
        spec = app.extensions["api"].spec.to_dict()
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    path: Path = args.output
    if not args.check and path.is_dir():
        parser.error(f"--output {path} is a directory")
    text = spec_text()  # Flask and the service's app: after the flags are checked
    if args.check:
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != text:
            print(f"{path} is stale: run `sorry-arena openapi --output {path}` to refresh it", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"sorry-arena openapi: cannot write {path}: {error}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0
