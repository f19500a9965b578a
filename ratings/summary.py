"""The standings table of one tournament, and its head-to-head results, in JSON-friendly shapes.

Games are ``(players, ranks)`` as in ``ratings.fit``: ``players[seat]`` finished ``ranks[seat]``, lower
is better, equal ranks tie (0- or 1-based alike: only the order counts). A player's line:

- ``games``: games played;
- ``wins``: games finished alone at the best rank of the game; ``shared_wins``: games finished at the best rank
  together with another seat (a tie for first, or partners of a team game). They are kept apart, not merged
  into half-wins: a shared first place is not a win, nor a loss;
- ``mean_rank``: the mean finishing place, 1-based, tied seats sharing the mean of the places they occupy
  (ranks ``[0, 2, 1, 2]`` are places 1, 3.5, 2, 3.5), so that it reads the same for any rank numbering;
- ``forfeits``: games in which the player's seat forfeited, when the caller says which did;
- ``elo``, ``low``, ``high``: the fitted Bradley-Terry rating, mean 0, and its interval (``ratings.fit``).

The tournament tables and the rating pools' standings are both this table.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Generic, TypeVar

from ratings.elo import check_game, pairwise
from ratings.fit import CONFIDENCE, PRIOR_DRAWS, check_options, fit_arrays
from ratings.seats import SeatArrays, seat_arrays

P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True)
class Row(Generic[P]):
    """One player's line of the standings (the fields are described in the module docstring)."""

    player: P
    games: int
    wins: int
    shared_wins: int
    mean_rank: float
    forfeits: int
    elo: float
    low: float
    high: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def places(ranks: Sequence[int]) -> list[float]:
    """1-based finishing places; tied seats share the mean of the places they occupy: with ``below`` seats ranked
    better and ``tied`` at the same rank (itself included), ``below + 1`` to ``below + tied``."""
    ordered = sorted(ranks)
    return [(bisect_left(ordered, rank) + bisect_right(ordered, rank) + 1) / 2.0 for rank in ranks]


def summarize(
    games: Sequence[tuple[Sequence[P], Sequence[int]]],
    *,
    forfeited: Sequence[Collection[int]] | None = None,
    intervals: bool = True,
    confidence: float = CONFIDENCE,
    start: Mapping[P, float] | None = None,
    counts: Sequence[int] | None = None,
    arrays: SeatArrays[P] | None = None,
) -> list[Row[P]]:
    """The standings, best fitted rating first (equal ratings in order of first appearance).

    ``forfeited[g]``, if given, holds the seats that forfeited game ``g`` (one entry per game, empty for none).
    ``intervals``, ``confidence``, ``start`` (ratings to start the solver from) and ``counts`` (how many times each
    game was played) are :func:`ratings.fit.fit`'s. ``arrays``: the same games and counts already read by
    :func:`ratings.seats.seat_arrays` (a pool's standings read them once for the groups and the fit).
    """
    if forfeited is not None and len(forfeited) != len(games):
        raise ValueError(f"forfeited lists {len(forfeited)} games, but there are {len(games)} games")
    check_options(confidence, PRIOR_DRAWS)
    if arrays is None:
        arrays = seat_arrays(games, counts)  # checks them too
    ratings = fit_arrays(arrays, intervals=intervals, confidence=confidence, start=start)
    tally = _tallies(arrays)
    if forfeited is not None:
        tally["forfeits"] = _forfeits(arrays.players, games, forfeited, counts)
    rows = [
        Row(
            player=player,
            games=int(tally["games"][index]),
            wins=int(tally["wins"][index]),
            shared_wins=int(tally["shared_wins"][index]),
            mean_rank=float(tally["places"][index] / tally["games"][index]),
            forfeits=int(tally["forfeits"][index]),
            elo=ratings[player].elo,
            low=ratings[player].low,
            high=ratings[player].high,
        )
        for index, player in enumerate(arrays.players)
    ]
    return sorted(rows, key=lambda row: -row.elo)


def _tallies(arrays: SeatArrays[P]) -> dict[str, Any]:
    """Per player (by index), summed over the games and their counts: games, wins, shared wins, places and no
    forfeits (see :func:`_forfeits`)."""
    import numpy as np

    n = len(arrays.players)
    tally = {name: np.zeros(n) for name in ("games", "wins", "shared_wins", "places", "forfeits")}
    for table in arrays.tables.values():
        ranks, weights = table.ranks, table.weights[:, None]
        ahead = (ranks[:, None, :] < ranks[:, :, None]).sum(axis=2)
        tied = (ranks[:, None, :] == ranks[:, :, None]).sum(axis=2)  # itself included
        at_best = ranks == ranks.min(axis=1, keepdims=True)
        alone = at_best & (at_best.sum(axis=1, keepdims=True) == 1)
        seated = table.players.ravel()
        for name, values in (
            ("games", np.ones(ranks.shape)),
            ("wins", alone),
            ("shared_wins", at_best & ~alone),
            ("places", ahead + (tied + 1) / 2.0),  # as places(): the mean of the places the tied seats occupy
        ):
            tally[name] += np.bincount(seated, (weights * values).ravel(), n)
    return tally


def _forfeits(
    players: Sequence[P],
    games: Sequence[tuple[Sequence[P], Sequence[int]]],
    forfeited: Sequence[Collection[int]],
    counts: Sequence[int] | None,
) -> list[int]:
    index = {player: position for position, player in enumerate(players)}
    forfeits = [0] * len(players)
    for number, ((seated, _), seats) in enumerate(zip(games, forfeited, strict=True)):
        if any(not 0 <= seat < len(seated) for seat in seats):
            raise ValueError(f"game {number} has {len(seated)} seats but forfeited lists seats {sorted(seats)}")
        for seat in seats:
            forfeits[index[seated[seat]]] += counts[number] if counts is not None else 1
    return forfeits


def head_to_head(games: Sequence[tuple[Sequence[P], Sequence[int]]]) -> dict[tuple[P, P], tuple[float, int]]:
    """``{(a, b): (a's score against b, comparisons)}`` for every ordered pair of players who met.

    Every pair of seats of a game is one comparison (1 to the better rank, 0.5 each for a tie). Both ``(a, b)``
    and ``(b, a)`` are present, and their scores add up to the comparisons. To render a matrix, see
    :func:`head_to_head_matrix`.
    """
    table: dict[tuple[P, P], tuple[float, int]] = {}
    for players, ranks in games:
        check_game(players, ranks)
        for i, j, score in pairwise(ranks):
            for key, own in (((players[i], players[j]), score), ((players[j], players[i]), 1.0 - score)):
                total, count = table.get(key, (0.0, 0))
                table[key] = (total + own, count + 1)
    return table


def head_to_head_matrix(
    games: Sequence[tuple[Sequence[P], Sequence[int]]], order: Sequence[P]
) -> list[list[tuple[float, int] | None]]:
    """The head-to-head results as a matrix (JSON: arrays of ``[score, comparisons]`` or ``null``): row ``r``,
    column ``c`` holds ``order[r]``'s score against ``order[c]``; ``None`` on the diagonal and for pairs that
    never met. ``order`` is usually the players of :func:`summarize`'s rows."""
    table = head_to_head(games)
    return [[table.get((row, column)) for column in order] for row in order]
