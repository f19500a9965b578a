"""How many games a ladder's newcomer plays before its rating settles, with the ladder's matchmaking
(``tournament/plans/ladderpick.py``) and with random opponents, and whether its settled interval covers the truth.

    .venv/bin/python -m benchmarks.ladder_settle [--bots 100] [--seats 2,3,4] [--runs 40] [--warmup 50]
        [--max-games 400] [--settled 50,100] [--seed 1]

A simulated ladder of ``bots`` bots, their true strengths drawn normal around 0 Elo (sd 200), each game's finishing
order drawn from the Plackett-Luce model of those strengths (at 2 seats it is Elo's logistic; at any table size
each pair's order is Bradley-Terry's), rated by ``ratings/wenglin.py``. First the pool settles: ``warmup`` games a
bot, each game anchored by the bot idle longest, its table picked by ``pick_table`` among the 32 bots rated nearest
it and 4 at random (as the workers read candidates), every bot's ratings and seats and each pair's games kept.
Then, in each of ``runs`` runs, a newcomer of a strength drawn the same way joins that settled pool (rated
``MU``, ``SIGMA``) and anchors game after game, up to ``max-games``, its opponents picked by ``pick_table``, or drawn
uniformly at random in random seats for the comparison; the pool's bots in its games are rated too, the pool plays
no other game meanwhile. For each half width of ``--settled`` (Elo), the runs give the games the newcomer played
until its 95% interval was narrower than that (median and 90th percentile, ``never`` beyond ``max-games``), the
share of runs where it got there, and the share of those where the interval it had then covered its true strength
(both relative to the pool's mean, truth and ratings alike). Last, the half width it had after ``max-games``
(median) and the share of runs whose interval then covered the truth. Each settled pool is described first: the
slope of its ratings on the truth (1 if the ratings' scale is the truth's) and their scatter about that line, and
its median half width. No clock is measured: the figures are games, the same on any machine for a seed.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings.wenglin import MU, SIGMA, elo, half_width, update
from tournament.plans.ladderpick import Candidate, pair_key, pick_table

TRUE_SD = 200.0  # Elo
NEAREST = 32  # candidates rated nearest the anchor, as the workers read them
RANDOM = 4  # and at random


@dataclass
class Ladder:
    """A simulated ladder: each bot's true strength (Elo), rating, seats sat, last game; each pair's games."""

    seats: int
    truth: list[float]
    ratings: list[tuple[float, float]]
    seat_counts: list[list[int]]
    last: list[int]
    together: dict[tuple[int, int], int] = field(default_factory=dict)
    clock: int = 0

    def add(self, truth: float) -> int:
        """A newcomer of true strength ``truth`` joins, rated ``MU``, ``SIGMA``; its index."""
        self.truth.append(truth)
        self.ratings.append((MU, SIGMA))
        self.seat_counts.append([0] * self.seats)
        self.last.append(self.clock)
        return len(self.truth) - 1

    def copy(self) -> Ladder:
        return Ladder(
            self.seats,
            list(self.truth),
            list(self.ratings),
            [list(counts) for counts in self.seat_counts],
            list(self.last),
            dict(self.together),
            self.clock,
        )

    def candidate(self, bot: int) -> Candidate:
        mu, sigma = self.ratings[bot]
        counts = self.seat_counts[bot]
        return Candidate(bot, mu, sigma, sum(counts), tuple(counts), float(self.clock - self.last[bot]))

    def picked(self, anchor: int, rng: random.Random, among: int | None = None) -> list[int]:
        """The table of ``anchor`` by ``pick_table``, among the first ``among`` bots (all by default)."""
        bots = range(among if among is not None else len(self.truth))
        mu = self.ratings[anchor][0]
        others = [bot for bot in bots if bot != anchor]
        nearest = sorted(others, key=lambda bot: abs(self.ratings[bot][0] - mu))[:NEAREST]
        chosen = set(nearest) | set(rng.sample(others, min(RANDOM, len(others))))
        table = pick_table(
            self.candidate(anchor),
            [self.candidate(bot) for bot in sorted(chosen)],
            self.together,
            self.seats,
            rng,
        )
        if table is None:
            raise ValueError(f"{len(others) + 1} bots cannot fill a table of {self.seats}")
        return table

    def drawn(self, anchor: int, rng: random.Random, among: int) -> list[int]:
        """A table of ``anchor`` and opponents drawn uniformly among the first ``among`` bots, in random seats."""
        table = [anchor, *rng.sample([bot for bot in range(among) if bot != anchor], self.seats - 1)]
        rng.shuffle(table)
        return table

    def play(self, table: Sequence[int], rng: random.Random) -> None:
        """One game of ``table`` (seat order): its finishing order drawn from the truth, its seats rated."""
        finish = [rng.expovariate(1.0) / 10 ** (self.truth[bot] / 400) for bot in table]
        ranks = [sorted(finish).index(time) for time in finish]
        after = update([self.ratings[bot] for bot in table], ranks)
        self.clock += 1
        for seat, (bot, rating) in enumerate(zip(table, after, strict=True)):
            self.ratings[bot] = rating
            self.seat_counts[bot][seat] += 1
            self.last[bot] = self.clock
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                key = pair_key(a, b)
                self.together[key] = self.together.get(key, 0) + 1

    def relative(self, bot: int, among: int) -> tuple[float, float]:
        """``bot``'s rating and its truth on the Elo scale, each relative to the mean of the first ``among`` bots."""
        rated = elo(self.ratings[bot][0]) - statistics.fmean(elo(mu) for mu, _ in self.ratings[:among])
        return rated, self.truth[bot] - statistics.fmean(self.truth[:among])


def settled_pool(bots: int, seats: int, warmup: int, rng: random.Random) -> Ladder:
    """A ladder of ``bots`` bots after ``warmup`` games a bot, each anchored by the bot idle longest."""
    ladder = Ladder(seats, [], [], [], [])
    for _ in range(bots):
        ladder.add(rng.gauss(0.0, TRUE_SD))
    for _ in range(bots * warmup // seats):
        anchor = min(range(bots), key=lambda bot: ladder.last[bot])
        ladder.play(ladder.picked(anchor, rng), rng)
    return ladder


def stretch(ladder: Ladder) -> tuple[float, float]:
    """The least-squares slope of the bots' ratings (Elo) on their true strengths, and the sd of the scatter about
    that line: a slope of 1 means the ratings' scale is the truth's."""
    truth = ladder.truth
    rated = [elo(mu) for mu, _ in ladder.ratings]
    mean_truth, mean_rated = statistics.fmean(truth), statistics.fmean(rated)
    slope = sum((t - mean_truth) * (r - mean_rated) for t, r in zip(truth, rated, strict=True)) / sum(
        (t - mean_truth) ** 2 for t in truth
    )
    scatter = statistics.pstdev(
        r - mean_rated - slope * (t - mean_truth) for t, r in zip(truth, rated, strict=True)
    )
    return slope, scatter


@dataclass(frozen=True)
class Step:
    """The newcomer after one of its games: its half width, its rating and truth relative to the pool (Elo)."""

    half_width: float
    rated: float
    truth: float

    @property
    def covered(self) -> bool:
        return abs(self.rated - self.truth) <= self.half_width


def newcomer(pool: Ladder, matchmaking: bool, max_games: int, rng: random.Random) -> list[Step]:
    """A newcomer's games in a copy of ``pool``: each of its steps, ``max_games`` of them."""
    ladder = pool.copy()
    among = len(ladder.truth)
    bot = ladder.add(rng.gauss(0.0, TRUE_SD))
    steps = []
    for _ in range(max_games):
        table = ladder.picked(bot, rng, among + 1) if matchmaking else ladder.drawn(bot, rng, among + 1)
        ladder.play(table, rng)
        steps.append(Step(half_width(ladder.ratings[bot][1]), *ladder.relative(bot, among)))
    return steps


def settle_games(steps: Sequence[Step], limit: float) -> int | None:
    """The games played until the half width was under ``limit`` Elo, or ``None`` if it never was."""
    for games, step in enumerate(steps, start=1):
        if step.half_width < limit:
            return games
    return None


def quantile(values: Sequence[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank), ``inf`` counting as larger than any number."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def games_text(value: float) -> str:
    return "never" if math.isinf(value) else f"{value:.0f}"


def summary(runs: Sequence[Sequence[Step]], limits: Sequence[float]) -> str:
    """One line of figures over ``runs``: per limit the games to settle, the share settled and covered; the final
    half width."""
    parts = []
    for limit in limits:
        games = [settle_games(steps, limit) for steps in runs]
        counted = [math.inf if g is None else float(g) for g in games]
        settled = [(g, steps) for g, steps in zip(games, runs, strict=True) if g is not None]
        covered = sum(steps[g - 1].covered for g, steps in settled)
        cover = f"{100 * covered / len(settled):3.0f}%" if settled else "   -"
        parts.append(
            f"±{limit:<4.0f} median {games_text(quantile(counted, 0.5)):>5}  p90 {games_text(quantile(counted, 0.9)):>5}"
            f"  settled {100 * len(settled) / len(runs):3.0f}%  covers {cover}"
        )
    final = statistics.median(steps[-1].half_width for steps in runs)
    covered_final = sum(steps[-1].covered for steps in runs) / len(runs)
    parts.append(f"after {len(runs[0])}: ±{final:.0f} covers {100 * covered_final:.0f}%")
    return "  |  ".join(parts)


def run(
    bots: int, seats: Sequence[int], runs: int, warmup: int, max_games: int, limits: Sequence[float], seed: int
) -> list[str]:
    """The figures' lines, one per table size and opponents' choice (printed as they come)."""
    lines = []
    for size in seats:
        rng = random.Random(seed * 1000 + size)
        pool = settled_pool(bots, size, warmup, rng)
        slope, scatter = stretch(pool)
        pool_half = statistics.median(half_width(sigma) for _, sigma in pool.ratings)
        print(
            f"{size} seats: the pool of {bots} after {warmup} games a bot: ratings = {slope:.2f} x truth"
            f" (scatter sd {scatter:.0f} Elo), median half width ±{pool_half:.0f}",
            flush=True,
        )
        for matchmaking in (True, False):
            results = [newcomer(pool, matchmaking, max_games, random.Random(rng.random())) for _ in range(runs)]
            opponents = "pick_table" if matchmaking else "random"
            line = f"{size} seats  {opponents:<10} {runs} runs  {summary(results, limits)}"
            print(line, flush=True)
            lines.append(line)
    return lines


def integers(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.ladder_settle", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--bots", type=int, default=100, help="bots in the pool the newcomer joins")
    parser.add_argument("--seats", type=integers, default=[2, 3, 4], help="table sizes (2 to 4)")
    parser.add_argument("--runs", type=int, default=40, help="newcomers, each in its own copy of the pool")
    parser.add_argument("--warmup", type=int, default=50, help="games a bot of the pool plays before")
    parser.add_argument("--max-games", type=int, default=400, help="the newcomer's games in each run")
    parser.add_argument("--settled", type=integers, default=[50, 100], help="half widths (Elo) counted as settled")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args(argv)
    if not options.seats or any(size not in (2, 3, 4) for size in options.seats):
        parser.error("--seats must list table sizes of 2 to 4")
    if options.bots < max(options.seats) or options.runs < 1 or options.max_games < 1 or options.warmup < 0:
        parser.error("--bots must fill a table, --runs and --max-games be at least 1, --warmup not negative")
    if not options.settled or any(limit <= 0 for limit in options.settled):
        parser.error("--settled must list positive half widths")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    run(
        options.bots,
        options.seats,
        options.runs,
        options.warmup,
        options.max_games,
        [float(limit) for limit in options.settled],
        options.seed,
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
