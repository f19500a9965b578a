"""Reading game record files (JSON lines, ``engine/records.py``) for ``sorry-arena replay`` and ``view``: a path or
``-`` (standard input), each record with its line number; anything unreadable a :class:`RecordError` that names the
file and the line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import IO, Any

from engine.records import RecordError, read_jsonl


def label(path: str) -> str:
    return "standard input" if path == "-" else path


def records_of(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of the file at ``path`` (``-``: standard input), each with its line number (from 1), in order.
    Raises :class:`RecordError` naming the file (and the line) for a file that cannot be opened or read, a line
    that is not UTF-8 text, not JSON or not an object, and a file without any record."""
    try:
        stream: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 (closed below)
    except OSError as error:
        raise RecordError(f"{label(path)}: cannot read it ({error.strerror or error})") from None
    line = [0]
    found = 0
    try:
        for record in read_jsonl(_text_lines(stream, path, line)):
            found += 1
            yield line[0], record
    except RecordError as error:
        message = str(error)
        raise RecordError(
            message if message.startswith(f"{label(path)}:") else f"{label(path)}: {message}"
        ) from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    if not found:
        raise RecordError(f"{label(path)}: no game records in it")


def _text_lines(stream: IO[bytes], path: str, line: list[int]) -> Iterator[str]:
    """The lines of ``stream`` as text, the number of the latest in ``line[0]``."""
    try:
        for number, raw in enumerate(stream, 1):
            line[0] = number
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError:
                raise RecordError(f"{label(path)}: line {number}: not UTF-8 text") from None
    except OSError as error:
        raise RecordError(f"{label(path)}: cannot read it ({error.strerror or error})") from None
