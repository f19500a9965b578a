"""A rated game's configuration as a rating pool tallies it: the players seated, the ranks they finished and the
seats that forfeited.

The fit (``ratings.fit``) and the table (``ratings.summary``) do not depend on the seat order, so one key stands for
every seating of the same players at the same ranks: ``player:rank`` per seat (``player:rank:f`` for a seat that
forfeited), sorted, comma-separated. A pool counts its results per key (``rating_tallies``) and fits the distinct
keys with their counts, the same table as from every result; the forfeits in the key give each bot's forfeit rate
and let a pool leave the games with a forfeit out of its fit (``ratings.pool``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from ratings.elo import check_game

FORFEITED = "f"
"""The mark of a seat that forfeited, after its rank."""
_KEY = re.compile(r"\d+:-?\d+(?::f)?(?:,\d+:-?\d+(?::f)?)*")
"""A key as :func:`config_key` writes it: ``player:rank`` or ``player:rank:f`` per seat, comma-separated (ids are
not negative)."""


def config_key(players: Sequence[int], ranks: Sequence[int], forfeited: Collection[int] = ()) -> str:
    """The key of a game: ``players[seat]`` (non-negative ids) finished ``ranks[seat]``; ``forfeited``: the seats
    that forfeited."""
    check_game(players, ranks)
    if any(not 0 <= seat < len(players) for seat in forfeited):
        raise ValueError(f"a game of {len(players)} seats has no seats {sorted(forfeited)}")
    seats = sorted(
        (player, rank, FORFEITED if seat in forfeited else "")
        for seat, (player, rank) in enumerate(zip(players, ranks, strict=True))
    )
    return ",".join(f"{player}:{rank}:{mark}" if mark else f"{player}:{rank}" for player, rank, mark in seats)


def parse_game(key: str) -> tuple[list[int], list[int], set[int]]:
    """(players, ranks, seats that forfeited) of a key written by :func:`config_key` (``ValueError`` for another
    text)."""
    if not _KEY.fullmatch(key):
        raise ValueError(f"not a game's key: {key!r}")
    if ":" + FORFEITED not in key:  # most keys: a pool's refit reads a million of them, so kept lean
        numbers = list(map(int, key.replace(":", ",").split(",")))
        players, ranks, forfeited = numbers[0::2], numbers[1::2], set()
    else:
        seats = [seat.split(":") for seat in key.split(",")]
        players, ranks = [int(seat[0]) for seat in seats], [int(seat[1]) for seat in seats]
        forfeited = {index for index, seat in enumerate(seats) if len(seat) == 3}
    check_game(players, ranks)
    return players, ranks, forfeited


def parse(key: str) -> tuple[list[int], list[int]]:
    """(players, ranks) of a key written by :func:`config_key` (``ValueError`` for another text)."""
    players, ranks, _ = parse_game(key)
    return players, ranks
