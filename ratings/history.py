"""Each bot version's rating over time in a rating pool, for the standings page's chart.

The standings themselves are the pool's fitted table (:mod:`ratings.pool`), which does not depend on the order of
the games. The chart shows how ratings moved as the games came in: the incremental Elo of :mod:`ratings.elo` (every
pair of seats of a game is one result, moving both ratings by ``K / (seats - 1) * (score - expected)``), each
player's rating after each of its games. Its last points are near the fitted ratings, not equal to them:
incremental Elo weighs recent games more.

A pool keeps these points as the results come in (``rating_points``, one per seat of each result, written by
``tournament/standings/poolstate.py`` with :func:`replay`'s arithmetic) and a chart draws about a hundred per line whatever the
pool's size: the point of a player's ``number``-th game has the :func:`level` of ``number`` (how many times 2
divides it), and a line of ``games`` points is drawn from those of level :func:`line_level` and above, every
``2**level``-th, at most ``max_points``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ratings.elo import INITIAL_RATING, EloTable
from ratings.pool import PoolRow

P = TypeVar("P", bound=Hashable)

MAX_POINTS = 128
"""The most points a chart draws per line (besides its first and last)."""
MAX_LEVEL = 30


@dataclass
class PoolHistory(Generic[P]):
    """What a pool's page draws: its standings and each bot's line on the chart."""

    games: int
    """Games counted (the chart's x axis runs from 0 to it)."""
    rows: list[PoolRow]
    """The fitted standings, best rating first."""
    series: dict[P, list[tuple[int, float]]] = field(default_factory=dict)
    """Per bot: (games counted so far, its incremental Elo then), from 1500 before its first game."""


def level(number: int) -> int:
    """How many times 2 divides ``number`` (a player's game count, from 1), at most ``MAX_LEVEL``."""
    if number < 1:
        raise ValueError(f"a game count starts at 1, not {number}")
    return min(MAX_LEVEL, (number & -number).bit_length() - 1)


def line_level(games: int, max_points: int = MAX_POINTS) -> int:
    """The lowest level whose points (every ``2**level``-th of ``games``) number at most ``max_points``."""
    found = 0
    while games >> found > max_points:
        found += 1
    return found


def line(first: int, points: Sequence[tuple[int, float]], rating: float, counted: int) -> list[tuple[int, float]]:
    """A player's line: 1500 at ``first`` (the games counted before its first), ``points`` ((games counted,
    rating), in order), and its current ``rating`` from its last point to ``counted``, the pool's games now."""
    drawn = [(first, INITIAL_RATING), *points]
    if drawn[-1][0] < counted or drawn[-1][1] != rating:
        drawn.append((max(counted, drawn[-1][0]), rating))
    return drawn


def replay(
    games: Sequence[tuple[Sequence[P], Sequence[int]]], start: Mapping[P, tuple[float, int]] | None = None
) -> Iterator[list[tuple[P, int, float]]]:
    """For each game of ``games`` (``(players, ranks)``, in the order played): each of its players, how many games
    it has played with this one, and its incremental Elo after it. ``start``: each player's rating and games before
    the first of ``games`` (none: every player starts at 1500 with none)."""
    table: EloTable[P] = EloTable()
    played = {player: count for player, (_, count) in (start or {}).items()}
    for player, (rating, _) in (start or {}).items():
        table.set_rating(player, rating)
    for players, ranks in games:
        table.record(players, ranks)
        yield [(player, played.get(player, 0) + table.games(player), table.rating(player)) for player in players]
