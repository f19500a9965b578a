"""Rating pools (a game and a variant, as ``service.api.tournaments.variant_of`` names them, and a table size: each
table size is a pool of its own, the Elo scale depending on it) and their standings page data: the pool's fitted table as the workers stored it (``rating_pools``, the one ``GET /api/v1/standings`` gives),
and the chart's lines, each bot version's incremental Elo as the results came in.

Nothing here reads the pool's results or fits anything: the lines are the points the workers appended with each
result (``rating_points``, ``tournament/standings/poolstate.py``), at most 128 per line whatever the pool's size (the points
of level ``ratings.history.line_level`` and above, one indexed range per level), from 1500 before the version's
first game to its current rating (``rating_elo``). The pool rates bot versions: the page shows each bot's latest
rated version (its row and its line, for the first ``charts.MAX_LINES`` rows), a bot's page every version of that
bot (``version_series``). A pool whose bots never all met is shown group by group (``groups``, each row's
``group``, ``ratings.pool``), and each row beside its rating its forfeit rate and its bot's faults per 100 moves
(``fault_rates``, ``service/poolrows.py``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import i18n
from ratings import history as rating_history
from ratings.pool import PoolRow, groups, rows_of
from service.versions import latest_versions, version_of
from service.web.charts import MAX_LINES
from service.web.messages import PAGES, text
from store import bottallies
from store.models import RatingPool
from store.models.tournaments import RatingElo, RatingPoint

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
    """Every version's line of the bot asked for (``pool_standings(bot_id=)``), by (bot id, version number)."""
    groups: int = 0
    """Groups of bots that never met (their rows' ``group``); more than one: ratings compare within a group only."""
    forfeits_rated: bool = True
    """Whether the table rates the games with a forfeit (as losses) or leaves them out of the fit."""
    fault_rates: dict[int, float] = field(default_factory=dict)
    """Each bot's faults per 100 moves (``store.bottallies.fault_rates``; none for a bot without a move counted)."""


def _table_of(pool: RatingPool | None) -> tuple[list[PoolRow], dict[int, str], int, Any, dict[int, int]]:
    """(rows, names, games, updated_at, versions) of the pool's stored table, each bot's latest rated version (its
    number in ``versions``, by bot); a table stored before the pools were fitted (no interval) counts as none until
    the workers refit it."""
    latest = latest_versions(pool.table) if pool is not None else []
    rows = rows_of(latest) if pool is not None else None
    if pool is None or rows is None:
        return [], {}, 0, None, {}
    names = {int(row["bot_id"]): str(row["name"]) for row in pool.table}
    return rows, names, pool.games, pool.updated_at, {int(row["bot_id"]): version_of(row) for row in latest}


def lines(session: Session, pool: RatingPool, version_ids: Collection[int]) -> dict[int, list[tuple[int, float]]]:
    """The chart's line of each of these versions (by version id; none for a version without a result counted)."""
    state = session.execute(
        select(RatingElo.version_id, RatingElo.rating, RatingElo.games, RatingElo.first).where(
            RatingElo.pool_id == pool.id, RatingElo.version_id.in_(version_ids)
        )
    ).all()
    by_level: dict[int, list[int]] = {}
    for row in state:
        by_level.setdefault(rating_history.line_level(row.games), []).append(row.version_id)
    points: dict[int, list[tuple[int, float]]] = {}
    for level, versions in by_level.items():
        # sorted here, not by the query: an ORDER BY would lead SQLite to ix_rating_points_place, which gives that
        # order but reads every point of the line, where ix_rating_points_line reads only the points drawn
        for version_id, counted, rating in session.execute(
            select(RatingPoint.version_id, RatingPoint.counted, RatingPoint.rating).where(
                RatingPoint.pool_id == pool.id,
                RatingPoint.version_id.in_(versions),
                RatingPoint.level >= level,
            )
        ):
            points.setdefault(version_id, []).append((counted, rating))
    for drawn in points.values():
        drawn.sort()
    return {
        row.version_id: rating_history.line(row.first, points.get(row.version_id, []), row.rating, pool.counted)
        for row in state
    }


def sizes_played(session: Session, game: str, variant: str) -> list[int]:
    """The table sizes of the game and variant whose pool counts a rated game, smallest first."""
    return list(
        session.scalars(
            select(RatingPool.table_size)
            .where(RatingPool.game == game, RatingPool.variant == variant, RatingPool.counted > 0)
            .order_by(RatingPool.table_size)
        )
    )


def pool_standings(
    session: Session, game: str, variant: str, table_size: int, bot_id: int | None = None
) -> PoolStandings:
    """The page's data; with ``bot_id``, the lines of every version of that bot too (``version_series``)."""
    pool = session.scalars(select(RatingPool).where(*RatingPool.key(game, variant, table_size))).first()
    rows, names, games, updated_at, versions = _table_of(pool)
    if pool is None:
        return PoolStandings(
            rating_history.PoolHistory(0, rows), names, games, updated_at, None, None, versions, {}
        )
    ids = {
        (int(row["bot_id"]), version_of(row)): int(row["version_id"]) for row in pool.table if "version_id" in row
    }
    shown = {
        ids[(row.player, versions[row.player])]
        for row in rows[:MAX_LINES]
        if (row.player, versions[row.player]) in ids
    }
    asked = {key: version for key, version in ids.items() if key[0] == bot_id}
    found = lines(session, pool, shown | set(asked.values()))
    latest = {bot: found.get(ids.get((bot, number), 0), []) for bot, number in versions.items()}
    history = rating_history.PoolHistory(games=pool.counted, rows=rows, series=latest)
    series = {key: found[version] for key, version in asked.items() if version in found}
    return PoolStandings(
        history,
        names,
        games,
        updated_at,
        pool.first_at,
        pool.last_at,
        versions,
        series,
        groups(pool.table) if rows else 0,
        pool.forfeits_rated,
        bottallies.fault_rates(session, {row.player for row in rows}),
    )


@dataclass
class PoolSummary:
    game: str
    variant: str
    games: int
    """The rated games of every table size."""
    leader: str | None
    rating: float | None
    table_size: int | None
    """The table size of the leader's pool: the one with the most rated games."""


def summaries(session: Session) -> list[PoolSummary]:
    """Every known game and variant with its rated games (every table size) and the leader of its largest pool (from
    the stored ``RatingPool`` tables the workers keep)."""
    stored: dict[tuple[str, str], list[RatingPool]] = {}
    for pool in session.scalars(select(RatingPool).order_by(RatingPool.table_size)):
        if rows_of(pool.table) is not None:
            stored.setdefault((pool.game, pool.variant), []).append(pool)
    out = []
    for game, variants in VARIANTS.items():
        for variant in variants:
            fitted = stored.get((game, variant), [])
            largest = max(fitted, key=lambda pool: pool.games, default=None)
            top = latest_versions(largest.table)[0] if largest is not None and largest.table else None
            out.append(
                PoolSummary(
                    game,
                    variant,
                    sum(pool.games for pool in fitted),
                    str(top["name"]) if top else None,
                    float(top["rating"]) if top else None,
                    largest.table_size if top and largest is not None else None,
                )
            )
    return out
