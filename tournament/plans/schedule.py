"""The games of a tournament: a balanced round-robin with per-game seeds, in a shuffled but reproducible order.

Each round plays every combination of ``table_size`` bots once in each *cyclic* rotation of its seats: the
combination ``(a, b, c)`` is played as ``(a, b, c)``, ``(b, c, a)`` and ``(c, a, b)``. Cyclic rotations suffice
for seat balance: the ``table_size`` rotations of one combination form a Latin square (rotation ``r`` puts the
combination's member ``(s + r) % table_size`` in seat ``s``), so each member sits in each seat exactly once per
combination, and every bot sits in every seat exactly ``C(n - 1, table_size - 1)`` times per round. They balance
seats, not turn order: the bot after ``a`` at a table is always the same one for a given combination. All
``table_size!`` orders would balance that too, at ``(table_size - 1)!`` times the games (6 times for 4 seats).

Within a round the games are shuffled by a generator derived from the tournament seed and the round, and rounds
stay in order: any prefix of a round is a random sample of its games, so partial standings are unbiased, and every
completed round is exactly balanced. A game's seed is a hash of the tournament seed, the tournament's secret salt,
the round and the seating, so it does not depend on the play order, and it cannot be found from the tournament
seed (which its creator may choose, and so guess) and the published seeds of finished games while the salt is
secret: the server draws the salt and shows it only once the tournament is done. The bot ids are sorted first: the same set of bots gives the same
schedule whatever order the caller lists them in. Pure: no I/O, no global random.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 4
MAX_GAMES = 100_000
"""A schedule of more games is refused: it would take days to play and its rows would swamp the database."""

SEED_BITS = 62
"""Game seeds are in ``0 <= seed < 2**62``: they fit a signed 64-bit database column with room to spare."""


@dataclass(frozen=True)
class Pairing:
    """One scheduled game: ``seats[s]`` is the bot id in seat ``s``; ``round`` counts from 1."""

    index: int
    """Position in play order, 0 to ``len(schedule) - 1``."""
    seats: tuple[int, ...]
    round: int
    seed: int


def games_count(n_bots: int, table_size: int, rounds: int) -> int:
    """How many games ``schedule`` makes for ``n_bots`` bots: ``C(n_bots, table_size) * table_size * rounds``."""
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise ValueError(f"table size must be {MIN_TABLE_SIZE} to {MAX_TABLE_SIZE} seats, not {table_size}")
    if rounds < 1:
        raise ValueError(f"a tournament needs at least 1 round, not {rounds}")
    if n_bots < table_size:
        raise ValueError(f"{n_bots} bots cannot fill a table of {table_size} seats")
    return math.comb(n_bots, table_size) * table_size * rounds


def game_seed(tournament_seed: int, round_number: int, seats: Sequence[int], salt: str | None = None) -> int:
    """The seed of the game with this seating in this round: a keyed hash, independent of the play order
    (``salt``: the tournament's secret; ``None`` for the tournaments made before salts, keyed by the seed alone)."""
    key = f"{tournament_seed}:{round_number}:{','.join(str(bot) for bot in seats)}"
    if salt is not None:
        key = f"{salt}:{key}"
    digest = hashlib.blake2b(key.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


def schedule(
    bot_ids: Sequence[int], table_size: int, rounds: int, seed: int, salt: str | None = None
) -> list[Pairing]:
    """Every game of a balanced round-robin tournament, in play order (see the module docstring)."""
    duplicates = sorted(bot for bot, count in Counter(bot_ids).items() if count > 1)
    if duplicates:
        raise ValueError(f"bot ids must be distinct; listed more than once: {duplicates}")
    total = games_count(len(bot_ids), table_size, rounds)
    if total > MAX_GAMES:
        raise ValueError(
            f"{len(bot_ids)} bots at tables of {table_size} for {rounds} round(s) make {total} games, "
            f"more than the limit of {MAX_GAMES}"
        )
    bots = sorted(bot_ids)
    pairings: list[Pairing] = []
    for round_number in range(1, rounds + 1):
        seatings = [
            combination[shift:] + combination[:shift]
            for combination in itertools.combinations(bots, table_size)
            for shift in range(table_size)
        ]
        # A str seed is hashed with SHA-512 by random.Random: the same order on every machine and Python run.
        random.Random(f"{seed}:schedule:{round_number}").shuffle(seatings)
        start = len(pairings)
        pairings.extend(
            Pairing(
                index=start + position,
                seats=seats,
                round=round_number,
                seed=game_seed(seed, round_number, seats, salt),
            )
            for position, seats in enumerate(seatings)
        )
    return pairings
