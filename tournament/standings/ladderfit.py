"""A ladder's standings: the fit of its rated results, refit off the game path at most every few seconds.

The ratings that choose a ladder's games (Weng-Lin, ``tournament/standings/ladderstate.py``) move with each game, but
an online rating of bots paired by their ratings stretches the scale (a fifth at 4 seats in
``benchmarks/ladder_settle.py``'s simulation) and its intervals cover the truth too rarely. The standings show
instead the pool's Bradley-Terry fit (``ratings.pool.standings``: order-independent, with cluster-robust 95%
intervals, group by group for bots that never met) of the ladder's results that are not void, one player per bot
version. A bot's new version is linked to its previous one by a prior: :data:`PRIOR_GAMES` virtual games, won and
lost in turn, against the previous version, so it starts near the old rating and its own games move it away; the
rows count only real games.

:func:`ask` queues the fit job (``tournament.jobs.fit_ladder``) unless it was asked for less than
:data:`REFIT_SECONDS` ago (one conditional ``UPDATE`` of the ladder's ``fit_requested_at``,
``tables.claim_request``: of two workers asking at once, one queues it); a worker asks after each of the ladder's
results, and the workers' clock and the embedded maintenance ask for every ladder whose fit counts fewer results than
it has (:func:`ask_due`), so the last results of a burst are fitted within the interval. :func:`fit` stores a table
only if it counts more results than the stored one.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from ratings.pool import standings
from runtime.jobqueue import LADDER_FIT_JOB, LocalQueue, RQQueue
from runtime.settings import rate_forfeits
from store.fastlane import param
from store.models import Result
from store.models.ladders import Ladder, LadderEntry
from tournament.standings import tables

REFIT_SECONDS = 5.0
"""The most a ladder's standings lag its results (plus the fit's own time: about 6 s at 10,000 bots and a million
results, ``benchmarks/poolfit.py``)."""
PRIOR_GAMES = 4
"""Virtual games (won and lost in turn) between a bot's version and its previous one: a prior of about 170 Elo
(one standard deviation) around the previous version's rating."""


def ask(session: Session, queue: RQQueue | LocalQueue, ladder_id: int, interval: float = REFIT_SECONDS) -> bool:
    """Queue the ladder's fit unless it was asked for less than ``interval`` seconds ago; whether it was queued.
    Commits."""
    if not tables.claim_request(session, Ladder, (Ladder.id == ladder_id,), interval):
        return False
    queue.enqueue(LADDER_FIT_JOB, ladder_id, job_id=f"ladder-fit-{ladder_id}", at_front=True)
    return True


_BEHIND = select(Ladder.id).where(Ladder.fitted < Ladder.rated)


def ask_due(sessions: sessionmaker[Session], queue: RQQueue | LocalQueue) -> list[int]:
    """Ask for the fit of every ladder whose standings count fewer results than it rated (at most once per
    interval each); the ladders asked for."""
    asked = []
    with sessions() as session:
        for ladder_id in session.scalars(_BEHIND).all():
            if ask(session, queue, ladder_id):
                asked.append(ladder_id)
    return asked


def fit(session: Session, ladder_id: int) -> str:
    """Fit the ladder's rated results and store the table if it counts more of them than the stored one: ``fitted``,
    ``current`` (nothing new) or ``missing``. Commits."""
    found = session.execute(select(Ladder.tournament_id, Ladder.fitted).where(Ladder.id == ladder_id)).first()
    if found is None:
        return "missing"
    tournament_id, fitted = found
    rows = session.execute(
        select(Result.bot_ids, Result.version_ids, Result.ranks, Result.forfeited).where(
            Result.tournament_id == tournament_id, Result.void_reason.is_(None)
        )
    ).all()
    session.rollback()
    if len(rows) <= fitted:
        return "current"
    table = table_of(
        [(list(bots), list(versions), list(ranks), list(gave_up)) for bots, versions, ranks, gave_up in rows]
    )
    stored = session.execute(
        update(Ladder)
        .where(Ladder.id == ladder_id, Ladder.fitted < len(rows))
        .values(standings=table, fitted=len(rows))
    )
    if not stored.rowcount:  # type: ignore[attr-defined]
        session.rollback()
        return "current"
    session.connection().execute(
        _ENTRY,
        [
            {
                "ladder": ladder_id,
                "bot": row["bot_id"],
                "version": row["version_id"],
                "rating": row["rating"],
                "low": row["low"],
                "high": row["high"],
            }
            for row in table["rows"]
        ],
    )
    session.commit()
    return "fitted"


_ENTRY = (
    update(LadderEntry)
    .where(
        LadderEntry.ladder_id == param("ladder"),
        LadderEntry.bot_id == param("bot"),
        LadderEntry.version_id == param("version"),
    )
    .values(fitted_rating=param("rating"), fitted_low=param("low"), fitted_high=param("high"))
)
"""A version's fitted row on its bot's entry, if it is the version the entry rates now (an older version's row
stays in the table only)."""


def table_of(results: list[tuple[list[int], list[int], list[int], list[int]]]) -> dict[str, Any]:
    """The standings of a ladder's results (each ``(bot ids, version ids, ranks, seats that forfeited)``): per
    version, its bot, rating, 95% interval, games and group, and the previous version it was linked to; best first
    within each group. Games with a forfeit are rated as the pools rate them (``SORRY_ARENA_RATE_FORFEITS``)."""
    configurations: Counter[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = Counter()
    games: Counter[int] = Counter()
    bot_of: dict[int, int] = {}
    for bots, versions, ranks, forfeited in results:
        configurations[(tuple(versions), tuple(ranks), tuple(forfeited))] += 1
        for bot, version in zip(bots, versions, strict=True):
            bot_of[version] = bot
            games[version] += 1
    previous = previous_versions(bot_of)
    for version, before in previous.items():
        configurations[((version, before), (0, 1), ())] += PRIOR_GAMES // 2
        configurations[((version, before), (1, 0), ())] += PRIOR_GAMES - PRIOR_GAMES // 2
    keys = list(configurations)
    fitted = standings(
        [(list(players), list(ranks)) for players, ranks, _ in keys],
        counts=[configurations[key] for key in keys],
        forfeited=[set(forfeited) for _, _, forfeited in keys],
        rate_forfeits=rate_forfeits(),
    )
    return {
        "through": len(results),
        "groups": max((row.group for row in fitted), default=0),
        "rows": [
            {
                "version_id": row.player,
                "bot_id": bot_of[row.player],
                "previous_version_id": previous.get(row.player),
                "rating": row.rating,
                "low": row.low,
                "high": row.high,
                "games": games[row.player],
                "group": row.group,
            }
            for row in fitted
        ],
    }


def previous_versions(bot_of: dict[int, int]) -> dict[int, int]:
    """Each version's previous version of the same bot among those rated (versions are numbered in the order they
    were made)."""
    by_bot: dict[int, list[int]] = {}
    for version, bot in bot_of.items():
        by_bot.setdefault(bot, []).append(version)
    previous: dict[int, int] = {}
    for versions in by_bot.values():
        ordered = sorted(versions)
        previous.update(zip(ordered[1:], ordered[:-1], strict=True))
    return previous
