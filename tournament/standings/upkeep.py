"""The stored tables an upgrade may leave behind, refit once at its end (``sorry-arena db upgrade``, and ``serve``'s
migration), so that no page shows an empty or stale table until the next rated game.

- A rating pool whose table is none this release can show (an older release's, stored before the pools were fitted:
  ``ratings.pool.rows_of`` reads none from it, and the pages show the pool empty), that awaits a rebuild of its
  running state (migrations 0008, 0011 and 0021 flag them), whose table was fitted under the other
  ``SORRY_ARENA_RATE_FORFEITS`` or whose table counts fewer results than its state (every pool
  with rated results has a row: migration 0008 made those missing, and a result makes its pool's): its state is recounted and its table refit and stored whatever the stored one counted
  (``tables.refresh_pool(force=True)``). The workers' clock asks for the refit of a pool only when its state is
  ahead of its table or awaits a rebuild, which an older release's table counting as many results is not; and
  until a worker runs, nothing would.
- A cancelled tournament whose own table counts fewer results than it has (cancelled before this release refit a
  tournament's table at its cancellation, ``tournament.jobs.cancelled``): refit on every result it has.

Each refit is a transaction of its own; a pool's costs about its results (a rebuild reads every one). Finding them
reads the pools' rows and the cancelled tournaments' result counts (by an index), so ``serve`` runs it at each start.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from ratings.pool import rows_of
from runtime.settings import rate_forfeits
from store.models import RatingPool, Result, Tournament
from tournament.standings import tables


def pools_behind(session: Session) -> list[tuple[str, str, int]]:
    """The pools whose stored table is to be refit (the module's docstring), by game, variant and table size."""
    stored = session.execute(
        select(
            RatingPool.game,
            RatingPool.variant,
            RatingPool.table_size,
            RatingPool.table,
            RatingPool.rebuild,
            RatingPool.games,
            RatingPool.counted,
            RatingPool.forfeits_rated,
        )
    ).all()
    rated = rate_forfeits()
    behind = {
        (row.game, row.variant, row.table_size)
        for row in stored
        if row.rebuild
        or row.games != row.counted
        or row.forfeits_rated != rated
        or rows_of(row.table or []) is None
    }
    return sorted(behind)


def cancelled_behind(session: Session) -> list[int]:
    """The cancelled tournaments whose own table counts fewer results than they have."""
    results = select(func.count(Result.id)).where(Result.tournament_id == Tournament.id).scalar_subquery()
    return list(
        session.scalars(
            select(Tournament.id)
            .where(Tournament.status == "cancelled", Tournament.standings_through < results)
            .order_by(Tournament.id)
        )
    )


def refit_behind(sessions: sessionmaker[Session]) -> list[str]:
    """Refit every table behind (the module's docstring); a line for each, saying what was refit."""
    said = []
    with sessions() as session:
        for game, variant, table_size in pools_behind(session):
            tables.refresh_pool(session, game, variant, table_size, force=True)
            games = session.scalar(select(RatingPool.games).where(*RatingPool.key(game, variant, table_size)))
            said.append(f"the {game} {variant} {table_size}-seat pool's table refit: {games or 0} rated game(s)")
        for tournament_id in cancelled_behind(session):
            tables.refresh_tournament(session, tournament_id)
            said.append(f"cancelled tournament {tournament_id}'s table refit on every result it has")
    return said
