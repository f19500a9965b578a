"""Incremental Elo ratings over all rated games, multiplayer games counted as pairwise results.

A game's result is a ranking: ``ranks[seat]``, lower is better, equal ranks tie (``[0, 2, 1, 2]`` and the engine's
1-based ``(1, 3, 2, 3)`` mean the same). Only the order of the numbers matters; a forfeiting seat must already be
ranked last by the caller. A game of ``n`` seats counts as a result between every pair of seats (1 to the better
rank, 0.5 each for a tie), and each pair moves its two ratings by ``K / (n - 1) * (score - expected)``: a player
meets ``n - 1`` opponents in a game, so one game moves a rating by at most ``K`` whatever the table size, as in
a two-player game. All the pairs of one game use the ratings from before it (the updates are simultaneous), so
the seat order within a game does not matter and the ratings' sum is conserved.

Incremental Elo *does* depend on the order of the games (beating a player before or after their rating rises is
worth different amounts); ``ratings.fit`` gives order-independent ratings per tournament. Keep one
``EloTable`` per game and variant, fed in game order.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Generic, TypeVar

P = TypeVar("P", bound=Hashable)

INITIAL_RATING = 1500.0
K_FACTOR = 32.0


def check_game(players: Sequence[Hashable], ranks: Sequence[int]) -> None:
    """Raise ``ValueError`` unless ``players`` and ``ranks`` describe one game of 2 or more distinct players."""
    if len(players) != len(ranks):
        raise ValueError(f"{len(players)} players but {len(ranks)} ranks")
    if len(players) < 2:
        raise ValueError(f"a rated game needs at least 2 players, not {len(players)}")
    if len(set(players)) != len(players):
        raise ValueError(f"a player cannot sit twice in one game: {list(players)}")


def pairwise(ranks: Sequence[int]) -> list[tuple[int, int, float]]:
    """``(i, j, score of seat i against seat j)`` for every pair of seats ``i < j``: 1 win, 0.5 tie, 0 loss."""
    return [
        (i, j, 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0)
        for i in range(len(ranks))
        for j in range(i + 1, len(ranks))
    ]


def expected(rating: float, opponent: float) -> float:
    """The expected score of a player rated ``rating`` against one rated ``opponent``."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def game_deltas(before: Sequence[float], ranks: Sequence[int], k: float = K_FACTOR) -> list[float]:
    """Each seat's rating change from one game: its seats rated ``before`` it finished ``ranks``."""
    deltas = [0.0] * len(before)
    k_pair = k / (len(before) - 1)
    for i, j, score in pairwise(ranks):
        change = k_pair * (score - expected(before[i], before[j]))
        deltas[i] += change
        deltas[j] -= change
    return deltas


@dataclass(frozen=True)
class EloRow(Generic[P]):
    """One line of the standings. ``wins``, ``draws`` and ``losses`` count pairwise results, what Elo rates: a
    4-seat game adds 3 to their sum (``wins`` is the number of opponents finished ahead of, not of games won)."""

    player: P
    rating: float
    games: int
    wins: int
    draws: int
    losses: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Record:
    rating: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


class EloTable(Generic[P]):
    """Elo ratings of players, updated one game at a time with :meth:`record`."""

    def __init__(self, initial: float = INITIAL_RATING, k: float = K_FACTOR) -> None:
        if not k > 0:
            raise ValueError(f"the K factor must be positive, not {k}")
        self.initial = initial
        self.k = k
        self._records: dict[P, _Record] = {}

    def record(self, players: Sequence[P], ranks: Sequence[int]) -> dict[P, float]:
        """Rate one game (``players[seat]`` finished ``ranks[seat]``); returns each player's rating change."""
        check_game(players, ranks)
        deltas = game_deltas([self.rating(player) for player in players], ranks, self.k)
        records = [self._records.setdefault(player, _Record(self.initial)) for player in players]
        for i, j, score in pairwise(ranks):
            for record, own_score in ((records[i], score), (records[j], 1.0 - score)):
                if own_score == 1.0:
                    record.wins += 1
                elif own_score == 0.0:
                    record.losses += 1
                else:
                    record.draws += 1
        for record, delta in zip(records, deltas, strict=True):
            record.rating += delta
            record.games += 1
        return dict(zip(players, deltas, strict=True))

    def rating(self, player: P) -> float:
        """The player's current rating; the initial rating if they have not played."""
        record = self._records.get(player)
        return record.rating if record else self.initial

    def set_rating(self, player: P, rating: float) -> None:
        """Set a player's rating, e.g. one carried over from earlier games; their counts stay as they were."""
        self._records.setdefault(player, _Record(self.initial)).rating = rating

    def games(self, player: P) -> int:
        record = self._records.get(player)
        return record.games if record else 0

    def table(self) -> list[EloRow[P]]:
        """Every player who has played, best rating first (equal ratings in order of first game)."""
        rows = [
            EloRow(player, record.rating, record.games, record.wins, record.draws, record.losses)
            for player, record in self._records.items()
        ]
        return sorted(rows, key=lambda row: -row.rating)
