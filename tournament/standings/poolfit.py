"""A rating pool's refit (any pool's: none is refit on the game path), off the game path, and the recount of a pool's running state.

:func:`fit_pool` is the job that refits a pool (``tables.refresh_pool``, from its tallies, warm-started from the
stored ratings), recounting its running state first after a cancellation (``poolstate.recount``) or when it is
flagged for a rebuild (``poolstate.rebuild``, after migrations 0008, 0011 and 0020). The worker that writes a result asks
for it (``tables.ask_refit``: at most once per ``tables.POOL_REFIT_SECONDS`` per pool, at once at a
tournament's last result), and so does every worker's clock (:func:`ask_due`, each second) for each pool whose table counts fewer results than its state or that
awaits a rebuild: a result that came in after the last refit is in the table within about that interval. The
embedded queue runs it on its threads like any job (its maintenance calls :func:`ask_due`).
"""

from __future__ import annotations

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, sessionmaker

from runtime.jobqueue import LocalQueue, RQQueue
from store.models import RatingPool, now
from tournament.standings import tables

PASSES = 5
"""The most refits one job makes: it refits again while asked for meanwhile (a queue may refuse a job id that runs)."""


def fit(session: Session, game: str, variant: str, table_size: int) -> str:
    """The refit job's work (``tournament.jobs.fit_pool``): refit the pool's table; again if a refit was asked for
    while it ran and the table is still behind. What it did."""
    for _ in range(PASSES):
        started = now()
        tables.refresh_pool(session, game, variant, table_size)
        again = session.execute(
            select(RatingPool.id).where(
                *RatingPool.key(game, variant, table_size),
                RatingPool.fit_requested_at > started,
                or_(RatingPool.rebuild.is_(True), RatingPool.games != RatingPool.counted),
            )
        ).first()
        session.commit()
        if again is None:
            break
    return "refitted"


_BEHIND = select(RatingPool.game, RatingPool.variant, RatingPool.table_size).where(
    or_(RatingPool.rebuild.is_(True), RatingPool.games != RatingPool.counted)
)
"""The pools whose table is behind their state, or that await a rebuild (asked by every worker's clock)."""


def ask_due(sessions: sessionmaker[Session], queue: RQQueue | LocalQueue) -> list[tuple[str, str, int]]:
    """Ask for the refit of every pool behind its state or awaiting a rebuild (at most once per interval each)."""
    asked = []
    with sessions() as session:
        for game, variant, table_size in session.connection().execute(_BEHIND).all():
            if tables.ask_refit(session, queue, game, variant, table_size, tables.POOL_REFIT_SECONDS):
                asked.append((game, variant, table_size))
    return asked
