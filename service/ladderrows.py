"""A ladder as the API and the pages show it: its summary, its standings, its games in play and finished, its
rating chart, and a bot's place in each ladder it is in. The standings show each bot's current version's rating in
the ladder's fit with its 95% interval (``tournament/standings/ladderfit.py``, written on its entry); the chart, the
Weng-Lin rating that chooses the games after each of them (``ratings.wenglin``), on the same Elo scale; the reads are bounded by the ladder's bots, never by its history (each count of seats runs
along ``ix_ladder_seats_made`` within the last day, the chart takes at most :data:`CHART_POINTS` of each line).

Every function here reads; the writes are ``service/ladders.py``'s (create, join, leave, pause, resume, close) and
the workers' (matchmaking and results).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, case, func, or_, select
from sqlalchemy.orm import Session

from ratings import wenglin
from store.models import (
    Bot,
    Ladder,
    LadderEntry,
    LadderGame,
    LadderPoint,
    LadderSeat,
    Player,
    Result,
    Tournament,
    TournamentGame,
)
from store.models.base import as_utc
from store.models.ladders import UNSETTLED

CHART_POINTS = 200
"""The most points of each bot's line the chart shows (every ``step``-th game, and the latest)."""

GAME_STATES = ("in_play", "recent")
"""The listings of a ladder's games: made and not finished yet, or finished (latest first)."""

DEFAULT_INACTIVE_DAYS = 30
"""``SORRY_ARENA_LADDER_INACTIVE_DAYS``'s default: a bot without a game for so long is shown greyed."""


def interval(mu: float, sigma: float) -> dict[str, Any]:
    """A Weng-Lin rating (the one that chooses the games) on the Elo scale with its 95% interval, and whether it is
    still provisional (the chart's points)."""
    rating = wenglin.elo(mu)
    half = wenglin.half_width(sigma)
    return {
        "rating": rating,
        "low": rating - half,
        "high": rating + half,
        "provisional": wenglin.provisional(sigma),
    }


def fitted_or_not(entry: LadderEntry) -> dict[str, Any]:
    """What the standings show of an entry: its current version's rating in the ladder's fit with its 95% interval
    (``fitted``), provisional while the interval is :data:`ratings.wenglin.SETTLED_HALF_WIDTH` Elo or wider either
    side; before a fit counts the version, its Weng-Lin rating, provisional."""
    if entry.fitted_rating is None or entry.fitted_low is None or entry.fitted_high is None:
        return {**interval(entry.mu, entry.sigma), "provisional": True, "fitted": False}
    return {
        "rating": entry.fitted_rating,
        "low": entry.fitted_low,
        "high": entry.fitted_high,
        "provisional": (entry.fitted_high - entry.fitted_low) / 2 >= wenglin.SETTLED_HALF_WIDTH,
        "fitted": True,
    }


def summary(session: Session, ladder: Ladder) -> dict[str, Any]:
    """The ladder's own fields (with its tournament's: name, owner, game, settings...), the games it made and those
    made and not finished yet."""
    tournament = session.get_one(Tournament, ladder.tournament_id)
    owner = session.get_one(Player, tournament.owner_id)
    in_play = session.scalar(select(func.count()).select_from(games_query(ladder.id, "in_play").subquery()))
    return {
        "id": ladder.id,
        "tournament_id": tournament.id,
        "name": tournament.name,
        "owner_id": tournament.owner_id,
        "owner": owner.name,
        "game": tournament.game,
        "variant": tournament.variant,
        "settings": tournament.settings,
        "table_size": tournament.table_size,
        "move_timeout_ms": tournament.move_timeout_ms,
        "budget_per_hour": ladder.budget_per_hour,
        "max_in_play": ladder.max_in_play,
        "rated": tournament.rated,
        "official": tournament.official,
        "status": ladder.status,
        "created_at": ladder.created_at,
        "closed_at": ladder.closed_at,
        "games_made": tournament.games_total,
        "games_in_play": in_play or 0,
    }


def seat_counts(
    session: Session, ladder_id: int, since: datetime, bot_ids: Collection[int] | None = None
) -> dict[int, int]:
    """The seats made for each bot of the ladder (or of ``bot_ids`` only) after ``since`` (bots with none left
    out)."""
    query = select(LadderSeat.bot_id, func.count()).where(LadderSeat.ladder_id == ladder_id)
    if bot_ids is not None:
        query = query.where(LadderSeat.bot_id.in_(bot_ids))
    rows = session.execute(query.where(LadderSeat.made_at > since).group_by(LadderSeat.bot_id))
    return {int(bot_id): int(count) for bot_id, count in rows}


def start_of_day(moment: datetime) -> datetime:
    """Midnight UTC of ``moment``'s day."""
    return as_utc(moment).replace(hour=0, minute=0, second=0, microsecond=0)


STANDING = (
    case((LadderEntry.left_at.is_(None), 0), else_=1),
    LadderEntry.fitted_rating.desc().nulls_last(),
    LadderEntry.mu.desc(),
    LadderEntry.bot_id,
)
"""The standings' order: the bots in the ladder before those that left, each best fitted rating first, then the
versions not fitted yet by their Weng-Lin rating."""


def standings_count(session: Session, ladder_id: int) -> int:
    """How many bots the ladder's standings list (those that left included)."""
    counted = select(func.count()).select_from(LadderEntry).where(LadderEntry.ladder_id == ladder_id)
    return int(session.scalar(counted) or 0)


def leaders(session: Session, ladder_id: int, count: int) -> list[int]:
    """The ``count`` bots of the ladder with the best ratings (of those in it)."""
    best = select(LadderEntry.bot_id).where(LadderEntry.ladder_id == ladder_id, LadderEntry.left_at.is_(None))
    return [int(bot_id) for bot_id in session.scalars(best.order_by(*STANDING).limit(count))]


def standings(
    session: Session,
    ladder: Ladder,
    now: datetime,
    inactive_days: int = DEFAULT_INACTIVE_DAYS,
    bot_id: int | None = None,
    offset: int = 0,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The ladder's bots, best rating first, the bots that left after the others (greyed on the page): all of
    them, or ``limit`` from the ``offset``-th.

    Each row: the bot and the version its rating is of (and the version it took its prior from), the rating with
    its interval, its games, whether it is provisional, inactive (no game for ``inactive_days``: since it joined,
    if it has none), paused and why, left or busy; its games begun today (UTC) and what is left of its hourly
    budget. With ``bot_id``, that bot's row alone (none if it is not in the ladder)."""
    query = select(LadderEntry, Bot.name).join(Bot, Bot.id == LadderEntry.bot_id)
    if bot_id is not None:
        query = query.where(LadderEntry.bot_id == bot_id)
    query = query.where(LadderEntry.ladder_id == ladder.id).order_by(*STANDING).offset(offset)
    entries = session.execute(query.limit(limit) if limit is not None else query).all()
    shown = [entry.bot_id for entry, _ in entries] if bot_id is not None or limit is not None else None
    today = seat_counts(session, ladder.id, start_of_day(now) - timedelta(microseconds=1), shown)
    hour = seat_counts(session, ladder.id, now - timedelta(hours=1), shown)  # as matchmaking counts a budget
    stale = now - timedelta(days=inactive_days)
    rows = []
    for entry, name in entries:
        last = entry.last_game_at if entry.last_game_at is not None else entry.joined_at
        rows.append(
            {
                "bot_id": entry.bot_id,
                "name": name,
                "version_id": entry.version_id,
                "prior_version_id": entry.prior_version_id,
                **fitted_or_not(entry),
                "mu": entry.mu,
                "sigma": entry.sigma,
                "games": entry.games,
                "inactive": last < stale,
                "last_game_at": entry.last_game_at,
                "games_today": today.get(entry.bot_id, 0),
                "budget_left": max(0, ladder.budget_per_hour - hour.get(entry.bot_id, 0)),
                "paused": entry.paused,
                "pause_reason": entry.pause_reason,
                "left": entry.left_at is not None,
                "busy": entry.busy > 0,
            }
        )
    return rows


def games_query(ladder_id: int, state: str) -> Select[*tuple[Any, ...]]:
    """The ladder's games in ``state`` (:data:`GAME_STATES`), in the order listed: in play (made and not settled,
    along ``ix_ladder_games_unsettled``, but a game a closing cancelled, which the workers settle), the oldest made
    first; finished, the latest result first."""
    if state == "in_play":
        return (
            select(LadderGame, TournamentGame.game_id, TournamentGame.status, TournamentGame.number)
            .join(TournamentGame, TournamentGame.id == LadderGame.tournament_game_id)
            .where(UNSETTLED, LadderGame.ladder_id == ladder_id, TournamentGame.status != "cancelled")
            .order_by(LadderGame.made_at, LadderGame.tournament_game_id)
        )
    return (
        select(LadderGame, Result)
        .join(Result, Result.tournament_game_id == LadderGame.tournament_game_id)
        .where(LadderGame.ladder_id == ladder_id, LadderGame.settled.is_(True))
        .order_by(Result.id.desc())
    )


def games(
    session: Session, ladder_id: int, state: str, offset: int = 0, limit: int = 100
) -> tuple[int, list[dict[str, Any]]]:
    """How many of the ladder's games are in ``state`` (``in_play`` or ``recent``), and ``limit`` of them from the
    ``offset``-th. A game in play has its ``game_id`` once a worker started it; a finished one its result (ranks,
    reason, forfeits, faults, void)."""
    query = games_query(ladder_id, state)
    total = session.scalar(select(func.count()).select_from(query.order_by(None).subquery())) or 0
    rows = session.execute(query.offset(offset).limit(limit)).all()
    names = bot_names(session, {bot_id for row in rows for bot_id in row[0].bot_ids})
    listed = []
    for row in rows:
        game: LadderGame = row[0]
        shown: dict[str, Any] = {
            "tournament_game_id": game.tournament_game_id,
            "made_at": game.made_at,
            "bot_ids": game.bot_ids,
            "names": [names.get(bot_id, "") for bot_id in game.bot_ids],
        }
        if state == "in_play":
            shown |= {"game_id": row[1], "status": row[2], "number": row[3]}
        else:
            result: Result = row[1]
            shown |= {
                "game_id": result.game_id,
                "status": "done",
                "ranks": result.ranks,
                "reason": result.reason,
                "forfeited": result.forfeited,
                "faults": result.faults,
                "void": result.void_reason is not None,
                "void_reason": result.void_reason,
                "finished_at": result.finished_at,
            }
        listed.append(shown)
    return total, listed


def bot_names(session: Session, bot_ids: set[int]) -> dict[int, str]:
    """The names of the bots ``bot_ids``."""
    if not bot_ids:
        return {}
    return {
        int(bot_id): str(name)
        for bot_id, name in session.execute(select(Bot.id, Bot.name).where(Bot.id.in_(bot_ids)))
    }


def chart(session: Session, ladder_id: int, bot_ids: Collection[int] | None = None) -> list[dict[str, Any]]:
    """Each bot's rating line in the ladder (of ``bot_ids`` only, or of every bot): ``points``, each ``[number,
    rating, low, high, at]`` after its ``number``-th rated game there, thinned in the database to at most about
    :data:`CHART_POINTS` (every ``step``-th game, and the latest); bots by id."""
    mine = (LadderPoint.ladder_id == ladder_id, *(() if bot_ids is None else (LadderPoint.bot_id.in_(bot_ids),)))
    top = (
        select(LadderPoint.bot_id, func.max(LadderPoint.number).label("top"))
        .where(*mine)
        .group_by(LadderPoint.bot_id)
        .subquery()
    )
    step = top.c.top // CHART_POINTS + 1
    rows = session.execute(
        select(LadderPoint.bot_id, LadderPoint.number, LadderPoint.mu, LadderPoint.sigma, LadderPoint.at)
        .join(top, top.c.bot_id == LadderPoint.bot_id)
        .where(*mine, or_(LadderPoint.number % step == 0, LadderPoint.number == top.c.top))
        .order_by(LadderPoint.bot_id, LadderPoint.number)
    ).all()
    names = bot_names(session, {int(row.bot_id) for row in rows})
    lines: dict[int, dict[str, Any]] = {}
    for bot_id, number, mu, sigma, at in rows:
        line = lines.setdefault(bot_id, {"bot_id": bot_id, "name": names.get(bot_id, ""), "points": []})
        shown = interval(mu, sigma)
        line["points"].append([number, shown["rating"], shown["low"], shown["high"], at])
    return list(lines.values())


def bot_ladders(session: Session, bot_id: int) -> list[dict[str, Any]]:
    """The ladders the bot is in or was in (newest ladder first): its rating there with its interval, its games,
    whether it is provisional, paused (and why) or left, and the ladder's status."""
    query = (
        select(LadderEntry, Ladder.status, Tournament.name)
        .join(Ladder, Ladder.id == LadderEntry.ladder_id)
        .join(Tournament, Tournament.id == Ladder.tournament_id)
        .where(LadderEntry.bot_id == bot_id)
        .order_by(Ladder.id.desc())
    )
    return [
        {
            "ladder_id": entry.ladder_id,
            "name": name,
            "status": status,
            **fitted_or_not(entry),
            "games": entry.games,
            "paused": entry.paused,
            "pause_reason": entry.pause_reason,
            "left": entry.left_at is not None,
        }
        for entry, status, name in session.execute(query)
    ]
