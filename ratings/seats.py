"""Games as arrays, for the fit and the table: per table size, the games' players (as indexes) and ranks, seats in
columns, and how many times each game was played.

:func:`seat_arrays` reads a list of ``(players, ranks)`` games (as ``ratings.fit`` takes them) once, checks them as
:func:`ratings.elo.check_game` does, and numbers the players in order of first appearance; the fit's pairwise
comparisons and the table's counts (``ratings.summary``) are then array arithmetic, whatever the number of games.
numpy loads on the first call, not with the module (``ratings.fit`` sets its thread count first).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from ratings.elo import check_game

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]
    Ints = NDArray[np.int64]

P = TypeVar("P", bound=Hashable)


@dataclass
class Seats:
    """The games of one table size: ``players[g, seat]`` (player indexes) finished ``ranks[g, seat]``, game ``g``
    played ``weights[g]`` times; ``numbers[g]``: its position in the list of games read."""

    players: Ints
    ranks: Ints
    weights: Floats
    numbers: Ints


@dataclass
class SeatArrays(Generic[P]):
    """The players in order of first appearance (their indexes are their positions) and the games by table size."""

    players: list[P]
    tables: dict[int, Seats]


def seat_arrays(
    games: Sequence[tuple[Sequence[P], Sequence[int]]], counts: Sequence[int] | None = None
) -> SeatArrays[P]:
    """The arrays of ``games`` (``ValueError`` for a game :func:`ratings.elo.check_game` refuses, or for ``counts``
    that are not one count of at least 1 per game)."""
    import numpy as np

    weights = _counts_of(games, counts)
    sizes = np.fromiter(map(len, map(itemgetter(0), games)), dtype=np.int64, count=len(games))
    rank_sizes = np.fromiter(map(len, map(itemgetter(1), games)), dtype=np.int64, count=len(games))
    wrong = np.flatnonzero((sizes != rank_sizes) | (sizes < 2))
    if wrong.size:
        check_game(*games[int(wrong[0])])
    seated = list(chain.from_iterable(map(itemgetter(0), games)))
    players, seats = _indexes(seated)
    ranks = np.fromiter(chain.from_iterable(map(itemgetter(1), games)), dtype=np.int64, count=len(seats))
    offsets = np.cumsum(sizes) - sizes
    tables = {}
    for size in np.unique(sizes).tolist():
        chosen = np.flatnonzero(sizes == size)
        at = offsets[chosen][:, None] + np.arange(size)
        table = Seats(seats[at], ranks[at], weights[chosen], chosen)
        ordered = np.sort(table.players, axis=1)
        twice = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if twice.size:
            check_game(*games[int(chosen[twice[0]])])
        tables[size] = table
    return SeatArrays(players, tables)


def _counts_of(games: Sequence[object], counts: Sequence[int] | None) -> Floats:
    import numpy as np

    if counts is None:
        return np.ones(len(games))
    if len(counts) != len(games):
        raise ValueError(f"{len(counts)} counts for {len(games)} games")
    weights = np.asarray(counts, dtype=float)
    if weights.size and not weights.min() >= 1.0:
        raise ValueError("every game's count must be at least 1")
    return weights


def _indexes(seated: list[P]) -> tuple[list[P], Ints]:
    """The distinct players of ``seated`` in order of first appearance, and each seat's player index."""
    import numpy as np

    numbers = cast("list[int]", seated)
    if set(map(type, seated)) == {int} and -(2**63) <= min(numbers) and max(numbers) < 2**63:  # a pool's ids
        ids = np.fromiter(numbers, dtype=np.int64, count=len(numbers))
        distinct, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
        order = np.argsort(first)
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        return distinct[order].tolist(), position[inverse]
    index: dict[P, int] = {}
    positions = [index.setdefault(player, len(index)) for player in seated]
    return list(index), np.array(positions, dtype=np.int64)
