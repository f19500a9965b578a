"""Bot versions as the API and the pages show them: a bot's versions with their ratings, and a pool's table cut to
the latest version of each bot.

A pool's stored table (``rating_pools.table``, written by ``tournament/standings/tables.py``) has a row per bot version
(``bot_id``, ``version``, ``version_id``); a row stored before bots had versions has no ``version`` and counts as
version 1. The standings show each bot's latest rated version (as a leaderboard shows the latest submission); a
bot's own page and ``GET /bots/{id}`` show its latest :data:`SHOWN` versions, and ``GET /bots/{id}/versions`` every
version, page by page, so that no answer grows with a bot's versions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from store.models import BotVersion, RatingPool


def version_of(row: Mapping[str, Any]) -> int:
    """A stored row's version number (1 for a row stored before versions)."""
    return int(row.get("version", 1))


def latest_versions(table: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows of each bot's latest rated version, in the table's order (best first), each with its ``version``."""
    latest: dict[int, int] = {}
    for row in table:
        latest[int(row["bot_id"])] = max(latest.get(int(row["bot_id"]), 0), version_of(row))
    return [{**row, "version": version_of(row)} for row in table if version_of(row) == latest[int(row["bot_id"])]]


SHOWN = 20
"""The versions a bot's detail and its page show: its latest."""


def versions(session: Session, bot_id: int, offset: int = 0, limit: int | None = None) -> list[BotVersion]:
    """The bot's versions, the first first: ``limit`` of them from the ``offset``-th (all by default)."""
    ordered = select(BotVersion).where(BotVersion.bot_id == bot_id).order_by(BotVersion.number)
    return list(session.scalars(ordered.offset(offset).limit(limit)))


def latest(session: Session, bot_id: int, shown: int = SHOWN) -> list[BotVersion]:
    """The bot's latest ``shown`` versions, the oldest of them first."""
    newest = select(BotVersion).where(BotVersion.bot_id == bot_id).order_by(BotVersion.number.desc()).limit(shown)
    return list(reversed(list(session.scalars(newest))))


def count(session: Session, bot_id: int) -> int:
    """How many versions the bot has."""
    return int(session.scalar(select(func.count(BotVersion.id)).where(BotVersion.bot_id == bot_id)) or 0)


def current(session: Session, bot_ids: Sequence[int]) -> dict[int, int]:
    """The latest version number of each of these bots."""
    if not bot_ids:
        return {}
    found = session.execute(
        select(BotVersion.bot_id, func.max(BotVersion.number))
        .where(BotVersion.bot_id.in_(bot_ids))
        .group_by(BotVersion.bot_id)
    )
    return {bot_id: int(number) for bot_id, number in found}


def ratings(session: Session, bot_id: int) -> dict[int, list[dict[str, Any]]]:
    """Per version number, the bot's rows in the stored pool tables: game, variant, table size, rating, interval,
    games (a row per table size it played: each is a pool of its own)."""
    found: dict[int, list[dict[str, Any]]] = {}
    pools = select(RatingPool).order_by(RatingPool.game, RatingPool.variant, RatingPool.table_size)
    for pool in session.scalars(pools):
        for row in pool.table or []:
            if int(row.get("bot_id", 0)) == bot_id and "low" in row:  # a fitted table's row
                found.setdefault(version_of(row), []).append(
                    {
                        "game": pool.game,
                        "variant": pool.variant,
                        "table_size": pool.table_size,
                        **{key: row[key] for key in ("rating", "low", "high", "games", "wins")},
                    }
                )
    return found
