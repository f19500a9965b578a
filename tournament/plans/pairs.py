"""The pairs of a match, pure (no database): the seats and deals of its games (:func:`schedule`, :func:`seatings`)
and the counts of its results (:func:`count`): pentanomial over the completed pairs on paired deals, trinomial over
the games on independent deals. ``tournament/plans/matches.py`` (the service's
matches) and ``cli/match_local.py`` (``sorry-arena match`` on local bots) both play them; the module docstring of
``tournament/plans/matches.py`` describes the schedule.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ratings.sprt import GAME_SCORES, game_score, pair_bin
from tournament.plans.schedule import Pairing, game_seed


def pairs_of(max_games: int) -> int:
    """The pairs laid out for ``max_games`` games (rounded up to a whole pair)."""
    return (max_games + 1) // 2


def seatings(bot_a: int, bot_b: int, fillers: Sequence[int], pair: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The seats of the two games of pair ``pair`` (0 first): A and B in a seat pair, swapped in the second game,
    the fillers in the other seats (see the module docstring)."""
    size = len(fillers) + 2
    seat_pairs = list(itertools.combinations(range(size), 2))
    first, second = seat_pairs[pair % len(seat_pairs)]
    turn = pair // len(seat_pairs)
    order = list(fillers[turn % len(fillers) :]) + list(fillers[: turn % len(fillers)]) if fillers else []
    seats: list[int] = []
    for seat in range(size):
        if seat == first:
            seats.append(bot_a)
        elif seat == second:
            seats.append(bot_b)
        else:
            seats.append(order.pop(0))
    swapped = [bot_b if bot == bot_a else bot_a if bot == bot_b else bot for bot in seats]
    return tuple(seats), tuple(swapped)


def schedule(
    bot_a: int,
    bot_b: int,
    fillers: Sequence[int],
    max_games: int,
    seed: int,
    salt: str | None,
    paired: bool = True,
) -> list[Pairing]:
    """Every game of a match, in play order: pair ``k`` is games ``2k`` and ``2k + 1``, round ``k + 1``, seats
    swapped. ``paired``: both with the seed of the pair's first seating (one deal); else each with the seed of its
    own seating (independent deals). Seeds are ``tournament.plans.schedule.game_seed``'s, keyed by the secret salt."""
    games: list[Pairing] = []
    for pair in range(pairs_of(max_games)):
        first, second = seatings(bot_a, bot_b, fillers, pair)
        deal = game_seed(seed, pair + 1, first, salt)
        other = deal if paired else game_seed(seed, pair + 1, second, salt)
        games.append(Pairing(index=2 * pair, seats=first, round=pair + 1, seed=deal))
        games.append(Pairing(index=2 * pair + 1, seats=second, round=pair + 1, seed=other))
    return games


@dataclass(frozen=True)
class Count:
    """What a match's test counts: pentanomial ``counts`` of its completed pairs (paired deals) or trinomial ones of
    its games (independent deals: ``pairs`` 0), and the games they hold."""

    counts: list[int]
    pairs: int
    games: int


def count(
    bot_a: int, bot_b: int, results: Sequence[tuple[int, Sequence[int], Sequence[int]]], paired: bool = True
) -> Count:
    """The counts of ``(round, bot_ids, ranks)`` results. ``paired``: pentanomial, a round with both its games in
    is a pair; else trinomial (A's losses, ties and wins against B), every game counts on its own."""
    by_round: dict[int, list[float]] = {}
    for round_number, bot_ids, ranks in results:
        rank_a, rank_b = ranks[list(bot_ids).index(bot_a)], ranks[list(bot_ids).index(bot_b)]
        by_round.setdefault(round_number, []).append(game_score(rank_a, rank_b))
    if not paired:
        scores = [score for round_scores in by_round.values() for score in round_scores]
        return Count([scores.count(x) for x in GAME_SCORES], 0, len(scores))
    counts = [0] * 5
    pairs = 0
    for scores in by_round.values():
        if len(scores) == 2:
            counts[pair_bin(*scores)] += 1
            pairs += 1
    return Count(counts, pairs, 2 * pairs)
