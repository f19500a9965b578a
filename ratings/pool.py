"""A rating pool's standings: every rated game of one game and variant, fitted at once.

The table is :func:`ratings.summary.summarize`'s, the one a tournament shows, over all the pool's games: the
Bradley-Terry fit of ``ratings.fit`` (order-independent, with its 95% interval) shown with a mean of 1500, games
played, ``wins`` (games finished alone at the best rank), ``shared_wins`` (first place shared) and the mean rank
(1-based, tied seats sharing the places they occupy). The ratings and interval bounds are rounded to
``DECIMALS`` places: the fit is the same whatever the order of the games or the solver's start, up to the last bits
of a float, and the rounding makes the stored table exactly the same too. Equal ratings are ordered by bot id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ratings.elo import INITIAL_RATING
from ratings.summary import summarize

DECIMALS = 3
"""Decimal places of the stored ratings (a thousandth of an Elo point)."""


@dataclass(frozen=True)
class PoolRow:
    """One bot's line of a pool's standings (the fields are described in the module docstring)."""

    player: int
    rating: float
    low: float
    high: float
    games: int
    wins: int
    shared_wins: int
    mean_rank: float

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        return {"bot_id": row.pop("player"), **row}

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> PoolRow:
        """A row as :meth:`to_json` wrote it (``KeyError`` for one that lacks a field)."""
        return cls(
            player=int(row["bot_id"]),
            rating=float(row["rating"]),
            low=float(row["low"]),
            high=float(row["high"]),
            games=int(row["games"]),
            wins=int(row["wins"]),
            shared_wins=int(row["shared_wins"]),
            mean_rank=float(row["mean_rank"]),
        )


def standings(
    games: Sequence[tuple[Sequence[int], Sequence[int]]],
    start: Mapping[int, float] | None = None,
    counts: Sequence[int] | None = None,
) -> list[PoolRow]:
    """The pool's table, best rating first. ``games``: ``(bot ids, ranks)`` in any order; ``start``: ratings
    (mean 1500) of an earlier table, to start the fit from (the result does not depend on it); ``counts``: how many
    times each game was played (a pool's tallies), the same table as with the games repeated."""
    centred = {bot: rating - INITIAL_RATING for bot, rating in (start or {}).items()}
    rows = [
        PoolRow(
            player=row.player,
            rating=round(row.elo + INITIAL_RATING, DECIMALS),
            low=round(row.low + INITIAL_RATING, DECIMALS),
            high=round(row.high + INITIAL_RATING, DECIMALS),
            games=row.games,
            wins=row.wins,
            shared_wins=row.shared_wins,
            mean_rank=row.mean_rank,
        )
        for row in summarize(games, start=centred, counts=counts)
    ]
    return sorted(rows, key=lambda row: (-row.rating, row.player))


def rows_of(table: Sequence[Mapping[str, Any]]) -> list[PoolRow] | None:
    """The rows of a stored table; ``None`` for a table stored before the pools were fitted (incremental Elo rows,
    without an interval), which the next refit replaces."""
    try:
        return [PoolRow.from_json(row) for row in table]
    except (KeyError, TypeError, ValueError):
        return None
