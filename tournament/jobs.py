"""The RQ jobs, named by dotted path (``tournament.jobs.play_game``): they take ids and open their own session.

- ``start_tournament``: lays out a tournament's schedule and feeds its first games to the queue, when the tournament
  starts now (games go to the queue a few at a time per account, round-robin: :func:`feed`, ``tournament.feed``;
  every game's end, the clock and the maintenance top the queue up);
  the runs due later (a start time, repeats) are started by the clock of every worker (:func:`start_overdue`,
  ``tournament.clock``), at their planned times, each once however many workers try (``runs``).
- ``play_game``: plays one scheduled game to its end, or resumes it, or returns at once if it is done or another
  worker holds its lease. In a worker process it hands the game to one of the worker's slots and returns
  (``tournament.slots``); a game of a bot that stalls waits at the end of the queue while that bot holds its share
  of the slots (:func:`held_back`). Bot faults are game events; a database that fails makes the game wait and go on from its
  last save once the database answers; any other error is logged, and the game's lease brings it back.
- ``recover``: enqueues again, at the front of the queue, the games that have no live job: those whose worker died
  (their lease ran out) or stopped (it gave the lease back), and the pending ones whose job Redis lost (it
  restarted empty); starts the runs due that have not started; and completes the tournaments whose last game's
  worker failed before it refreshed the standings. Run by the workers' maintenance: the database, not Redis, is the
  record of what is left to play (a game not fed yet is no lost job: it waits for its turn). It also folds the
  finished games into their bots' tallies (``store.bottallies``), which the bot pages read.
- ``maintain_embedded``: the same for the embedded queue (no Redis), on a thread of the service.
- ``cancelled``: after a tournament was cancelled (``service/cancellation.py``), refits its rating pool without it
  and feeds the other accounts' games into the room it left.
"""

from __future__ import annotations

import contextlib
import logging
import time
from datetime import datetime, timedelta
from typing import Any

from redis.exceptions import LockError, RedisError
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.utils import utcparse
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from runtime.jobqueue import GAME_JOB
from store import bottallies, fastlane
from store.database import failed_not_faulty, first_line
from store.fastlane import param
from store.models import Tournament, TournamentGame, now
from tournament import context, feed, leases, poolfit, results, runner, runs, standings
from tournament.writes import writing

log = logging.getLogger(__name__)


RECOVERY_LOCK = "sorry-arena:recovery"
RECOVERY_LOCK_SECONDS = 30
"""How long a recovery pass may hold the lock (one takes milliseconds; a worker killed mid-pass frees it then)."""
LIVE = frozenset(
    status.value for status in (JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED, JobStatus.SCHEDULED)
)
"""RQ statuses of a job that is still to run or running (any other, or no job at all: it will never play the game)."""
DATABASE_RETRY_SECONDS = 0.25
"""How often a game that waits for its database asks again: play resumes within this of the database's return."""


def game_job_id(scheduled_id: int, attempts: int) -> str:
    """The job of a scheduled game: its first (``attempts``: leases taken so far, 0), then one per lease lost."""
    return f"sorry-arena-game-{scheduled_id}" if attempts == 0 else f"sorry-arena-game-{scheduled_id}-{attempts}"


def play_game(scheduled_id: int, bot_ids: list[int] | None = None) -> str:
    """Play one scheduled game: on a slot of this worker (the job returns at once), or here (the embedded queue).
    ``bot_ids``: its bots, as the queue's top-up gave them (else read here: a game enqueued again)."""
    ctx = context.get()
    if ctx.slots is None:
        return play(ctx, scheduled_id)
    # its bots, counted before the next job is admitted
    bots = ctx.stalls.enter(bot_ids if bot_ids is not None else game_bots(ctx, scheduled_id))

    def played() -> str:
        try:
            return play(ctx, scheduled_id, feed=False)
        finally:
            ctx.stalls.leave(bots)

    if not ctx.slots.play(scheduled_id, played, then=lambda: top_up(ctx)):  # the queue topped up off the slot
        ctx.stalls.leave(bots)
        return "already playing here"
    return "playing"


_BOTS = select(TournamentGame.bot_ids).where(TournamentGame.id == param("scheduled_id"))


def game_bots(ctx: context.Context, scheduled_id: int) -> list[int]:
    """The bots of a scheduled game (none if it is missing, or the database cannot say now)."""
    try:
        with ctx.sessions() as session:
            found = fastlane.first(session, _BOTS, {"scheduled_id": scheduled_id})
    except SQLAlchemyError:
        return []
    return list(found[0]) if found is not None else []


def held_back(ctx: context.Context, scheduled_id: int, bot_ids: list[int] | None = None) -> bool:
    """Whether a game's job goes back to the end of the queue instead of starting here now: one of its bots stalls
    and already sits in its share of this process's games (``tournament.stalls``). Asked before the job runs; when no
    bot stalls, or the database cannot say, the game starts."""
    if not ctx.stalls.any_stalling():
        return False
    return not ctx.stalls.admits(bot_ids if bot_ids is not None else game_bots(ctx, scheduled_id))


def play(ctx: context.Context, scheduled_id: int, feed: bool = True) -> str:
    """Play the game to its end, through outages of the database: a game whose database fails waits, asking again
    every ``DATABASE_RETRY_SECONDS``, then goes on from its last save (the moves played since are asked again).
    Then top the queue up (``feed``; a worker's slot does it once the slot is free)."""
    waiting_since = None
    while True:
        try:
            with ctx.sessions() as session:
                outcome = runner.play_scheduled(
                    session, scheduled_id, ctx.runner, ctx.notifier, ctx.heartbeat, ctx.stalls
                )
        except leases.LeaseLost as lost:
            log.warning("%s", lost)
            if feed:
                top_up(ctx)
            return "lost"
        except DBAPIError as error:
            if not failed_not_faulty(error):  # a bug is never asked again
                raise
            if waiting_since is None:
                waiting_since = time.monotonic()
                log.warning("scheduled game %s waits for the database: %s", scheduled_id, first_line(error))
            if not wait_for_database(ctx):
                return "stopped"
            continue
        if waiting_since is not None:
            log.warning(
                "scheduled game %s went on after waiting %.1f s for the database",
                scheduled_id,
                time.monotonic() - waiting_since,
            )
        log.info("scheduled game %s: %s", scheduled_id, outcome)
        if feed:  # a game ended (or was found done or cancelled): the next game of its account's turn goes in
            top_up(ctx)
        return outcome


def wait_for_database(ctx: context.Context) -> bool:
    """Until the database answers (``True``), or the process stops meanwhile (``False``)."""
    while not ctx.stopping.wait(DATABASE_RETRY_SECONDS):
        try:
            with ctx.sessions() as session:
                session.execute(select(1))
            return True
        except DBAPIError as error:
            if not failed_not_faulty(error):
                raise
    return False


def start_tournament(tournament_id: int) -> int:
    """Start the tournament if it waits, and each of its later runs that is due by the clock and does not exist yet;
    the id of the last run this call started, else 0. Enqueued when a tournament is created to start now; the
    workers' clock starts the same runs otherwise (:func:`start_overdue`), so a lost start job costs a second."""
    started = start_runs(context.get(), tournament_id, now())
    return started[-1] if started else 0


def start_runs(ctx: context.Context, tournament_id: int, moment: datetime) -> list[int]:
    """Start the tournament's runs due at ``moment`` that have not started (``runs.start_due``: each once, whoever
    else tries), then feed the queue (their first games, in their account's turn); the runs started."""
    with ctx.sessions() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            return []
        started = runs.start_due(session, tournament, moment)
    if started:
        feed_games(ctx)
    return started


def feed_games(ctx: context.Context) -> list[int]:
    """Top every account's games waiting in the queue up to the window (``tournament.feed``), enqueueing them in
    their round-robin order, those of an account less busy than another at the front; the games enqueued. A game marked fed whose job is not enqueued (Redis fails now) is
    pending without a job: the recovery enqueues it."""
    with ctx.sessions() as session, writing(session):
        fed = feed.take(session, ctx.feed_window)
    for game in fed:
        if not game.ahead:
            ctx.queue.enqueue(GAME_JOB, game.scheduled_id, game.bot_ids, job_id=game_job_id(game.scheduled_id, 0))
    # the games that go ahead of the waiting ones: each put at the front, the last first, so that they keep their
    # order there
    for game in reversed(fed):
        if game.ahead:
            job_id = game_job_id(game.scheduled_id, 0)
            ctx.queue.enqueue(GAME_JOB, game.scheduled_id, game.bot_ids, job_id=job_id, at_front=True)
    return [game.scheduled_id for game in fed]


def top_up(ctx: context.Context, wait: bool = False) -> None:
    """:func:`feed_games`, where a failure only delays the feeding: the clock and the maintenance feed again.

    One top-up at a time in a process: a game that ends while another thread of the process tops up leaves the
    feeding to that thread, which feeds once more when it is done (what it read may be older than this game's end),
    so the game's slot goes to the next game at once. With ``wait``, the caller waits for that thread and feeds
    itself (a burst worker, before it looks at the queue a last time)."""
    ctx.feed_wanted.set()
    while ctx.feed_wanted.is_set():
        if not ctx.feeding.acquire(blocking=wait):
            return  # the thread feeding now sees the request when it is done, and feeds again
        try:
            ctx.feed_wanted.clear()
            feed_games(ctx)
        except (SQLAlchemyError, RedisError) as error:
            log.warning("games not fed now (the next tick feeds them): %s", first_line(error))
        finally:
            ctx.feeding.release()


def cancelled(tournament_id: int) -> str:
    """After a cancellation: refit the tournament's rating pool without it, and feed the room it left."""
    ctx = context.get()
    with ctx.sessions() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            return "missing"
        if tournament.rated:
            standings.refresh_pool(session, tournament.game, tournament.variant)
    feed_games(ctx)
    return "refitted"


def recover() -> list[int]:
    """Enqueue again every scheduled game without a live job; complete the tournaments left unfinished; start the
    runs due (:func:`start_overdue`). Returns the games enqueued.

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
    enqueued = recover_games(ctx, connection)  # at the front of the queue, before the games fed below
    start_overdue(ctx)
    feed_games(ctx)
    fold_tallies(ctx)
    return enqueued


def fold_tallies(ctx: context.Context) -> int:
    """Fold the finished games into their bots' tallies (``store.bottallies``), for a second at most."""
    with ctx.sessions() as session, writing(session):
        return bottallies.fold_all(session, seconds=1.0)


def start_overdue(ctx: context.Context, moment: datetime | None = None) -> list[int]:
    """Start every run due by ``moment`` (now) that has not started: a tournament whose start time came, a repeat at
    its planned time (each timed from the first run's start, never from a late run), and one whose start job was
    lost. Every worker's clock calls this every second; starting is idempotent (``runs``), so the workers that
    race for a run start it once. Returns the runs started."""
    moment = moment or now()
    with ctx.sessions() as session:
        overdue = runs.overdue(session, moment)
    started = []
    for tournament_id in overdue:
        found = start_runs(ctx, tournament_id, moment)
        if found:
            log.info("tournament %s: started runs %s", tournament_id, ", ".join(map(str, found)))
        started += found
    return started


def maintain_embedded() -> list[int]:
    """The embedded queue's maintenance (no Redis, no worker): start the runs due, ask for the refits of the rating
    pools behind (``poolfit.ask_due``), enqueue (at the front) every game fed that needs a job and is not already
    this process's (a game left by a killed process once its lease ran out; every pending game fed at start-up),
    feed the queue, then fold the finished games into their bots' tallies. Returns the games enqueued again."""
    ctx = context.get()
    start_overdue(ctx)
    poolfit.ask_due(ctx)
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
    feed_games(ctx)
    fold_tallies(ctx)
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
            standings.refresh(session, tournament.id, tournament.game, tournament.variant, tournament.rated)
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
    return enqueued
