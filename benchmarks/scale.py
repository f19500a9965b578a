"""Speed at scale: what grows with an arena (its rating pool's history, its waiting clients, its stored moves),
measured at growing sizes, a small table per row.

    .venv/bin/python benchmarks/scale.py [--rows pool,waiting,storage] [--sizes 0,10000,100000]
        [--clients 50,500] [--rounds 3] [--database-url postgresql+psycopg://postgres@127.0.0.1:5432]
        [--redis-url EMPTY_DATABASE] [--storage-games 20]

Rows (each the goal beside it):

- ``pool``: for each size, a database of its own (SQLite, or a database created on ``--database-url`` and dropped
  after) holding a rated pool of that many results (:func:`benchmarks.standings.seed_pool`, counted once), then
  ``--rounds`` interleaved rounds (the sizes in turn, reversed in odd rounds, so the machine's drift falls on all
  alike), each measuring every size: a rated round robin of 4 random push bots (2-seat board games, 2 rounds) in
  that pool played by one ``sorry-arena worker``, in moves/s as ``benchmarks/tournament.py`` counts them (moves
  saved over creation to last result, from the database; goal: at every size at least 90% of the empty pool's
  rate). Then ``benchmarks/standings.py``'s rows on the same sizes: a result's added cost on the game path, the
  standings page and ``GET /api/v1/standings`` (goal < 50 ms), the pool's full refit end to end (goal < 2 s), the
  state's recount after the pool's newest tournament is cancelled.
- ``waiting``: ``benchmarks/waiting.py`` with 50 and 500 clients long-polling one ``sorry-arena serve`` (gevent):
  health p50/p99 (goal < 100 ms), wake-up p50/p99 after the move (goal < 10 ms), the server's memory.
- ``storage``: ``benchmarks/storage.py``: bytes per move on PostgreSQL (``--database-url``) and SQLite, as
  written (VACUUM as autovacuum would) and live rows only (goal <= 250); PostgreSQL's default server unless
  ``--database-url`` names one.

Every row prints the 1-minute load average beside its figures. The machine is shared: compare within a run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import servers, standings, storage, tournament, waiting  # noqa: E402

BOTS = 4
TOURNAMENT_ROUNDS = 2
POOL_BOTS = 20


def median(rows: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(row[key] for row in rows))


def pool_tournaments(
    sizes: list[int], database_url: str | None, redis_url: str | None, rounds: int
) -> list[dict[str, Any]]:
    """One row per size and round: a rated round robin's moves/s on top of a pool of that size."""
    import redis
    from sqlalchemy.orm import Session

    from runtime.settings import Settings
    from service.app import create_app
    from store.database import make_engine
    from tournament.standings import poolstate
    from tournament.standings import tables as table

    found: list[dict[str, Any]] = []
    with ExitStack() as stack:
        queue_url = stack.enter_context(servers.own_redis(redis_url))
        connection = redis.Redis.from_url(queue_url)
        stack.callback(connection.close)
        running = stack.enter_context(tournament.push_bots(BOTS))
        arenas: list[tuple[int, str, Any, str, list[int]]] = []
        for size in sizes:
            url = stack.enter_context(tournament.own_database(database_url))
            engine = make_engine(url)
            with Session(engine) as session:
                standings.seed_pool(session, size, POOL_BOTS, game="board", seats=2)
                poolstate.rebuild(session, "board", "standard", 2)
                session.commit()
                table.refresh_pool(session, "board", "standard", 2)
            engine.dispose()
            app = create_app(Settings(database_url=url, redis_url=queue_url, bot_allow="loopback"))
            stack.callback(app.extensions["db_engine"].dispose)
            client = app.test_client()
            token, bot_ids = tournament.register(client, [bot_url for bot_url, _ in running], "board")
            arenas.append((size, url, app, token, bot_ids))
            print(f"pool of {size} results seeded", file=sys.stderr)
        for number in range(rounds):
            for size, url, app, token, bot_ids in arenas if number % 2 == 0 else reversed(arenas):
                load = tournament.load_average()
                connection.flushdb()  # the sizes' databases number their jobs alike: none may see another's
                with tournament.workers(1, url, queue_url, connection):
                    moves, seconds = tournament.tournament_moves(
                        app.test_client(),
                        token,
                        bot_ids,
                        "board",
                        TOURNAMENT_ROUNDS,
                        app.extensions["db_sessions"],
                        rated=True,
                    )
                row = {"size": size, "round": number + 1, "moves_per_s": moves / seconds, "load": load}
                print(row, file=sys.stderr)
                found.append(row)
    return found


def pool_row(sizes: list[int], database_url: str | None, redis_url: str | None, rounds: int) -> None:
    played = pool_tournaments(sizes, database_url, redis_url, rounds)
    empty = median([row for row in played if row["size"] == sizes[0]], "moves_per_s")
    pages = standings.rows(sizes, database_url, bots=POOL_BOTS, rounds=rounds)
    print(f"\npool ({'PostgreSQL' if database_url else 'SQLite'}), medians of {rounds} interleaved rounds")
    print(
        f"{'results':>8} {'moves/s':>8} {'vs ' + str(sizes[0]):>8} {'+ms/result':>10} {'page ms':>8} "
        f"{'API ms':>7} {'refit s':>8} {'cancel ms':>10} {'load':>5}"
    )
    for size in sizes:
        mine = [row for row in played if row["size"] == size]
        page = [row for row in pages if row["size"] == size]
        rate = median(mine, "moves_per_s")
        print(
            f"{size:>8} {rate:>8.0f} {rate / empty:>8.2f} {median(page, 'result_state_ms'):>10.2f} "
            f"{median(page, 'page_ms'):>8.1f} {median(page, 'api_ms'):>7.1f} "
            f"{median(page, 'refit_ms') / 1000:>8.2f} {median(page, 'cancel_ms'):>10.1f} {median(mine, 'load'):>5.1f}"
        )


def waiting_row(clients: list[int], rounds: int) -> None:
    found = waiting.rows(clients, ["gevent"], rounds)
    print(f"\nwaiting clients (sorry-arena serve, gevent), medians of {rounds} rounds")
    print(
        f"{'clients':>7} {'health p50':>10} {'p99':>7} {'wake p50':>8} {'p99':>7} {'unanswered':>10} {'MiB':>6} {'load':>5}"
    )
    for name, f in found.items():
        print(
            f"{name.split()[0]:>7} {f['health_p50_ms']:>8.1f}ms {f['health_p99_ms']:>5.1f}ms "
            f"{f['wake_p50_ms']:>6.1f}ms {f['wake_p99_ms']:>5.1f}ms {f['unanswered']:>10.0f} "
            f"{f['rss_mib']:>6.0f} {f['load1']:>5.1f}"
        )


def storage_row(database_url: str | None, games: int) -> None:
    print(f"\nstorage per move ({games} games of each kind per database)")
    storage.report(storage.rows(games, database_url or storage.DEFAULT_SERVER, sqlite=True))


ROWS: dict[str, Callable[[argparse.Namespace], None]] = {
    "pool": lambda options: pool_row(options.sizes, options.database_url, options.redis_url, options.rounds),
    "waiting": lambda options: waiting_row(options.clients, options.rounds),
    "storage": lambda options: storage_row(options.database_url, options.storage_games),
}


def main() -> None:
    servers.end_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default=",".join(ROWS), help=f"rows to measure, of {', '.join(ROWS)}")
    parser.add_argument("--sizes", default="0,10000,100000", help="pool sizes in stored results (first: the base)")
    parser.add_argument("--clients", default="50,500", help="numbers of waiting clients")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server (default: SQLite)")
    parser.add_argument(
        "--redis-url",
        default=None,
        help="an empty Redis database (emptied again at the end); default: a private one",
    )
    parser.add_argument("--storage-games", type=int, default=20, help="games of each kind for the storage row")
    options = parser.parse_args()
    for name in ("sizes", "clients"):
        try:
            setattr(options, name, [int(part) for part in getattr(options, name).split(",")])
        except ValueError:
            parser.error(f"--{name}: whole numbers separated by commas, not {getattr(options, name)!r}")
    for name in options.rows.split(","):
        if name not in ROWS:
            parser.error(f"--rows: unknown row {name!r} (known: {', '.join(ROWS)})")
        ROWS[name](options)


if __name__ == "__main__":
    main()
