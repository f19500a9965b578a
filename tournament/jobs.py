"""The RQ jobs, named by dotted path (``tournament.jobs.play_game``): they take ids and open their own session.

- ``start_tournament``: lays out a tournament's schedule and enqueues its games; RQ runs it at the start time
  (``enqueue_at``) and again at each repeat (``Repeat``), where it starts the run due by the clock (``runs``: each
  run starts once, however many callers try).
- ``play_game``: plays one scheduled game to its end, or resumes it, or returns at once if it is done or another
  worker holds its lease. Bot faults are game events; infrastructure errors raise, and RQ records the failure.
- ``recover``: enqueues again the games that have no live job: those whose worker died (their lease ran out), and
  the pending ones whose job Redis lost (it restarted empty) or that failed before taking the lease (the database
  restarted); starts the runs due a lease ago that have not started (their start job or repeat was lost or failed);
  and completes the tournaments whose last game's worker failed before it refreshed the standings. Run by the
  workers' maintenance: the database, not Redis, is the record of what is left to play.
"""

from __future__ import annotations

import contextlib
import logging
from datetime import datetime, timedelta
from typing import Any

from redis.exceptions import LockError
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.utils import utcparse
from sqlalchemy import select

from runtime.jobqueue import GAME_JOB
from store.models import Tournament, TournamentGame, now
from tournament import context, leases, results, runner, runs, standings

log = logging.getLogger(__name__)

RECOVERY_LOCK = "sorry-arena:recovery"
RECOVERY_LOCK_SECONDS = 30
"""How long a recovery pass may hold the lock (one takes milliseconds; a worker killed mid-pass frees it then)."""
LIVE = frozenset(
    status.value for status in (JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED, JobStatus.SCHEDULED)
)
"""RQ statuses of a job that is still to run or running (any other, or no job at all: it will never play the game)."""
RQ_EARLY = timedelta(seconds=2)
"""How early an RQ repeat may fire before its run is due and still start it (see ``start_tournament``)."""


def game_job_id(scheduled_id: int, attempts: int) -> str:
    """The job of a scheduled game: its first (``attempts``: leases taken so far, 0), then one per lease lost."""
    return f"sorry-arena-game-{scheduled_id}" if attempts == 0 else f"sorry-arena-game-{scheduled_id}-{attempts}"


def play_game(scheduled_id: int) -> str:
    ctx = context.get()
    with ctx.sessions() as session:
        try:
            outcome = runner.play_scheduled(session, scheduled_id, ctx.runner, ctx.notifier)
        except leases.LeaseLost as lost:
            log.warning("%s", lost)
            return "lost"
    log.info("scheduled game %s: %s", scheduled_id, outcome)
    return outcome


def start_tournament(tournament_id: int) -> int:
    """Start the tournament if it waits, and each of its later runs that is due by the clock and does not exist yet;
    the id of the last run this call started, else 0.

    RQ runs it at the start time (``enqueue_at``) and again at each repeat (``Repeat``); the workers' recovery starts
    the same runs when this job was lost (``recover_runs``). A repeat makes the run that is due now, not the one after
    the last made: one that comes after the recovery made its run starts nothing, and none starts a run ahead of its
    time. RQ's scheduler keeps whole seconds and times a repeat from the end of the previous run, not from the
    schedule, so a repeat may fire a little before its run is due: a run due within ``RQ_EARLY`` counts."""
    started = start_runs(context.get(), tournament_id, now(), early=RQ_EARLY)
    return started[-1] if started else 0


def start_runs(
    ctx: context.Context, tournament_id: int, moment: datetime, early: timedelta = timedelta(0)
) -> list[int]:
    """Start the tournament's runs due at ``moment`` that have not started (``runs.start_due``: each once, whoever
    else tries), then enqueue their games; the runs started."""
    with ctx.sessions() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            return []
        started = runs.start_due(session, tournament, moment, early)
        if not started:
            return []
        scheduled = list(
            session.scalars(
                select(TournamentGame.id)
                .where(TournamentGame.tournament_id.in_(started))
                .order_by(TournamentGame.tournament_id, TournamentGame.number)
            )
        )
    # a game whose job is not enqueued (Redis fails now) is pending without a job: the recovery enqueues it
    for scheduled_id in scheduled:
        ctx.queue.enqueue(GAME_JOB, scheduled_id, job_id=game_job_id(scheduled_id, 0))
    return started


def recover() -> list[int]:
    """Enqueue again every scheduled game without a live job; complete the tournaments left unfinished; start the
    runs overdue by a lease (``recover_runs``). Returns the games enqueued.

    A game needs a job while it is pending or its lease ran out; its job id follows its attempts, so a game already
    enqueued again is not enqueued twice while its job waits, and a job that ended without playing it (failed, or
    lost with Redis) is replaced. One worker at a time recovers (a lock in Redis), so that workers starting together
    after an outage do not all enqueue the same games."""
    ctx = context.get()
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
    enqueued = recover_games(ctx, connection)
    recover_runs(ctx)
    return enqueued


def recover_runs(ctx: context.Context) -> list[int]:
    """Start every run due more than a lease ago that has not started: its start job (or, for a later run, its RQ
    repeat) was lost with Redis, failed (the database was down: RQ repeats only a job that succeeded, so the rest of
    the chain is lost too), or waits in the queue behind games. Returns the runs started.

    Starting is idempotent (``runs``), so this needs no knowledge of the start jobs (their ids are RQ's own): it starts
    the runs itself, at once, rather than enqueueing a start job behind the games in the queue; a start job that comes
    later finds its run started and starts nothing. Laying out a run is one transaction of at most ``MAX_GAMES``
    rows; its games get their jobs like any game."""
    late = now() - timedelta(seconds=ctx.runner.lease_seconds)
    with ctx.sessions() as session:
        overdue = runs.overdue(session, late)
    started = []
    for tournament_id in overdue:
        found = start_runs(ctx, tournament_id, late)
        if found:
            log.warning(
                "tournament %s: runs due a lease ago had not started (their start job was lost or failed): "
                "started them (tournaments %s)",
                tournament_id,
                ", ".join(map(str, found)),
            )
        started += found
    return started


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
            standings.refresh(session, tournament.id, tournament.game, tournament.variant, tournament.rated)
            results.complete(session, tournament)
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
        ctx.queue.enqueue(GAME_JOB, scheduled_id, job_id=job_id)
        enqueued.append(scheduled_id)
    return enqueued
