"""A game's save through a database that fails: retried, the moves kept, until the database takes it.

A save that the database refuses for a while (it stopped or restarts, it is read-only, its disk is full:
``store.database.outage``) is rolled back and tried again, after 0.05 s, then twice as long each time up to
:data:`RETRY_MAX_S`, with the same moves (a failed try costs the database one refused statement): the bots' answers are kept until they are stored, so that no bot is asked
twice for a ply. The game's lease stays this worker's meanwhile (the heartbeat renews it once the database takes
writes again; ``tournament.play.heartbeat``). The wait ends at once when the game must stop (``Holding.check``: the
worker stops, another worker took the game over, its tournament was cancelled); a later worker then resumes it from
its last stored ply. A bug (any other error) is raised at once. One line is logged for each kind of failure a save of a
game meets while it waits, and one when it is stored.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from store.database import first_line, outage
from tournament.play.heartbeat import Holding
from tournament.play.writes import writing

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRY_FIRST_S = 0.05
RETRY_MAX_S = 0.25
"""A save that waits for the database is tried again after 0.05 s, then twice as long each time up to this: it lands
within this of the database's return."""


def until_stored(session: Session, holding: Holding, write: Callable[[], T], what: str) -> T:
    """``write()``'s statements in the session's transaction, committed (one SQLite writer at a time in this
    process: ``tournament.play.writes``); when the database fails, rolled back and tried again until it is
    committed. ``write`` must leave nothing changed outside the transaction until the commit (the caller marks its
    moves saved only once this returns). ``what`` names the save in the log lines."""
    delay = RETRY_FIRST_S
    waiting_since: float | None = None
    kinds: set[str] = set()
    while True:
        try:
            with writing(session):
                done = write()
                session.commit()
        except DBAPIError as error:
            kind = outage(error)
            if kind is None:
                raise
            session.rollback()
            if waiting_since is None:
                waiting_since = time.monotonic()
            if kind not in kinds:  # a line per kind of failure met (a failover: cut, then read-only)
                kinds.add(kind)
                log.warning("%s waits for the database (%s): %s", what, kind, first_line(error))
            holding.check()
            holding.stop.wait(delay)  # the process stopping ends the wait (checked above on the next round)
            delay = min(delay * 2, RETRY_MAX_S)
            continue
        if waiting_since is not None:
            log.warning("%s stored after waiting %.1f s for the database", what, time.monotonic() - waiting_since)
        return done
