"""Two groups of bots that never met, fitted as one pool or group by group (``ratings.pool.standings``): how often
each bot's 95% interval covers its true rating, and how far the group's ratings are from the truth.

    .venv/bin/python benchmarks/pool_groups.py [--pools 200] [--games 300] [--gap 600] [--seed 1]

Each pool: two groups of five bots, true strengths 0, 50, ..., 200 Elo and ``--gap`` more for the second group;
``--games`` 2-seat games within each group (Bradley-Terry outcomes), none across. The truth a fit can know is each
bot's strength relative to its own group, so the truth is centred within each group (mean 1500). "one fit" fits
every game at once (``ratings.fit`` through ``ratings.summary.summarize``, what the standings did before: the groups
placed by the prior alone), "by group" is ``ratings.pool.standings``. Printed: the coverage of the 95% intervals over
every bot of every pool (with its binomial 95% interval) and the mean absolute error of the ratings, per method and
per the rank of the bot in its group (the extreme bots are where one fit misses most), with the load average.
"""

from __future__ import annotations

import argparse
import math
import os
import random
from collections import defaultdict

from ratings.pool import standings
from ratings.summary import summarize

GROUP = [0.0, 50.0, 100.0, 150.0, 200.0]


def simulate(
    generator: random.Random, strengths: dict[int, float], games: int
) -> list[tuple[list[int], list[int]]]:
    bots = sorted(strengths)
    played = []
    for _ in range(games):
        a, b = generator.sample(bots, 2)
        p = 1.0 / (1.0 + math.pow(10.0, (strengths[b] - strengths[a]) / 400.0))
        played.append(([a, b], [0, 1] if generator.random() < p else [1, 0]))
    return played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", type=int, default=200)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--gap", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generator = random.Random(args.seed)
    covered: dict[tuple[str, int], list[bool]] = defaultdict(list)
    errors: dict[str, list[float]] = defaultdict(list)
    widths: dict[str, list[float]] = defaultdict(list)
    for _ in range(args.pools):
        low = {bot: strength for bot, strength in enumerate(GROUP, start=1)}
        high = {bot + 10: strength + args.gap for bot, strength in enumerate(GROUP, start=1)}
        games = simulate(generator, low, args.games) + simulate(generator, high, args.games)
        truth = {}
        for group in (low, high):
            mean = sum(group.values()) / len(group)
            truth.update({bot: 1500.0 + strength - mean for bot, strength in group.items()})
        fitted = {
            "one fit": {row.player: (row.elo + 1500, row.low + 1500, row.high + 1500) for row in summarize(games)},
            "by group": {row.player: (row.rating, row.low, row.high) for row in standings(games)},
        }
        for method, rows in fitted.items():
            for bot, (rating, low_end, high_end) in rows.items():
                rank = (bot - 1) % 10
                covered[(method, rank)].append(low_end <= truth[bot] <= high_end)
                covered[(method, -1)].append(low_end <= truth[bot] <= high_end)
                errors[method].append(abs(rating - truth[bot]))
                widths[method].append((high_end - low_end) / 2)
    print(f"{args.pools} pools, 2 groups of 5 bots {args.gap:.0f} Elo apart, {args.games} games in each group")
    for method in ("one fit", "by group"):
        hits = covered[(method, -1)]
        share = sum(hits) / len(hits)
        half = 1.96 * math.sqrt(share * (1 - share) / len(hits))
        by_rank = " ".join(f"{100 * sum(covered[(method, r)]) / len(covered[(method, r)]):.0f}" for r in range(5))
        print(
            f"{method:>8}: coverage {100 * share:.1f}% [{100 * (share - half):.1f}, {100 * (share + half):.1f}] "
            f"(by rank in the group, weakest first: {by_rank}), mean |error| "
            f"{sum(errors[method]) / len(errors[method]):.1f} Elo, mean half-width "
            f"{sum(widths[method]) / len(widths[method]):.1f}"
        )
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
