"""A worker's clock: every second it starts the tournament runs that are due (``starts.start_overdue``) and tops
the queue up with the next games of every account's turn (``feed.feed_games``), so that every worker's slots find
games although each account has only a few in the queue at once; and it asks for the refit of the rating pools
whose table is behind (``poolfit.ask_due``). A worker's clock also writes the worker's figures for the operator (its
slots busy, moves per second, bots stalling: ``runtime/workerstats.py``).

Start times and repeats are kept here rather than in RQ's scheduler: every worker runs a clock, starting a run is
idempotent (``tournament.plans.runs``), and each run is due at its planned time (the first run's start plus a whole
number of intervals), so a late run never makes the later ones late, and the kill of any process (RQ's scheduler
was a child process that outlived a killed worker, holding its lock) stops no schedule while another worker runs.
"""

from __future__ import annotations

import logging
import threading

from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from runtime import workerstats
from store.database import first_line
from tournament.dispatch import context
from tournament.dispatch.feed import feed_games
from tournament.dispatch.starts import start_overdue
from tournament.standings import poolfit

log = logging.getLogger(__name__)


class Clock:
    def __init__(self, ctx: context.Context, interval: float = 1.0) -> None:
        self.ctx = ctx
        self.interval = interval
        self._stop = threading.Event()
        self._failing = False
        self._rate = workerstats.Rate()
        self._thread = threading.Thread(target=self._run, name="sorry-arena-clock", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.tick()

    def tick(self) -> list[int]:
        """Start the runs due now; the runs started."""
        try:
            self.report()
            started = start_overdue(self.ctx)
            feed_games(self.ctx)
            poolfit.ask_due(self.ctx.sessions, self.ctx.queue)
        except (SQLAlchemyError, RedisError) as error:  # the database or Redis restarts: the next tick tries again
            if not self._failing:
                log.warning("the clock waits: %s", first_line(error))
            self._failing = True
            return []
        self._failing = False
        return started

    def report(self) -> None:
        """Write this worker's figures to Redis (a worker's clock only: it has slots and an RQ queue)."""
        connection = getattr(self.ctx.queue, "connection", None)
        slots = self.ctx.slots
        if connection is None or slots is None:
            return
        busy = len(slots.playing())
        stalling = sorted(self.ctx.stalls.stalling())
        workerstats.publish(
            connection, self.ctx.runner.worker, slots.count, busy, self._rate.per_second(), stalling
        )

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
