"""A rating pool's running state (a pool per game, variant and table size: a result's table size is its seats), kept with each rated result so that nothing on the game path reads the pool's
history: per tournament, the tallies of its results' configurations (``rating_tallies``: the versions seated,
their ranks and the seats that forfeited, ``ratings.tallies``), which the pool's fit reads instead of every result; per bot version, its
incremental Elo (``rating_elo``); and the chart's points (``rating_points``, one per seat of each result, with the
level that lets a page take about a hundred per line, ``ratings.history``).

:func:`record` runs in the result's own transaction, after its row is written: a constant amount of work for a
result (six statements or so: the pool's count, the tally, its versions' ratings read and written, their points,
the result's place in the state, ``results.counted``), whatever the pool's size. Every writer of a pool's state
first takes the lock of the pool's row (an ``UPDATE`` of it: a row lock on PostgreSQL, the database's write lock on
SQLite), so two workers writing results of one pool at once apply them one after the other, each counted once.

:func:`recount` takes the results of a cancelled tournament out of the state, off the game path (they leave the
chart as they leave the table; ``tournament/standings/tables.py`` runs it before the refit that finds the cancellation): as
every counted result has its place, the state as of the last result before the cancelled tournament's first stands
and only the results counted after that one are counted again, so cancelling a pool's newest tournament costs about
its own results, not the pool's history. :func:`rebuild` recounts the state from every stored result, for a pool
flagged for it: once for the results counted before the state existed (migration 0008) or before their places were
noted (migration 0011). While ``rebuild`` is set, :func:`record` only takes the lock and leaves the state to the
rebuild, which reads every result committed by then; a result committed after it waited for the lock and finds the
rebuilt state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, case, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from ratings import history
from ratings.elo import INITIAL_RATING, game_deltas
from ratings.tallies import config_key
from store.models import RatingPool, Result, Tournament, now
from store.models.tournaments import RatingElo, RatingPoint, RatingTally

BATCH = 5_000
"""Rows inserted per statement by a rebuild."""
PLAYED = (
    Result.id,
    Result.tournament_id,
    Result.version_ids,
    Result.ranks,
    Result.forfeited,
    Result.faults,
    Result.finished_at,
)
"""What a recount reads of a result."""


def _insert(session: Session, table: Any) -> Any:
    """The dialect's ``INSERT`` (PostgreSQL and SQLite both have ``ON CONFLICT``)."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    return dialect.insert(table)


def tournaments_of(game: str, variant: str, table_size: int) -> tuple[Any, ...]:
    """The conditions on ``Tournament`` that find a pool's tournaments (rated or not, cancelled or not)."""
    return (Tournament.game == game, Tournament.variant == variant, Tournament.table_size == table_size)


def results_of(game: str, variant: str, table_size: int) -> tuple[Any, ...]:
    """The conditions on ``Result`` that find a pool's results (rated or not): its game, variant and tournaments of
    its table size (the game and variant first, along ``ix_results_place``)."""
    return (
        Result.game == game,
        Result.variant == variant,
        Result.tournament_id.in_(select(Tournament.id).where(*tournaments_of(game, variant, table_size))),
    )


def pool_id(session: Session, game: str, variant: str, table_size: int) -> int:
    """The id of the pool's row, made (with an empty table) if it has none."""
    found = session.scalar(select(RatingPool.id).where(*RatingPool.key(game, variant, table_size)))
    if found is not None:
        return int(found)
    session.execute(
        _insert(session, RatingPool)
        .values(
            game=game,
            variant=variant,
            table_size=table_size,
            through=0,
            games=0,
            cancelled=0,
            table=[],
            updated_at=now(),
        )
        .on_conflict_do_nothing(index_elements=["game", "variant", "table_size"])
    )
    return int(session.scalar(select(RatingPool.id).where(*RatingPool.key(game, variant, table_size))) or 0)


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
    faults: Sequence[int],
    moment: datetime,
    forfeited: Sequence[int] = (),
) -> int | None:
    """Count a rated result of the tournament (its seats' versions, ranks, faults and the seats that forfeited) in
    its pool's state, in the caller's transaction, before the caller writes the result: five statements or so,
    whatever the pool's size.
    Returns the result's place in the pool's count (its ``counted``, which the caller writes with it); ``None`` when
    it is not counted now (the pool awaits a rebuild, or the tournament was cancelled). The pool is the one of the
    result's table size (its seats)."""
    table_size = len(version_ids)
    count = (
        update(RatingPool)
        .where(*RatingPool.key(game, variant, table_size))
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
        pool_id(session, game, variant, table_size)
        found = session.execute(count).one()
    pool, rebuild, counted = int(found[0]), bool(found[1]), int(found[2])
    if rebuild:
        return None
    if session.scalar(select(Tournament.status).where(Tournament.id == tournament_id)) == "cancelled":
        # cancelled while the game ended: the refit after the cancellation, which waits for this lock, or the one
        # before this lock, counted it out; so does this
        session.execute(update(RatingPool).where(RatingPool.id == pool).values(counted=counted - 1))
        return None
    session.execute(
        _insert(session, RatingTally)
        .values(tournament_id=tournament_id, config=config_key(version_ids, ranks, forfeited), count=1)
        .on_conflict_do_update(
            index_elements=["tournament_id", "config"], set_={"count": RatingTally.__table__.c.count + 1}
        )
    )
    known = {
        row.version_id: row
        for row in session.execute(
            select(RatingElo.version_id, RatingElo.rating, RatingElo.games, RatingElo.faults).where(
                RatingElo.pool_id == pool, RatingElo.version_id.in_(version_ids)
            )
        )
    }
    before = [known[version].rating if version in known else INITIAL_RATING for version in version_ids]
    after = [rating + delta for rating, delta in zip(before, game_deltas(before, ranks), strict=True)]
    numbers = [known[version].games + 1 if version in known else 1 for version in version_ids]
    changed = [
        {
            "pool_id": pool,
            "version_id": version,
            "rating": rating,
            "games": number,
            "last": counted,
            "faults": known[version].faults + fault,
        }
        for version, rating, number, fault in zip(version_ids, after, numbers, faults, strict=True)
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
            "faults": fault,
        }
        for version, rating, fault in zip(version_ids, after, faults, strict=True)
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
    return counted


def point(pool: int, version: int, number: int, counted: int, rating: float) -> dict[str, Any]:
    return {
        "pool_id": pool,
        "version_id": version,
        "number": number,
        "counted": counted,
        "rating": rating,
        "level": history.level(number),
    }


def rebuild(session: Session, game: str, variant: str, table_size: int) -> int:
    """Recount the pool's state from its stored rated results, those of cancelled tournaments left out, in the
    order they were written, and place each (in the caller's transaction); the results counted. O(results): off
    the game path, for a pool flagged for it (migrations 0008 and 0011)."""
    pool = pool_id(session, game, variant, table_size)
    lock(session, pool)
    results = session.execute(
        select(*PLAYED)
        .join(Tournament, Tournament.id == Result.tournament_id)
        .where(
            Result.game == game,
            Result.variant == variant,
            Tournament.table_size == table_size,
            Result.rated.is_(True),
            Tournament.status != "cancelled",
        )
        .order_by(Result.id)
    ).all()
    pool_tournaments = select(Tournament.id).where(
        *tournaments_of(game, variant, table_size), Tournament.rated.is_(True)
    )
    session.execute(delete(RatingTally).where(RatingTally.tournament_id.in_(pool_tournaments)))
    session.execute(delete(RatingPoint).where(RatingPoint.pool_id == pool))
    session.execute(delete(RatingElo).where(RatingElo.pool_id == pool))
    session.execute(
        update(Result)
        .where(*results_of(game, variant, table_size), Result.counted.is_not(None))
        .values(counted=None)
        .execution_options(synchronize_session=False)
    )
    tallies = Counter(
        (row.tournament_id, config_key(row.version_ids, row.ranks, row.forfeited)) for row in results
    )
    _insert_all(
        session,
        RatingTally,
        [
            {"tournament_id": tournament, "config": key, "count": count}
            for (tournament, key), count in tallies.items()
        ],
    )
    _count(session, pool, results, 0, {})
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


def recount(session: Session, game: str, variant: str, table_size: int) -> int:
    """Take the results of the tournaments cancelled since they were counted out of the pool's state (in the
    caller's transaction): the state as of the last result counted before the first of theirs stands, and the
    results counted after it are counted again in the order they were, from there. A pool flagged for a rebuild is
    rebuilt (:func:`rebuild`). The results counted. The cost follows the results counted since the first cancelled
    one (cancelling a pool's newest tournament costs about its own results), not the pool's size."""
    pool = pool_id(session, game, variant, table_size)
    flagged, counted = lock(session, pool)
    if flagged:
        return rebuild(session, game, variant, table_size)
    gone = list(
        session.scalars(
            select(RatingTally.tournament_id)
            .join(Tournament, Tournament.id == RatingTally.tournament_id)
            .where(
                *tournaments_of(game, variant, table_size),
                Tournament.rated.is_(True),
                Tournament.status == "cancelled",
            )
            .distinct()
        )
    )
    if not gone:
        return counted
    first = session.scalar(select(func.min(Result.counted)).where(Result.tournament_id.in_(gone)))
    session.execute(delete(RatingTally).where(RatingTally.tournament_id.in_(gone)))
    if first is None:  # tallied but placed nowhere: only a rebuild can say what the state holds
        return rebuild(session, game, variant, table_size)
    keep = int(first) - 1
    gone_at = set(gone)
    tail = session.execute(
        select(*PLAYED)
        .where(*results_of(game, variant, table_size), Result.counted > keep)
        .order_by(Result.counted)
    ).all()
    later = [row for row in tail if row.tournament_id not in gone_at]
    session.execute(
        update(Result)
        .where(Result.tournament_id.in_(gone))
        .values(counted=None)
        .execution_options(synchronize_session=False)
    )
    since: Counter[int] = Counter()  # each version's faults after ``keep``
    for row in tail:
        for version, fault in zip(row.version_ids, row.faults, strict=True):
            since[version] += fault
    # the versions whose last point is later than ``keep`` (every version of a later result is one), as of ``keep``:
    # each one's last point up to it (none: it had not played yet), and its first and faults from its row (its
    # faults less those of the results after ``keep``)
    moved = list(
        session.scalars(select(RatingElo.version_id).where(RatingElo.pool_id == pool, RatingElo.last > keep))
    )
    before: dict[int, dict[str, Any]] = {}
    if moved:
        rows = {
            row.version_id: row
            for row in session.execute(
                select(RatingElo.version_id, RatingElo.first, RatingElo.faults).where(
                    RatingElo.pool_id == pool, RatingElo.version_id.in_(moved)
                )
            )
        }
        for version in moved:  # a seek in ix_rating_points_place each
            found = session.execute(
                select(RatingPoint.rating, RatingPoint.number, RatingPoint.counted)
                .where(RatingPoint.pool_id == pool, RatingPoint.version_id == version, RatingPoint.counted <= keep)
                .order_by(RatingPoint.counted.desc())
                .limit(1)
            ).first()
            if found is not None:
                before[version] = {
                    "pool_id": pool,
                    "version_id": version,
                    "first": rows[version].first,
                    "rating": found.rating,
                    "games": found.number,
                    "last": found.counted,
                    "faults": rows[version].faults - since[version],
                }
        session.execute(delete(RatingElo).where(RatingElo.pool_id == pool, RatingElo.version_id.in_(moved)))
        session.execute(  # every later point is of a moved version
            delete(RatingPoint).where(
                RatingPoint.pool_id == pool, RatingPoint.version_id.in_(moved), RatingPoint.counted > keep
            )
        )
    _count(session, pool, later, keep, before)
    values: dict[str, Any] = {"counted": keep + len(later)}
    if later:
        values["last_at"] = later[-1].finished_at
    else:
        values["last_at"] = session.scalar(
            select(Result.finished_at).where(*results_of(game, variant, table_size), Result.counted == keep)
        )
    if keep == 0:
        values["first_at"] = later[0].finished_at if later else None
    session.execute(update(RatingPool).where(RatingPool.id == pool).values(**values))
    return keep + len(later)


def _count(
    session: Session, pool: int, results: Sequence[Any], keep: int, before: dict[int, dict[str, Any]]
) -> None:
    """Count ``results`` (rows of :data:`PLAYED`), in order, after the pool's first ``keep``: place each, write their
    points and the rows of their versions' Elo and faults, from ``before`` (the rows, as of ``keep``, of the versions
    that had played by then and whose rows were taken out)."""
    state = {version: dict(row) for version, row in before.items()}
    start = {version: (row["rating"], row["games"]) for version, row in before.items()}
    points: list[dict[str, Any]] = []
    places: list[dict[str, Any]] = []
    games = [(list(row.version_ids), list(row.ranks)) for row in results]
    for counted, (row, seats) in enumerate(
        zip(results, history.replay(games, start), strict=True), start=keep + 1
    ):
        places.append({"result": row.id, "place": counted})
        for (version, number, rating), fault in zip(seats, row.faults, strict=True):
            entry = state.setdefault(
                version, {"pool_id": pool, "version_id": version, "first": counted - 1, "faults": 0}
            )
            entry.update(rating=rating, games=number, last=counted, faults=entry["faults"] + fault)
            points.append(point(pool, version, number, counted, rating))
        if len(points) >= BATCH:
            _insert_all(session, RatingPoint, points)
            points = []
    _insert_all(session, RatingPoint, points)
    _insert_all(session, RatingElo, list(state.values()))
    table = cast(Table, Result.__table__)
    placing = update(table).where(table.c.id == bindparam("result")).values(counted=bindparam("place"))
    connection = session.connection()
    for start_at in range(0, len(places), BATCH):
        connection.execute(placing, places[start_at : start_at + BATCH])


def _insert_all(session: Session, model: Any, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` into ``model``'s table, ``BATCH`` at a time, as plain executemany statements (the ORM's bulk
    path costs about as much again per row, for nothing a rebuild needs)."""
    connection = session.connection()
    for start in range(0, len(rows), BATCH):
        connection.execute(insert(model.__table__), rows[start : start + BATCH])
