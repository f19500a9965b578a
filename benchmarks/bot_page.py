"""A bot's page and a tournament's at scale: read from the running tallies against counted from every move, over
pools of 0, 10,000 and 100,000 finished games.

    .venv/bin/python benchmarks/bot_page.py [--sizes 0,10000,100000] [--bots 20] [--moves 20] [--rounds 3]
        [--database-url postgresql+psycopg://HOST:PORT]

Each size gets a database of its own (``benchmarks/standings.py``'s: a SQLite file, or a PostgreSQL database created
and dropped), seeded with a rated tournament of that many finished 4-seat games between ``--bots`` bots (its
results, the pool's state), each game with its seats and ``--moves`` moves (1% faults, every answer timed). Then
``--rounds`` rounds, the sizes in turn (in reverse order in the odd rounds), each measuring the page ``/bots/{id}``
of the first bot and the tournament's page ``/tournaments/{id}`` (its faults by bot and kind) through the Flask app
(test client, no HTTP; median ms of 5 requests each):

- from moves: no game folded (the tallies emptied, every game marked untallied, as migration 0012 leaves a
  database), so the pages count the finished games from their moves;
- tallied: after every game was folded again (``store.bottallies.fold_all``, its µs per game printed: the upkeep's
  cost, off the game path).

And the bot's list of faults, ``GET /api/v1/bots/{id}/faults`` (its first page, asked anonymously: the finished
games' faults), looked up game by game in the partial index ``ix_actions_faulted``, and
without that index (dropped, then made again), as before migration 0013: every move of the bot's games read.

On PostgreSQL the statistics are refreshed (``ANALYZE``) after each change of every game, as autovacuum would. The
two kinds alternate within a round; each row carries the load average. Compare sizes within a run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Index, select, text
from sqlalchemy.orm import Session

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.standings import interleaved, load, median_ms, seed_pool  # noqa: E402
from runtime.settings import Settings  # noqa: E402
from service.app import create_app  # noqa: E402
from store import bottallies, migrate  # noqa: E402
from store.database import make_engine, sessions  # noqa: E402
from store.models import ActionRecord, Bot  # noqa: E402
from tournament.standings import poolstate, tables  # noqa: E402


class Arena:
    """One size's database, seeded, with the app that serves its pages."""

    def __init__(self, url: str, size: int, bots: int, moves: int) -> None:
        migrate.upgrade(url)
        self.engine = make_engine(url)
        self.sessions = sessions(self.engine)
        self.size = size
        with self.sessions() as session:
            self.tournament_id, _ = seed_pool(session, size, bots, moves=moves)
            self.bot_id = min(session.scalars(select(Bot.id)))
            poolstate.rebuild(session, "card", "standard", 4)
            session.commit()
            tables.refresh_pool(session, "card", "standard", 4)
        self.app = create_app(Settings(database_url=url, maintenance_seconds=None))
        self.client = self.app.test_client()

    def page_ms(self, path: str) -> float:
        def page() -> None:
            answer = self.client.get(path)
            assert answer.status_code == 200, answer.status_code

        return median_ms(page)

    def pages_ms(self, kind: str) -> dict[str, float]:
        return {
            f"bot_{kind}_ms": self.page_ms(f"/bots/{self.bot_id}"),
            f"tournament_{kind}_ms": self.page_ms(f"/tournaments/{self.tournament_id}"),
        }

    def measure(self) -> dict[str, Any]:
        row: dict[str, Any] = {"size": self.size, "load_before": load()}
        with self.sessions() as session:
            bottallies.reset(session)
            self.analyze(session)
        row.update(self.pages_ms("moves"))
        with self.sessions() as session:
            started = time.perf_counter()
            folded = bottallies.fold_all(session, seconds=3600)
            row["fold_us"] = (time.perf_counter() - started) * 1e6 / folded if folded else float("nan")
            self.analyze(session)
        row.update(self.pages_ms("tallied"))
        row.update(self.faults_ms())
        row["load_after"] = load()
        return row

    def faults_ms(self) -> dict[str, float]:
        """The bot's list of faults along ``ix_actions_faulted``, then without it (the index dropped, timed, made
        again)."""
        path = f"/api/v1/bots/{self.bot_id}/faults"
        index = next(
            index
            for index in ActionRecord.metadata.tables["actions"].indexes
            if index.name == "ix_actions_faulted"
        )
        assert isinstance(index, Index)
        figures = {"faults_indexed_ms": self.page_ms(path)}
        with self.engine.begin() as connection:
            index.drop(connection)
        with self.sessions() as session:
            self.analyze(session)
        figures["faults_moves_ms"] = self.page_ms(path)
        with self.engine.begin() as connection:
            index.create(connection)
        with self.sessions() as session:
            self.analyze(session)
        return figures

    def analyze(self, session: Session) -> None:
        """Refresh PostgreSQL's statistics after a change of every game, as autovacuum would: with the statistics of
        before, its planner scans what the partial index of the games waiting would have skipped."""
        if session.get_bind().dialect.name == "postgresql":
            session.execute(text("ANALYZE"))
            session.commit()

    def close(self) -> None:
        self.app.extensions["db_engine"].dispose()
        self.engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="0,10000,100000")
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    found = interleaved(
        options.database_url,
        sizes,
        options.rounds,
        lambda url, size: Arena(url, size, options.bots, options.moves),
        Arena.measure,
    )
    name = "PostgreSQL" if options.database_url else "SQLite"
    print(
        f"{name}, {options.bots} bots, 4-seat games of {options.moves} moves: the first bot's page and the "
        f"tournament's (all the games), ms from moves / tallied; the bot's faults API, ms from moves / along the"
        f" index of faulted moves; medians of {options.rounds} rounds"
    )
    print(
        f"{'games':>8} {'its games':>9} {'bot page ms':>16} {'tournament ms':>16} {'faults API ms':>16}"
        f" {'fold us/game':>13} load"
    )
    for size in sizes:
        mine = [row for row in found if row["size"] == size]

        def middle(key: str, rows: list[dict[str, Any]] = mine) -> float:
            return float(statistics.median(row[key] for row in rows))

        print(
            f"{size:>8} {round(size * 4 / options.bots):>9} "
            f"{middle('bot_moves_ms'):>8.1f} /{middle('bot_tallied_ms'):>6.1f} "
            f"{middle('tournament_moves_ms'):>8.1f} /{middle('tournament_tallied_ms'):>6.1f} "
            f"{middle('faults_moves_ms'):>8.1f} /{middle('faults_indexed_ms'):>6.1f} "
            f"{'-' if size == 0 else format(middle('fold_us'), '.0f'):>13} {middle('load_before'):.2f}-{middle('load_after'):.2f}"
        )


if __name__ == "__main__":
    main()
