"""A rated game's configuration as a rating pool tallies it: the players seated and the ranks they finished.

The fit (``ratings.fit``) and the table (``ratings.summary``) do not depend on the seat order, so one key stands for
every seating of the same players at the same ranks: ``player:rank`` per seat, sorted, comma-separated. A pool
counts its results per key (``rating_tallies``) and fits the distinct keys with their counts, the same table as
from every result.
"""

from __future__ import annotations

from collections.abc import Sequence

from ratings.elo import check_game


def config_key(players: Sequence[int], ranks: Sequence[int]) -> str:
    """The key of a game: ``players[seat]`` (non-negative ids) finished ``ranks[seat]``."""
    check_game(players, ranks)
    return ",".join(f"{player}:{rank}" for player, rank in sorted(zip(players, ranks, strict=True)))


def parse(key: str) -> tuple[list[int], list[int]]:
    """(players, ranks) of a key written by :func:`config_key` (``ValueError`` for another text)."""
    seats = [seat.split(":") for seat in key.split(",")]
    if any(len(seat) != 2 for seat in seats):
        raise ValueError(f"not a game's key: {key!r}")
    players, ranks = [int(player) for player, _ in seats], [int(rank) for _, rank in seats]
    check_game(players, ranks)
    return players, ranks
