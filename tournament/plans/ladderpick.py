"""TEMPORARY STUB (helper P writes the real one): a ladder game's table."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ratings.wenglin import win_probability


@dataclass(frozen=True)
class Candidate:
    bot_id: int
    mu: float
    sigma: float
    games: int
    seat_counts: tuple[int, ...]
    waited: float


def pick_table(
    anchor: Candidate,
    candidates: Sequence[Candidate],
    together: Mapping[tuple[int, int], int],
    table_size: int,
    rng: random.Random,
    explore: float = 0.15,
) -> list[int] | None:
    pool = [c for c in candidates if c.bot_id != anchor.bot_id]
    if len(pool) < table_size - 1:
        return None
    table = [anchor]
    while len(table) < table_size:
        if rng.random() < explore:
            pick = rng.choice(pool)
        else:

            def score(c: Candidate) -> float:
                total = 0.0
                for t in table:
                    p = win_probability((c.mu, c.sigma), (t.mu, t.sigma))
                    key = (min(c.bot_id, t.bot_id), max(c.bot_id, t.bot_id))
                    total += p * (1 - p) * (c.sigma**2 + t.sigma**2) / (1 + together.get(key, 0))
                return total

            pick = max(pool, key=score)
        pool.remove(pick)
        table.append(pick)
    orders = list(itertools.permutations(table))
    rng.shuffle(orders)
    best = min(orders, key=lambda order: sum(c.seat_counts[s] for s, c in enumerate(order)))
    return [c.bot_id for c in best]
