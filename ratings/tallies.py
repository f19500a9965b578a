"""A rated game's configuration as a rating pool tallies it: the players seated and the ranks they finished.

The fit (``ratings.fit``) and the table (``ratings.summary``) do not depend on the seat order, so one key stands for
every seating of the same players at the same ranks: ``player:rank`` per seat, sorted, comma-separated. A pool
counts its results per key (``rating_tallies``) and fits the distinct keys with their counts, the same table as
from every result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ratings.elo import check_game

_KEY = re.compile(r"\d+:-?\d+(?:,\d+:-?\d+)*")
"""A key as :func:`config_key` writes it: ``player:rank`` per seat, comma-separated (ids are not negative)."""


def config_key(players: Sequence[int], ranks: Sequence[int]) -> str:
    """The key of a game: ``players[seat]`` (non-negative ids) finished ``ranks[seat]``."""
    check_game(players, ranks)
    return ",".join(f"{player}:{rank}" for player, rank in sorted(zip(players, ranks, strict=True)))


def parse(key: str) -> tuple[list[int], list[int]]:
    """(players, ranks) of a key written by :func:`config_key` (``ValueError`` for another text)."""
    if not _KEY.fullmatch(key):
        raise ValueError(f"not a game's key: {key!r}")
    numbers = list(map(int, key.replace(":", ",").split(",")))  # a pool's refit reads a million keys: kept lean
    players, ranks = numbers[0::2], numbers[1::2]
    check_game(players, ranks)
    return players, ranks
