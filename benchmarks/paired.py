"""What pairing saves between close bots: the within-pair correlation and the games saved, with bootstrap intervals.

    .venv/bin/python benchmarks/paired.py [--deals 3000] [--bootstrap 2000] [--seed 1] [--noise 0.1] [--sprt TESTS]

A match plays pairs of games (``tournament/plans/pairs.py``): A and B swap seats on one deal, the fillers (at 3-4
seats) keep theirs, and the pairs walk through every pair of seats. On *paired deals* both games of a pair share
the deal; on *independent deals* each game has its own. The question is how many games the first design saves.

The bots are close: A is the greedy engine bot (:mod:`engine.greedy`), B the same greedy bot playing a random legal
action on a share ``--noise`` of its decisions; at 4 seats the fillers are greedy bots. For each game (board, card)
and table size (2, 4) it plays ``--deals`` deals in-process, deal ``k`` in the seatings of a match's pair ``k``
(:func:`tournament.plans.pairs.seatings`), each twice: ``x`` is A's score against B in the first game, ``y`` in
the swapped one (:func:`ratings.sprt.game_score`: 1 ahead, 0.5 tied, 0 behind; the fillers' places do not count).

The statistics (:func:`moments`, :func:`correlation`, :func:`games_saved`, :func:`bootstrap`), within each seating
(the pairs' seat effects cancel in both designs alike):

- ``rho``: the correlation of ``x`` and ``y`` over deals;
- the *games saved*: ``Var(mean score of n unpaired games) / Var(mean score of n paired games)`` =
  ``(Var x + Var y) / (Var x + Var y + 2 Cov(x, y))``, which is ``1 / (1 + rho)`` when both games' variances are
  equal: a match on paired deals needs that many times fewer games for the same precision (for small differences
  the SPRT's expected games to a verdict are proportional to the variance: Wald's approximation; ``--sprt``
  checks it);
- a 95% percentile interval of each from ``--bootstrap`` resamples of the deals (with replacement, within each
  seating).

It prints, per game and table size, the deals, A's mean score (close bots: near 0.5), ``rho``, ``1 / (1 + rho)`` and
the games saved with their intervals, the CPU seconds, and the seeds and load average (a shared machine plays the
same games, only slower).

``--sprt TESTS`` also runs ``TESTS`` simulated SPRTs of each design (``ratings/sprt.py``, logistic Elo ``[0,
--elo1]``: the same difference in both designs; alpha = beta = 0.05), interleaved, drawing from the deals played
(:func:`run_test`): pairs of one deal against two games of independent deals in the same seatings, the seatings in
a match's order; and prints the mean games to a verdict of each and their ratio, which Wald's approximation says is
about the games saved (with its 95% interval over the tests, by the delta method).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.api import Action, Json
from engine.bots import Bot
from engine.gameloop import play_out
from engine.greedy import greedy_bot
from engine.simulation import Z_95, EngineTable, game_seed
from ratings.sprt import Sprt, game_score, pair_bin
from tournament.plans.pairs import seatings

Pair = tuple[float, float]
"""A's score against B in the two games of one deal: ``(first, swapped)``."""

Seating = tuple[str, ...]
"""Who sits in each seat of a pair's first game: ``A``, ``B`` or ``F`` (a filler); a pair's stratum."""


class Moments(NamedTuple):
    """The sums of squares and cross-products of pairs, each centred on its stratum's means."""

    sxx: float
    syy: float
    sxy: float


def moments(pairs: Sequence[Pair], strata: Sequence[Hashable]) -> Moments:
    """The :class:`Moments` of the pairs, ``strata[i]`` the stratum of ``pairs[i]`` (the seating of its first game)."""
    groups: dict[Hashable, list[Pair]] = {}
    for pair, stratum in zip(pairs, strata, strict=True):
        groups.setdefault(stratum, []).append(pair)
    sxx = syy = sxy = 0.0
    for group in groups.values():
        mean_x = sum(x for x, _ in group) / len(group)
        mean_y = sum(y for _, y in group) / len(group)
        for x, y in group:
            sxx += (x - mean_x) ** 2
            syy += (y - mean_y) ** 2
            sxy += (x - mean_x) * (y - mean_y)
    return Moments(sxx, syy, sxy)


def correlation(m: Moments) -> float:
    """The within-pair correlation ``rho`` of the two games' scores (NaN when either game's score never varies)."""
    return m.sxy / math.sqrt(m.sxx * m.syy) if m.sxx > 0 and m.syy > 0 else math.nan


def one_over_one_plus_rho(m: Moments) -> float:
    """``1 / (1 + rho)``: the games saved if both games' scores varied alike (infinite at ``rho = -1``)."""
    rho = correlation(m)
    return 1 / (1 + rho) if rho > -1 else math.inf if rho == -1 else math.nan


def games_saved(m: Moments) -> float:
    """``Var(unpaired mean) / Var(paired mean)`` = ``(Sxx + Syy) / (Sxx + Syy + 2 Sxy)`` (infinite when every pair's
    total is its stratum's, NaN when no score varies)."""
    paired = m.sxx + m.syy + 2 * m.sxy
    if m.sxx + m.syy <= 0:
        return math.nan
    return (m.sxx + m.syy) / paired if paired > 1e-12 else math.inf


STATISTICS: dict[str, Callable[[Moments], float]] = {
    "rho": correlation,
    "1/(1+rho)": one_over_one_plus_rho,
    "games saved": games_saved,
}


def bootstrap(
    pairs: Sequence[Pair],
    strata: Sequence[Hashable],
    statistics: dict[str, Callable[[Moments], float]],
    samples: int,
    rng: random.Random,
    level: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """The percentile interval (``level``) of each of ``statistics`` over ``samples`` resamples of the pairs, drawn
    with replacement within each stratum (each keeps its size); resamples where a statistic is NaN are left out of
    its interval (NaN if all are)."""
    groups: dict[Hashable, list[Pair]] = {}
    for pair, stratum in zip(pairs, strata, strict=True):
        groups.setdefault(stratum, []).append(pair)
    values: dict[str, list[float]] = {name: [] for name in statistics}
    for _ in range(samples):
        drawn: list[Pair] = []
        labels: list[Hashable] = []
        for stratum, group in groups.items():
            drawn.extend(rng.choices(group, k=len(group)))
            labels.extend([stratum] * len(group))
        resampled = moments(drawn, labels)
        for name, statistic in statistics.items():
            value = statistic(resampled)
            if not math.isnan(value):
                values[name].append(value)
    return {name: percentile_interval(found, level) for name, found in values.items()}


def percentile_interval(values: list[float], level: float) -> tuple[float, float]:
    """The nearest-rank percentiles ``(1 - level) / 2`` and ``(1 + level) / 2`` of ``values`` (NaN if empty)."""
    if not values:
        return math.nan, math.nan
    ordered = sorted(values)
    tail = (1 - level) / 2
    return ordered[nearest_rank(tail, len(ordered)) - 1], ordered[nearest_rank(1 - tail, len(ordered)) - 1]


def nearest_rank(share: float, count: int) -> int:
    """The rank (1 to ``count``) of the nearest-rank percentile ``share``, rounding noise in ``share * count`` aside."""
    return min(count, max(1, math.ceil(round(share * count, 9))))


def noisy_greedy(noise: float) -> Bot:
    """The greedy bot that plays a random legal action on a share ``noise`` of its decisions."""

    def bot(view: Json, actions: list[Action], rng: random.Random) -> str:
        return rng.choice(actions).id if rng.random() < noise else greedy_bot(view, actions, rng)

    return bot


def play(game: str, seats: int, seed: int, bots: Sequence[Bot]) -> tuple[int, ...]:
    """The ranks of one game between engine-level bots, ``bots[seat]`` in each seat."""
    table = EngineTable(engine.new_game(game, {"players": seats}, seed), list(bots), seed)
    play_out(table)
    result = engine.result(table.state)
    assert result is not None
    return result.ranks


def deals(game: str, seats: int, count: int, seed: int, noise: float) -> tuple[list[Pair], list[Seating]]:
    """A's scores against B in ``count`` deals, each in a match's pair seatings, and each pair's first seating."""
    bots: dict[int, Bot] = {0: greedy_bot, 1: noisy_greedy(noise)}  # A, B; the fillers: greedy
    fillers = list(range(2, seats))
    pairs: list[Pair] = []
    strata: list[Seating] = []
    for index in range(count):
        deal = game_seed(seed, index)
        first, second = seatings(0, 1, fillers, index)
        scores = []
        for seating in (first, second):
            ranks = play(game, seats, deal, [bots.get(bot, greedy_bot) for bot in seating])
            scores.append(game_score(ranks[seating.index(0)], ranks[seating.index(1)]))
        pairs.append((scores[0], scores[1]))
        strata.append(tuple("AB"[bot] if bot < 2 else "F" for bot in first))
    return pairs, strata


def run_test(
    test: Sprt, groups: Sequence[Sequence[Pair]], paired: bool, max_games: int, rng: random.Random
) -> tuple[int, str]:
    """Games played and the verdict (``H0``, ``H1`` or ``none`` within ``max_games``) of one simulated SPRT drawing
    from the pairs of ``groups`` (one per seating, in a match's order): ``paired``, the two games of one deal (the
    pentanomial counts); else two games of two deals drawn apart, in the same seatings (the trinomial counts)."""
    counts = [0] * (5 if paired else 3)
    games = 0
    while games < max_games:
        group = groups[(games // 2) % len(groups)]
        if paired:
            counts[pair_bin(*rng.choice(group))] += 1
        else:
            counts[round(2 * rng.choice(group)[0])] += 1
            counts[round(2 * rng.choice(group)[1])] += 1
        games += 2
        verdict = test.verdict(counts)
        if verdict != "continue":
            return games, verdict
    return games, "none"


def simulate_tests(
    pairs: Sequence[Pair], strata: Sequence[Seating], tests: int, elo1: float, max_games: int, seed: int
) -> str:
    """``tests`` simulated SPRTs of each design, interleaved: their mean games to a verdict, in words."""
    groups: dict[Seating, list[Pair]] = {}
    for pair, stratum in zip(pairs, strata, strict=True):
        groups.setdefault(stratum, []).append(pair)
    ordered = list(groups.values())
    test = Sprt(0.0, elo1, model="logistic")
    rng = random.Random(seed)
    played: dict[bool, list[tuple[int, str]]] = {True: [], False: []}
    for _ in range(tests):
        for paired in (True, False):
            played[paired].append(run_test(test, ordered, paired, max_games, rng))
    games = {paired: [float(count) for count, _ in results] for paired, results in played.items()}
    ratio, low, high = ratio_of_means(games[False], games[True])
    undecided = sum(verdict == "none" for results in played.values() for _, verdict in results)
    return (
        f"SPRT [0, {elo1:g}] logistic, {tests} tests each: mean games paired {statistics.mean(games[True]):.0f}, "
        f"unpaired {statistics.mean(games[False]):.0f}, unpaired / paired {ratio:.2f} [{low:.2f}, {high:.2f}] "
        f"({undecided} without a verdict)"
    )


def ratio_of_means(top: Sequence[float], bottom: Sequence[float]) -> tuple[float, float, float]:
    """``mean(top) / mean(bottom)`` of two independent samples (two or more values each) and its 95% interval by the
    delta method: ``ratio * exp(+-1.96 * sqrt(cv_top^2 / n_top + cv_bottom^2 / n_bottom))`` (on the log scale)."""
    mean_top, mean_bottom = statistics.mean(top), statistics.mean(bottom)
    ratio = mean_top / mean_bottom
    spread = math.sqrt(
        (statistics.stdev(top) / mean_top) ** 2 / len(top)
        + (statistics.stdev(bottom) / mean_bottom) ** 2 / len(bottom)
    )
    return ratio, ratio * math.exp(-Z_95 * spread), ratio * math.exp(Z_95 * spread)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=3000, help="deals per game and table size (two games each)")
    parser.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples of the deals")
    parser.add_argument("--seed", type=int, default=1, help="the deals' seed (the bootstrap's too)")
    parser.add_argument("--noise", type=float, default=0.1, help="B's share of random moves")
    parser.add_argument(
        "--sprt", type=int, default=0, metavar="TESTS", help="simulated SPRTs per design (0: none)"
    )
    parser.add_argument("--elo1", type=float, default=30.0, help="the simulated SPRTs' H1, logistic Elo (H0: 0)")
    parser.add_argument("--max-games", type=int, default=20000, help="a simulated SPRT's games at most")
    args = parser.parse_args()
    if args.deals < 10 or args.bootstrap < 100 or not 0 <= args.noise <= 1:
        parser.error("--deals at least 10, --bootstrap at least 100, --noise between 0 and 1")
    if args.sprt < 0 or not 0 < args.elo1 <= 400 or args.max_games < 2:
        parser.error("--sprt at least 0, --elo1 above 0 and at most 400, --max-games at least 2")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"A greedy, B greedy with {args.noise:.0%} random moves; {args.deals} deals (seed {args.seed}) per line, "
        f"{args.bootstrap} bootstrap resamples, 95% percentile intervals"
    )
    for game in ("board", "card"):
        for seats in (2, 4):
            started = time.process_time()
            pairs, strata = deals(game, seats, args.deals, args.seed, args.noise)
            cpu = time.process_time() - started
            mean = sum(x + y for x, y in pairs) / (2 * len(pairs))
            m = moments(pairs, strata)
            intervals = bootstrap(pairs, strata, STATISTICS, args.bootstrap, random.Random(args.seed))
            figures = ", ".join(
                f"{name} {statistic(m):.2f} [{intervals[name][0]:.2f}, {intervals[name][1]:.2f}]"
                for name, statistic in STATISTICS.items()
            )
            print(f"{game:5} {seats} seats: A's score {mean:.3f}, {figures} ({cpu:.0f} s CPU)")
            if args.sprt:
                tests = simulate_tests(pairs, strata, args.sprt, args.elo1, args.max_games, args.seed)
                print(f"{game:5} {seats} seats: {tests}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
