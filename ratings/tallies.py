"""A rated game's configuration as a rating pool tallies it: the players seated, the ranks they finished and the
seats that forfeited.

The fit (``ratings.fit``) and the table (``ratings.summary``) do not depend on the seat order, so one key stands for
every seating of the same players at the same ranks: ``player:rank`` per seat (``player:rank:f`` for a seat that
forfeited), sorted, comma-separated. A pool counts its results per key (``rating_tallies``) and fits the distinct
keys with their counts, the same table as from every result; the forfeits in the key give each bot's forfeit rate
and let a pool leave the games with a forfeit out of its fit (``ratings.pool``).
"""

from __future__ import annotations

import gc
import re
from collections.abc import Collection, Sequence

from ratings.elo import check_game

FORFEITED = "f"
"""The mark of a seat that forfeited, after its rank."""
_KEY = re.compile(r"\d+:-?\d+(?::f)?(?:,\d+:-?\d+(?::f)?)*")
"""A key as :func:`config_key` writes it: ``player:rank`` or ``player:rank:f`` per seat, comma-separated (ids are
not negative)."""
_CHARACTERS = re.compile(r"[0-9,-]*")
"""The characters of keys turned into a list of numbers."""


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
    seats = [seat.split(":") for seat in key.split(",")]
    players, ranks = [int(seat[0]) for seat in seats], [int(seat[1]) for seat in seats]
    check_game(players, ranks)
    return players, ranks, {index for index, seat in enumerate(seats) if len(seat) == 3}


def parse_games(keys: Sequence[str]) -> tuple[list[tuple[list[int], list[int]]], list[set[int]]]:
    """What :func:`parse_game` makes of each key, at once: the games ``(players, ranks)`` and each game's seats that
    forfeited (``ValueError`` naming the first key that is not one). A pool's refit reads up to a million keys: their
    numbers are read by numpy in one pass, and checked by their count and characters; the players seated twice are
    left to the fit's check of the games (``ratings.seats``), as that costs a loop here."""
    import numpy as np

    mark = ":" + FORFEITED
    forfeited: list[set[int]] = [set() for _ in keys]
    joined = "\n".join(keys)
    if mark in joined:  # few keys: only theirs are split seat by seat
        for index, key in enumerate(keys):
            if mark in key:
                forfeited[index] = parse_game(key)[2]
        joined = joined.replace(mark, "")
    sizes = [key.count(",") + 1 for key in keys]
    text = joined.replace(":", ",").replace("\n", ",")
    numbers = np.zeros(0, dtype=np.int64)
    signs_on_ranks = (
        ",-" not in joined and "\n-" not in joined and not joined.startswith("-")
    )  # ids are not negative
    if keys and _CHARACTERS.fullmatch(text) and ",," not in text and not text.endswith(",") and signs_on_ranks:
        numbers = np.fromstring(text, dtype=np.int64, sep=",")
    if numbers.size != 2 * sum(sizes) or joined.count(":") != sum(sizes):
        for key in keys:
            parse_game(key)  # raises for the first key that is not one
    gc_was = gc.isenabled()
    gc.disable()  # a million small lists: the collector would walk them all, again and again
    try:
        if len(set(sizes)) == 1:  # a pool's games all have its table size
            seats = sizes[0]
            players, ranks = numbers[0::2].reshape(-1, seats).tolist(), numbers[1::2].reshape(-1, seats).tolist()
            return list(zip(players, ranks, strict=True)), forfeited
        flat_players, flat_ranks = numbers[0::2].tolist(), numbers[1::2].tolist()
        games, at = [], 0
        for seats in sizes:
            games.append((flat_players[at : at + seats], flat_ranks[at : at + seats]))
            at += seats
        return games, forfeited
    finally:
        if gc_was:
            gc.enable()


def parse(key: str) -> tuple[list[int], list[int]]:
    """(players, ranks) of a key written by :func:`config_key` (``ValueError`` for another text)."""
    players, ranks, _ = parse_game(key)
    return players, ranks
