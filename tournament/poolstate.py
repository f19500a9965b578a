"""A rating pool's running state, kept with each rated result so that nothing on the game path reads the pool's
history: per tournament, the tallies of its results' configurations (``rating_tallies``: the versions seated and
their ranks, ``ratings.tallies``), which the pool's fit reads instead of every result; per bot version, its
incremental Elo (``rating_elo``); and the chart's points (``rating_points``, one per seat of each result, with the
level that lets a page take about a hundred per line, ``ratings.history``).

:func:`record` runs in the result's own transaction, after its row is written: a constant amount of work for a
result (five statements or so: the pool's count, the tally, its versions' ratings read and written, their points),
whatever the pool's size. Every writer of a pool's state first takes the lock of the pool's row (an ``UPDATE`` of
it: a row lock on PostgreSQL, the database's write lock on SQLite), so two workers writing results of one pool at
once apply them one after the other, each counted once.

:func:`rebuild` recounts the state from the stored results, off the game path: once for the results stored before
it existed (migration 0008 sets ``rating_pools.rebuild``) and after a cancellation, whose results leave the chart as
they leave the table (``tournament/poolfit.py`` runs it). While ``rebuild`` is set, :func:`record` only takes the
lock and leaves the state to the rebuild, which reads every result committed by then; a result committed after it
waited for the lock and finds the rebuilt state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import case, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from ratings import history
from ratings.elo import INITIAL_RATING, game_deltas
from ratings.tallies import config_key
from store.models import RatingPool, Result, Tournament, now
from store.models.tournaments import RatingElo, RatingPoint, RatingTally

BATCH = 5_000
"""Rows inserted per statement by a rebuild."""


def _insert(session: Session, table: Any) -> Any:
    """The dialect's ``INSERT`` (PostgreSQL and SQLite both have ``ON CONFLICT``)."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    return dialect.insert(table)


def pool_id(session: Session, game: str, variant: str) -> int:
    """The id of the pool's row, made (with an empty table) if it has none."""
    found = session.scalar(select(RatingPool.id).where(RatingPool.game == game, RatingPool.variant == variant))
    if found is not None:
        return int(found)
    session.execute(
        _insert(session, RatingPool)
        .values(game=game, variant=variant, through=0, games=0, cancelled=0, table=[], updated_at=now())
        .on_conflict_do_nothing(index_elements=["game", "variant"])
    )
    return int(
        session.scalar(select(RatingPool.id).where(RatingPool.game == game, RatingPool.variant == variant)) or 0
    )


def lock(session: Session, pool: int) -> tuple[bool, int]:
    """Take the pool row's lock until the transaction ends; (rebuild, counted) as they are then."""
    session.execute(update(RatingPool).where(RatingPool.id == pool).values(rebuild=RatingPool.rebuild))
    rebuild, counted = session.execute(
        select(RatingPool.rebuild, RatingPool.counted).where(RatingPool.id == pool)
    ).one()
    return bool(rebuild), int(counted)


def record(
    session: Session,
    tournament_id: int,
    game: str,
    variant: str,
    version_ids: Sequence[int],
    ranks: Sequence[int],
    moment: datetime,
) -> None:
    """Count one rated result in its pool's state (in the caller's transaction, which commits it): five statements
    or so, whatever the pool's size."""
    count = (
        update(RatingPool)
        .where(RatingPool.game == game, RatingPool.variant == variant)
        .values(  # the lock, and the result counted unless the pool awaits a rebuild
            counted=case((RatingPool.rebuild, RatingPool.counted), else_=RatingPool.counted + 1),
            last_at=case((RatingPool.rebuild, RatingPool.last_at), else_=moment),
            first_at=case(
                (RatingPool.rebuild, RatingPool.first_at), else_=func.coalesce(RatingPool.first_at, moment)
            ),
        )
        .returning(RatingPool.id, RatingPool.rebuild, RatingPool.counted)
        .execution_options(synchronize_session=False)
    )
    found = session.execute(count).first()
    if found is None:  # the pool's first result
        pool_id(session, game, variant)
        found = session.execute(count).one()
    pool, rebuild, counted = int(found[0]), bool(found[1]), int(found[2])
    if rebuild:
        return
    if session.scalar(select(Tournament.status).where(Tournament.id == tournament_id)) == "cancelled":
        # cancelled while the game ended: the refit after the cancellation, which waits for this lock, or the one
        # before this lock, counted it out; so does this
        session.execute(update(RatingPool).where(RatingPool.id == pool).values(counted=counted - 1))
        return
    session.execute(
        _insert(session, RatingTally)
        .values(tournament_id=tournament_id, config=config_key(version_ids, ranks), count=1)
        .on_conflict_do_update(
            index_elements=["tournament_id", "config"], set_={"count": RatingTally.__table__.c.count + 1}
        )
    )
    known = {
        row.version_id: row
        for row in session.execute(
            select(RatingElo.version_id, RatingElo.rating, RatingElo.games).where(
                RatingElo.pool_id == pool, RatingElo.version_id.in_(version_ids)
            )
        )
    }
    before = [known[version].rating if version in known else INITIAL_RATING for version in version_ids]
    after = [rating + delta for rating, delta in zip(before, game_deltas(before, ranks), strict=True)]
    numbers = [known[version].games + 1 if version in known else 1 for version in version_ids]
    changed = [
        {"pool_id": pool, "version_id": version, "rating": rating, "games": number, "last": counted}
        for version, rating, number in zip(version_ids, after, numbers, strict=True)
        if version in known
    ]
    if changed:  # by primary key
        session.execute(update(RatingElo), changed)
    new = [
        {
            "pool_id": pool,
            "version_id": version,
            "rating": rating,
            "games": 1,
            "first": counted - 1,
            "last": counted,
        }
        for version, rating in zip(version_ids, after, strict=True)
        if version not in known
    ]
    if new:
        session.execute(insert(RatingElo), new)
    session.execute(
        insert(RatingPoint),
        [
            point(pool, version, number, counted, rating)
            for version, number, rating in zip(version_ids, numbers, after, strict=True)
        ],
    )


def point(pool: int, version: int, number: int, counted: int, rating: float) -> dict[str, Any]:
    return {
        "pool_id": pool,
        "version_id": version,
        "number": number,
        "counted": counted,
        "rating": rating,
        "level": history.level(number),
    }


def rebuild(session: Session, game: str, variant: str) -> int:
    """Recount the pool's state from its stored rated results, those of cancelled tournaments left out, in the
    order they were written (in the caller's transaction); the results counted. O(results): off the game path."""
    pool = pool_id(session, game, variant)
    lock(session, pool)
    results = session.execute(
        select(Result.tournament_id, Result.version_ids, Result.ranks, Result.finished_at)
        .join(Tournament, Tournament.id == Result.tournament_id)
        .where(
            Result.game == game,
            Result.variant == variant,
            Result.rated.is_(True),
            Tournament.status != "cancelled",
        )
        .order_by(Result.id)
    ).all()
    pool_tournaments = select(Tournament.id).where(
        Tournament.game == game, Tournament.variant == variant, Tournament.rated.is_(True)
    )
    session.execute(delete(RatingTally).where(RatingTally.tournament_id.in_(pool_tournaments)))
    session.execute(delete(RatingPoint).where(RatingPoint.pool_id == pool))
    session.execute(delete(RatingElo).where(RatingElo.pool_id == pool))
    tallies = Counter((tournament, config_key(versions, ranks)) for tournament, versions, ranks, _ in results)
    _insert_all(
        session,
        RatingTally,
        [
            {"tournament_id": tournament, "config": key, "count": count}
            for (tournament, key), count in tallies.items()
        ],
    )
    state: dict[int, dict[str, Any]] = {}
    points: list[dict[str, Any]] = []
    games = [(list(versions), list(ranks)) for _, versions, ranks, _ in results]
    for counted, seats in enumerate(history.replay(games), start=1):
        for version, number, rating in seats:
            row = state.setdefault(version, {"pool_id": pool, "version_id": version, "first": counted - 1})
            row.update(rating=rating, games=number, last=counted)
            points.append(point(pool, version, number, counted, rating))
        if len(points) >= BATCH:
            _insert_all(session, RatingPoint, points)
            points = []
    _insert_all(session, RatingPoint, points)
    _insert_all(session, RatingElo, list(state.values()))
    session.execute(
        update(RatingPool)
        .where(RatingPool.id == pool)
        .values(
            counted=len(results),
            rebuild=False,
            first_at=results[0].finished_at if results else None,
            last_at=results[-1].finished_at if results else None,
        )
    )
    return len(results)


def _insert_all(session: Session, model: Any, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` into ``model``'s table, ``BATCH`` at a time, as plain executemany statements (the ORM's bulk
    path costs about as much again per row, for nothing a rebuild needs)."""
    connection = session.connection()
    for start in range(0, len(rows), BATCH):
        connection.execute(insert(model.__table__), rows[start : start + BATCH])
