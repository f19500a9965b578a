"""A ladder's matchmaking, pure (no database): who plays the idle bot's next game, and in which seats.

``tournament/plans/ladders.py`` takes the bot of a ladder idle longest (the *anchor*), reads a few dozen
*candidates* rated near it (and a few at random) with the number of games each pair of them has been made together,
and asks :func:`pick_table` for the table. The table is built greedily: each next bot is the candidate whose games
against the bots already seated would teach the ratings most, ``p * (1 - p) * (sigma_a**2 + sigma_b**2)`` summed
over them (``p`` the chance of one finishing ahead of the other, ``ratings/wenglin.py``: the closer two ratings and
the wider their uncertainty, the more a result between them says), each pair's term divided by ``1 +`` the games
the pair was made together (a pair that never met scores highest). With probability ``explore`` the next bot is a
candidate drawn uniformly instead, so no pair is starved by its scores. Equal scores go to the candidate idle
longest. The seats are then laid out so that each bot sits where it has sat least (:func:`seat_order`), so over
time every bot takes every seat about equally often.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ratings.wenglin import win_probability


@dataclass(frozen=True)
class Candidate:
    """A bot that may be seated: its rating, its games, how often it sat in each seat, how long it has been idle
    (seconds)."""

    bot_id: int
    mu: float
    sigma: float
    games: int
    seat_counts: tuple[int, ...]
    waited: float


def pair_key(a: int, b: int) -> tuple[int, int]:
    """The key of the pair of bots ``a`` and ``b`` in ``together``: the lower id first."""
    return (a, b) if a < b else (b, a)


def information(a: Candidate, b: Candidate, together: Mapping[tuple[int, int], int]) -> float:
    """What a result between ``a`` and ``b`` would teach the ratings, discounted by their games together."""
    p = win_probability((a.mu, a.sigma), (b.mu, b.sigma))
    return p * (1 - p) * (a.sigma**2 + b.sigma**2) / (1 + together.get(pair_key(a.bot_id, b.bot_id), 0))


def pick_table(
    anchor: Candidate,
    candidates: Sequence[Candidate],
    together: Mapping[tuple[int, int], int],
    table_size: int,
    rng: random.Random,
    explore: float = 0.15,
) -> list[int] | None:
    """The bots of one game, ``anchor`` among them, ``table_size`` of them in seat order; ``None`` if
    ``candidates`` (the anchor, if there, and repeated bots count once) hold fewer than ``table_size - 1`` others."""
    if table_size < 2:
        raise ValueError(f"a table has at least 2 seats, not {table_size}")
    pool: dict[int, Candidate] = {}
    for candidate in candidates:
        if candidate.bot_id != anchor.bot_id:
            pool.setdefault(candidate.bot_id, candidate)
    if len(pool) < table_size - 1:
        return None
    table = [anchor]
    while len(table) < table_size:
        remaining = list(pool.values())
        if rng.random() < explore:
            chosen = rng.choice(remaining)
        else:
            chosen = max(
                remaining,
                key=lambda c: (sum(information(c, seated, together) for seated in table), c.waited, -c.bot_id),
            )
        table.append(chosen)
        del pool[chosen.bot_id]
    return [bot.bot_id for bot in seat_order(table, rng)]


def seat_order(table: Sequence[Candidate], rng: random.Random) -> list[Candidate]:
    """``table`` in the seat order that seats each bot where it has sat least: the order with the least sum of each
    bot's ``seat_counts`` at its seat, equal sums drawn by ``rng``."""
    best: list[tuple[Candidate, ...]] = []
    best_cost = None
    for order in itertools.permutations(table):
        cost = sum(_sat(bot, seat) for seat, bot in enumerate(order))
        if best_cost is None or cost < best_cost:
            best, best_cost = [order], cost
        elif cost == best_cost:
            best.append(order)
    return list(rng.choice(best))


def _sat(bot: Candidate, seat: int) -> int:
    """How often ``bot`` sat in ``seat`` (0 for a seat its counts do not reach)."""
    return bot.seat_counts[seat] if seat < len(bot.seat_counts) else 0
