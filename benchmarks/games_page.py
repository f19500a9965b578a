"""The page of games (``/games``) over a million games: keyset paging against the offset and count it replaced.

    .venv/bin/python benchmarks/games_page.py [--games 1000000] [--rounds 5] [--requests 20]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/postgres]

A database of its own (created on the server of ``--database-url``, dropped at the end; a ``sqlite:///`` URL's
folder gets a file of its own) is migrated and filled in a few statements (``generate_series`` on PostgreSQL, a
recursive ``WITH`` on SQLite): ``--games`` finished card games of two seats, each with a state of some 1 KB (as a
stored card game's), between 100 players; then ``ANALYZE``. Each round times, in turn (their order rotated from
round to round, so the machine's drift falls on all alike), ``--requests`` reads of each of:

- ``old first`` / ``old deep``: the reads the page made before, ``count(*)`` of the table then ``OFFSET`` and
  ``LIMIT`` over the whole game rows (:func:`old_games_page`), of page 1 and of the last page;
- ``keyset first`` / ``keyset deep``: the page's reads now (``service.web.listings.games_page``), the newest 50 and
  the 50 before the oldest page's first game (``?before=<id>``);
- ``page first`` / ``page deep``: the whole page, ``GET /games`` and ``GET /games?before=<id>``, through the Flask
  app (its test client: no HTTP; the template rendered).

It prints the median µs per request of each over the rounds, with the load average before and after.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.standings import load  # noqa: E402
from runtime.settings import Settings  # noqa: E402
from service.app import create_app  # noqa: E402
from service.web import listings  # noqa: E402
from store import migrate  # noqa: E402
from store.database import make_engine, sessions  # noqa: E402
from store.models import Game  # noqa: E402

DEFAULT_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
PLAYERS = 100
STATE = "x" * 1000
"""A stored state's stand-in: a card game's JSON state is some 1 KB."""
KINDS = ("old first", "old deep", "keyset first", "keyset deep", "page first", "page deep")


def old_games_page(session: Session, page: int, size: int = listings.PAGE_SIZE) -> tuple[list[Any], int]:
    """The page's reads before keyset paging: the table counted, then a page of whole game rows by offset (and
    their seats' names)."""
    count = session.scalar(select(func.count(Game.id))) or 0
    games = list(session.scalars(select(Game).order_by(Game.id.desc()).offset((page - 1) * size).limit(size)))
    names = listings.seat_names(session, [game.id for game in games])
    return [(game, names[game.id]) for game in games], max(1, math.ceil(count / size))


@contextmanager
def database(url: str, directory: str) -> Iterator[str]:
    """A fresh database's URL on the server of ``url`` (or a SQLite file in ``directory``), dropped after."""
    if url.startswith("sqlite"):
        yield f"sqlite:///{directory}/games-{uuid.uuid4().hex[:8]}.db"
        return
    name = f"sorry_arena_games_page_{uuid.uuid4().hex[:10]}"
    admin = create_engine(make_url(url).set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def numbers(dialect: str, count: str) -> str:
    """A FROM clause of the whole numbers 1 to ``count`` (a bound parameter's name) as ``n(g)``."""
    if dialect == "postgresql":
        return f"generate_series(1, :{count}) AS n(g)"
    return f"(WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < :{count}) SELECT g FROM s) AS n"


def fill(session: Session, games: int) -> None:
    """``games`` finished two-seat card games between :data:`PLAYERS` players, in a few statements."""
    dialect = session.get_bind().dialect.name
    stamp = "now()" if dialect == "postgresql" else "datetime('now')"
    session.execute(
        text(
            "INSERT INTO players (id, name, token_hash, created_at, disabled, operator) "
            f"SELECT g, 'player' || g, 'hash' || g, {stamp}, false, false FROM {numbers(dialect, 'players')}"
        ),
        {"players": PLAYERS},
    )
    session.execute(
        text(
            "INSERT INTO games (id, game, settings, seed, seats, status, ply, state, result, created_by, created_at, "
            f"updated_at, tallied) SELECT g, 'card', '{{}}', g, 2, 'over', 40, :state, "
            f'\'{{"ranks": [1, 2], "reason": "win"}}\', 1 + g % {PLAYERS}, {stamp}, {stamp}, true '
            f"FROM {numbers(dialect, 'games')}"
        ),
        {"games": games, "state": STATE},
    )
    for seat in (0, 1):
        session.execute(
            text(
                "INSERT INTO seats (id, game_id, seat, player_id, taken_at) "
                f"SELECT 2 * g - 1 + {seat}, g, {seat}, 1 + (g + {seat}) % {PLAYERS}, {stamp} "
                f"FROM {numbers(dialect, 'games')}"
            ),
            {"games": games},
        )
    if dialect == "postgresql":  # the ids were given: the sequences follow them
        for table in ("players", "games", "seats"):
            session.execute(
                text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
            )
    session.commit()
    session.execute(text("ANALYZE"))
    session.commit()


class Arena:
    """One database of ``games`` games, with the app that serves its pages."""

    def __init__(self, url: str, games: int) -> None:
        migrate.upgrade(url)
        self.engine = make_engine(url)
        self.sessions = sessions(self.engine)
        self.games = games
        started = time.perf_counter()
        with self.sessions() as session:
            fill(session, games)
        self.fill_s = time.perf_counter() - started
        self.last_page = max(1, math.ceil(games / listings.PAGE_SIZE))
        self.deep = games - (self.last_page - 1) * listings.PAGE_SIZE + 1  # just above the oldest page's games
        self.app = create_app(Settings(database_url=url, maintenance_seconds=None))
        self.client = self.app.test_client()

    def calls(self) -> dict[str, Callable[[], Any]]:
        def page(path: str) -> Callable[[], Any]:
            def get() -> None:
                answer = self.client.get(path)
                assert answer.status_code == 200, answer.status_code

            return get

        def reads(read: Callable[[Session], Any]) -> Callable[[], Any]:
            def run() -> Any:
                with self.sessions() as session:
                    return read(session)

            return run

        return {
            "old first": reads(lambda session: old_games_page(session, 1)),
            "old deep": reads(lambda session: old_games_page(session, self.last_page)),
            "keyset first": reads(lambda session: listings.games_page(session, None)),
            "keyset deep": reads(lambda session: listings.games_page(session, self.deep)),
            "page first": page("/games"),
            "page deep": page(f"/games?before={self.deep}"),
        }

    def check(self) -> None:
        """The keyset's deep page shows the games the old last page showed (the oldest), and neither more."""
        with self.sessions() as session:
            old, _ = old_games_page(session, self.last_page)
            new, older = listings.games_page(session, self.deep)
        assert [game.id for game, _ in old] == [line.game.id for line in new] and older is None

    def round(self, number: int, requests: int) -> dict[str, Any]:
        """Each kind's median µs over ``requests`` reads, the kinds' order rotated by the round's ``number``."""
        calls = self.calls()
        order = KINDS[number % len(KINDS) :] + KINDS[: number % len(KINDS)]
        row: dict[str, Any] = {"load_before": load()}
        for kind in order:
            calls[kind]()  # warm: the first read of a kind pays for its statement's compilation
            taken = []
            for _ in range(requests):
                started = time.perf_counter()
                calls[kind]()
                taken.append((time.perf_counter() - started) * 1e6)
            row[kind] = statistics.median(taken)
        row["load_after"] = load()
        return row

    def close(self) -> None:
        self.app.extensions["db_engine"].dispose()
        self.engine.dispose()


def run(url: str, games: int, rounds: int, requests: int) -> tuple[float, list[dict[str, Any]]]:
    """The fill's seconds and each round's row."""
    with tempfile.TemporaryDirectory() as directory, database(url, directory) as fresh:
        arena = Arena(fresh, games)
        try:
            arena.check()
            found = []
            for number in range(rounds):
                row = arena.round(number, requests)
                print(row, file=sys.stderr)
                found.append(row)
            return arena.fill_s, found
        finally:
            arena.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--database-url", default=DEFAULT_SERVER)
    options = parser.parse_args()
    fill_s, found = run(options.database_url, options.games, options.rounds, options.requests)
    kind = "PostgreSQL" if options.database_url.startswith("postgresql") else "SQLite"
    print(
        f"{kind}, {options.games:,} games (filled in {fill_s:.1f} s); median µs per request of "
        f"{options.rounds} rounds x {options.requests} requests; load {found[0]['load_before']:.2f} -> "
        f"{found[-1]['load_after']:.2f}"
    )
    for name in KINDS:
        print(f"{name:>14} {statistics.median(row[name] for row in found):>12,.0f} us")


if __name__ == "__main__":
    main()
