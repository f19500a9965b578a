"""The queue's top-up at a game's end (``tournament.dispatch.feed.take``) against the games waiting in running tournaments.

    .venv/bin/python benchmarks/feed.py [--sizes 200,1000,10000] [--ends 40] [--rounds 3]
        [--database-url postgresql+psycopg://HOST:PORT]

Every game's end tops the job queue up (``tournament.jobs.top_up``), on the worker's game thread. Each size gets a
database of its own (``benchmarks/standings.py``'s: a SQLite file, or a PostgreSQL database created and dropped)
holding one running tournament of that many games, none played yet. Then ``--rounds`` rounds, the sizes in turn
(reversed in the odd rounds), each ending ``--ends`` fed games one at a time, as workers would, and timing the
top-up that follows each end: the CPU time of this process (the database's own work too on SQLite; on PostgreSQL
the server's is not counted) and the wall time, medians in ms, and the CPU time against the first (smallest) size's,
measured in the same rounds: the goal is a top-up whose cost does not grow with the games waiting. Each row carries
the 1-minute load average.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, text, update
from sqlalchemy.orm import Session, sessionmaker

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.standings import interleaved, load  # noqa: E402
from store import migrate  # noqa: E402
from store.database import make_engine, sessions  # noqa: E402
from store.models import Player, Tournament, TournamentGame  # noqa: E402
from tournament.dispatch import feed  # noqa: E402

WINDOW = 8
"""The feed window (``SORRY_ARENA_FEED_WINDOW``'s default)."""


def seed(session: Session, games: int) -> None:
    """One running tournament of ``games`` pending games, none fed yet."""
    owner = Player(name="owner", token_hash="benchmark")
    session.add(owner)
    session.flush()
    tournament_id = session.execute(
        insert(Tournament)
        .values(
            owner_id=owner.id,
            name="waiting",
            game="board",
            settings={},
            variant="standard",
            bot_ids=[1, 2],
            table_size=2,
            rounds=1,
            seed=1,
            move_timeout_ms=1000,
            rated=False,
            status="running",
            games_total=games,
        )
        .returning(Tournament.id)
    ).scalar_one()
    session.execute(
        insert(TournamentGame),
        [
            {
                "tournament_id": tournament_id,
                "number": number,
                "round": 0,
                "bot_ids": [1, 2],
                "seed": number,
                "status": "pending",
                "fed": False,
            }
            for number in range(games)
        ],
    )
    session.commit()


class Waiting:
    """One size's database, seeded, its first window fed."""

    def __init__(self, url: str, size: int) -> None:
        migrate.upgrade(url)
        self.engine = make_engine(url)
        self.sessions: sessionmaker[Session] = sessions(self.engine)
        self.size = size
        with self.sessions() as session:
            seed(session, size)
            if session.get_bind().dialect.name == "postgresql":
                session.execute(text("ANALYZE"))
                session.commit()
            feed.take(session, WINDOW)

    def measure(self, ends: int) -> dict[str, Any]:
        row: dict[str, Any] = {"size": self.size, "load_before": load()}
        cpu, wall = [], []
        with self.sessions() as session:
            for _ in range(ends):
                first_fed = (
                    select(TournamentGame.id)
                    .where(TournamentGame.status == "pending", TournamentGame.fed.is_(True))
                    .order_by(TournamentGame.id)
                    .limit(1)
                    .scalar_subquery()
                )
                session.execute(update(TournamentGame).where(TournamentGame.id == first_fed).values(status="done"))
                session.commit()
                cpu_started, wall_started = time.process_time(), time.perf_counter()
                fed = feed.take(session, WINDOW)
                cpu.append((time.process_time() - cpu_started) * 1000)
                wall.append((time.perf_counter() - wall_started) * 1000)
                assert len(fed) == 1, fed  # the window topped up by the one game that ended
        row.update(cpu_ms=statistics.median(cpu), wall_ms=statistics.median(wall), load_after=load())
        return row

    def close(self) -> None:
        self.engine.dispose()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="200,1000,10000")
    parser.add_argument("--ends", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    options = parser.parse_args(argv)
    try:
        sizes = [int(size) for size in options.sizes.split(",")]
    except ValueError:
        parser.error(f"--sizes takes whole numbers separated by commas, not {options.sizes!r}")
    if options.ends < 1 or options.rounds < 1:
        parser.error("--ends and --rounds must be at least 1")
    if min(sizes) < WINDOW + options.rounds * options.ends:
        parser.error(f"every size needs at least {WINDOW + options.rounds * options.ends} games (window + ends)")
    if options.database_url is not None and not options.database_url.startswith("postgresql"):
        parser.error("--database-url names a PostgreSQL server; leave it out for SQLite")
    found = interleaved(
        options.database_url, sizes, options.rounds, Waiting, lambda arena: arena.measure(options.ends)
    )
    name = "PostgreSQL" if options.database_url else "SQLite"
    print(f"{name}: the top-up after a game's end, medians of {options.rounds} rounds of {options.ends} ends")
    print(f"{'games waiting':>13} {'CPU ms':>7} {'wall ms':>8} {'CPU vs the first size':>21} load")
    base = statistics.median(row["cpu_ms"] for row in found if row["size"] == sizes[0])
    for size in sizes:
        mine = [row for row in found if row["size"] == size]
        cpu = statistics.median(row["cpu_ms"] for row in mine)
        wall = statistics.median(row["wall_ms"] for row in mine)
        loads = [row["load_before"] for row in mine] + [row["load_after"] for row in mine]
        print(f"{size:>13} {cpu:>7.2f} {wall:>8.2f} {cpu / base:>20.2f}x {min(loads):.1f}-{max(loads):.1f}")


if __name__ == "__main__":
    main()
