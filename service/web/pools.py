"""Rating pools (a game and a variant, as ``service.api.tournaments.variant_of`` names them) and their standings page
data: the pool's fitted table as the workers stored it (``rating_pools``, the one ``GET /api/v1/standings`` gives),
and the chart's lines, each bot's incremental Elo as the results came in (``ratings.history``), cached per app until
a result is added.

The chart reads two columns of the pool's results (the bots and ranks of each game) in the order written, once per
new result: at 100,000 games that is a few megabytes and well under a second; between new results it is one count.
No fit runs here. The pool rates bot versions: the page shows each bot's latest rated version (its row and its
line), a bot's page every version (``version_series``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import current_app
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from engine import i18n
from ratings import history as rating_history
from ratings.pool import PoolRow, rows_of
from service.versions import latest_versions, version_of
from service.web.messages import PAGES, text
from store.models import BotVersion, RatingPool, Result, Tournament

VARIANTS: dict[str, tuple[str, ...]] = {
    "board": ("standard", "team", "points", "standard-1972", "team-1972", "points-1972"),
    "card": ("standard", "longer"),
}


def game_name(game: str, language: str) -> str:
    return i18n.message(f"game.{game}", language)


def variant_name(variant: str, language: str) -> str:
    base, _, edition = variant.partition("-")
    name = text(f"variant.{base}", language) if f"variant.{base}" in PAGES else base
    return text("variant.edition", language, variant=name, edition=edition) if edition else name


@dataclass
class PoolStandings:
    history: rating_history.PoolHistory[int]
    """``rows``: the stored fitted table; ``series`` and ``games``: the chart's lines and the games they count."""
    names: dict[int, str]
    games: int
    """The games the table counts (the chart may count a few more until the workers' next refit)."""
    updated_at: datetime | None
    first: datetime | None
    last: datetime | None
    versions: dict[int, int]
    """Each bot's latest rated version (the one its row and ``history.series`` line show)."""
    version_series: dict[tuple[int, int], list[tuple[int, float]]]
    """Every bot version's line, by (bot id, version number); ``history.series`` holds the latest ones by bot."""


@dataclass
class _Lines:
    games: int
    series: dict[tuple[int, int], list[tuple[int, float]]]
    """By (bot id, version number)."""
    first: datetime | None
    last: datetime | None


def _rated(game: str, variant: str) -> Any:
    """The pool's results, as the workers' table counts them: rated, not of a cancelled tournament."""
    return (
        Result.game == game,
        Result.variant == variant,
        Result.rated.is_(True),
        Result.tournament_id.in_(select(Tournament.id).where(Tournament.status != "cancelled")),
    )


def _lines(session: Session, game: str, variant: str) -> _Lines:
    rows = session.execute(
        select(Result.version_ids, Result.ranks, Result.finished_at)
        .where(*_rated(game, variant))
        .order_by(Result.id)
    ).all()
    series = rating_history.series([(list(versions), list(ranks)) for versions, ranks, _ in rows])
    named = session.execute(
        select(BotVersion.id, BotVersion.bot_id, BotVersion.number).where(BotVersion.id.in_(series))
    ).all()
    by_version = {(bot_id, number): series[version_id] for version_id, bot_id, number in named}
    return _Lines(len(rows), by_version, rows[0][2] if rows else None, rows[-1][2] if rows else None)


def stored_table(
    session: Session, game: str, variant: str
) -> tuple[list[PoolRow], dict[int, str], int, Any, dict[int, int]]:
    """(rows, names, games, updated_at, versions) of the pool's stored table, each bot's latest rated version (its
    number in ``versions``, by bot); a table stored before the pools were fitted (no interval) counts as none until
    the workers refit it."""
    pool = session.scalars(
        select(RatingPool).where(RatingPool.game == game, RatingPool.variant == variant)
    ).first()
    latest = latest_versions(pool.table) if pool is not None else []
    rows = rows_of(latest) if pool is not None else None
    if pool is None or rows is None:
        return [], {}, 0, None, {}
    names = {int(row["bot_id"]): str(row["name"]) for row in pool.table}
    return rows, names, pool.games, pool.updated_at, {int(row["bot_id"]): version_of(row) for row in latest}


class PoolCache:
    """The chart's lines last computed per pool, with the (count, last id) of the results they count."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str], tuple[tuple[int, int], _Lines]] = {}

    def lines(self, session: Session, game: str, variant: str) -> _Lines:
        count, last = session.execute(
            select(func.count(Result.id), func.max(Result.id)).where(*_rated(game, variant))
        ).one()
        key, mark = (game, variant), (int(count or 0), int(last or 0))
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None and entry[0] == mark:
            return entry[1]
        lines = _lines(session, game, variant)
        if lines.games == mark[0]:  # else a result came in between the two reads: do not keep it
            with self._lock:
                self._entries[key] = (mark, lines)
        return lines

    def get(self, session: Session, game: str, variant: str) -> PoolStandings:
        rows, names, games, updated_at, versions = stored_table(session, game, variant)
        lines = self.lines(session, game, variant)
        latest = {bot: lines.series.get((bot, number), []) for bot, number in versions.items()}
        history = rating_history.PoolHistory(games=lines.games, rows=rows, series=latest)
        return PoolStandings(history, names, games, updated_at, lines.first, lines.last, versions, lines.series)


def pool_standings(session: Session, game: str, variant: str) -> PoolStandings:
    cache: PoolCache = current_app.extensions["web_pools"]
    return cache.get(session, game, variant)


@dataclass
class PoolSummary:
    game: str
    variant: str
    games: int
    leader: str | None
    rating: float | None


def summaries(session: Session) -> list[PoolSummary]:
    """Every known pool with its games and leader (from the stored ``RatingPool`` tables the workers keep)."""
    stored = {(pool.game, pool.variant): pool for pool in session.scalars(select(RatingPool))}
    out = []
    for game, variants in VARIANTS.items():
        for variant in variants:
            pool = stored.get((game, variant))
            fitted = pool is not None and rows_of(pool.table) is not None
            top = latest_versions(pool.table)[0] if pool is not None and fitted and pool.table else None
            out.append(
                PoolSummary(
                    game,
                    variant,
                    pool.games if pool is not None and fitted else 0,
                    str(top["name"]) if top else None,
                    float(top["rating"]) if top else None,
                )
            )
    return out
