"""The heartbeat of a process's games: their leases renewed every fraction of a lease, apart from their saves.

A game's lease used to move only when its worker saved moves, so a game waiting on a slow pull bot looked abandoned
and another worker took it while the first still played. Here one thread per process renews the lease of every game
the process plays, every ``lease / 4`` seconds, whatever the games are doing. A renewal that finds the game no longer
this worker's (the process stalled past its lease, and another worker took the game over) marks the game ``lost``:
its runner stops at its next step (``Holding.check``) and writes nothing; the game log's ply guard would refuse its
writes anyway. A database that fails meanwhile only delays the renewals; once it is back they go on, and a game whose
lease ran out in between is only lost if another worker took it. A renewal that finds the game cancelled (its
tournament was: ``service/cancellation.py`` drops the leases) marks it ``cancelled``: its runner stops at its next
step, writes nothing more and frees its slot.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from store.database import first_line
from store.models import TournamentGame
from tournament.play.leases import Cancelled, LeaseLost, renew
from tournament.play.writes import writing

log = logging.getLogger(__name__)


def finished(session: Session, scheduled_id: int) -> bool:
    status = session.scalar(select(TournamentGame.status).where(TournamentGame.id == scheduled_id))
    session.rollback()
    return status == "done"


class Stopping(Exception):
    """The process is stopping: the game stops at its next step, saves what it played and gives its lease back."""


@dataclass
class Holding:
    """A game this process plays: set ``lost`` when another worker holds it now, ``cancelled`` when its tournament
    was cancelled, ``stop`` when the process stops."""

    scheduled_id: int
    lost: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)
    cancelled: threading.Event = field(default_factory=threading.Event)

    def check(self) -> None:
        """Raise when the game must stop now: ``LeaseLost`` or ``Cancelled`` (written nothing more), ``Stopping``."""
        if self.cancelled.is_set():
            raise Cancelled(f"scheduled game {self.scheduled_id}: its tournament was cancelled")
        if self.lost.is_set():
            raise LeaseLost(f"scheduled game {self.scheduled_id}: another worker took it over")
        if self.stop.is_set():
            raise Stopping(f"scheduled game {self.scheduled_id}: the worker stops")


class Heartbeat:
    """Renews the leases of the games held, from one thread that runs while any game is held."""

    def __init__(self, sessions: Callable[[], Session], worker: str, lease_seconds: float) -> None:
        self.sessions = sessions
        self.worker = worker
        self.lease_seconds = lease_seconds
        self.interval = lease_seconds / 4
        self._held: dict[int, Holding] = {}
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._failing = False
        self._stopping = False

    def hold(self, scheduled_id: int) -> Holding:
        """Start renewing the game's lease (the caller has just taken it). Once the process stops
        (:meth:`stop_all`), a game held after that stops at its first step too: it gives its lease back at once."""
        holding = Holding(scheduled_id)
        with self._lock:
            if self._stopping:
                holding.stop.set()
            self._held[scheduled_id] = holding
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="sorry-arena-heartbeat", daemon=True)
                self._thread.start()
        return holding

    def release(self, holding: Holding) -> None:
        """Stop renewing the game's lease (its runner is done with it)."""
        with self._lock:
            if self._held.get(holding.scheduled_id) is holding:
                del self._held[holding.scheduled_id]

    def held(self) -> list[Holding]:
        with self._lock:
            return list(self._held.values())

    def stop_all(self) -> None:
        """Ask every game held to stop at its next step, and every game held from now on at its first (the process
        stops: a game whose lease was being taken meanwhile does not play on)."""
        with self._lock:
            self._stopping = True
        for holding in self.held():
            holding.stop.set()

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._held:
                    self._thread = None
                    return
                self._wake.wait(self.interval)
            self.beat()

    def beat(self) -> None:
        """Renew every held game's lease once (each in a transaction of its own)."""
        try:
            with self.sessions() as session:
                for holding in self.held():
                    try:
                        with writing(session):
                            renew(session, holding.scheduled_id, self.worker, self.lease_seconds)
                            session.commit()
                    except Cancelled as stopped:
                        log.info("%s: it stops at its next step", stopped)
                        holding.cancelled.set()
                    except LeaseLost as lost:
                        if finished(session, holding.scheduled_id):
                            continue  # its result was just written: the runner is letting go of it
                        log.warning("%s: it stops at its next step", lost)
                        holding.lost.set()
        except SQLAlchemyError as error:
            if not self._failing:
                log.warning("leases not renewed: the database failed: %s", first_line(error))
            self._failing = True
        else:
            if self._failing:
                log.warning("leases renewed again: the database is back")
            self._failing = False
