"""A ladder's running state, counted with each of its results: the bots freed, their ratings, their fault streaks.

:func:`record` runs in the transaction of the result (``tournament/play/results.py``), so a result and what it does
to the ladder are written together or not at all: the game is settled once (``ladder_games.settled``, false to
true: a result written twice is counted once, the second rolled back with its result row), its bots are idle again,
and, unless the game is void, each seat's rating is updated by Weng-Lin (``ratings.wenglin``: one game, every pair
of seats), with its games, the moment of its last game and a point of its chart. A seat whose bot plays a version
other than the one its rating is of starts from the old version's rating, widened (``prior_for_new_version``). Each
seat's fault streak counts its games in a row with a fault or a forfeit of its own (void games too: a bot excluded
by its health checks forfeits them); at ``SORRY_ARENA_LADDER_PAUSE_AFTER`` the entry is paused, with the reason in
words for its owner, and matchmaking makes no game for it until it is resumed.

:func:`after_result` is what the worker does after a ladder's result, in the place of a tournament's table refresh
(a ladder has no table of its own and is never complete while open): the pool's refit asked for as after any rated
result, the ladder's standings refit asked for (``tournament/standings/ladderfit.py``: at most every few seconds,
off the game path), and a matchmaking round (``tournament/plans/ladders.py``) for the bots just freed.

The Weng-Lin ratings written here choose the games; the standings show the ladder's fit (``ladderfit``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from ratings import wenglin
from runtime.jobqueue import LocalQueue, RQQueue
from runtime.settings import ladder_pause_after
from store.fastlane import param
from store.models import now
from store.models.ladders import Ladder, LadderEntry, LadderPoint
from tournament.plans import ladders
from tournament.standings import ladderfit, tables

log = logging.getLogger(__name__)

FAULT_WORDS = {
    "timeout": "a timeout",
    "illegal": "an illegal move",
    "connection": "a failed connection",
    "status": "an error status",
    "unparsable": "an unparsable answer",
    "too_large": "an answer too large",
    "redirect": "a redirect",
    "refused": "a refused connection",
    "rejected": "the service's signature refused",
}
"""A move's fault (``botlink/calls.py``, ``botlink/moves.py``), in words for a pause's reason."""

_ENTRIES = select(
    LadderEntry.bot_id,
    LadderEntry.mu,
    LadderEntry.sigma,
    LadderEntry.version_id,
    LadderEntry.prior_version_id,
    LadderEntry.games,
    LadderEntry.fault_streak,
    LadderEntry.paused,
).where(LadderEntry.ladder_id == param("ladder_id"), LadderEntry.bot_id.in_(bindparam("bots", expanding=True)))
_RATED = (
    update(LadderEntry)
    .where(LadderEntry.ladder_id == param("ladder"), LadderEntry.bot_id == param("bot"))
    .values(
        mu=param("mu"),
        sigma=param("sigma"),
        version_id=param("version_id"),
        prior_version_id=param("prior_version_id"),
        games=param("games"),
        last_game_at=param("at"),
    )
)
_STREAK = (
    update(LadderEntry)
    .where(LadderEntry.ladder_id == param("ladder"), LadderEntry.bot_id == param("bot"))
    .values(fault_streak=param("streak"))
)
_PAUSE = (
    update(LadderEntry)
    .where(
        LadderEntry.ladder_id == param("ladder"),
        LadderEntry.bot_id == param("bot"),
        LadderEntry.paused.is_(False),
    )
    .values(paused=True, pause_reason=param("reason"), paused_at=param("at"))
)
_UNFITTED = (
    update(LadderEntry)
    .where(LadderEntry.ladder_id == param("ladder"), LadderEntry.bot_id == param("bot"))
    .values(fitted_rating=None, fitted_low=None, fitted_high=None)
)
"""A bot's new version: its entry shows no fitted rating until the ladder's next fit counts the version."""
_COUNTED = update(Ladder).where(Ladder.id == param("ladder_id")).values(rated=Ladder.rated + 1)
"""One more rated result of the ladder: its fit is behind while it counts fewer (``ladderfit.ask_due``)."""
_LAST_POINT = select(func.max(LadderPoint.number)).where(
    LadderPoint.ladder_id == param("ladder_id"), LadderPoint.bot_id == param("bot_id")
)
_POINT = insert(LadderPoint).values(
    ladder_id=param("ladder_id"),
    bot_id=param("bot_id"),
    number=param("number"),
    version_id=param("version_id"),
    mu=param("mu"),
    sigma=param("sigma"),
    at=param("at"),
)


def record(
    session: Session,
    scheduled_id: int,
    bot_ids: Sequence[int],
    version_ids: Sequence[int],
    outcome: dict[str, Any],
    at: datetime,
) -> bool:
    """Count a ladder game's result in the ladder, in the result's transaction (the caller commits): settle the game
    and free its bots, rate its seats unless the game is void (``outcome["void_reason"]``), and count each seat's
    fault streak, pausing a bot at the streak that pauses. ``False`` (nothing written) if the game was settled
    already."""
    settled = ladders.settle(session, scheduled_id, at)
    if settled is None:
        return False
    ladder_id = settled[0]
    connection = session.connection()
    entries = {
        entry.bot_id: entry
        for entry in connection.execute(_ENTRIES, {"ladder_id": ladder_id, "bots": sorted(set(bot_ids))})
    }
    if len(entries) < len(set(bot_ids)):  # a seat without an entry: not a game this ladder made
        log.warning("ladder %s game %s: a seat's bot is not in the ladder; not rated", ladder_id, scheduled_id)
        return True
    if outcome.get("void_reason") is None:
        rate(session, ladder_id, bot_ids, version_ids, outcome["ranks"], entries, at)
    count_faults(session, ladder_id, bot_ids, outcome, entries, at)
    return True


def rate(
    session: Session,
    ladder_id: int,
    bot_ids: Sequence[int],
    version_ids: Sequence[int],
    ranks: Sequence[int],
    entries: dict[int, Any],
    at: datetime,
) -> None:
    """Each seat's rating after the game (Weng-Lin), its games, its last game's moment and a chart point; a seat
    playing a new version of its bot starts from the old version's rating as a prior."""
    before: list[tuple[float, float]] = []
    versions: list[tuple[int, int | None, int]] = []  # (version, prior version, games) per seat
    for bot_id, version_id in zip(bot_ids, version_ids, strict=True):
        entry = entries[bot_id]
        mu, sigma = float(entry.mu), float(entry.sigma)
        if entry.version_id is None or entry.version_id == version_id:
            versions.append((version_id, entry.prior_version_id, int(entry.games)))
        else:  # a new version: the old one's rating, widened, is its prior; the fit has no row of it yet
            mu, sigma = wenglin.prior_for_new_version(mu, sigma)
            session.connection().execute(_UNFITTED, {"ladder": ladder_id, "bot": bot_id})
            versions.append((version_id, entry.version_id, 0))
        before.append((mu, sigma))
    after = wenglin.update(before, ranks)
    connection = session.connection()
    connection.execute(_COUNTED, {"ladder_id": ladder_id})
    seats = sorted(range(len(bot_ids)), key=lambda seat: bot_ids[seat])  # rows locked in one order
    for seat in seats:
        bot_id, (mu, sigma), (version_id, prior, games) = bot_ids[seat], after[seat], versions[seat]
        values = {"mu": mu, "sigma": sigma, "at": at, "version_id": version_id}
        rated = {**values, "ladder": ladder_id, "bot": bot_id, "prior_version_id": prior, "games": games + 1}
        connection.execute(_RATED, rated)
        last = connection.execute(_LAST_POINT, {"ladder_id": ladder_id, "bot_id": bot_id}).scalar()
        point = {**values, "ladder_id": ladder_id, "bot_id": bot_id, "number": (last or 0) + 1}
        connection.execute(_POINT, point)


def count_faults(
    session: Session,
    ladder_id: int,
    bot_ids: Sequence[int],
    outcome: dict[str, Any],
    entries: dict[int, Any],
    at: datetime,
) -> None:
    """Each seat's fault streak: one more if it faulted or forfeited in the game, else none; a bot paused at
    ``SORRY_ARENA_LADDER_PAUSE_AFTER`` games in a row, with its reason."""
    pause_after = ladder_pause_after()
    faults, forfeited = outcome["faults"], set(outcome["forfeited"])
    last_faults = outcome.get("last_faults") or [None] * len(bot_ids)
    connection = session.connection()
    for seat in sorted(range(len(bot_ids)), key=lambda seat: bot_ids[seat]):
        bot_id, entry = bot_ids[seat], entries[bot_ids[seat]]
        faulted = faults[seat] > 0 or seat in forfeited
        streak = int(entry.fault_streak) + 1 if faulted else 0
        connection.execute(_STREAK, {"ladder": ladder_id, "bot": bot_id, "streak": streak})
        if faulted and streak >= pause_after and not entry.paused:
            reason = pause_reason(streak, last_faults[seat], seat in forfeited)
            connection.execute(_PAUSE, {"ladder": ladder_id, "bot": bot_id, "reason": reason, "at": at})
            log.info("ladder %s: bot %s %s", ladder_id, bot_id, reason)


def pause_reason(streak: int, last_fault: str | None, forfeited: bool) -> str:
    """Why a bot was paused automatically, in words for its owner, naming the last game's fault."""
    if last_fault is not None:
        last = FAULT_WORDS.get(last_fault, last_fault)
    else:
        last = "a forfeit" if forfeited else "a fault"
    return f"paused automatically: faults in {streak} games in a row (the last: {last})"


def after_result(
    session: Session,
    queue: RQQueue | LocalQueue,
    tournament_id: int,
    game: str,
    variant: str,
    table_size: int,
    rated: bool,
    void: bool,
) -> list[int]:
    """After a ladder's result: its rating pool's refit asked for (within the interval, as after any rated result;
    a void result changes no pool), its standings' fit asked for (within ``ladderfit.REFIT_SECONDS``), then a
    matchmaking round for the bots it freed; the games made. Commits. Call it
    under ``tournament.play.writes.writing`` on SQLite."""
    if rated and not void:
        tables.ask_refit(session, queue, game, variant, table_size, tables.POOL_REFIT_SECONDS)
    ladder_id = ladders.ladder_of(session, tournament_id)
    if ladder_id is None:
        return []
    if not void:
        ladderfit.ask(session, queue, ladder_id)
    return ladders.make_games(session, ladder_id, now())
