"""The production fit (ratings/fit.py: numpy, a sparse Newton solver above ``DENSE_PLAYERS`` players) against the
exact pure-Python fit it replaced (tests/ratings/exact_fit.py): the same ratings and interval bounds to 0.1 Elo on
random pools of known strengths up to 300 bots, games without ties; and the large-pool path (the sparse solver and
the local approximation of the intervals, forced on small pools here) against the dense one.
"""

from __future__ import annotations

import random

import pytest

from ratings import fit as production
from tests.ratings import exact_fit

Game = tuple[list[int], list[int]]


def random_pool(
    seed: int, bots: int, games: int, sizes: tuple[int, ...] = (2, 3, 4)
) -> tuple[list[float], list[Game]]:
    """True ratings (mean 0, sd 200) and games of random opponents, orders from the Plackett-Luce model."""
    rng = random.Random(seed)
    drawn = [rng.gauss(0.0, 200.0) for _ in range(bots)]
    truth = [elo - sum(drawn) / bots for elo in drawn]
    pool: list[Game] = []
    for _ in range(games):
        players = rng.sample(range(bots), rng.choice(sizes))
        finish = [rng.expovariate(10 ** (truth[player] / 400)) for player in players]
        ranks = [0] * len(players)
        for place, seat in enumerate(sorted(range(len(players)), key=finish.__getitem__)):
            ranks[seat] = place
        pool.append((players, ranks))
    return truth, pool


def largest_gap(ours: dict[int, production.Rating], reference: dict[int, exact_fit.Rating]) -> float:
    assert list(ours) == list(reference)
    return max(
        abs(float(getattr(ours[bot], field) - getattr(reference[bot], field)))
        for bot in reference
        for field in ("elo", "low", "high")
    )


@pytest.mark.parametrize(("bots", "games"), [(4, 30), (12, 400), (60, 3000), (120, 6000)])
def test_the_fit_is_the_exact_fit_to_a_tenth_of_an_elo_point(bots: int, games: int) -> None:
    _, pool = random_pool(bots, bots, games)
    assert largest_gap(production.fit(pool), exact_fit.fit(pool)) < 0.1


def test_counted_games_and_a_warm_start_are_the_exact_fit_too() -> None:
    _, pool = random_pool(7, 30, 600, sizes=(4,))
    counts = [1 + index % 3 for index in range(len(pool))]
    start = {bot: 100.0 * (bot % 5) for bot in range(30)}
    ours = production.fit(pool, counts=counts, start=start, confidence=0.9)
    assert largest_gap(ours, exact_fit.fit(pool, counts=counts, confidence=0.9)) < 0.1


@pytest.mark.slow  # the exact fit is cubic in pure Python: about a minute at 300 bots
def test_the_fit_is_the_exact_fit_at_300_bots() -> None:
    _, pool = random_pool(300, 300, 20000)
    assert largest_gap(production.fit(pool), exact_fit.fit(pool)) < 0.1


def test_the_sparse_solver_reaches_the_dense_solver_s_ratings(monkeypatch: pytest.MonkeyPatch) -> None:
    _, pool = random_pool(5, 200, 8000)
    dense = production.fit(pool, intervals=False)
    monkeypatch.setattr(production, "DENSE_PLAYERS", 0)
    sparse = production.fit(pool, intervals=False)
    assert max(abs(sparse[bot].elo - dense[bot].elo) for bot in dense) < 1e-4


def test_the_large_pool_intervals_are_close_to_the_exact_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """400 bots, about 120 games each at 2 and 4 seats: the local approximation's half-widths within 5% of the
    exact sandwich's, and on average within 2%."""
    _, pool = random_pool(9, 400, 20000, sizes=(2, 4))
    exact = production.fit(pool)
    monkeypatch.setattr(production, "DENSE_PLAYERS", 0)
    approximate = production.fit(pool)
    ratios = [(approximate[bot].high - approximate[bot].low) / (exact[bot].high - exact[bot].low) for bot in exact]
    assert max(abs(ratio - 1.0) for ratio in ratios) < 0.05, (min(ratios), max(ratios))
    assert abs(sum(ratios) / len(ratios) - 1.0) < 0.02


def test_the_large_pool_path_gives_the_same_table_in_any_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(production, "DENSE_PLAYERS", 0)
    _, pool = random_pool(11, 150, 3000)
    shuffled = list(pool)
    random.Random(1).shuffle(shuffled)
    reseated = [(players[::-1], ranks[::-1]) for players, ranks in shuffled]
    base, other = production.fit(pool), production.fit(reseated)
    fields = ("elo", "low", "high")
    flat = {(bot, field): getattr(rating, field) for bot, rating in base.items() for field in fields}
    assert {(bot, field): getattr(other[bot], field) for bot, field in flat} == pytest.approx(flat, abs=1e-6)
