"""A worker's clock: every second it starts the tournament runs that are due (``starts.start_overdue``), runs a
matchmaking round for every ladder (``ladderrounds.run_rounds``) and tops the queue up with the next games of every account's turn (``feed.feed_games``), so that every worker's slots find
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

from runtime import metrics, workerstats
from runtime.readiness import ready
from store.database import first_line
from tournament.dispatch import context
from tournament.dispatch.feed import feed_games
from tournament.dispatch.ladderrounds import run_rounds
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
        """Note whether the database and Redis answer (``sorry_arena_worker_ready``); start the runs due now; the
        runs started."""
        metrics.READY.set(1 if answering(self.ctx) else 0)
        try:
            self.report()
            started = start_overdue(self.ctx)
            run_rounds(self.ctx)
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
        metrics.READY.set(0)
        self._stop.set()
        self._thread.join()


class Readiness:
    """``sorry_arena_worker_ready`` kept every second for a worker without a clock (``--no-clock``)."""

    def __init__(self, ctx: context.Context, interval: float = 1.0) -> None:
        self._stop = threading.Event()

        def run() -> None:
            while not self._stop.wait(interval):
                metrics.READY.set(1 if answering(ctx) else 0)

        self._thread = threading.Thread(target=run, name="sorry-arena-readiness", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        metrics.READY.set(0)


def answering(ctx: context.Context) -> bool:
    """Whether the process is ready: its database, its Redis (the embedded queue has none) and the migrations pass
    the service's own checks (``runtime.readiness``, as ``GET /api/v1/ready`` answers)."""
    return ctx.readiness is None or ready(ctx.readiness.checks())
