"""``sorry-arena export --tournament ID``: a tournament's finished games as game records (JSON lines), downloaded
from the service (``GET /api/v1/tournaments/{id}/games.jsonl``, the default) or read from its database directly
(``--database-url``, through ``store/gamerecords.py``); to standard output or ``--output FILE`` (written whole or
not at all). Errors are one line and exit status 1: an unreachable service, an unknown tournament, a database that
cannot be read."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

import requests
from sqlalchemy.exc import SQLAlchemyError

from cli.options import bounded_int, database_error, database_url, shown
from cli.tournament import DEFAULT_API, Api
from engine.records import dumps
from store.database import make_engine, sessions
from store.gamerecords import tournament_records
from store.models import Tournament

CHUNK = 64 * 1024


class ExportError(Exception):
    pass


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
    parser.set_defaults(run=run, parser=parser)


def from_api(base: str, token: str | None, tournament_id: int) -> Iterator[bytes]:
    """The download's bytes, in chunks as they arrive."""
    api = Api(base, token)
    url = f"{api.base}/tournaments/{tournament_id}/games.jsonl"
    try:
        response = api.session.get(url, stream=True, timeout=30)
    except requests.RequestException as error:
        raise ExportError(f"cannot reach the service at {api.base}: {error.__class__.__name__}") from None
    with response:
        if response.status_code >= 400:
            try:
                message = response.json().get("message")
            except (ValueError, AttributeError):
                message = response.text[:200]
            raise ExportError(f"HTTP {response.status_code}: {message}")
        if response.headers.get("Content-Type", "").partition(";")[0].strip() != "application/x-ndjson":
            raise ExportError(
                f"the service at {api.base} did not answer JSON lines (is --api the sorry-arena service?)"
            )
        try:
            yield from response.iter_content(CHUNK)
        except requests.RequestException as error:
            raise ExportError(f"the download from {api.base} broke off: {error.__class__.__name__}") from None


def from_database(url: str, tournament_id: int) -> Iterator[bytes]:
    """The records' lines, read from the database in batches."""
    engine = make_engine(url)
    try:
        with sessions(engine)() as session:
            try:
                if session.get(Tournament, tournament_id) is None:
                    raise ExportError(f"{shown(url)}: no tournament {tournament_id}")
                for record in tournament_records(session, tournament_id):
                    yield (dumps(record) + "\n").encode()
            except SQLAlchemyError as error:
                raise ExportError(f"cannot read {shown(url)}: {' '.join(database_error(error).split())}") from None
    finally:
        engine.dispose()


def write(chunks: Iterator[bytes], output: str) -> int:
    """Write ``chunks`` to ``output`` (``-``: stdout; a file is written to a temporary name, then renamed);
    the number of lines written."""
    lines = 0
    if output == "-":
        for chunk in chunks:
            sys.stdout.buffer.write(chunk)
            lines += chunk.count(b"\n")
        sys.stdout.buffer.flush()
        return lines
    partial = f"{output}.part"
    try:
        stream: IO[bytes] = open(partial, "wb")  # noqa: SIM115 (closed below)
    except OSError as error:
        raise ExportError(f"cannot write {output}: {error.strerror or error}") from None
    try:
        with stream:
            for chunk in chunks:
                stream.write(chunk)
                lines += chunk.count(b"\n")
        os.replace(partial, output)
    except BaseException as error:
        if os.path.exists(partial):
            os.remove(partial)
        if isinstance(error, OSError):
            raise ExportError(f"cannot write {output}: {error.strerror or error}") from None
        raise
    return lines


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.database_url is not None:
        chunks = from_database(args.database_url, args.tournament)
        source = shown(args.database_url)
    else:
        base = args.api or os.environ.get("SORRY_ARENA_API") or DEFAULT_API
        if not base.startswith(("http://", "https://")):
            parser.error(f"--api must be an http:// or https:// URL, got {base!r}")
        chunks = from_api(base, args.token, args.tournament)
        source = base
    try:
        lines = write(chunks, args.output)
    except ExportError as error:
        print(f"sorry-arena export: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader of stdout left (`| head`): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    where = "standard output" if args.output == "-" else args.output
    print(f"tournament {args.tournament}: {lines} finished games from {source} to {where}", file=sys.stderr)
    return 0
