"""Self-play rows to a file (:mod:`envs.selfplay`): JSON lines, or Parquet with the ``parquet`` extra (pyarrow).

A JSON lines file holds one row per line, its ``view`` an object. A Parquet file holds the same columns, its
``view`` a JSON string (Parquet has no column type for a document whose fields vary by game), ``legal`` and
``ranks`` lists; it is written a row group at a time, so a long run never holds its rows in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from envs.selfplay import FIELDS, Row

FORMATS = (".jsonl", ".parquet")
ROW_GROUP = 50_000
"""Rows per Parquet row group."""


class MissingExtra(RuntimeError):
    """Parquet asked for without pyarrow installed."""


def file_format(path: str | Path) -> str:
    """The format of an output path, by its suffix; ``ValueError`` for another suffix."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"the output file must end in {' or '.join(FORMATS)}, got {str(path)!r}")
    return suffix


def pyarrow_modules() -> tuple[ModuleType, ModuleType]:
    """pyarrow and pyarrow.parquet, or :class:`MissingExtra` saying how to install them."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise MissingExtra(
            "writing Parquet needs pyarrow: pip install 'sorry-arena[parquet]' (or write a .jsonl file)"
        ) from None
    return pyarrow, pyarrow.parquet


def write(path: str | Path, games: Iterable[list[Row]]) -> int:
    """Write every game's rows to ``path`` (format by suffix: :func:`file_format`); the number of rows written."""
    if file_format(path) == ".parquet":
        return _write_parquet(path, games)
    with open(path, "w", encoding="utf-8") as out:
        return _write_jsonl(out, games)


def _write_jsonl(out: TextIO, games: Iterable[list[Row]]) -> int:
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    count = 0
    for rows in games:
        out.write("".join(dumps(row) + "\n" for row in rows))
        count += len(rows)
    return count


def _schema(pa: Any) -> Any:
    return pa.schema(
        [
            ("game", pa.int64()),
            ("seed", pa.int64()),
            ("ply", pa.int32()),
            ("seat", pa.int8()),
            ("bot", pa.string()),
            ("kind", pa.string()),
            ("view", pa.string()),
            ("legal", pa.list_(pa.string())),
            ("action", pa.string()),
            ("rank", pa.int8()),
            ("ranks", pa.list_(pa.int8())),
            ("reason", pa.string()),
        ]
    )


def _write_parquet(path: str | Path, games: Iterable[list[Row]]) -> int:
    pa, pq = pyarrow_modules()
    schema = _schema(pa)
    assert tuple(schema.names) == FIELDS
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    columns: dict[str, list[Any]] = {name: [] for name in FIELDS}
    count = 0
    with pq.ParquetWriter(str(path), schema) as writer:

        def flush() -> None:
            writer.write_table(pa.table(columns, schema=schema))
            for values in columns.values():
                values.clear()

        for rows in games:
            for row in rows:
                for name in FIELDS:
                    columns[name].append(dumps(row[name]) if name == "view" else row[name])
            count += len(rows)
            if len(columns["game"]) >= ROW_GROUP:
                flush()
        if columns["game"] or not count:
            flush()
    return count
