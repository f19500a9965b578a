"""Quotas per account on tournaments, so that one account cannot fill the queue for everyone.

Each quota is an operator setting (``runtime/settings.py``, ``SORRY_ARENA_QUOTA_*``); the operator's own requests
are held to none. A request over a quota is refused before anything is stored, with the quota's variable and its
value in the message: a 422 for what the request itself asks (games in one tournament, runs of a repeating one,
more games in all its runs than the account may have left to play), a 429 for what the account already has going
(games left to play, scheduled and running tournaments), which clears as its games are played or as it cancels
tournaments.

A repeating tournament is counted whole from its creation, so that no request asks for more than the quotas allow:

- the games left to play (``SORRY_ARENA_QUOTA_QUEUED``) count every game of its runs still to come, beside those of
  its runs scheduled or running: a tournament of G games repeated R times counts R x G games when it is made;
- the tournaments (``SORRY_ARENA_QUOTA_TOURNAMENTS``) count it as one while any of its runs is scheduled, running
  or still to come, however many of its runs overlap (each run's games count in the games left to play).

The count and the insertion that follows it are made under the account's lock (``store/accountlocks.py``), taken
by :func:`check` and held until the caller's commit: requests of one account that come at once are counted one
after another, so exactly as many as the quota allows get in.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import case, exists, func, select
from sqlalchemy.orm import Session, aliased

from runtime import metrics
from runtime.settings import Settings
from service.errors import fail
from store.accountlocks import lock_account
from store.challenges import is_challenge
from store.models import Ladder, Tournament, TournamentGame

log = logging.getLogger(__name__)

LIVE = ("scheduled", "running")
"""The statuses of a tournament with games still to play."""


def check(
    session: Session, settings: Settings, owner_id: int, games: int, repeat_times: int | None, match_games: int = 0
) -> None:
    """Refuse (422, 429) a new tournament of ``games`` games (one run) and ``repeat_times`` runs that would take the
    account ``owner_id`` over a quota; for matches (a match, or a gauntlet's), ``match_games`` is the games of each,
    held to ``SORRY_ARENA_QUOTA_MATCH_GAMES`` in place of ``SORRY_ARENA_QUOTA_GAMES``, and ``games`` all of theirs.
    Takes the account's lock first, held until the caller commits the new tournament (or until its session ends):
    call it last before the insertion."""
    if match_games > settings.quota_match_games:
        refused(owner_id, "SORRY_ARENA_QUOTA_MATCH_GAMES")
        fail(
            422,
            f"quota SORRY_ARENA_QUOTA_MATCH_GAMES: a match has at most {settings.quota_match_games} games, this one "
            f"{match_games}; lower max_games",
        )
    if not match_games and games > settings.quota_games:
        refused(owner_id, "SORRY_ARENA_QUOTA_GAMES")
        fail(
            422,
            f"quota SORRY_ARENA_QUOTA_GAMES: a tournament has at most {settings.quota_games} games, this one "
            f"{games}; use fewer bots or rounds",
        )
    if repeat_times is not None and repeat_times > settings.quota_repeats:
        refused(owner_id, "SORRY_ARENA_QUOTA_REPEATS")
        fail(
            422,
            f"quota SORRY_ARENA_QUOTA_REPEATS: a tournament repeats at most {settings.quota_repeats} times in all, "
            f"not {repeat_times}",
        )
    runs = repeat_times or 1
    if games * runs > settings.quota_queued:
        refused(owner_id, "SORRY_ARENA_QUOTA_QUEUED")
        fail(
            422,
            f"quota SORRY_ARENA_QUOTA_QUEUED: an account has at most {settings.quota_queued} games left to play, "
            f"and this tournament asks {games * runs} ({runs} runs of {games}); use fewer bots, rounds or runs",
        )
    lock_account(session, owner_id)
    active = active_tournaments(session, owner_id)
    if active >= settings.quota_tournaments:
        refused(owner_id, "SORRY_ARENA_QUOTA_TOURNAMENTS")
        fail(
            429,
            f"quota SORRY_ARENA_QUOTA_TOURNAMENTS: an account has at most {settings.quota_tournaments} scheduled "
            f"or running tournaments, and yours has {active}; wait for one to end, or cancel one",
        )
    left = games_left(session, owner_id)
    if left + games * runs > settings.quota_queued:
        refused(owner_id, "SORRY_ARENA_QUOTA_QUEUED")
        fail(
            429,
            f"quota SORRY_ARENA_QUOTA_QUEUED: an account has at most {settings.quota_queued} games left to play, "
            f"and yours has {left}, with this tournament's {games * runs} {left + games * runs}; wait for them to "
            "be played, or cancel a tournament",
        )


def check_challenges(session: Session, settings: Settings, owner_id: int) -> None:
    """Refuse (429) a new challenge of an account that has ``SORRY_ARENA_LIVE_CHALLENGES`` challenges not over: a
    person plays one game at a time, and each waits on its person's deadlines in a worker's slot. Takes the
    account's lock first (as :func:`check` does), so that two requests at once cannot both pass."""
    lock_account(session, owner_id)
    live = sum(
        is_challenge(bot_ids)
        for bot_ids in session.scalars(
            select(Tournament.bot_ids).where(Tournament.owner_id == owner_id, Tournament.status.in_(LIVE))
        )
    )
    if live >= settings.live_challenges:
        refused(owner_id, "SORRY_ARENA_LIVE_CHALLENGES")
        fail(
            429,
            f"quota SORRY_ARENA_LIVE_CHALLENGES: an account has at most {settings.live_challenges} challenge(s) not "
            f"over, and yours has {live}; finish it, or leave it (POST /api/v1/tournaments/{{id}}/cancel)",
        )


def refused(owner_id: int, quota: str) -> None:
    """Count and log a refusal by ``quota`` (its variable)."""
    metrics.child(metrics.QUOTA_REFUSALS, quota).inc()
    log.info("account %s: a new tournament refused by the quota %s", owner_id, quota)


def active_tournaments(session: Session, owner_id: int) -> int:
    """The account's tournaments with a run scheduled, running or still to come, a repeating tournament counted
    once with all its runs (an open ladder's tournament counts in ``SORRY_ARENA_QUOTA_LADDERS`` instead). One statement, so one snapshot: a later run that starts meanwhile is counted once, as
    live or as still to come (read in two, it could be counted as neither)."""
    live: Any = select(func.coalesce(Tournament.parent_id, Tournament.id).label("series")).where(
        Tournament.owner_id == owner_id,
        Tournament.status.in_(LIVE),
        ~exists().where(Ladder.tournament_id == Tournament.id),  # a ladder counts in its own quota
    )
    series = live.union(select(to_come(owner_id).c.id)).subquery()
    return int(session.scalar(select(func.count()).select_from(series)) or 0)


def to_come(owner_id: int) -> Any:
    """The account's repeating tournaments (their first runs) with runs still to come: ``id``, ``games_total`` (a
    run's games) and ``runs`` (how many are to come)."""
    later = aliased(Tournament)
    return (
        select(
            Tournament.id,
            Tournament.games_total,
            (Tournament.repeat_times - 1 - func.count(later.id)).label("runs"),
        )
        .outerjoin(later, later.parent_id == Tournament.id)
        .where(
            Tournament.owner_id == owner_id,
            Tournament.parent_id.is_(None),
            Tournament.status != "cancelled",  # a cancelled one's repeats were cut to the runs made
            Tournament.repeat_times > 1,
        )
        .group_by(Tournament.id, Tournament.repeat_times, Tournament.games_total)
        .having(func.count(later.id) + 1 < Tournament.repeat_times)
        .subquery()
    )


def games_left(session: Session, owner_id: int) -> int:
    """The games the account's tournaments have left to play: those laid out and not played yet, every game of its
    tournaments still waiting for their start time, and every game of the runs of its repeating tournaments still
    to come. One statement, so one snapshot: a tournament or a run that starts meanwhile is counted once, as waiting
    or to come or as laid out (read in two, on PostgreSQL, it could be counted as neither, and a tournament past
    the quota got in)."""
    laid_out = (
        select(func.count(TournamentGame.id))
        .where(TournamentGame.tournament_id == Tournament.id, TournamentGame.status.in_(("pending", "running")))
        .correlate(Tournament)
        .scalar_subquery()
    )
    left = case((Tournament.status == "scheduled", Tournament.games_total), else_=laid_out)
    live = (
        select(func.coalesce(func.sum(left), 0))
        .where(Tournament.owner_id == owner_id, Tournament.status.in_(LIVE))
        .scalar_subquery()
    )
    runs = to_come(owner_id)
    future = select(func.coalesce(func.sum(runs.c.games_total * runs.c.runs), 0)).scalar_subquery()
    return int(session.scalar(select(live + future)) or 0)
