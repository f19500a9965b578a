"""A game's job in a worker process: the game handed to one of the worker's slots (``tournament.dispatch.slots``),
or played on the caller's thread (the embedded queue), and played to its end through outages of the database.

A game of an account that holds its share of the slots, or of a bot that stalls and holds its share, waits at the
end of the queue (:func:`held_back`, asked by the worker before the job runs). Bot faults are game events; a
database that fails makes the game wait: a save waits with its moves kept (``tournament.play.saving``), anything else
goes on from the last save once the database answers (:func:`play`); any other error is logged, and the game's lease
brings it back (``tournament.dispatch.recovery``).
"""

from __future__ import annotations

import logging
import time

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from runtime import metrics
from store.database import failed_not_faulty, first_line, outage
from store.fastlane import param
from store.models import Tournament, TournamentGame
from tournament.dispatch import context
from tournament.dispatch.feed import top_up
from tournament.play import leases, runner

log = logging.getLogger(__name__)

DATABASE_RETRY_SECONDS = 0.25
"""How often a game that waits for its database asks whether it answers: play resumes within this of its return."""
DATABASE_RETRY_MAX_SECONDS = 2.0
"""The longest wait between two starts of a game that the database failed (one that answers reads but refuses
writes lets the game start, fail and wait again)."""


def run_game(
    ctx: context.Context, scheduled_id: int, bot_ids: list[int] | None = None, account: int | None = None
) -> str:
    """Play one scheduled game: on a slot of this worker (the job returns at once), or here (the embedded queue).
    ``bot_ids`` and ``account``: its bots and the owner of its tournament, as the queue's top-up gave them (else
    read here: a game enqueued again)."""
    if ctx.slots is None:  # the embedded queue's thread: counted when admitted, or here (a game enqueued again)
        seated = ctx.admitted.pop(scheduled_id, None)
        if seated is None:
            seated = ctx.stalls.enter(*who_plays(ctx, scheduled_id))
        try:
            return play(ctx, scheduled_id)
        finally:
            ctx.stalls.leave(seated)
    if bot_ids is None or account is None:
        bot_ids, account = who_plays(ctx, scheduled_id)
    seated = ctx.stalls.enter(bot_ids, account)  # counted before the next job is admitted

    def played() -> str:
        try:
            return play(ctx, scheduled_id, feed=False)
        finally:
            ctx.stalls.leave(seated)

    if not ctx.slots.play(scheduled_id, played, then=lambda: top_up(ctx)):  # the queue topped up off the slot
        ctx.stalls.leave(seated)
        return "already playing here"
    return "playing"


_WHO_PLAYS = (
    select(TournamentGame.bot_ids, Tournament.owner_id)
    .join(Tournament, Tournament.id == TournamentGame.tournament_id)
    .where(TournamentGame.id == param("scheduled_id"))
)


def who_plays(ctx: context.Context, scheduled_id: int) -> tuple[list[int], int | None]:
    """The bots of a scheduled game and the account that owns its tournament (none if it is missing, or the
    database cannot say now)."""
    try:
        with ctx.sessions() as session:
            found = session.connection().execute(_WHO_PLAYS, {"scheduled_id": scheduled_id}).first()
    except SQLAlchemyError:
        return [], None
    return (list(found[0]), found[1]) if found is not None else ([], None)


def held_back(
    ctx: context.Context, scheduled_id: int, bot_ids: list[int] | None = None, account: int | None = None
) -> bool:
    """Whether a game's job goes back to the end of the queue instead of starting here now: its account already
    holds its share of this process's games, or one of its bots stalls and already sits in its share
    (``tournament.play.stalls``). Asked before the job runs; when the database cannot say whose game it is, the
    game starts."""
    if bot_ids is None or account is None:
        bot_ids, account = who_plays(ctx, scheduled_id)
    return not ctx.stalls.admits(bot_ids, account)


def admit_here(
    ctx: context.Context, scheduled_id: int, bot_ids: list[int] | None = None, account: int | None = None
) -> bool:
    """The embedded queue's admission of a game's job, asked under its lock before a thread takes it: whether the
    game may start now (as :func:`held_back`, from the bots and account its job carries: no database read under the
    queue's lock), and if so counted as playing at once, so that the next job asked sees it. A job that carries no
    bots (a game enqueued again) starts, and is counted by :func:`run_game`."""
    if bot_ids is None or account is None:
        return True
    if not ctx.stalls.admits(bot_ids, account):
        metrics.STALL_HOLDS.inc()
        return False
    ctx.admitted[scheduled_id] = ctx.stalls.enter(bot_ids, account)
    return True


def play(ctx: context.Context, scheduled_id: int, feed: bool = True) -> str:
    """Play the game to its end, through outages of the database: a save that fails waits in the game, its moves
    kept (``tournament.play.saving``); anything else of the game that the database fails (its start, a read) makes
    the game wait here, asking again after ``DATABASE_RETRY_SECONDS``, then twice as long each time up to
    ``DATABASE_RETRY_MAX_SECONDS`` (a read-only database answers reads, so the game itself asks), then go on from
    its last save. Then top the queue up (``feed``; a worker's slot does it once the slot is free)."""
    waiting_since = None
    delay = DATABASE_RETRY_SECONDS
    while True:
        try:
            with ctx.sessions() as session:
                outcome = runner.play_scheduled(session, scheduled_id, ctx)
        except leases.LeaseLost as lost:
            log.warning("%s", lost)
            if feed:
                top_up(ctx)
            return "lost"
        except DBAPIError as error:
            kind = outage(error)
            if kind is None:  # a bug is never asked again
                raise
            if waiting_since is None:
                waiting_since = time.monotonic()
                log.warning(
                    "scheduled game %s waits for the database (%s): %s", scheduled_id, kind, first_line(error)
                )
            if not wait_for_database(ctx, delay):
                return "stopped"
            delay = min(delay * 2, DATABASE_RETRY_MAX_SECONDS)
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


def wait_for_database(ctx: context.Context, first: float = DATABASE_RETRY_SECONDS) -> bool:
    """Until the database answers (``True``), asked after ``first`` seconds then every ``DATABASE_RETRY_SECONDS``,
    or the process stops meanwhile (``False``)."""
    delay = first
    while not ctx.stopping.wait(delay):
        delay = DATABASE_RETRY_SECONDS
        try:
            with ctx.sessions() as session:
                session.execute(select(1))
            return True
        except DBAPIError as error:
            if not failed_not_faulty(error):
                raise
    return False
