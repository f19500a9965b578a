"""How many games a ladder's newcomer plays before the interval its standings show is under 50 Elo either side, with
the ladder's matchmaking (``tournament/plans/ladderpick.py``) and with random opponents, and whether that interval
covers the truth; and why the standings show the fit of the ladder's games, not its Weng-Lin ratings.

    .venv/bin/python -m benchmarks.ladder_settle [--bots 100] [--seats 2,3,4] [--runs 20] [--warmup 30]
        [--max-games 400] [--every 5] [--settled 50,100] [--seed 1]

A simulated ladder of ``bots`` bots, their true strengths drawn normal around 0 Elo (sd 200), each game's finishing
order drawn from the Plackett-Luce model of those strengths (at 2 seats it is Elo's logistic; at any table size
each pair's order is Bradley-Terry's). The ladder plays in rounds, as one whose bots all play at the same rate:
in each round every bot plays one game (those left over when fewer than a table remain sit it out), the tables
anchored in turn by the free bot with the fewest games (a newcomer first), then the one idle longest. With the
ladder's matchmaking an anchor's table is picked by ``pick_table`` among the 32 free bots rated nearest it and 4
at random (as the workers read candidates); otherwise its opponents are drawn uniformly among the free bots, in
random seats. Every game is rated by ``ratings/wenglin.py`` (the ratings the matchmaking reads).

First the pool plays ``warmup`` rounds. Then, in each of ``runs`` runs, a newcomer of a strength drawn the same way
joins a copy of that pool and the ladder goes on, round after round. After every ``every`` games of the newcomer
all the ladder's games so far are fitted as the standings fit them (``ratings.fit.fit`` with intervals: its ratings
have mean 0 over the ladder's bots), and the newcomer's half width ``(high - low) / 2`` is read, and whether its
interval covers its true strength relative to the ladder's mean truth. A run ends when the half width is under
the smallest of ``--settled``, or after ``max-games`` games of the newcomer. For each half width of ``--settled``
(Elo), the runs give the newcomer's games until its interval was narrower than that (median and 90th percentile,
``never`` beyond ``max-games``), the share of runs where it got there, and the share of those where the interval
it had then covered its truth.

Each pool is described too, after its warm-up and at the end of each run (median over the runs): the slope of its
bots' fitted ratings on their truth and that of their Weng-Lin ratings (1 if the ratings' scale is the truth's).
Bots paired by their Weng-Lin ratings stretch that scale; the fit of the same games does not, which is why the
standings show the fit. No clock is measured: the figures are games, the same on any machine for a seed.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings.fit import Rating, fit
from ratings.wenglin import MU, SIGMA, elo, update
from tournament.plans.ladderpick import Candidate, pair_key, pick_table

TRUE_SD = 200.0  # Elo
NEAREST = 32  # candidates rated nearest the anchor, as the workers read them
RANDOM = 4  # and at random

Game = tuple[list[int], list[int]]


@dataclass
class Ladder:
    """A simulated ladder: each bot's true strength (Elo), Weng-Lin rating, seats sat, games, last game; each pair's
    games together; every game made (its bots in seat order and their ranks), for the fit."""

    seats: int
    truth: list[float]
    ratings: list[tuple[float, float]]
    seat_counts: list[list[int]]
    last: list[int]
    together: dict[tuple[int, int], int] = field(default_factory=dict)
    games: list[Game] = field(default_factory=list)

    def add(self, truth: float) -> int:
        """A newcomer of true strength ``truth`` joins, rated ``MU``, ``SIGMA``; its index."""
        self.truth.append(truth)
        self.ratings.append((MU, SIGMA))
        self.seat_counts.append([0] * self.seats)
        self.last.append(len(self.games))
        return len(self.truth) - 1

    def copy(self) -> Ladder:
        return Ladder(
            self.seats,
            list(self.truth),
            list(self.ratings),
            [list(counts) for counts in self.seat_counts],
            list(self.last),
            dict(self.together),
            list(self.games),
        )

    def played(self, bot: int) -> int:
        """The games ``bot`` has played."""
        return sum(self.seat_counts[bot])

    def candidate(self, bot: int) -> Candidate:
        mu, sigma = self.ratings[bot]
        counts = self.seat_counts[bot]
        return Candidate(bot, mu, sigma, sum(counts), tuple(counts), float(len(self.games) - self.last[bot]))

    def picked(self, anchor: int, free: Sequence[int], rng: random.Random) -> list[int]:
        """The table of ``anchor`` by ``pick_table`` among the bots ``free`` (the anchor not among them)."""
        mu = self.ratings[anchor][0]
        nearest = sorted(free, key=lambda bot: abs(self.ratings[bot][0] - mu))[:NEAREST]
        chosen = set(nearest) | set(rng.sample(free, min(RANDOM, len(free))))
        table = pick_table(
            self.candidate(anchor),
            [self.candidate(bot) for bot in sorted(chosen)],
            self.together,
            self.seats,
            rng,
        )
        if table is None:
            raise ValueError(f"{len(free) + 1} bots cannot fill a table of {self.seats}")
        return table

    def drawn(self, anchor: int, free: Sequence[int], rng: random.Random) -> list[int]:
        """A table of ``anchor`` and opponents drawn uniformly among the bots ``free``, in random seats."""
        table = [anchor, *rng.sample(free, self.seats - 1)]
        rng.shuffle(table)
        return table

    def play_round(self, matchmaking: bool, rng: random.Random) -> None:
        """One game for every bot (as many as whole tables allow), each table anchored by the free bot with the
        fewest games, then idle longest; its opponents by ``pick_table`` or drawn at random."""
        free = set(range(len(self.truth)))
        while len(free) >= self.seats:
            anchor = min(free, key=lambda bot: (self.played(bot), self.last[bot], bot))
            free.discard(anchor)
            others = sorted(free)
            table = self.picked(anchor, others, rng) if matchmaking else self.drawn(anchor, others, rng)
            free.difference_update(table)
            self.play(table, rng)

    def play(self, table: Sequence[int], rng: random.Random) -> None:
        """One game of ``table`` (seat order): its finishing order drawn from the truth, its seats rated."""
        finish = [rng.expovariate(1.0) / 10 ** (self.truth[bot] / 400) for bot in table]
        ranks = [sorted(finish).index(time) for time in finish]
        after = update([self.ratings[bot] for bot in table], ranks)
        self.games.append((list(table), ranks))
        for seat, (bot, rating) in enumerate(zip(table, after, strict=True)):
            self.ratings[bot] = rating
            self.seat_counts[bot][seat] += 1
            self.last[bot] = len(self.games)
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                key = pair_key(a, b)
                self.together[key] = self.together.get(key, 0) + 1

    def relative_truth(self, bot: int, fitted: Mapping[int, Rating]) -> float:
        """``bot``'s true strength relative to the mean of the bots ``fitted`` (as their fitted ratings are)."""
        return self.truth[bot] - statistics.fmean(self.truth[player] for player in fitted)


def warmed_pool(bots: int, seats: int, warmup: int, matchmaking: bool, rng: random.Random) -> Ladder:
    """A ladder of ``bots`` bots after ``warmup`` rounds."""
    ladder = Ladder(seats, [], [], [], [])
    for _ in range(bots):
        ladder.add(rng.gauss(0.0, TRUE_SD))
    for _ in range(warmup):
        ladder.play_round(matchmaking, rng)
    return ladder


def slope(truth: Sequence[float], rated: Sequence[float]) -> float:
    """The least-squares slope of ``rated`` on ``truth``: 1 if the ratings' scale is the truth's."""
    mean_truth, mean_rated = statistics.fmean(truth), statistics.fmean(rated)
    return sum((t - mean_truth) * (r - mean_rated) for t, r in zip(truth, rated, strict=True)) / sum(
        (t - mean_truth) ** 2 for t in truth
    )


@dataclass(frozen=True)
class Scales:
    """The slopes of a ladder's fitted ratings and of its Weng-Lin ratings on the truth."""

    fitted: float
    wenglin: float


def scales(ladder: Ladder, fitted: Mapping[int, Rating]) -> Scales:
    """The scales of ``ladder``'s ratings of the bots ``fitted`` (the fit of its games: the bots that played)."""
    truth = [ladder.truth[bot] for bot in fitted]
    return Scales(
        slope(truth, [rating.elo for rating in fitted.values()]),
        slope(truth, [elo(ladder.ratings[bot][0]) for bot in fitted]),
    )


@dataclass(frozen=True)
class Step:
    """The newcomer after ``games`` of its games, as the fit of the ladder's games rates it: its half width, its
    rating and its truth relative to the ladder's mean (Elo)."""

    games: int
    half_width: float
    rated: float
    truth: float

    @property
    def covered(self) -> bool:
        return abs(self.rated - self.truth) <= self.half_width


@dataclass
class Run:
    """A newcomer's steps and the scales of its ladder's ratings at the last of them."""

    steps: list[Step]
    scales: Scales


def newcomer(
    pool: Ladder, matchmaking: bool, max_games: int, every: int, settled: float, rng: random.Random
) -> Run:
    """A newcomer joins a copy of ``pool`` and the ladder plays on until the fit's half width of the newcomer is
    under ``settled`` or it has played ``max_games``; a step after every ``every`` of its games."""
    ladder = pool.copy()
    bot = ladder.add(rng.gauss(0.0, TRUE_SD))
    steps: list[Step] = []
    fitted: dict[int, Rating] = {}
    while ladder.played(bot) < max_games:
        ladder.play_round(matchmaking, rng)
        games = ladder.played(bot)
        if games % every and games < max_games:
            continue
        fitted = fit(ladder.games, intervals=True, start={player: rating.elo for player, rating in fitted.items()})
        rating = fitted[bot]
        steps.append(Step(games, (rating.high - rating.low) / 2, rating.elo, ladder.relative_truth(bot, fitted)))
        if steps[-1].half_width < settled:
            break
    return Run(steps, scales(ladder, fitted))


def settle_games(steps: Sequence[Step], limit: float) -> Step | None:
    """The first step whose half width was under ``limit`` Elo, or ``None`` if none was."""
    return next((step for step in steps if step.half_width < limit), None)


def quantile(values: Sequence[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank), ``inf`` counting as larger than any number."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def games_text(value: float) -> str:
    return "never" if math.isinf(value) else f"{value:.0f}"


def summary(runs: Sequence[Sequence[Step]], limits: Sequence[float]) -> str:
    """One line of figures over ``runs``: per limit the games to settle, the share settled and covered."""
    parts = []
    for limit in limits:
        firsts = [settle_games(steps, limit) for steps in runs]
        counted = [math.inf if step is None else float(step.games) for step in firsts]
        settled = [step for step in firsts if step is not None]
        cover = f"{100 * sum(step.covered for step in settled) / len(settled):3.0f}%" if settled else "   -"
        parts.append(
            f"±{limit:<4.0f} median {games_text(quantile(counted, 0.5)):>5}  p90 {games_text(quantile(counted, 0.9)):>5}"
            f"  settled {100 * len(settled) / len(runs):3.0f}%  covers {cover}"
        )
    return "  |  ".join(parts)


def scales_text(fitted: float, wenglin: float) -> str:
    return f"fit {fitted:.2f} x truth, Weng-Lin {wenglin:.2f} x truth"


def run(
    bots: int,
    seats: Sequence[int],
    runs: int,
    warmup: int,
    max_games: int,
    every: int,
    limits: Sequence[float],
    seed: int,
) -> list[str]:
    """The figures' lines, two per table size and opponents' choice (printed as they come)."""
    lines = []
    for size in seats:
        for matchmaking in (True, False):
            rng = random.Random(seed * 1000 + size * 10 + matchmaking)
            opponents = "pick_table" if matchmaking else "random"
            pool = warmed_pool(bots, size, warmup, matchmaking, rng)
            warm = scales(pool, fit(pool.games, intervals=False))
            results = [
                newcomer(pool, matchmaking, max_games, every, min(limits), random.Random(rng.random()))
                for _ in range(runs)
            ]
            end = Scales(
                statistics.median(result.scales.fitted for result in results),
                statistics.median(result.scales.wenglin for result in results),
            )
            for line in (
                f"{size} seats  {opponents:<10} pool of {bots}: after {warmup} rounds {scales_text(warm.fitted, warm.wenglin)};"
                f" at the runs' end (median) {scales_text(end.fitted, end.wenglin)}",
                f"{size} seats  {opponents:<10} {runs} runs  {summary([result.steps for result in results], limits)}",
            ):
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
    parser.add_argument("--runs", type=int, default=20, help="newcomers, each in its own copy of the pool")
    parser.add_argument("--warmup", type=int, default=30, help="rounds (games a bot) the pool plays before")
    parser.add_argument("--max-games", type=int, default=400, help="the newcomer's games at most in each run")
    parser.add_argument("--every", type=int, default=5, help="the newcomer's games between two fits")
    parser.add_argument("--settled", type=integers, default=[50, 100], help="half widths (Elo) counted as settled")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args(argv)
    if not options.seats or any(size not in (2, 3, 4) for size in options.seats):
        parser.error("--seats must list table sizes of 2 to 4")
    if options.bots < max(options.seats) or options.runs < 1 or options.max_games < 1 or options.warmup < 1:
        parser.error("--bots must fill a table, --runs, --max-games and --warmup be at least 1")
    if options.every < 1:
        parser.error("--every must be at least 1")
    if not options.settled or any(limit <= 0 for limit in options.settled):
        parser.error("--settled must list positive half widths")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    run(
        options.bots,
        options.seats,
        options.runs,
        options.warmup,
        options.max_games,
        options.every,
        [float(limit) for limit in options.settled],
        options.seed,
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
