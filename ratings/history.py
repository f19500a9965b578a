"""Each bot's rating over time in a rating pool, for the standings page's chart.

The standings themselves are the pool's fitted table (:mod:`ratings.pool`), which does not depend on the order of
the games. The chart shows how ratings moved as the games came in, so it replays them in the order their results
were written through the incremental Elo of :mod:`ratings.elo` (every pair of seats of a game is one result, moving
both ratings by ``K / (seats - 1) * (score - expected)``). Its last points are near the fitted ratings, not equal
to them: incremental Elo weighs recent games more.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ratings.elo import INITIAL_RATING, EloTable
from ratings.pool import PoolRow

P = TypeVar("P", bound=Hashable)


@dataclass
class PoolHistory(Generic[P]):
    """What a pool's page draws: its standings and each bot's line on the chart."""

    games: int
    """Games counted (the chart's x axis runs from 0 to it)."""
    rows: list[PoolRow]
    """The fitted standings, best rating first."""
    series: dict[P, list[tuple[int, float]]] = field(default_factory=dict)
    """Per bot: (games counted so far, its incremental Elo then), from 1500 before its first game."""


def series(
    games: Sequence[tuple[Sequence[P], Sequence[int]]], max_points: int = 200
) -> dict[P, list[tuple[int, float]]]:
    """Replay ``games`` (``(players, ranks)``, lower rank better, in the order played): each player's incremental
    Elo after every ``stride``-th game (and after the last), so that a chart of a pool of any size has at most
    about ``max_points`` points per player."""
    stride = max(1, math.ceil(len(games) / max_points))
    table: EloTable[P] = EloTable()
    lines: dict[P, list[tuple[int, float]]] = {}
    for index, (players, ranks) in enumerate(games, start=1):
        for player in players:
            if player not in lines:
                lines[player] = [(index - 1, INITIAL_RATING)]
        table.record(players, ranks)
        if index % stride == 0 or index == len(games):
            for player, line in lines.items():
                line.append((index, table.rating(player)))
    return lines
