"""Retention (``store/retention.py``): the bytes a finished game keeps once archived, the cost of archiving it, and
a record read from its action rows against from its archive.

    .venv/bin/python benchmarks/retention.py [--games 20] [--database-url postgresql+psycopg://postgres@127.0.0.1:5432]
        [--no-sqlite]

``--games`` rounds of games (``benchmarks/storage.py``'s: a 2-seat and a 4-seat board game and a 4-seat card game,
each played to its end through the game log with a latency on every move and a fault every 25th), folded into the
tallies, in a database of the benchmark's own on each database. Then:

- the size of ``games``, ``seats``, ``actions`` and ``archived_games`` per game (indexes and TOAST included:
  PostgreSQL's ``pg_total_relation_size`` after ``VACUUM FULL``, SQLite's pages after ``VACUUM``), before and
  after every game is archived;
- the archiving's µs per game (``retention.archive_all`` in its batches, as the maintenance runs it);
- the median µs of ``gamerecords.game_record`` over the games, from their action rows before and from their
  archived records after.

The 1-minute load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import Engine, select, text  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from benchmarks.storage import BEFORE, fill  # noqa: E402
from benchmarks.tournament import own_database  # noqa: E402
from store import bottallies, gamerecords, retention  # noqa: E402
from store.database import make_engine  # noqa: E402
from store.models import Game, now  # noqa: E402

DEFAULT_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"
TABLES = ("games", "seats", "actions", "archived_games")


def sizes(database: Engine) -> dict[str, int]:
    """Bytes of each table with its indexes (and TOAST), once the free space is given back."""
    with database.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        if database.dialect.name == "postgresql":
            connection.execute(text(f"VACUUM FULL ANALYZE {', '.join(TABLES)}"))
            return {
                table: int(
                    connection.execute(text("SELECT pg_total_relation_size(:t)"), {"t": table}).scalar_one()
                )
                for table in TABLES
            }
        connection.execute(text("VACUUM"))
        owners: dict[str, str] = dict(connection.execute(text("SELECT name, tbl_name FROM sqlite_master")).all())
        found = dict.fromkeys(TABLES, 0)
        for name, size in connection.execute(text("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")):
            table = owners.get(name, name)
            if table in found:
                found[table] += int(size)
        return found


def record_us(session: Session, game_ids: list[int]) -> float:
    """The median µs of one game's record."""
    taken = []
    for game_id in game_ids:
        started = time.perf_counter()
        assert gamerecords.game_record(session, game_id) is not None
        taken.append((time.perf_counter() - started) * 1e6)
        session.rollback()
    return statistics.median(taken)


def measured(url: str, games: int) -> dict[str, Any]:
    database = make_engine(url)
    try:
        moves = fill(database, games, vacuum_every=4)
        with database.begin() as connection:
            for table in BEFORE:  # storage.py's tables of revision 0008: not this benchmark's
                connection.execute(text(f"DROP TABLE {table}"))
        with Session(database) as session:
            bottallies.fold_all(session, seconds=3600)
            game_ids = list(session.scalars(select(Game.id).order_by(Game.id)))
            before_us = record_us(session, game_ids)
        before = sizes(database)
        with Session(database) as session:
            started = time.perf_counter()
            judged = retention.archive_all(session, days=1, seconds=3600, at=now() + timedelta(days=2))
            archive_us = (time.perf_counter() - started) * 1e6 / judged
            assert judged == len(game_ids)
            after_us = record_us(session, game_ids)
        after = sizes(database)
    finally:
        database.dispose()
    return {
        "database": database.dialect.name,
        "games": len(game_ids),
        "moves": moves,
        "before": before,
        "after": after,
        "archive_us": archive_us,
        "record_rows_us": before_us,
        "record_archive_us": after_us,
        "load": os.getloadavg()[0],
    }


def report(row: dict[str, Any]) -> None:
    games = row["games"]
    print(
        f"{row['database']}: {games} finished games, {row['moves'] / games:.0f} moves each; bytes per game "
        f"(load {row['load']:.2f})"
    )
    print(f"{'table':>16} {'before':>10} {'archived':>10}")
    for table in TABLES:
        print(f"{table:>16} {row['before'][table] / games:>10,.0f} {row['after'][table] / games:>10,.0f}")
    print(
        f"{'total':>16} {sum(row['before'].values()) / games:>10,.0f} {sum(row['after'].values()) / games:>10,.0f}"
    )
    print(
        f"archiving: {row['archive_us']:,.0f} us per game; a record: {row['record_rows_us']:,.0f} us from its rows, "
        f"{row['record_archive_us']:,.0f} us from its archive"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--database-url", default=DEFAULT_SERVER)
    parser.add_argument("--no-sqlite", action="store_true")
    options = parser.parse_args()
    servers: list[str | None] = [options.database_url] if options.database_url else []
    if not options.no_sqlite:
        servers.append(None)
    for server in servers:
        with own_database(server) as url:
            report(measured(url, options.games))


if __name__ == "__main__":
    main()
