"""The fit's 95% intervals (ratings/fit.py) cover the truth 94-96% of the time at 2-, 3- and 4-seat tables, with tied
places, and in large pools (the approximation above ``DENSE_PLAYERS`` bots).

Many simulated tournaments with known strengths: in each, 6 bots with true ratings drawn around 0 (standard deviation
150 Elo) play 150 games at tables of one size, seats drawn at random, finishing orders drawn from the Plackett-Luce
model (an exponential race, as in test_fit.py), under which every pair of seats is ordered as Elo expects but the
pairs of one table are not independent. Each bot's interval either contains its true rating relative to the
tournament's mean or not; the share that do is the coverage. With the model's own variance only (no sandwich), the
same tournaments give 94.9%, 91.7% and 88.9% at 2, 3 and 4 seats.

6,000 intervals per table size: the coverage's standard error is about 0.3 points. The seed is fixed, so the test
is deterministic; measured with seeds 1 to 3: 95.3-96.2% at 2 seats, 94.7-94.8% at 3, 94.4-95.3% at 4.
"""

from __future__ import annotations

import random

import pytest

from ratings import fit as fit_module
from ratings.fit import fit

BOTS = 6
GAMES = 150
TOURNAMENTS = 1000
SPREAD = 150.0


def tournament(rng: random.Random, seats: int) -> tuple[dict[int, float], list[tuple[list[int], list[int]]]]:
    """True ratings (mean 0) and the games of one simulated tournament."""
    drawn = [rng.gauss(0.0, SPREAD) for _ in range(BOTS)]
    mean = sum(drawn) / BOTS
    truth = {bot: elo - mean for bot, elo in enumerate(drawn)}
    games = []
    for _ in range(GAMES):
        players = rng.sample(range(BOTS), seats)
        finish = [rng.expovariate(10 ** (truth[player] / 400)) for player in players]
        ranks = [0] * seats
        for place, seat in enumerate(sorted(range(seats), key=finish.__getitem__)):
            ranks[seat] = place
        games.append((players, ranks))
    return truth, games


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_95_percent_intervals_cover_the_truth_94_to_96_percent_of_the_time(seats: int) -> None:
    rng = random.Random(1)
    covered = total = 0
    for _ in range(TOURNAMENTS):
        truth, games = tournament(rng, seats)
        for bot, rating in fit(games).items():
            covered += rating.low <= truth[bot] <= rating.high
            total += 1
    assert total == TOURNAMENTS * BOTS
    assert 0.94 <= covered / total <= 0.96, f"coverage {covered / total:.4f} at {seats} seats"


TIE = 0.139
"""The chance that two neighbouring places of a game are merged into one: at 4 seats, 20% of the seats tied."""


def tied_tournament(rng: random.Random, seats: int) -> tuple[dict[int, float], list[tuple[list[int], list[int]]]]:
    """As :func:`tournament`, then each pair of neighbouring places merged with chance ``TIE``, whoever holds them."""
    truth, games = tournament(rng, seats)
    tied = []
    for players, ranks in games:
        order = sorted(range(seats), key=ranks.__getitem__)
        merged, rank = [0] * seats, 0
        for place, seat in enumerate(order):
            rank += place > 0 and rng.random() >= TIE
            merged[seat] = rank
        tied.append((players, merged))
    return truth, tied


def test_ties_do_not_shrink_the_scale_and_the_intervals_still_cover() -> None:
    """Scored as half a win each (the fit's model before the tie parameter), 20% tied places at 4 seats shrank the
    scale (the slope of the fitted ratings over the true ones) to 0.92 here, and the coverage to 91%. With
    Davidson's tie model, seeds 1 to 3: scale 1.023, 1.025, 1.027; coverage 93.7%, 94.3%, 94.9%. These ties are
    neighbours merged whatever their strengths, which Davidson's model (ties likelier between close players) does
    not assume: the scale comes out 2-3% wide rather than 8% narrow, and seed 1's coverage just under 94%."""
    rng = random.Random(1)
    covered = total = tied = seated = 0
    product = square = 0.0
    for _ in range(TOURNAMENTS):
        truth, games = tied_tournament(rng, 4)
        tied += sum(ranks.count(rank) > 1 for _, ranks in games for rank in ranks)
        seated += 4 * len(games)
        for bot, rating in fit(games).items():
            covered += rating.low <= truth[bot] <= rating.high
            total += 1
            product += rating.elo * truth[bot]
            square += truth[bot] ** 2
    assert 0.19 < tied / seated < 0.21
    assert 0.97 <= product / square <= 1.04, f"scale {product / square:.4f}"
    assert 0.93 <= covered / total <= 0.96, f"coverage {covered / total:.4f}"


POOL_BOTS = 400
POOL_GAMES = 20_000
POOLS = 10


@pytest.mark.slow  # 10 pools of 400 bots: half a minute on a loaded machine (`make test-slow`)
def test_the_large_pool_intervals_cover_the_truth_94_to_96_percent_of_the_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The intervals of pools above ``DENSE_PLAYERS`` bots (the local approximation, forced here on pools of 400
    bots with about 150 games each, half at 2 seats and half at 4, random opponents; 4,000 intervals). Measured
    with seeds 1 to 3: 95.0%, 95.1%, 94.7%."""
    monkeypatch.setattr(fit_module, "DENSE_PLAYERS", 0)
    rng = random.Random(1)
    covered = total = 0
    for _ in range(POOLS):
        drawn = [rng.gauss(0.0, 200.0) for _ in range(POOL_BOTS)]
        truth = [elo - sum(drawn) / POOL_BOTS for elo in drawn]
        games = []
        for index in range(POOL_GAMES):
            seats = 2 if index % 2 else 4
            players = rng.sample(range(POOL_BOTS), seats)
            finish = [rng.expovariate(10 ** (truth[player] / 400)) for player in players]
            ranks = [0] * seats
            for place, seat in enumerate(sorted(range(seats), key=finish.__getitem__)):
                ranks[seat] = place
            games.append((players, ranks))
        for bot, rating in fit(games).items():
            covered += rating.low <= truth[bot] <= rating.high
            total += 1
    assert total == POOLS * POOL_BOTS
    assert 0.94 <= covered / total <= 0.96, f"coverage {covered / total:.4f}"
