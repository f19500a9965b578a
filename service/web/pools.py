"""Rating pools (a game and a variant, as ``service.api.tournaments.variant_of`` names them) and their standings page
data: the pool's rated results replayed by ``ratings.history``, cached per app until a result is added.

The page reads two columns of the pool's results (the bots and ranks of each game) in the order written, once per
new result: at 100,000 games that is a few megabytes and well under a second; between new results it is one count.
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
from service.web.messages import PAGES, text
from store.models import Bot, RatingPool, Result

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
    names: dict[int, str]
    first: datetime | None
    last: datetime | None


def _rated(game: str, variant: str) -> Any:
    return (Result.game == game, Result.variant == variant, Result.rated.is_(True))


def compute(session: Session, game: str, variant: str) -> PoolStandings:
    rows = session.execute(
        select(Result.bot_ids, Result.ranks, Result.finished_at).where(*_rated(game, variant)).order_by(Result.id)
    ).all()
    history = rating_history.rate([(list(bots), list(ranks)) for bots, ranks, _ in rows])
    ids = [row.player for row in history.rows]
    names = dict(session.execute(select(Bot.id, Bot.name).where(Bot.id.in_(ids))).all()) if ids else {}
    return PoolStandings(history, names, rows[0][2] if rows else None, rows[-1][2] if rows else None)


class PoolCache:
    """The last standings computed per pool, with the (count, last id) of the results they count."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str], tuple[tuple[int, int], PoolStandings]] = {}

    def get(self, session: Session, game: str, variant: str) -> PoolStandings:
        count, last = session.execute(
            select(func.count(Result.id), func.max(Result.id)).where(*_rated(game, variant))
        ).one()
        key, mark = (game, variant), (int(count or 0), int(last or 0))
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None and entry[0] == mark:
            return entry[1]
        standings = compute(session, game, variant)
        if standings.history.games == mark[0]:  # else a result came in between the two reads: do not keep it
            with self._lock:
                self._entries[key] = (mark, standings)
        return standings


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
            top = pool.table[0] if pool is not None and pool.table else None
            out.append(
                PoolSummary(
                    game,
                    variant,
                    pool.games if pool is not None else 0,
                    str(top["name"]) if top else None,
                    float(top["rating"]) if top else None,
                )
            )
    return out
