"""Bytes per move: games played through the game log on PostgreSQL and SQLite, the size of each table per move.

    .venv/bin/python benchmarks/storage.py [--games 40] [--database-url postgresql+psycopg://postgres@127.0.0.1:5432]
        [--no-sqlite] [--json]

``--games`` games of each kind (board with 2 seats, board with 4, card with 4), each seat's action drawn from a
seeded generator among its legal ones (every 25th move a fault: the game's fallback action, as a tournament
records it), every move with a latency, written through ``store.gamelog`` (``advance`` + ``save``, the statements
of both move paths) in a database of the benchmark's own (``benchmarks/tournament.py``'s ``own_database``: a
SQLite file, or a database created on ``--database-url``'s PostgreSQL server and dropped afterwards): half the
games one move per transaction, as the API saves a pull bot's move (and rewrites the game row each time), the
other half 64 moves per transaction, as a worker saves push moves. On PostgreSQL a plain ``VACUUM`` runs every
``--vacuum-every`` rounds of games during the fill (default 4, about every 2,000 moves), as autovacuum would on a
server where it is on (the default): it makes the space of the game rows' old versions reusable; ``0`` runs none,
the worst case, where every old version a pull move left stays in the file.

The before figure: the actions and events tables of revision 0008 (``actions_0008``: with its ``id`` key beside
the unique ``(game, ply)``; ``events_0008``: id, game, seq, ply, to_seat, JSON payload, unique (game, seq)), made by
the benchmark in the same database and filled with the same games' moves and events in the same transactions, as
the code before 0009 wrote them. Before = games + seats + those two; now = games + seats + actions.

Sizes per table, indexes and TOAST included: PostgreSQL's ``pg_total_relation_size`` as written (dead row versions
of the rewritten game rows included), after ``VACUUM`` (the dead versions' space is free for reuse, but stays in
the files) and after ``VACUUM FULL`` (the live rows only); SQLite's pages per table and its indexes (``dbstat``)
after ``VACUUM``. Each figure is divided by the moves played; the 1-minute load average is printed beside them.
:func:`rows` measures and returns one row per database, stage and table (for ``benchmarks/scale.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import (  # noqa: E402
    JSON,
    Column,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Session  # noqa: E402

import engine  # noqa: E402
from benchmarks.tournament import own_database  # noqa: E402
from store import gamelog  # noqa: E402
from store.database import make_engine  # noqa: E402
from store.models import Game, Player  # noqa: E402

KINDS = (("board", {"players": 2}), ("board", {"players": 4}), ("card", {"players": 4}))
TABLES = ("games", "seats", "actions")
BEFORE = ("actions_0008", "events_0008")
"""The tables of the actions and the events as revision 0008 stored them (the before figure)."""
WORKER_BATCH = 64
VACUUM_EVERY = 4
"""Rounds of games (one of each kind) between two VACUUMs during the fill: about every 2,000 moves, as autovacuum
(on by default, off on some test servers) would reclaim the game rows' old versions."""
FAULT_EVERY = 25
DEFAULT_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"

_before = MetaData()
_actions = Table(
    "actions_0008",
    _before,
    Column("id", Integer, primary_key=True),
    Column("game_id", Integer, ForeignKey(Game.id, ondelete="CASCADE"), nullable=False),
    Column("ply", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("action", String(200), nullable=False),
    Column("latency_ms", Float, nullable=True),
    Column("fault", String(16), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("fault_detail", String(120), nullable=True),
    Column("debug", String(1024), nullable=True),
    UniqueConstraint("game_id", "ply"),
)
_events = Table(
    "events_0008",
    _before,
    Column("id", Integer, primary_key=True),
    Column("game_id", Integer, ForeignKey(Game.id, ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("ply", Integer, nullable=False),
    Column("to_seat", Integer, nullable=True),
    Column("payload", JSON, nullable=False),
    UniqueConstraint("game_id", "seq"),
)


def play(session: Session, kind: str, settings: dict[str, Any], seed: int, players: list[int], batch: int) -> int:
    """One game played to its end through the game log, ``batch`` moves per transaction, with the actions and
    events tables of 0008 written beside; its moves."""
    seats = settings["players"]
    game = gamelog.create(session, kind, settings, seed, seats, players[0], players[:seats])
    state = engine.new_game(kind, settings, seed)
    events = [(0, event) for event in engine.opening_events(state)]
    rng = random.Random(seed)
    moves: list[gamelog.Move] = []
    seq = 0

    def write() -> None:
        nonlocal seq
        saved = gamelog.advance(game.id, moves, state, engine.result(state))
        assert gamelog.save(session, saved)
        written = [{key: value for key, value in row.items() if key != "now"} for row in saved.then[0][1]]
        session.execute(_actions.insert(), [{**row, "created_at": saved.saved_at} for row in written])
        rows = [
            {"game_id": game.id, "seq": seq + i, "ply": ply, "to_seat": event.get("to"), "payload": event}
            for i, (ply, event) in enumerate(events)
        ]
        if rows:
            session.execute(_events.insert(), rows)
        session.commit()
        seq += len(rows)
        moves.clear()
        events.clear()

    ply = 0
    while (asked := engine.decision(state)) is not None:
        fault = "timeout" if ply % FAULT_EVERY == FAULT_EVERY - 1 else None
        legal = engine.legal_actions(state, asked.seat)
        action = engine.fallback_action(state) if fault else rng.choice(legal).id
        events += [(ply + 1, event) for event in engine.apply(state, action, asked.seat)]
        latency = round(rng.uniform(0.2, 900.0), 3)
        moves.append(
            gamelog.Move(ply, asked.seat, action, latency, fault, "no answer in 1000 ms" if fault else None)
        )
        ply += 1
        if len(moves) >= batch:
            write()
    if moves:
        write()
    return ply


def fill(database: Engine, games: int, vacuum_every: int) -> int:
    """``games`` games of each kind, half written move by move and half in worker batches, on PostgreSQL a
    ``VACUUM`` after every ``vacuum_every`` rounds (0: none); the moves played."""
    _before.create_all(database)
    moves = 0
    with Session(database) as session:
        players = [Player(name=f"bench{seat}", token_hash=f"{seat:064x}") for seat in range(4)]
        session.add_all(players)
        session.commit()
        ids = [player.id for player in players]
        for number in range(games):
            for kind, settings in KINDS:
                batch = 1 if number % 2 == 0 else WORKER_BATCH
                moves += play(session, kind, settings, number * 7919 + settings["players"], ids, batch)
            if vacuum_every and (number + 1) % vacuum_every == 0 and database.dialect.name == "postgresql":
                postgres_vacuum(database, full=False)
    return moves


def postgres_sizes(database: Engine) -> dict[str, int]:
    with database.connect() as connection:
        return {
            table: int(connection.execute(text("SELECT pg_total_relation_size(:t)"), {"t": table}).scalar_one())
            for table in (*TABLES, *BEFORE)
        }


def postgres_vacuum(database: Engine, full: bool) -> None:
    with database.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM FULL ANALYZE" if full else "VACUUM ANALYZE"))


def sqlite_sizes(database: Engine) -> dict[str, int]:
    """Pages of each table and its indexes (``dbstat``), after ``VACUUM``."""
    with database.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM"))
        owners: dict[str, str] = dict(connection.execute(text("SELECT name, tbl_name FROM sqlite_master")).all())
        sizes = dict.fromkeys((*TABLES, *BEFORE), 0)
        for name, size in connection.execute(text("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")):
            table = owners.get(name, name)
            if table in sizes:
                sizes[table] += int(size)
        return sizes


def measured(url: str, games: int, vacuum_every: int) -> list[dict[str, Any]]:
    """The rows of one database: each stage's size of each table, per move."""
    database = make_engine(url)
    try:
        moves = fill(database, games, vacuum_every)
        if database.dialect.name == "postgresql":
            stages = [("as written", postgres_sizes(database))]
            postgres_vacuum(database, full=False)
            stages.append(("after VACUUM", postgres_sizes(database)))
            postgres_vacuum(database, full=True)
            stages.append(("after VACUUM FULL", postgres_sizes(database)))
        else:
            stages = [("after VACUUM", sqlite_sizes(database))]
    finally:
        database.dispose()
    load = os.getloadavg()[0]
    found = []
    for stage, sizes in stages:
        for table, size in sizes.items():
            found.append(
                {
                    "database": database.dialect.name,
                    "stage": stage,
                    "table": table,
                    "bytes": size,
                    "games": games * len(KINDS),
                    "vacuum_every": vacuum_every if database.dialect.name == "postgresql" else None,
                    "moves": moves,
                    "bytes_per_move": size / moves,
                    "load_1min": load,
                }
            )
    return found


def databases(server_url: str | None, sqlite: bool) -> Iterator[str | None]:
    if server_url:
        yield server_url
    if sqlite:
        yield None


def rows(
    games: int = 40,
    database_url: str | None = DEFAULT_SERVER,
    sqlite: bool = True,
    vacuum_every: int = VACUUM_EVERY,
) -> list[dict[str, Any]]:
    """Play ``games`` games of each kind on each database (PostgreSQL at ``database_url`` unless ``None``, with a
    ``VACUUM`` every ``vacuum_every`` rounds, and SQLite if ``sqlite``), and measure: one row per database, stage
    and table (``actions_0008`` and ``events_0008``: the before figure), with its bytes, the moves and the bytes
    per move."""
    found = []
    for server in databases(database_url, sqlite):
        with own_database(server) as url:
            found += measured(url, games, vacuum_every)
    return found


def report(found: list[dict[str, Any]]) -> None:
    for (database, stage), group in grouped(found).items():
        moves = group[0]["moves"]
        after = sum(row["bytes"] for row in group if row["table"] in TABLES)
        before = sum(row["bytes"] for row in group if row["table"] in (*TABLES[:2], *BEFORE))
        parts = ", ".join(f"{row['table']} {row['bytes_per_move']:.0f}" for row in group)
        vacuum = group[0]["vacuum_every"]
        during = (
            f" (VACUUM every {vacuum} rounds)" if vacuum else " (no VACUUM during the fill)" if vacuum == 0 else ""
        )
        print(
            f"{database:10} {stage + during:45} {moves} moves: {parts} bytes/move; "
            f"now {after / moves:.0f} bytes/move (before, 0008's actions and events: {before / moves:.0f}); "
            f"load {group[0]['load_1min']:.2f}"
        )


def grouped(found: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in found:
        groups.setdefault((row["database"], row["stage"]), []).append(row)
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games of each kind (default 40)")
    parser.add_argument("--database-url", default=DEFAULT_SERVER, help="a PostgreSQL server ('' for none)")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    parser.add_argument(
        "--vacuum-every",
        type=int,
        default=VACUUM_EVERY,
        help=f"rounds between VACUUMs during the fill on PostgreSQL (default {VACUUM_EVERY}; 0: none, the worst case)",
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    options = parser.parse_args()
    found = rows(options.games, options.database_url or None, not options.no_sqlite, options.vacuum_every)
    if options.json:
        print(json.dumps(found, indent=1))
    else:
        report(found)


if __name__ == "__main__":
    main()
