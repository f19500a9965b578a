"""Fair dispatch: a tournament's games go to the job queue a few at a time, the account with the least left to
play first.

The queue is first in, first out. Enqueued all at once, a 2,000-game tournament would put every game of a
tournament made after it behind its own, for hours. Instead each account has at most ``window`` games waiting in
the queue (fed, not yet leased by a worker), taken in turn from its running tournaments, and the accounts are
served by how much they have left to play (games not over in their running tournaments): the least first, and an
account with less left than another has its games put at the front of the queue, ahead of the other's waiting
games. So a small tournament that arrives behind a big one of another account takes every game slot that frees
until it is played, and ends in about the time it takes alone; the big one waits for no more than the small ones'
games (shortest first, which makes the mean time to a result the least). The quotas bound how much any account
may have queued, so no account's games wait for ever.
Whoever starts a run, ends a game, ticks a worker's clock or runs the maintenance tops the windows up
(``jobs.feed``), so the queue refills as the workers take games. The second game of a pair on one deal (a paired
match) is not fed until the first is over (:data:`TWIN_NOT_OVER`): the games of a deal are played one after the
other, never at once; the end of the first feeds it.

``TournamentGame.fed`` records that a game was given its job, which makes it the recovery's to look after
(``leases.unplayed``); a game not fed yet waits in the database for its turn and is no lost job. Two callers
topping up at once pick the same next games (in play order) and mark them with a conditional ``UPDATE``: each game
is fed once, by the caller whose ``UPDATE`` changed it.

The mark also gives the game's job a lease's time (``lease_until``, on a pending game: its job's grace) to take the
game's lease. The marks are committed before the jobs reach Redis, and a job handed over to a slot ends (RQ status
``finished``) before its slot takes the lease: in both gaps the game is fed and has no live job, and the recovery,
which reads the database then Redis, enqueued such games again with a warning, 29 to 41 times in 3 to 5 minutes of
normal play with three workers. Enqueueing inside the marking transaction would close the first gap only, and hold
the rows' locks over round trips to Redis; the grace closes both, at no extra statement: the recovery looks only at
fed games whose grace ran out (``leases.unplayed``), so a job truly lost is enqueued again a lease later.
"""

from __future__ import annotations

import functools
import logging
from collections import defaultdict
from datetime import timedelta
from typing import NamedTuple

from redis.exceptions import RedisError
from sqlalchemy import CompoundSelect, Integer, and_, case, func, select, text, union_all, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from runtime import metrics
from runtime.jobqueue import GAME_JOB
from store import deals
from store.database import first_line
from store.fastlane import param
from store.models import Tournament, TournamentGame, now
from tournament.dispatch import context
from tournament.play.writes import writing

log = logging.getLogger(__name__)

UNFED = text("tournament_games.status = 'pending' AND NOT tournament_games.fed")
"""A game not fed yet, spelled as the predicate of the partial index ``ix_tournament_games_unfed`` so that both
planners read a tournament's next games along it."""

TWIN_NOT_OVER = deals.twin_not_over(first_only=True)
"""The game is the second of a pair on one deal (a paired match: ``tournament/plans/matches.py``) whose first is not
over: it waits. Two games on one deal are never played at once: a bot that holds a deal in one could tell the bot
in the same seat of the other every card of its hand. A round robin's games, each with its own seed, never wait."""


PARTS = 200
"""Running tournaments read per statement of :func:`candidates` (SQLite joins at most 500 selects in one)."""


class Running(NamedTuple):
    """The running tournaments that have games not over, and what their accounts have in them (:func:`running`)."""

    tournaments: list[tuple[int, int]]
    """``(tournament, account)``, by account, oldest first."""
    queued: dict[int, int]
    """Per account: its games fed and not yet leased (waiting in the queue); an account with none is not here."""
    left: dict[int, int]
    """Per account: its games not over (to play, or being played)."""


_FED_WAITING = func.count(case((and_(TournamentGame.status == "pending", TournamentGame.fed.is_(True)), 1)))
_RUNNING = (
    select(Tournament.id, Tournament.owner_id, _FED_WAITING, func.count())
    .join(TournamentGame, TournamentGame.tournament_id == Tournament.id)
    .where(Tournament.status == "running", TournamentGame.status.in_(("pending", "running")))
    .group_by(Tournament.id, Tournament.owner_id)
    .order_by(Tournament.owner_id, Tournament.id)
)
_MARK = (
    update(TournamentGame)
    .where(
        TournamentGame.id == param("scheduled_id"),
        TournamentGame.fed.is_(False),
        TournamentGame.status == "pending",
    )
    .values(fed=True, lease_until=param("grace_until"))
    .returning(TournamentGame.bot_ids)
)


class Fed(NamedTuple):
    """A game given its job (:func:`take`)."""

    scheduled_id: int
    ahead: bool
    """Whether its job goes to the front of the queue, ahead of the games waiting."""
    bot_ids: list[int]
    """Its bots (the job carries them: a worker counts a game's bots before it admits the next)."""
    account: int
    """The owner of its tournament (the job carries it: a worker gives each account a share of its slots)."""


def running(session: Session) -> Running:
    """The running tournaments with games not over, and per account its games waiting in the queue and not over: one
    statement, grouped by tournament along its games' index. (A running tournament whose games are all over is its
    last writer's to complete: nothing to feed.)"""
    found = Running([], {}, {})
    for tournament_id, owner, waiting, not_over in session.connection().execute(_RUNNING).all():
        found.tournaments.append((tournament_id, owner))
        if waiting:
            found.queued[owner] = found.queued.get(owner, 0) + waiting
        found.left[owner] = found.left.get(owner, 0) + not_over
    return found


@functools.cache
def next_games(parts: int) -> CompoundSelect[int, int, int]:
    """The statement that reads the next unfed games of ``parts`` tournaments (parameters ``t0``... and
    ``window``), at most ``window`` of each, a part per tournament, none whose twin on its deal is not over: built and compiled once per number of parts
    (up to :data:`PARTS`)."""
    return union_all(
        *(
            select(
                select(TournamentGame.id, TournamentGame.tournament_id, TournamentGame.number)
                .where(TournamentGame.tournament_id == param(f"t{part}"), UNFED, ~TWIN_NOT_OVER)
                .order_by(TournamentGame.number)
                .limit(param("window", Integer()))
                .subquery()
            )
            for part in range(parts)
        )
    )


def candidates(session: Session, tournaments: list[tuple[int, int]], window: int) -> dict[int, list[list[int]]]:
    """Per account, the next unfed games of each of its running ``tournaments`` (:func:`running`: oldest first), at
    most ``window`` of each, in play order.

    One statement (per :data:`PARTS` tournaments), a part per running tournament, each reading its first ``window``
    games along the partial index of the games not fed (``ix_tournament_games_unfed``): the cost grows with the
    running tournaments, not with the games they have left to play (a window function over every unfed game took
    7 ms at 10,000 waiting)."""
    found: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for start in range(0, len(tournaments), PARTS):
        chunk = tournaments[start : start + PARTS]
        values = {"window": window, **{f"t{part}": tournament_id for part, (tournament_id, _) in enumerate(chunk)}}
        for scheduled_id, tournament_id, number in (
            session.connection().execute(next_games(len(chunk)), values).all()
        ):
            found[tournament_id].append((number, scheduled_id))
    per_account: dict[int, list[list[int]]] = defaultdict(list)
    for tournament_id, owner_id in tournaments:
        if found[tournament_id]:
            per_account[owner_id].append([scheduled_id for _, scheduled_id in sorted(found[tournament_id])])
    return dict(per_account)


def round_robin(lists: list[list[int]], limit: int) -> list[int]:
    """Up to ``limit`` items taken in turn from each list: the first of each, then the second of each..."""
    taken: list[int] = []
    for place in range(max((len(items) for items in lists), default=0)):
        for items in lists:
            if len(taken) >= limit:
                return taken
            if place < len(items):
                taken.append(items[place])
    return taken


def take(session: Session, window: int, grace: float = 10.0) -> list[Fed]:
    """Mark fed the games that top every account's waiting games up to ``window``, and return them in the order
    to enqueue, each with whether it goes to the front of the queue: round-robin across the accounts, the one with
    the least left to play first, each account's games round-robin across its tournaments; an account with less
    left than another goes ahead of the waiting games; each job has ``grace`` seconds (a lease) to take its game's
    lease before the recovery may count it lost. Commits."""
    tournaments, queued, left = running(session)
    per_account = {
        owner: round_robin(games, window - queued.get(owner, 0))
        for owner, games in candidates(session, tournaments, window).items()
    }
    owners = sorted(per_account, key=lambda owner: (left.get(owner, 0), owner))
    ahead = {
        owner
        for owner in owners
        if any(left.get(owner, 0) < count for other, count in left.items() if other != owner)
    }
    order = round_robin(
        [per_account[owner] for owner in owners], sum(len(games) for games in per_account.values())
    )
    owner_of = {scheduled_id: owner for owner, games in per_account.items() for scheduled_id in games}
    claimed: dict[int, list[int]] = {}
    grace_until = now() + timedelta(seconds=grace)
    for scheduled_id in sorted(order):  # rows locked in one order: two callers at once never deadlock
        values = {"scheduled_id": scheduled_id, "grace_until": grace_until}
        marked = session.connection().execute(_MARK, values).first()
        if marked is not None:
            claimed[scheduled_id] = list(marked[0])
    session.commit()
    now_queued = dict(queued)
    for scheduled_id in claimed:
        now_queued[owner_of[scheduled_id]] = now_queued.get(owner_of[scheduled_id], 0) + 1
    metrics.queued(now_queued)
    return [
        Fed(scheduled_id, owner_of[scheduled_id] in ahead, claimed[scheduled_id], owner_of[scheduled_id])
        for scheduled_id in order
        if scheduled_id in claimed
    ]


def game_job_id(scheduled_id: int, attempts: int) -> str:
    """The job of a scheduled game: its first (``attempts``: leases taken so far, 0), then one per lease lost."""
    return f"sorry-arena-game-{scheduled_id}" if attempts == 0 else f"sorry-arena-game-{scheduled_id}-{attempts}"


def feed_games(ctx: context.Context) -> list[int]:
    """Top every account's games waiting in the queue up to the window (``tournament.dispatch.feed``), enqueueing them in
    their round-robin order, those of an account less busy than another at the front; the games enqueued. A game marked fed whose job is not enqueued (Redis fails now) is
    pending without a job: the recovery enqueues it."""
    with ctx.sessions() as session, writing(session):
        fed = take(session, ctx.feed_window, ctx.runner.lease_seconds)
    for game in fed:
        if not game.ahead:
            job_id = game_job_id(game.scheduled_id, 0)
            ctx.queue.enqueue(GAME_JOB, game.scheduled_id, game.bot_ids, game.account, job_id=job_id)
    # the games that go ahead of the waiting ones: each put at the front, the last first, so that they keep their
    # order there
    for game in reversed(fed):
        if game.ahead:
            job_id = game_job_id(game.scheduled_id, 0)
            ctx.queue.enqueue(
                GAME_JOB, game.scheduled_id, game.bot_ids, game.account, job_id=job_id, at_front=True
            )
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
