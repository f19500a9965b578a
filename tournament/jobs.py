"""The jobs, named by dotted path (``tournament.jobs.play_game``): what the service enqueues and a worker runs.

Each takes ids, opens its own session through the process's context (``tournament.dispatch.context``) and hands
the work to the floor that does it:

- ``start_tournament``: a tournament that starts now: its runs due, their first games fed to the queue a few at a
  time per account (``tournament.dispatch.starts``, ``tournament.dispatch.feed``); later runs are started by every
  worker's clock at their planned times;
- ``play_game``: one scheduled game played to its end, resumed, or found done or held by another worker
  (``tournament.dispatch.playing``: in a worker process on one of its slots, the job returning at once);
- ``cancelled``: after a cancellation (``service/cancellation.py``), the tournament's own table refit on every
  result it has, the rating pool refit without the tournament and the room it left fed to the other accounts' games;
- ``ladder_round``: a ladder's matchmaking round, its games fed (``tournament.dispatch.ladderrounds``): the service
  enqueues it when a ladder is created, a bot joins it or is resumed, so that its games start at once;
- ``fit_pool``: a rating pool's refit, off the game path (``tournament.standings.poolfit``);
- ``fit_ladder``: a ladder's standings refit, off the game path (``tournament.standings.ladderfit``);
- ``maintain_embedded``: the embedded queue's maintenance (no Redis), every second on a thread of the service
  (``tournament.dispatch.recovery``);
- ``admit_embedded``: not a job: the embedded queue's question before a thread takes a job, whether its game may
  start now (``tournament.dispatch.playing.admit_here``: an account's share of the threads, a stalling bot's);
- ``configure``: not a job: the embedded service points the jobs of its process at its own database and notifier.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy.exc import DBAPIError

from runtime.jobqueue import GAME_JOB
from store.database import failed_not_faulty, first_line
from store.models import Tournament, now
from tournament.dispatch import context, ladderrounds, playing, recovery, starts
from tournament.dispatch.context import configure
from tournament.dispatch.feed import feed_games
from tournament.standings import ladderfit, poolfit, tables

log = logging.getLogger(__name__)

__all__ = [
    "admit_embedded",
    "cancelled",
    "configure",
    "fit_ladder",
    "fit_pool",
    "ladder_round",
    "maintain_embedded",
    "play_game",
    "start_tournament",
]


def play_game(scheduled_id: int, bot_ids: list[int] | None = None, account: int | None = None) -> str:
    """Play one scheduled game (``bot_ids`` and ``account``: its bots and the owner of its tournament, as the
    queue's top-up gave them; else read when needed)."""
    return playing.run_game(context.get(), scheduled_id, bot_ids, account)


def start_tournament(tournament_id: int) -> int:
    """Start the tournament if it waits, and each of its later runs that is due by the clock and does not exist yet;
    the id of the last run this call started, else 0. Enqueued when a tournament is created to start now; the
    workers' clock starts the same runs otherwise, so a lost start job costs a second."""
    started = starts.start_runs(context.get(), tournament_id, now())
    return started[-1] if started else 0


def cancelled(tournament_id: int) -> str:
    """After a cancellation: refit the tournament's own table on every result it has (its last refit may be a few
    results behind), its rating pool without it, and feed the room it left."""
    ctx = context.get()
    with ctx.sessions() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            return "missing"
        tables.refresh_tournament(session, tournament_id)
        if tournament.rated:
            tables.refresh_pool(session, tournament.game, tournament.variant, tournament.table_size)
    feed_games(ctx)
    return "refitted"


def ladder_round(ladder_id: int) -> int:
    """A matchmaking round of the ladder (``tournament.plans.ladders.make_games``), the games it made fed to the
    queue; how many it made (0 if the database fails meanwhile: the clock's next round makes them,
    :func:`deferred`)."""
    ctx = context.get()
    made: list[int] = []
    with deferred(f"ladder {ladder_id}'s matchmaking round"):
        made = ladderrounds.run_round(ctx, ladder_id)
        if made:
            feed_games(ctx)
    return len(made)


def fit_ladder(ladder_id: int) -> str:
    """Refit the ladder's standings on its rated results (``ladderfit.fit``), off the game path; ``deferred`` if
    the database fails meanwhile (:func:`deferred`)."""
    with deferred(f"ladder {ladder_id}'s fit"), context.get().sessions() as session:
        return ladderfit.fit(session, ladder_id)
    return "deferred"


def fit_pool(game: str, variant: str, table_size: int = 2) -> str:
    """Refit the pool's table, again while a refit was asked for meanwhile (``poolfit.fit``); ``table_size`` 2 for
    a job queued by a release before the pools had one; ``deferred`` if the database fails meanwhile."""
    with deferred(f"the {game} {variant} {table_size}-seat pool's refit"), context.get().sessions() as session:
        return poolfit.fit(session, game, variant, table_size)
    return "deferred"


@contextmanager
def deferred(what: str) -> Iterator[None]:
    """A refit or a ladder's round that the database's failure (a restart, a stop, a full disk:
    ``failed_not_faulty``) interrupts ends with a warning instead of a failed job: the workers' clock and the
    embedded maintenance ask again for every table behind its results (``poolfit.ask_due``, ``ladderfit.ask_due``)
    once the interval has passed, and run every open ladder's round on each tick."""
    try:
        yield
    except DBAPIError as error:
        if not failed_not_faulty(error):
            raise
        log.warning("%s waits for the database (asked again by the clock): %s", what, first_line(error))


def maintain_embedded() -> list[int]:
    """The embedded queue's maintenance: the games enqueued again (``recovery.maintain_embedded``)."""
    return recovery.maintain_embedded(context.get())


def admit_embedded(dotted: str, args: tuple[Any, ...]) -> bool:
    """Whether the embedded queue may start this job now: any job but a game's, and a game whose account and bots
    are within their shares of the queue's threads (then counted as playing: ``playing.admit_here``)."""
    return dotted != GAME_JOB or playing.admit_here(context.get(), *args)
