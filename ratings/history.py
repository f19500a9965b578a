"""A rating pool's standings and each bot's rating over time, from its results in the order written.

The ratings are the incremental Elo of :mod:`ratings.elo` (every pair of seats of a game is one result, moving both
ratings by ``K / (seats - 1) * (score - expected)``, all pairs from the ratings before the game): this module feeds
an :class:`ratings.elo.EloTable` game by game and records what the standings page shows beside the rating:

- a 95% interval: the rating ± 1.96 standard errors of a Bradley-Terry rating fitted to the bot's games, from the
  Fisher information of its pairwise results at the final ratings (a normal approximation). A game of ``n`` seats
  weighs ``1 / (n - 1)`` per pair, as in the update: one game is worth one comparison per bot;
- ``wins``: games finished alone at the best rank; ``mean_rank``: the mean 1-based place, tied seats sharing the
  mean of the places they occupy (:func:`ratings.summary.places`);
- the history: each bot's rating after every ``stride``-th game (and after the last), so that a chart of a pool of
  any size has at most about ``max_points`` points per bot.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ratings.elo import INITIAL_RATING, EloTable, expected
from ratings.summary import places

P = TypeVar("P", bound=Hashable)

Z_95 = 1.959963984540054
ELO_SLOPE = math.log(10) / 400
"""d(expected score)/d(rating difference) = ELO_SLOPE * p * (1 - p)."""


@dataclass
class PoolRow(Generic[P]):
    player: P
    rating: float
    low: float
    high: float
    games: int
    wins: int
    mean_rank: float


@dataclass
class PoolHistory(Generic[P]):
    games: int
    """Games counted (the chart's x axis runs from 0 to it)."""
    rows: list[PoolRow[P]]
    """Best rating first."""
    series: dict[P, list[tuple[int, float]]] = field(default_factory=dict)
    """Per bot: (games counted so far, its rating then), from 1500 before its first game."""


@dataclass
class _Tally:
    games: int = 0
    wins: int = 0
    places: float = 0.0
    information: float = 0.0


def rate(games: Sequence[tuple[Sequence[P], Sequence[int]]], max_points: int = 200) -> PoolHistory[P]:
    """Replay ``games`` (``(players, ranks)``, lower rank better, in the order played) into the standings and
    each player's rating history."""
    stride = max(1, math.ceil(len(games) / max_points))
    table: EloTable[P] = EloTable()
    tallies: dict[P, _Tally] = {}
    series: dict[P, list[tuple[int, float]]] = {}
    for index, (players, ranks) in enumerate(games, start=1):
        for player in players:
            if player not in tallies:
                tallies[player] = _Tally()
                series[player] = [(index - 1, INITIAL_RATING)]
        table.record(players, ranks)
        best = min(ranks)
        alone = sum(rank == best for rank in ranks) == 1
        for player, rank, place in zip(players, ranks, places(ranks), strict=True):
            tally = tallies[player]
            tally.games += 1
            tally.places += place
            tally.wins += alone and rank == best
        if index % stride == 0 or index == len(games):
            for player in tallies:
                series[player].append((index, table.rating(player)))
    for players, _ in games:  # the information of each bot's results at the final ratings
        weight = 1.0 / (len(players) - 1)
        for i in range(len(players)):
            for j in range(i + 1, len(players)):
                p = expected(table.rating(players[i]), table.rating(players[j]))
                share = weight * p * (1.0 - p)
                tallies[players[i]].information += share
                tallies[players[j]].information += share
    rows = []
    for player, tally in tallies.items():
        rating = table.rating(player)
        half = Z_95 / (ELO_SLOPE * math.sqrt(tally.information)) if tally.information > 0 else math.inf
        rows.append(
            PoolRow(
                player=player,
                rating=rating,
                low=rating - half,
                high=rating + half,
                games=tally.games,
                wins=tally.wins,
                mean_rank=tally.places / tally.games,
            )
        )
    rows.sort(key=lambda row: -row.rating)
    return PoolHistory(games=len(games), rows=rows, series=series)
