"""Ladders' matchmaking at scale: what a game made costs (``tournament.plans.ladders.make_games``) at 100 to 10,000
bots, after no games and after 100,000, on SQLite and PostgreSQL.

    .venv/bin/python -m benchmarks.ladder [--bots 100,1000,10000] [--history 0,100000] [--games 40] [--rounds 3]
        [--databases sqlite,postgresql] [--postgresql-url postgresql+psycopg://postgres@127.0.0.1:5432]

Each case (a database kind, a number of bots, a history) gets a database of its own (a SQLite file in a temporary
directory, or a uniquely named PostgreSQL database created on ``--postgresql-url`` and dropped at the end), migrated
to the head, then seeded in bulk, untimed: the bots (``tests.ladderkit.bulk_bots``), an open 2-seat ladder of them
(budget 30 games an hour), each entry with a rating drawn around the start (so that the reads along the rating
index walk a realistic neighbourhood) and some games, and ``history`` games made and settled in the days before
(their scheduled games, ladder games, seats and the pairs' counts). Then ``--rounds`` rounds, the cases in turn (in
reverse order in the odd rounds, so a drift of the machine's load falls on all alike), each: one matchmaking round
that makes ``--games`` games (at most a quarter of the bots' tables), timed, then those games settled as their
results would (untimed). A row gives the microseconds per game made: CPU (``time.process_time``: this process; on
SQLite the database's work is in it, on PostgreSQL the server's is not) and wall (on PostgreSQL, the round trips and
the server's work), and on PostgreSQL the server's CPU for the round too (its backends serving the database, read
from ``/proc/<pid>/schedstat``: the server must run on this machine, else the column says n/a), so that process and
server together give the whole CPU a game made costs; with the 1-minute load average when it ended. The medians over the rounds are printed last. The
goal is under 5 ms a game at 10,000 bots, flat in the history. The machine is shared: compare cases within a run,
not figures across runs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, insert, make_url, select, text, update
from sqlalchemy.orm import Session, sessionmaker

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from store import migrate
from store.database import make_engine
from store.models import Player, Tournament, TournamentGame, now
from store.models.ladders import LadderEntry, LadderGame, LadderPair, LadderSeat
from tests.ladderkit import bulk_bots, new_ladder
from tournament.plans import ladders

BATCH = 5_000
TABLE = 2
BUDGET = 30
DEFAULT_POSTGRESQL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def load() -> float:
    return os.getloadavg()[0]


@contextmanager
def database(kind: str, postgresql_url: str, directory: str) -> Iterator[str]:
    """A fresh database's URL (a SQLite file, or a PostgreSQL database created on the server), dropped after."""
    if kind == "sqlite":
        yield f"sqlite:///{directory}/ladder-{uuid.uuid4().hex[:8]}.db"
        return
    name = f"sorry_arena_ladder_{uuid.uuid4().hex[:10]}"
    admin = create_engine(make_url(postgresql_url).set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(postgresql_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def insert_all(session: Session, model: Any, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), BATCH):
        session.execute(insert(model), rows[start : start + BATCH])


@dataclass
class Case:
    """One seeded ladder in its database."""

    kind: str
    bots: int
    history: int
    url: str
    engine: Any
    sessions: Any
    ladder_id: int
    rng: random.Random

    @property
    def label(self) -> str:
        return f"{self.kind:10} {self.bots:6} bots {self.history:7} games before"

    def measure(self, games: int) -> dict[str, Any]:
        """One round of ``games`` games made, timed; then settled, untimed."""
        with self.sessions() as session:
            server = self.server_cpu(session)
            wall, cpu = time.perf_counter(), time.process_time()
            made = ladders.make_games(session, self.ladder_id, now(), limit=games, rng=self.rng)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            after = self.server_cpu(session)
            server_s = (
                None
                if server is None or after is None
                else sum(spent - server.get(pid, 0.0) for pid, spent in after.items())
            )
            assert made, f"{self.label}: no game made"
            session.execute(update(TournamentGame).where(TournamentGame.id.in_(made)).values(status="done"))
            for scheduled_id in made:
                ladders.settle(session, scheduled_id, now())
            session.commit()
        return {
            "case": self.label,
            "games": len(made),
            "cpu_us": 1e6 * cpu / len(made),
            "wall_us": 1e6 * wall / len(made),
            "server_us": None if server_s is None else 1e6 * server_s / len(made),
            "load": load(),
        }

    def server_cpu(self, session: Session) -> dict[int, float] | None:
        """The CPU seconds each PostgreSQL backend serving this database has spent so far (``None``: SQLite, or
        the server's processes cannot be read here). Read outside the timed part, in a transaction of its own."""
        if self.kind != "postgresql":
            return None
        query = text(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'"
        )
        pids = list(session.execute(query).scalars())
        session.rollback()
        spent: dict[int, float] = {}
        for pid in pids:
            try:
                spent[int(pid)] = int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
            except (OSError, ValueError, IndexError):
                return None
        return spent

    def close(self) -> None:
        self.engine.dispose()


def seed(kind: str, url: str, bots: int, history: int, seed_value: int) -> Case:
    """A migrated database with a ladder of ``bots`` bots and ``history`` settled games before (see the module)."""
    migrate.upgrade(url)
    engine = make_engine(url)
    sessions = sessionmaker(engine, expire_on_commit=False)
    rng = random.Random(seed_value)
    with sessions() as session:
        owner = Player(name="owner", token_hash=uuid.uuid4().hex, created_at=now())
        session.add(owner)
        session.commit()
        bot_ids = bulk_bots(session, owner.id, bots)
        ladder = new_ladder(session, owner.id, "card", None, TABLE, BUDGET, 1_000_000, [])
        start = now() - timedelta(days=30)
        session.execute(
            insert(LadderEntry),
            [
                {
                    "ladder_id": ladder.id,
                    "bot_id": bot_id,
                    "joined_at": start,
                    "mu": rng.gauss(25.0, 3.0),
                    "sigma": 2.0 + rng.random(),
                    "games": 10,
                    "seat_counts": [5, 5],
                    "busy": 0,
                    "free_at": start + timedelta(seconds=rng.random() * 3600),
                    "fault_streak": 0,
                    "paused": False,
                }
                for bot_id in bot_ids
            ],
        )
        seed_history(session, ladder.id, ladder.tournament_id, bot_ids, history, rng)
        session.commit()
        if kind == "postgresql":
            session.execute(text("ANALYZE"))
            session.commit()
    return Case(kind, bots, history, url, engine, sessions, ladder.id, rng)


def seed_history(
    session: Session, ladder_id: int, tournament_id: int, bot_ids: list[int], games: int, rng: random.Random
) -> None:
    """``games`` settled games of random pairs, made over the 30 days before the last day, in bulk."""
    if not games:
        return
    first = session.scalar(select(Tournament.games_total).where(Tournament.id == tournament_id)) or 0
    start = now() - timedelta(days=31)
    tables = [rng.sample(bot_ids, TABLE) for _ in range(games)]
    insert_all(
        session,
        TournamentGame,
        [
            {
                "tournament_id": tournament_id,
                "number": first + number,
                "round": first + number + 1,
                "bot_ids": table,
                "seed": number,
                "status": "done",
                "fed": True,
                "attempts": 1,
            }
            for number, table in enumerate(tables)
        ],
    )
    ids = session.scalars(
        select(TournamentGame.id)
        .where(TournamentGame.tournament_id == tournament_id)
        .order_by(TournamentGame.number)
    ).all()
    made = [start + timedelta(seconds=number * 30 * 86400 / games) for number in range(games)]
    insert_all(
        session,
        LadderGame,
        [
            {"tournament_game_id": game, "ladder_id": ladder_id, "made_at": at, "bot_ids": table, "settled": True}
            for game, at, table in zip(ids, made, tables, strict=True)
        ],
    )
    insert_all(
        session,
        LadderSeat,
        [
            {"tournament_game_id": game, "seat": seat, "ladder_id": ladder_id, "bot_id": bot, "made_at": at}
            for game, at, table in zip(ids, made, tables, strict=True)
            for seat, bot in enumerate(table)
        ],
    )
    pairs: dict[tuple[int, int], int] = {}
    for table in tables:
        key = (min(table), max(table))
        pairs[key] = pairs.get(key, 0) + 1
    insert_all(
        session,
        LadderPair,
        [
            {"ladder_id": ladder_id, "low": low, "high": high, "games": count}
            for (low, high), count in pairs.items()
        ],
    )
    session.execute(update(Tournament).where(Tournament.id == tournament_id).values(games_total=first + games))


def shown(value: float | None) -> str:
    """A figure in microseconds, or n/a (SQLite's work is in the process's CPU; a remote server's unread)."""
    return "     n/a" if value is None else f"{value:8.0f}"


def listed(text_: str, name: str, lowest: int = 0) -> list[int]:
    try:
        values = [int(part) for part in text_.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name}: whole numbers separated by commas, not {text_!r}") from None
    if not values or any(value < lowest for value in values):
        raise argparse.ArgumentTypeError(f"{name}: whole numbers of at least {lowest}, not {text_!r}")
    return values


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="python -m benchmarks.ladder", description=__doc__.split("\n")[0])
    parse.add_argument("--bots", default=[100, 1000, 10000], type=lambda value: listed(value, "--bots", 8))
    parse.add_argument("--history", default=[0, 100_000], type=lambda value: listed(value, "--history"))
    parse.add_argument("--games", default=40, type=int, help="games made per round and case (at least 1)")
    parse.add_argument("--rounds", default=3, type=int, help="rounds (at least 1)")
    parse.add_argument("--databases", default="sqlite,postgresql", help="sqlite, postgresql or both")
    parse.add_argument("--postgresql-url", default=DEFAULT_POSTGRESQL)
    parse.add_argument("--seed", default=1, type=int)
    return parse


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parse = parser()
    options = parse.parse_args(argv)
    kinds = [kind.strip() for kind in options.databases.split(",") if kind.strip()]
    if not kinds or any(kind not in ("sqlite", "postgresql") for kind in kinds):
        parse.error(f"--databases: sqlite, postgresql or both, not {options.databases!r}")
    if options.games < 1 or options.rounds < 1:
        parse.error("--games and --rounds: at least 1")
    found: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as directory, ExitStack() as stack:
        cases: list[Case] = []
        for kind in kinds:
            for bots in options.bots:
                for history in options.history:
                    url = stack.enter_context(database(kind, options.postgresql_url, directory))
                    case = seed(kind, url, bots, history, options.seed)
                    stack.callback(case.close)
                    cases.append(case)
                    print(f"seeded: {case.label}", file=sys.stderr)
        for number in range(options.rounds):
            for case in cases if number % 2 == 0 else list(reversed(cases)):
                games = min(options.games, max(1, case.bots // (4 * TABLE)))
                row = {"round": number, **case.measure(games)}
                print(
                    f"round {number}  {row['case']}  {row['games']:3} games  "
                    f"CPU {row['cpu_us']:8.0f} us/game  server CPU {shown(row['server_us'])} us/game  "
                    f"wall {row['wall_us']:8.0f} us/game  load {row['load']:.1f}"
                )
                found.append(row)
    print("medians over the rounds:")
    for case in cases:
        mine = [row for row in found if row["case"] == case.label]
        cpu = statistics.median(row["cpu_us"] for row in mine)
        servers = [row["server_us"] for row in mine if row["server_us"] is not None]
        server = statistics.median(servers) if len(servers) == len(mine) else None
        wall = statistics.median(row["wall_us"] for row in mine)
        print(
            f"  {case.label}  CPU {cpu:8.0f} us/game  server CPU {shown(server)} us/game  wall {wall:8.0f} us/game"
        )
    print(f"load average after: {load():.1f}")
    return found


if __name__ == "__main__":
    main()
