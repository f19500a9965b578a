"""Leases: which worker plays a scheduled game now.

A worker leases a scheduled game with a conditional UPDATE (free, or its lease expired: the worker that held it
died), so two workers never play one game at once. While it plays, its heartbeat (``tournament.play.heartbeat``) renews
the lease every fraction of it, whatever the game waits for (a slow bot), and every save of moves renews it too. A
worker that stalled past its lease (the process was stopped, the machine froze) finds the game taken: its heartbeat
tells it to stop at its next step, and its writes could not land anyway: the game log (``store.gamelog``) checks
every write by ply (:class:`LeaseLost`). A game resumed after a crash continues from its last saved ply.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple

from sqlalchemy import case, or_, select, update
from sqlalchemy.orm import Session

from store.fastlane import param
from store.models import TournamentGame, now


class LeaseLost(Exception):
    """Another worker took the game over (this one stalled past its lease): stop without writing."""


class Cancelled(Exception):
    """The game's tournament was cancelled (its lease is gone with it): stop without writing, and free the slot."""


def cancelled(session: Session, scheduled_id: int) -> bool:
    """Whether the scheduled game was cancelled (read in a transaction of its own)."""
    status = session.scalar(select(TournamentGame.status).where(TournamentGame.id == scheduled_id))
    session.rollback()
    return status == "cancelled"


_RUNNING = TournamentGame.status == "running"
_MINE = _RUNNING & (TournamentGame.worker == param("holder"))
"""(A parameter of an UPDATE's condition is not named after a column: SQLAlchemy would take it for a new value.)"""
_LEASE = (
    update(TournamentGame)
    .where(
        TournamentGame.id == param("scheduled_id"),
        or_(
            TournamentGame.status == "pending",
            _RUNNING & (TournamentGame.lease_until < param("moment")),
            _MINE,
        ),
    )
    .values(
        status="running",
        fed=True,  # it has a job: this one (a game leased is the recovery's to look after)
        worker=param("holder"),
        attempts=case((_MINE, TournamentGame.attempts), else_=TournamentGame.attempts + 1),
        lease_until=param("until"),
    )
    .returning(TournamentGame.game_id)
)
_RENEW = (
    update(TournamentGame)
    .where(TournamentGame.id == param("scheduled_id"), _MINE)
    .values(lease_until=param("until"))
)
_RELEASE = (
    update(TournamentGame)
    .where(TournamentGame.id == param("scheduled_id"), _MINE)
    .values(status="pending", worker=None, lease_until=None)
)


class Leased(NamedTuple):
    """A lease taken: the game of the scheduled game, if it was started (a resumed game), else ``None``."""

    game_id: int | None


def lease(session: Session, scheduled_id: int, worker: str, seconds: float) -> Leased | None:
    """Take the scheduled game if it is free, its holder's lease ran out, or it is this worker's already (a game
    this worker resumes after its database came back), in the session's transaction (the caller commits: a game
    started creates its game in the same transaction); ``None``, the transaction rolled back, if it is done or held
    by another worker. Each new holder counts an attempt."""
    moment = now()
    until = moment + timedelta(seconds=seconds)
    values = {"scheduled_id": scheduled_id, "holder": worker, "moment": moment, "until": until}
    taken = session.connection().execute(_LEASE, values).first()
    if taken is None:
        session.rollback()
        return None
    return Leased(taken[0])


def release(session: Session, scheduled_id: int, worker: str) -> bool:
    """Give a game this worker holds back to the queue at once (the worker stops; the game stays where it was saved),
    so that recovery need not wait for the lease to run out; ``False`` if it was not this worker's."""
    released = session.connection().execute(_RELEASE, {"scheduled_id": scheduled_id, "holder": worker})
    session.commit()
    return bool(released.rowcount)


def renew(session: Session, scheduled_id: int, worker: str, seconds: float) -> None:
    """Extend this worker's lease, in the caller's transaction; ``LeaseLost`` if it is another worker's now,
    ``Cancelled`` if its tournament was cancelled (the caller's transaction is rolled back either way)."""
    until = now() + timedelta(seconds=seconds)
    renewed = session.connection().execute(
        _RENEW, {"scheduled_id": scheduled_id, "holder": worker, "until": until}
    )
    if not renewed.rowcount:
        session.rollback()
        if cancelled(session, scheduled_id):
            raise Cancelled(f"scheduled game {scheduled_id}: its tournament was cancelled")
        raise LeaseLost(f"scheduled game {scheduled_id} is no longer leased by {worker}")


def unplayed(session: Session, moment: datetime | None = None) -> list[tuple[int, int]]:
    """(id, attempts) of the scheduled games that need a job: the pending ones that were fed (given a job, which
    may have been lost with Redis, or failed before it took the lease; or given back by a worker that stopped) once
    their job's grace ran out (``lease_until`` on a pending game: a job has a lease's time to take its game's lease,
    ``tournament.dispatch.feed``), and those whose lease ran out (their worker died). A pending game not fed yet
    waits its turn: it never had a job to lose. In id order."""
    moment = moment or now()
    rows = session.execute(
        select(TournamentGame.id, TournamentGame.attempts)
        .where(
            or_(
                (TournamentGame.status == "pending")
                & TournamentGame.fed.is_(True)
                & or_(TournamentGame.lease_until.is_(None), TournamentGame.lease_until < moment),
                (TournamentGame.status == "running") & (TournamentGame.lease_until < moment),
            )
        )
        .order_by(TournamentGame.id)
    )
    return [(scheduled_id, attempts) for scheduled_id, attempts in rows]


def grace(session: Session, scheduled_ids: list[int], seconds: float) -> None:
    """Give the jobs just enqueued again for these games, those still pending, ``seconds`` (a lease) to take their
    game's lease before :func:`unplayed` counts them lost again (``tournament.dispatch.feed``); commits."""
    if scheduled_ids:
        session.execute(
            update(TournamentGame)
            .where(TournamentGame.id.in_(scheduled_ids), TournamentGame.status == "pending")
            .values(lease_until=now() + timedelta(seconds=seconds))
        )
    session.commit()
