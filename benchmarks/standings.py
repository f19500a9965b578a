"""Rating pools at scale: what a result costs on the game path, the standings page, and the pool's full refit,
over pools of 0, 10,000 and 100,000 stored results.

    .venv/bin/python benchmarks/standings.py [--sizes 0,10000,100000] [--bots 20] [--rounds 3] [--results 40]
        [--database-url postgresql+psycopg://HOST:PORT] [--json]

Each size gets a database of its own (a SQLite file in a temporary directory, or, with ``--database-url`` naming a
PostgreSQL server, a uniquely named database it creates there and drops at the end), migrated to the head, then
seeded fast (:func:`seed_pool`: bulk inserts of synthetic rated results of 4-seat card games between ``--bots`` bot
versions, with their games and scheduled games) and counted once by ``tournament.standings.poolstate.rebuild`` (its time is
printed: the one-time recount after migrations 0008 and 0011, and what a cancellation cost before (d)) and
fitted. Then ``--rounds`` rounds, the sizes in turn (in reverse order in the odd rounds, so a drift of the machine's
load falls on all alike), each:

- (a) game path: ``--results`` results written as ``tournament.play.results.finish`` writes them (insert, count in the
  pool's state, commit) and the pool's refit asked for as the worker then does (``tables.ask_refit``: never a refit on
  the game path, whatever the pool's size), against the same inserts and commits without the count: the ms per result of each and
  their difference, what the pool's state adds to a result;
- (b) the standings page ``/standings/card/standard`` and ``GET /api/v1/standings`` through the Flask app (its test
  client, no HTTP): the median ms of 5 requests each;
- (c) the full refit end to end, ``tournament.standings.tables.refresh_pool``: its tallies read, the fit, the table stored
  (the stored table's count is set back first, so that it is stored every time);
- (d) a cancellation: a new tournament of ``--results`` results between the pool's versions, counted last, is
  cancelled, and ``tournament.standings.poolstate.recount`` takes its results out of the state (against the one-time recount
  of everything printed at the seeding, what a cancellation cost before).

Every row carries the 1-minute load average when it was measured; the medians over the rounds are printed per
size. The machine is shared: compare sizes within a run, not figures across runs. :func:`rows` runs it and returns
the rows (one per size and round) for other benchmarks to call.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sqlalchemy import create_engine, func, insert, make_url, select, text, update
from sqlalchemy.orm import Session

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runtime.settings import Settings  # noqa: E402
from service.app import create_app  # noqa: E402
from store import migrate  # noqa: E402
from store.database import make_engine, sessions  # noqa: E402
from store.models import (  # noqa: E402
    ActionRecord,
    Bot,
    BotVersion,
    Game,
    Player,
    RatingPool,
    Result,
    Seat,
    Tournament,
    TournamentGame,
    now,
)
from tournament.standings import poolstate, tables  # noqa: E402

SEATS = 4
BATCH = 5_000


def load() -> float:
    return os.getloadavg()[0]


@contextmanager
def database(server_url: str | None, directory: str) -> Iterator[str]:
    """A fresh database's URL (a SQLite file, or a PostgreSQL database created on ``server_url``), dropped after."""
    if server_url is None:
        yield f"sqlite:///{directory}/pool-{uuid.uuid4().hex[:8]}.db"
        return
    name = f"sorry_arena_standings_{uuid.uuid4().hex[:10]}"
    admin = create_engine(make_url(server_url).set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


class Closing(Protocol):
    def close(self) -> None: ...


Opened = TypeVar("Opened", bound=Closing)


def interleaved(
    server_url: str | None,
    sizes: list[int],
    rounds: int,
    open_arena: Callable[[str, int], Opened],
    measure: Callable[[Opened], dict[str, Any]],
) -> list[dict[str, Any]]:
    """Each size a database of its own (:func:`database`) and what ``open_arena(url, size)`` makes of it; then
    ``rounds`` rounds, the sizes in turn (reversed in the odd rounds, so the machine's drift falls on all alike), each
    size's row from ``measure`` (printed to stderr as it comes). The arenas are closed and the databases dropped at
    the end, whatever happened."""
    found: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as directory, ExitStack() as stack:
        arenas: list[Opened] = []
        for size in sizes:
            arena = open_arena(stack.enter_context(database(server_url, directory)), size)
            stack.callback(arena.close)
            arenas.append(arena)
            print(f"size {size}: seeded", file=sys.stderr)
        for number in range(rounds):
            for arena in arenas if number % 2 == 0 else list(reversed(arenas)):
                row = measure(arena)
                print(row, file=sys.stderr)
                found.append(row)
    return found


def _insert_all(session: Session, model: Any, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), BATCH):
        session.execute(insert(model), rows[start : start + BATCH])


def seed_pool(
    session: Session,
    results: int,
    bots: int,
    *,
    spare: int = 0,
    seed: int = 1,
    game: str = "card",
    seats: int = SEATS,
    moves: int = 0,
) -> tuple[int, list[int]]:
    """A rated tournament of ``game`` (its standard variant) of ``results`` synthetic results (``seats`` seats drawn
    from ``bots`` bot versions, ranks a random order with a bot's strength its number) and ``spare`` scheduled games
    left to play; (its id, the spare scheduled game ids). With ``moves``, each game also has its seats and that many
    moves (1% faults, every answer timed), the synthetic history the bot and tournament pages read. Committed; the
    pool's state is not counted (``poolstate.rebuild`` counts it)."""
    rng = random.Random(seed)
    moment = now()
    owner = Player(name=f"owner-{seed}", token_hash=uuid.uuid4().hex)
    session.add(owner)
    session.flush()
    players = [Player(name=f"bot{index}-{seed}", token_hash=uuid.uuid4().hex) for index in range(bots)]
    session.add_all(players)
    session.flush()
    made = [
        Bot(owner_id=owner.id, player_id=player.id, name=f"bot{index}-{seed}", games=[game], secret="s" * 32)
        for index, player in enumerate(players)
    ]
    session.add_all(made)
    session.flush()
    versions = [BotVersion(bot_id=bot.id, number=1, created_at=moment) for bot in made]
    session.add_all(versions)
    session.flush()
    total = results + spare
    tournament = Tournament(
        owner_id=owner.id,
        name="seeded",
        game=game,
        settings={"players": seats},
        variant="standard",
        bot_ids=[bot.id for bot in made],
        table_size=seats,
        rounds=1,
        seed=seed,
        move_timeout_ms=1000,
        rated=True,
        status="running",
        games_total=total,
    )
    session.add(tournament)
    session.flush()
    first_game = int(session.scalar(select(func.coalesce(func.max(Game.id), 0))) or 0) + 1
    first_scheduled = int(session.scalar(select(func.coalesce(func.max(TournamentGame.id), 0))) or 0) + 1
    seatings = [rng.sample(range(bots), seats) for _ in range(total)]
    _insert_all(
        session,
        Game,
        [
            {
                "id": first_game + index,
                "game": game,
                "settings": {"players": seats},
                "seed": index,
                "seats": seats,
                "status": "over" if index < results else "playing",
                "ply": 0,
                "state": "",
                "created_by": owner.id,
                "created_at": moment,
                "updated_at": moment,
            }
            for index in range(total)
        ],
    )
    _insert_all(
        session,
        TournamentGame,
        [
            {
                "id": first_scheduled + index,
                "tournament_id": tournament.id,
                "number": index,
                "round": 0,
                "bot_ids": [made[seat].id for seat in seated],
                "seed": index,
                "game_id": first_game + index,
                "status": "done" if index < results else "running",
            }
            for index, seated in enumerate(seatings)
        ],
    )
    rows = []
    for index, seated in enumerate(seatings[:results]):
        order = sorted(range(seats), key=lambda seat: -seated[seat] - rng.gauss(0.0, bots / 2))
        ranks = [order.index(seat) for seat in range(seats)]
        rows.append(
            {
                "tournament_game_id": first_scheduled + index,
                "tournament_id": tournament.id,
                "game_id": first_game + index,
                "game": game,
                "variant": "standard",
                "rated": True,
                "bot_ids": [made[seat].id for seat in seated],
                "version_ids": [versions[seat].id for seat in seated],
                "ranks": ranks,
                "reason": "finished",
                "forfeited": [],
                "faults": [0] * seats,
                "moves": 100,
                "finished_at": moment + timedelta(microseconds=index),
            }
        )
    _insert_all(session, Result, rows)
    if moves:
        _seat_and_move(session, [bot.player_id for bot in made], seatings, first_game, moves, rng)
    if session.get_bind().dialect.name == "postgresql":  # ids given explicitly leave the sequences behind
        for table in ("games", "tournament_games"):
            session.execute(
                text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
            )
    session.commit()
    return tournament.id, list(range(first_scheduled + results, first_scheduled + total))


def _seat_and_move(
    session: Session,
    players: list[int],
    seatings: list[list[int]],
    first_game: int,
    moves: int,
    rng: random.Random,
) -> None:
    """The seats of the games from ``first_game`` on (``seatings``: their bots' numbers) and ``moves`` moves each."""
    moment = now()
    for start in range(0, len(seatings), BATCH // SEATS):
        games = list(enumerate(seatings[start : start + BATCH // SEATS], start=first_game + start))
        _insert_all(
            session,
            Seat,
            [
                {"game_id": game_id, "seat": seat, "player_id": players[bot], "taken_at": moment}
                for game_id, seated in games
                for seat, bot in enumerate(seated)
            ],
        )
        _insert_all(
            session,
            ActionRecord,
            [
                {
                    "game_id": game_id,
                    "ply": ply,
                    "seat": ply % len(seated),
                    "action": "x",
                    "latency_ms": round(rng.lognormvariate(1.5, 0.8), 3),
                    "fault": "timeout" if rng.random() < 0.01 else None,
                    "created_at": moment,
                }
                for game_id, seated in games
                for ply in range(moves)
            ],
        )


class NoQueue:
    """A queue that takes the refit job asked for and drops it (the benchmark refits in (c))."""

    def enqueue(self, *args: Any, **kwargs: Any) -> None:
        return None


def write_results(session: Session, tournament_id: int, scheduled: list[int], counted: bool) -> float:
    """ms per result of writing results for these scheduled games (with the pool's count and its refit asked for,
    ``tables.ask_refit``, as the game path does after each result: or without either)."""
    rng = random.Random(len(scheduled))
    games = session.execute(
        select(TournamentGame.id, TournamentGame.game_id, TournamentGame.bot_ids).where(
            TournamentGame.id.in_(scheduled)
        )
    ).all()
    version = dict(session.execute(select(BotVersion.bot_id, BotVersion.id)).all())
    started = time.perf_counter()
    for scheduled_id, game_id, bot_ids in games:
        ranks = rng.sample(range(SEATS), SEATS)
        faults = [rng.choice((0, 0, 0, 1, 2)) for _ in range(SEATS)]
        versions = [version[bot] for bot in bot_ids]
        moment = now()
        place = None
        if counted:
            place = poolstate.record(session, tournament_id, "card", "standard", versions, ranks, faults, moment)
        session.execute(
            insert(Result).values(
                tournament_game_id=scheduled_id,
                tournament_id=tournament_id,
                game_id=game_id,
                game="card",
                variant="standard",
                rated=True,
                bot_ids=bot_ids,
                version_ids=versions,
                ranks=ranks,
                reason="finished",
                forfeited=[],
                faults=faults,
                moves=100,
                finished_at=moment,
                counted=place,
            )
        )
        session.commit()
        if counted:  # the game path's only other work for the pool: no refit, whatever its size
            tables.ask_refit(session, NoQueue(), "card", "standard", SEATS, tables.POOL_REFIT_SECONDS)  # type: ignore[arg-type]
    return (time.perf_counter() - started) * 1000.0 / max(1, len(games))


def median_ms(call: Any, times: int = 5) -> float:
    found = []
    for _ in range(times):
        started = time.perf_counter()
        call()
        found.append((time.perf_counter() - started) * 1000.0)
    return statistics.median(found)


class Pool:
    """One size's database, seeded, with the app that serves its pages."""

    def __init__(self, url: str, size: int, bots: int, spare: int) -> None:
        migrate.upgrade(url)
        self.engine = make_engine(url)
        self.sessions = sessions(self.engine)
        self.size = size
        self.cancelled = 0
        with self.sessions() as session:
            self.tournament_id, self.spare = seed_pool(session, size, bots, spare=spare)
            started = time.perf_counter()
            poolstate.rebuild(session, "card", "standard", 4)
            session.commit()
            self.rebuild_s = time.perf_counter() - started
            tables.refresh_pool(session, "card", "standard", 4)
        self.app = create_app(Settings(database_url=url, maintenance_seconds=None))
        self.client = self.app.test_client()

    def measure(self, results: int) -> dict[str, Any]:
        row: dict[str, Any] = {"size": self.size, "load_before": load()}
        take, self.spare = self.spare[: 2 * results], self.spare[2 * results :]
        with self.sessions() as session:
            # the two kinds of write alternate in halves so that neither always comes first
            bare = write_results(session, self.tournament_id, take[:results], counted=False)
            counted = write_results(session, self.tournament_id, take[results:], counted=True)
        row.update(result_bare_ms=bare, result_counted_ms=counted, result_state_ms=counted - bare)

        def page() -> None:
            answer = self.client.get("/standings/card/standard")
            assert answer.status_code == 200, answer.status_code

        def api() -> None:
            answer = self.client.get("/api/v1/standings", query_string={"game": "card", "variant": "standard"})
            assert answer.status_code == 200, answer.status_code

        row.update(page_ms=median_ms(page), api_ms=median_ms(api))
        with self.sessions() as session:
            session.execute(update(RatingPool).values(games=0))
            session.commit()
            started = time.perf_counter()
            tables.refresh_pool(session, "card", "standard", 4)
            row["refit_ms"] = (time.perf_counter() - started) * 1000.0
            row["games_fitted"] = session.scalar(select(RatingPool.games))
        row["cancel_ms"] = self.cancel_newest(results)
        row["load_after"] = load()
        return row

    def cancel_newest(self, results: int) -> float:
        """(d) ms of the recount after the pool's newest tournament is cancelled: ``results`` results between the
        pool's own versions, counted last, then taken out of the state (``poolstate.recount``, committed)."""
        with self.sessions() as session:
            tournament = session.get(Tournament, self.tournament_id)
            assert tournament is not None
            bots, rng = list(tournament.bot_ids), random.Random(results)
            self.cancelled += 1
            newest, scheduled = seed_pool(session, 0, SEATS, spare=results, seed=1_000_000 + self.cancelled)
            for scheduled_id in scheduled:  # played by the pool's own bots, as a new tournament of theirs would be
                session.execute(
                    update(TournamentGame)
                    .where(TournamentGame.id == scheduled_id)
                    .values(bot_ids=rng.sample(bots, SEATS))
                )
            session.commit()
            write_results(session, newest, scheduled, counted=True)
            session.execute(update(Tournament).where(Tournament.id == newest).values(status="cancelled"))
            session.commit()
            started = time.perf_counter()
            poolstate.recount(session, "card", "standard", 4)
            session.commit()
            return (time.perf_counter() - started) * 1000.0

    def close(self) -> None:
        queue = self.app.extensions.get("queue")
        if queue is not None and hasattr(queue, "close"):
            queue.close()
        self.app.extensions["db_engine"].dispose()
        self.engine.dispose()


def rows(
    sizes: list[int], database_url: str | None = None, *, bots: int = 20, rounds: int = 3, results: int = 40
) -> list[dict[str, Any]]:
    """One row per size and round (see the module docstring); ``database_url``: a PostgreSQL server, else SQLite."""
    found: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as directory:
        urls = [database(database_url, directory) for _ in sizes]
        pools: list[Pool] = []
        try:
            for size, context in zip(sizes, urls, strict=True):
                pools.append(Pool(context.__enter__(), size, bots, spare=2 * results * rounds))
                print(f"size {size}: seeded, state counted once in {pools[-1].rebuild_s:.2f} s", file=sys.stderr)
            for round_number in range(rounds):
                order = pools if round_number % 2 == 0 else list(reversed(pools))
                for pool in order:
                    row = {"round": round_number, "rebuild_s": pool.rebuild_s, **pool.measure(results)}
                    print(json.dumps(row), file=sys.stderr)
                    found.append(row)
        finally:
            for pool in pools:
                pool.close()
            for context in urls[: len(pools) or len(urls)]:
                context.__exit__(None, None, None)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="0,10000,100000")
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", type=int, default=40)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    found = rows(sizes, options.database_url, bots=options.bots, rounds=options.rounds, results=options.results)
    if options.json:
        print(json.dumps(found))
        return
    database_name = "PostgreSQL" if options.database_url else "SQLite"
    print(f"{database_name}, {options.bots} bot versions, 4-seat games, medians of {options.rounds} rounds")
    print(
        f"{'results':>8} {'result ms':>10} {'+state ms':>10} {'page ms':>8} {'api ms':>7} {'refit ms':>9} "
        f"{'cancel ms':>10} load"
    )
    for size in sizes:
        mine = [row for row in found if row["size"] == size]

        def middle(key: str, rows_of_size: list[dict[str, Any]] = mine) -> float:
            return float(statistics.median(row[key] for row in rows_of_size))

        print(
            f"{size:>8} {middle('result_counted_ms'):>10.2f} {middle('result_state_ms'):>10.2f} "
            f"{middle('page_ms'):>8.1f} {middle('api_ms'):>7.1f} {middle('refit_ms'):>9.0f} "
            f"{middle('cancel_ms'):>10.1f} "
            f"{middle('load_before'):.2f}-{middle('load_after'):.2f}"
        )


if __name__ == "__main__":
    main()
