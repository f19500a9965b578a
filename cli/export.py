"""``sorry-arena export --tournament ID``: a tournament's finished games as game records (JSON lines), downloaded
from the service (``GET /api/v1/tournaments/{id}/games.jsonl``, the default) or read from its database directly
(``--database-url``, through ``store/gamerecords.py``); to standard output or ``--output FILE`` (written whole or
not at all). Errors are one line and exit status 1: an unreachable service, an unknown tournament, a database that
cannot be read. Its parser: ``cli/parsers/export.py``; SQLAlchemy loads only to read a database.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import IO

import requests

from cli.parsers.tournament import DEFAULT_API
from cli.tournament import Api
from engine.records import dumps

CHUNK = 64 * 1024


class ExportError(Exception):
    pass


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
    from sqlalchemy.exc import SQLAlchemyError

    from cli.database import database_error, shown
    from store.database import make_engine, sessions
    from store.gamerecords import tournament_records
    from store.models import Tournament

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
        from cli.database import check_url, refuse_newer, shown

        check_url(args.database_url, parser)
        refuse_newer(args.database_url, "export")
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
