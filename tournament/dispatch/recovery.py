"""The recovery: the database, not Redis, is the record of what is left to play.

:func:`recover` enqueues again, at the front of the queue, the games that have no live job: those whose worker died
(their lease ran out) or stopped (it gave the lease back), and the pending ones whose job Redis lost (it restarted
empty); starts the runs due that have not started; and completes the tournaments whose last game's worker failed
before it refreshed the standings. The workers' maintenance runs it (a game not fed yet is no lost job: it waits for
its turn). It also folds the finished games into their bots' tallies (``store.bottallies``), which the bot pages
read, archives the finished games older than ``SORRY_ARENA_KEEP_MOVES_DAYS`` (``store.retention``), and deletes the
expired idempotency keys of create requests (``store.idempotency``, at most once a minute per process:
:func:`expire_keys`). :func:`maintain_embedded` is the same for the embedded queue (no Redis), on a thread of the
service.

A fed game's job has a lease's time (its grace, ``lease_until`` on the pending game) to take the game's lease
before the recovery may count it lost: the feeding commits its marks before the jobs reach Redis, and a job handed
to a slot reads as finished in RQ before its slot takes the lease, so a recovery reading the database, then Redis,
in either gap found a fed game without a live job and enqueued it again, with a false warning (dozens in minutes
of normal play). Reading Redis first, or enqueueing inside the marking transaction, closes the first gap only; the
grace closes both without a statement more (``tournament.dispatch.feed``). A game it enqueues again gets a grace
too (:func:`given_grace`), so a job it just made is not replaced at its next pass. A job truly lost is thus
enqueued again a lease later, with its warning (and ``sorry_arena_recovered_games_total``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from datetime import datetime, timedelta
from typing import Any

from redis.exceptions import LockError
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.utils import utcparse

from runtime import metrics
from runtime.jobqueue import GAME_JOB
from store import bottallies, idempotency, retention
from store.models import Tournament, now
from tournament.dispatch import context
from tournament.dispatch.feed import feed_games, game_job_id
from tournament.dispatch.ladderrounds import run_rounds
from tournament.dispatch.starts import start_overdue
from tournament.play import leases, results
from tournament.play.writes import writing
from tournament.standings import poolfit, tables

log = logging.getLogger(__name__)


RECOVERY_LOCK = "sorry-arena:recovery"


RECOVERY_LOCK_SECONDS = 30
"""How long a recovery pass may hold the lock (one takes milliseconds; a worker killed mid-pass frees it then)."""


LIVE = frozenset(
    status.value for status in (JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED, JobStatus.SCHEDULED)
)
"""RQ statuses of a job that is still to run or running (any other, or no job at all: it will never play the game)."""


def recover(ctx: context.Context) -> list[int]:
    """Enqueue again every scheduled game without a live job; complete the tournaments left unfinished; start the
    runs due (:func:`start_overdue`). Returns the games enqueued.

    A game needs a job while it is pending or its lease ran out; its job id follows its attempts, so a game already
    enqueued again is not enqueued twice while its job waits, and a job that ended without playing it (failed, or
    lost with Redis) is replaced. One worker at a time recovers (a lock in Redis), so that workers starting together
    after an outage do not all enqueue the same games."""
    connection: Any = getattr(ctx.queue, "connection", None)
    if connection is None:  # the embedded queue: its jobs are this process's threads
        return []
    lock = connection.lock(RECOVERY_LOCK, timeout=RECOVERY_LOCK_SECONDS)
    if not lock.acquire(blocking=False):
        return []  # another worker is recovering now
    try:
        return recover_locked(ctx, connection)
    finally:
        with contextlib.suppress(LockError):  # held past its timeout: it is someone else's now
            lock.release()


def live(status: bytes | None, started_at: bytes | None, stale: datetime) -> bool:
    """Whether a game's job, by its RQ status and start, may still play the game. A job takes the game's lease first
    thing, which changes the job the game expects: one that started before ``stale`` and did not is dead (its worker
    was killed before it could), although RQ says it started until it notices, hours later."""
    if status is None:
        return False
    if status.decode() == JobStatus.STARTED.value and started_at:
        return utcparse(started_at.decode()) >= stale
    return status.decode() in LIVE


def recover_locked(ctx: context.Context, connection: Any) -> list[int]:
    enqueued = recover_games(ctx, connection)  # at the front of the queue, before the games fed below
    start_overdue(ctx)
    feed_games(ctx)
    fold_tallies(ctx)
    archive_moves(ctx)
    expire_keys(ctx)
    return enqueued


EXPIRY_INTERVAL_S = 60.0
"""How often a process deletes the expired idempotency keys (they expire after a day: a minute late is nothing)."""
_expired_at: list[float] = []
_expiring = threading.Lock()


def expire_keys(ctx: context.Context, interval: float = EXPIRY_INTERVAL_S) -> int | None:
    """Delete the idempotency keys older than a day (``store.idempotency.expire``), at most every ``interval``
    seconds in this process; how many (``None``: not due)."""
    moment = time.monotonic()
    with _expiring:
        if _expired_at and moment - _expired_at[0] < interval:
            return None
        _expired_at[:] = [moment]
    with ctx.sessions() as session, writing(session):
        deleted = idempotency.expire(session)
        session.commit()
    return deleted


def fold_tallies(ctx: context.Context) -> int:
    """Fold the finished games into their bots' tallies (``store.bottallies``), for a second at most."""
    with ctx.sessions() as session, writing(session):
        return bottallies.fold_all(session, seconds=1.0)


def archive_moves(ctx: context.Context) -> int:
    """Archive the finished games older than ``SORRY_ARENA_KEEP_MOVES_DAYS`` (``store.retention``), for a second at
    most; none when it is off."""
    if ctx.keep_moves_days is None:
        return 0
    with ctx.sessions() as session, writing(session):
        return retention.archive_all(session, ctx.keep_moves_days, seconds=1.0)


def maintain_embedded(ctx: context.Context) -> list[int]:
    """The embedded queue's maintenance (no Redis, no worker): start the runs due, ask for the refits of the rating
    pools behind (``poolfit.ask_due``), enqueue (at the front) every game fed that needs a job and is not already
    this process's (a game left by a killed process once its lease ran out; every pending game fed at start-up),
    run a matchmaking round for every ladder (``ladderrounds.run_rounds``), feed the queue, then fold the finished games into their bots' tallies, archive the old ones and delete the
    expired idempotency keys. Returns the games enqueued again."""
    start_overdue(ctx)
    poolfit.ask_due(ctx.sessions, ctx.queue)
    held = {holding.scheduled_id for holding in ctx.heartbeat.held()}
    with ctx.sessions() as session:
        wanted = [
            (scheduled_id, attempts)
            for scheduled_id, attempts in leases.unplayed(session)
            if scheduled_id not in held
        ]
    enqueued = []
    for scheduled_id, attempts in wanted:
        if ctx.queue.enqueue(GAME_JOB, scheduled_id, job_id=game_job_id(scheduled_id, attempts), at_front=True):
            enqueued.append(scheduled_id)
    given_grace(ctx, enqueued)
    run_rounds(ctx)
    feed_games(ctx)
    fold_tallies(ctx)
    archive_moves(ctx)
    expire_keys(ctx)
    return enqueued


def recover_games(ctx: context.Context, connection: Any) -> list[int]:
    with ctx.sessions() as session:
        wanted = leases.unplayed(session)
        quiet_since = now() - timedelta(seconds=ctx.runner.lease_seconds)
        for tournament_id in results.unfinished_tournaments(session, quiet_since):
            tournament = session.get(Tournament, tournament_id)
            assert tournament is not None
            log.warning(
                "tournament %s has every result but is not done: its standings are refreshed", tournament_id
            )
            tables.refresh(
                session,
                ctx.queue,
                tournament.id,
                tournament.game,
                tournament.variant,
                tournament.table_size,
                tournament.rated,
            )
            results.complete(session, tournament.id, tournament.games_total)
    if not wanted:
        return []
    job_ids = [game_job_id(scheduled_id, attempts) for scheduled_id, attempts in wanted]
    with connection.pipeline(transaction=False) as pipeline:
        for job_id in job_ids:
            pipeline.hmget(Job.key_for(job_id), ["status", "started_at"])
        found = pipeline.execute()
    stale = now() - timedelta(seconds=ctx.runner.lease_seconds)
    enqueued = []
    for (scheduled_id, attempts), job_id, (status, started_at) in zip(wanted, job_ids, found, strict=True):
        if live(status, started_at, stale):
            continue
        if status is not None:  # it ended without playing the game (it failed), or its worker died: replace it
            with contextlib.suppress(NoSuchJobError):
                Job.fetch(job_id, connection=connection).delete()
        log.warning(
            "scheduled game %s has no live job (%s): enqueued again",
            scheduled_id,
            "its lease ran out" if attempts else "its job was lost or failed",
        )
        ctx.queue.enqueue(GAME_JOB, scheduled_id, job_id=job_id, at_front=True)
        enqueued.append(scheduled_id)
    given_grace(ctx, enqueued)
    return enqueued


def given_grace(ctx: context.Context, enqueued: list[int]) -> None:
    """The games enqueued again, each job given a lease's time to take its game (``leases.grace``), and counted."""
    if not enqueued:
        return
    metrics.RECOVERED.inc(len(enqueued))
    with ctx.sessions() as session, writing(session):
        leases.grace(session, enqueued, ctx.runner.lease_seconds)
