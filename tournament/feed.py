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
(``jobs.feed``), so the queue refills as the workers take games.

``TournamentGame.fed`` records that a game was given its job, which makes it the recovery's to look after
(``leases.unplayed``); a game not fed yet waits in the database for its turn and is no lost job. Two callers
topping up at once pick the same next games (in play order) and mark them with a conditional ``UPDATE``: each game
is fed once, by the caller whose ``UPDATE`` changed it.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import and_, case, func, select, update
from sqlalchemy.orm import Session

from store.models import Tournament, TournamentGame


def counts(session: Session) -> tuple[dict[int, int], dict[int, int]]:
    """Per account, in its running tournaments (one query): its games fed and not yet leased (waiting in the
    queue), and its games not over (to play, or being played). An account with neither is in neither."""
    pending = TournamentGame.status == "pending"
    fed_waiting = func.count(case((and_(pending, TournamentGame.fed.is_(True)), TournamentGame.id)))
    rows = session.execute(
        select(Tournament.owner_id, fed_waiting, func.count(TournamentGame.id))
        .join(Tournament, Tournament.id == TournamentGame.tournament_id)
        .where(Tournament.status == "running", TournamentGame.status.in_(("pending", "running")))
        .group_by(Tournament.owner_id)
    )
    queued: dict[int, int] = {}
    left: dict[int, int] = {}
    for owner, waiting, not_over in rows:
        if waiting:
            queued[owner] = waiting
        left[owner] = not_over
    return queued, left


def candidates(session: Session, window: int) -> dict[int, list[list[int]]]:
    """Per account, the next unfed games of each of its running tournaments (oldest tournament first), at most
    ``window`` of each, in play order."""
    number = (
        func.row_number()
        .over(partition_by=TournamentGame.tournament_id, order_by=TournamentGame.number)
        .label("place")
    )
    unfed = (
        select(TournamentGame.id, TournamentGame.tournament_id, Tournament.owner_id, number)
        .join(Tournament, Tournament.id == TournamentGame.tournament_id)
        .where(Tournament.status == "running", TournamentGame.status == "pending", TournamentGame.fed.is_(False))
        .subquery()
    )
    rows = session.execute(
        select(unfed.c.id, unfed.c.tournament_id, unfed.c.owner_id)
        .where(unfed.c.place <= window)
        .order_by(unfed.c.owner_id, unfed.c.tournament_id, unfed.c.place)
    )
    found: dict[int, dict[int, list[int]]] = defaultdict(dict)
    for scheduled_id, tournament_id, owner_id in rows:
        found[owner_id].setdefault(tournament_id, []).append(scheduled_id)
    return {owner: list(tournaments.values()) for owner, tournaments in found.items()}


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


def take(session: Session, window: int) -> list[tuple[int, bool]]:
    """Mark fed the games that top every account's waiting games up to ``window``, and return them in the order
    to enqueue, each with whether it goes to the front of the queue: round-robin across the accounts, the one with
    the least left to play first, each account's games round-robin across its tournaments; an account with less
    left than another goes ahead of the waiting games. Commits."""
    queued, left = counts(session)
    per_account = {
        owner: round_robin(tournaments, window - queued.get(owner, 0))
        for owner, tournaments in candidates(session, window).items()
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
    claimed = set()
    for scheduled_id in sorted(order):  # rows locked in one order: two callers at once never deadlock
        marked = session.execute(
            update(TournamentGame)
            .where(
                TournamentGame.id == scheduled_id,
                TournamentGame.fed.is_(False),
                TournamentGame.status == "pending",
            )
            .values(fed=True)
        )
        if marked.rowcount:  # type: ignore[attr-defined]
            claimed.add(scheduled_id)
    session.commit()
    return [(scheduled_id, owner_of[scheduled_id] in ahead) for scheduled_id in order if scheduled_id in claimed]
