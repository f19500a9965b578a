"""A rating pool's standings: every rated game of one game and variant, fitted at once, group by group.

The table is :func:`ratings.summary.summarize`'s, the one a tournament shows, over all the pool's games: the
Bradley-Terry fit of ``ratings.fit`` (order-independent, with its 95% interval) shown with a mean of 1500, games
rated, ``wins`` (games finished alone at the best rank), ``shared_wins`` (first place shared) and the mean rank
(1-based, tied seats sharing the places they occupy). The ratings and interval bounds are rounded to
``DECIMALS`` places: the fit is the same whatever the order of the games or the solver's start, up to the last bits
of a float, and the rounding makes the stored table exactly the same too. Equal ratings are ordered by bot id.

Groups: players who never met, directly or through others (the connected components of the games' seats), have no rating
difference the games can tell; a single fit would place the groups by its prior alone, interleaved, with intervals
that miss. So each connected group is fitted on its own games, with its own anchor (mean 1500 within the group), and
each row carries its ``group``: 1 for the largest, then by size (equal sizes by their smallest player id). Ratings
compare within a group only. A connected pool is one group: the same table as one fit.

Strength and reliability apart: each row also carries ``forfeits``, the games in which the player's seat forfeited,
and ``forfeit_rate``, those over every game it played in the pool (rated or not). ``rate_forfeits`` (the setting
``SORRY_ARENA_RATE_FORFEITS``) decides whether a game with a forfeit is rated: as a loss for the seat that forfeited
(its rank is after every other seat's), the default; or not at all, left out of the fit and of ``games``, ``wins``
and ``mean_rank``, but still counted in the forfeit rate. A player all of whose games had a forfeit then has no row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ratings.elo import INITIAL_RATING
from ratings.seats import seat_arrays
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
    group: int
    forfeits: int
    forfeit_rate: float

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
            group=int(row["group"]),
            forfeits=int(row["forfeits"]),
            forfeit_rate=float(row["forfeit_rate"]),
        )


Game = tuple[Sequence[int], Sequence[int]]


def standings(
    games: Sequence[Game],
    start: Mapping[int, float] | None = None,
    counts: Sequence[int] | None = None,
    forfeited: Sequence[Collection[int]] | None = None,
    *,
    rate_forfeits: bool = True,
) -> list[PoolRow]:
    """The pool's table: group by group (the largest first), best rating first within each. ``games``: ``(bot
    ids, ranks)`` in any order; ``start``: ratings (mean 1500) of an earlier table, to start the fit from (the
    result does not depend on it); ``counts``: how many times each game was played (a pool's tallies), the same
    table as with the games repeated; ``forfeited[g]``: the seats that forfeited game ``g``; ``rate_forfeits``:
    whether a game with a forfeit is rated (see the module docstring)."""
    times = list(counts) if counts is not None else [1] * len(games)
    gave_up = list(forfeited) if forfeited is not None else [()] * len(games)
    if len(times) != len(games) or len(gave_up) != len(games):
        raise ValueError(f"{len(games)} games, but {len(times)} counts and {len(gave_up)} lists of forfeits")
    forfeits: Counter[int] = Counter()
    for index, seats in enumerate(gave_up):
        if seats:  # few games: only theirs are walked
            players = games[index][0]
            if any(not 0 <= seat < len(players) for seat in seats):
                raise ValueError(
                    f"game {index} has {len(players)} seats but forfeited lists seats {sorted(seats)}"
                )
            for seat in seats:
                forfeits[players[seat]] += times[index]
    rated = (
        list(range(len(games))) if rate_forfeits else [index for index, seats in enumerate(gave_up) if not seats]
    )
    every = _Linked(games, times)
    linked = every if len(rated) == len(games) else _Linked([games[index] for index in rated])
    played = every.played()
    centred = {bot: rating - INITIAL_RATING for bot, rating in (start or {}).items()}
    rows: list[PoolRow] = []
    found = linked.groups()
    for number, indices in enumerate(found, start=1):
        whole = len(found) == 1 and len(rated) == len(games)  # the usual pool: no list of a million games copied
        fitted = summarize(
            games if whole else [games[rated[index]] for index in indices],
            start=centred,
            counts=times if whole else [times[rated[index]] for index in indices],
            arrays=every.arrays if whole else None,
        )
        group = [
            PoolRow(
                player=row.player,
                rating=round(row.elo + INITIAL_RATING, DECIMALS),
                low=round(row.low + INITIAL_RATING, DECIMALS),
                high=round(row.high + INITIAL_RATING, DECIMALS),
                games=row.games,
                wins=row.wins,
                shared_wins=row.shared_wins,
                mean_rank=row.mean_rank,
                group=number,
                forfeits=forfeits[row.player],
                forfeit_rate=round(forfeits[row.player] / played[row.player], DECIMALS + 1),
            )
            for row in fitted
        ]
        rows.extend(sorted(group, key=lambda row: (-row.rating, row.player)))
    return rows


def groups_of(games: Sequence[Game]) -> list[list[int]]:
    """The indices of the games of each connected group of players (who met, directly or through others), the
    group with the most players first, equal sizes in the order of their smallest player id."""
    return _Linked(games).groups()


class _Linked:
    """Games read once as arrays (``ratings.seats``): each player's games played (weighted by the counts) and the
    connected groups, by array arithmetic and scipy's connected components, whatever the number of games."""

    def __init__(self, games: Sequence[Game], counts: Sequence[int] | None = None) -> None:
        import numpy as np

        self.count = len(games)
        self.arrays = seat_arrays(games, counts)
        size = len(self.arrays.players)
        self.weights = np.zeros(size)
        for seats, table in self.arrays.tables.items():
            self.weights += np.bincount(
                table.players.ravel(), weights=np.repeat(table.weights, seats), minlength=size
            )

    def played(self) -> dict[int, float]:
        """Each player's games (their counts summed)."""
        return dict(zip(self.arrays.players, self.weights.tolist(), strict=True))

    def groups(self) -> list[list[int]]:
        """The games' indices, group by group (see :func:`groups_of`)."""
        import numpy as np
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        players = self.arrays.players
        if not players:
            return []
        tables = self.arrays.tables.values()
        first = [table.players[:, 0] for table in tables for _ in range(1, table.players.shape[1])]
        other = [table.players[:, seat] for table in tables for seat in range(1, table.players.shape[1])]
        rows, columns = np.concatenate(first), np.concatenate(other)
        graph = coo_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(players), len(players)))
        count, label = connected_components(graph, directed=False)
        if count == 1:
            return [list(range(self.count))]
        ids = np.array(players, dtype=np.int64)
        sizes = np.bincount(label, minlength=count)
        smallest = np.full(count, np.iinfo(np.int64).max)
        np.minimum.at(smallest, label, ids)
        order = sorted(range(count), key=lambda group: (-int(sizes[group]), int(smallest[group])))
        number = np.empty(count, dtype=np.int64)
        number[order] = np.arange(count)
        of_game = np.empty(self.count, dtype=np.int64)
        for table in tables:
            of_game[table.numbers] = number[label[table.players[:, 0]]]
        return [np.flatnonzero(of_game == group).tolist() for group in range(count)]


def groups(rows: Sequence[Mapping[str, Any]]) -> int:
    """How many groups a stored table (or its rows shown) holds: its largest ``group`` (0 for no rows)."""
    return max((int(row.get("group", 1)) for row in rows), default=0)


def rows_of(table: Sequence[Mapping[str, Any]]) -> list[PoolRow] | None:
    """The rows of a stored table; ``None`` for a table stored before the pools were fitted (incremental Elo rows,
    without an interval), which the next refit replaces."""
    try:
        return [PoolRow.from_json(row) for row in table]
    except (KeyError, TypeError, ValueError):
        return None
