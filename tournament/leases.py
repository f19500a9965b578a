"""Leases: which worker plays a scheduled game now.

A worker leases a scheduled game with a conditional UPDATE (free, or its lease expired: the worker that held it
died), so two workers never play one game at once; it renews the lease with every save of moves. Moves are written
by the game log (``store.gamelog``) with its ply guard, so a worker that lost its lease can never overwrite a newer
position: its write fails, and it stops (:class:`LeaseLost`). A game resumed after a crash continues from its last
saved ply.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from store.models import TournamentGame, now


class LeaseLost(Exception):
    """Another worker took the game over (this one stalled past its lease): stop without writing."""


def lease(session: Session, scheduled_id: int, worker: str, seconds: float) -> bool:
    """Take the scheduled game if it is free or its holder's lease ran out; ``False`` if done or held."""
    moment = now()
    taken = session.execute(
        update(TournamentGame)
        .where(
            TournamentGame.id == scheduled_id,
            or_(
                TournamentGame.status == "pending",
                (TournamentGame.status == "running") & (TournamentGame.lease_until < moment),
            ),
        )
        .values(
            status="running",
            worker=worker,
            attempts=TournamentGame.attempts + 1,
            lease_until=moment + timedelta(seconds=seconds),
        )
    )
    session.commit()
    return bool(taken.rowcount)  # type: ignore[attr-defined]


def renew(session: Session, scheduled_id: int, worker: str, seconds: float) -> None:
    """Extend this worker's lease, in the caller's transaction; ``LeaseLost`` if it is another worker's now."""
    renewed = session.execute(
        update(TournamentGame)
        .where(TournamentGame.id == scheduled_id, TournamentGame.worker == worker)
        .values(lease_until=now() + timedelta(seconds=seconds))
    )
    if not renewed.rowcount:  # type: ignore[attr-defined]
        session.rollback()
        raise LeaseLost(f"scheduled game {scheduled_id} is no longer leased by {worker}")


def unplayed(session: Session, moment: datetime | None = None) -> list[tuple[int, int]]:
    """(id, attempts) of the scheduled games that need a job: the pending ones (never leased: their job may have been
    lost with Redis, or failed before it took the lease) and those whose lease ran out (their worker died)."""
    moment = moment or now()
    rows = session.execute(
        select(TournamentGame.id, TournamentGame.attempts)
        .where(
            or_(
                TournamentGame.status == "pending",
                (TournamentGame.status == "running") & (TournamentGame.lease_until < moment),
            )
        )
        .order_by(TournamentGame.id)
    )
    return [(scheduled_id, attempts) for scheduled_id, attempts in rows]
