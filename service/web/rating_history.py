"""A rating pool's standings and each bot's rating over time, recomputed from its results in the order written.

The ratings are the incremental Elo of ``tournament/elo.py`` (every pair of seats of a game is one result, moving
both ratings by ``K / (seats - 1) * (score - expected)``, all pairs from the ratings before the game), which the
service may not import (STYLE.md layers): this module redoes that update, and ``tests/web/test_rating_history.py``
checks that it gives the same ratings as ``tournament.elo.EloTable``.

For each bot it adds what the standings page shows beside the rating:

- a 95% interval: the rating ± 1.96 standard errors of a Bradley-Terry rating fitted to the bot's games, from the
  Fisher information of its pairwise results at the final ratings (a normal approximation). A game of ``n`` seats
  weighs ``1 / (n - 1)`` per pair, as in the update: one game is worth one comparison per bot;
- ``wins``: games finished alone at the best rank; ``mean_rank``: the mean 1-based place, tied seats sharing the
  mean of the places they occupy (as ``tournament/summary.py`` counts them);
- the history: each bot's rating after every ``stride``-th game (and after the last), so that a chart of a pool of
  any size has at most about ``max_points`` points per bot.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)

INITIAL_RATING = 1500.0
K_FACTOR = 32.0
Z_95 = 1.959963984540054
ELO_SLOPE = math.log(10) / 400
"""d(expected score)/d(rating difference) = ELO_SLOPE * p * (1 - p)."""


def expected(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def places(ranks: Sequence[int]) -> list[float]:
    """1-based finishing places; tied seats share the mean of the places they occupy."""
    return [
        1.0 + sum(other < rank for other in ranks) + (sum(other == rank for other in ranks) - 1) / 2.0
        for rank in ranks
    ]


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
    rating: float = INITIAL_RATING
    games: int = 0
    wins: int = 0
    places: float = 0.0
    information: float = 0.0


def rate(games: Sequence[tuple[Sequence[P], Sequence[int]]], max_points: int = 200) -> PoolHistory[P]:
    """Replay ``games`` (``(players, ranks)``, lower rank better, in the order played) into the standings and
    each player's rating history."""
    stride = max(1, math.ceil(len(games) / max_points))
    tallies: dict[P, _Tally] = {}
    series: dict[P, list[tuple[int, float]]] = {}
    for index, (players, ranks) in enumerate(games, start=1):
        seats = len(players)
        records = []
        for player in players:
            if player not in tallies:
                tallies[player] = _Tally()
                series[player] = [(index - 1, INITIAL_RATING)]
            records.append(tallies[player])
        before = [record.rating for record in records]
        deltas = [0.0] * seats
        k_pair = K_FACTOR / (seats - 1)
        for i in range(seats):
            for j in range(i + 1, seats):
                score = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                change = k_pair * (score - expected(before[i], before[j]))
                deltas[i] += change
                deltas[j] -= change
        best = min(ranks)
        alone = sum(rank == best for rank in ranks) == 1
        for record, delta, rank, place in zip(records, deltas, ranks, places(ranks), strict=True):
            record.rating += delta
            record.games += 1
            record.places += place
            record.wins += alone and rank == best
        if index % stride == 0 or index == len(games):
            for player, record in tallies.items():
                series[player].append((index, record.rating))
    for players, _ in games:  # the information of each bot's results at the final ratings
        weight = 1.0 / (len(players) - 1)
        for i in range(len(players)):
            for j in range(i + 1, len(players)):
                p = expected(tallies[players[i]].rating, tallies[players[j]].rating)
                share = weight * p * (1.0 - p)
                tallies[players[i]].information += share
                tallies[players[j]].information += share
    rows = []
    for player, record in tallies.items():
        half = Z_95 / (ELO_SLOPE * math.sqrt(record.information)) if record.information > 0 else math.inf
        rows.append(
            PoolRow(
                player=player,
                rating=record.rating,
                low=record.rating - half,
                high=record.rating + half,
                games=record.games,
                wins=record.wins,
                mean_rank=record.places / record.games,
            )
        )
    rows.sort(key=lambda row: -row.rating)
    return PoolHistory(games=len(games), rows=rows, series=series)
