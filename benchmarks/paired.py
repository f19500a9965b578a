"""How many games a match needs to a verdict, paired deals against unpaired games, by simulation.

    .venv/bin/python benchmarks/paired.py [--deals 300] [--tests 400] [--seed 1] [--elo1 30]

For each game (card, board) and each question (greedy against random, search against greedy, 2 seats) it plays
``--deals`` deals with the engine bots in-process (``engine/simulation.py``), each twice with the seats swapped.
Then it runs ``--tests`` simulated SPRTs (``ratings/sprt.py``, logistic Elo ``[0, --elo1]``: the same meaning in both designs, alpha = beta = 0.05)
of each design, interleaved, drawing from those games with replacement:

- *paired*: pairs of one deal (the pentanomial model), as ``POST /api/v1/matches`` plays them;
- *unpaired*: single games of independent deals, the seats alternating (the trinomial model).

It prints, per design, the median and mean games to a verdict, the share of tests that accepted H1 (the stronger
bot is better: the right answer here) and that reached no verdict within ``--max-games``, the ratio of the mean
games, and the load average before and after (the machine is shared: a simulation is not timed, but a loaded
machine takes longer).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.simulation import game_seed, play_game
from ratings.sprt import Sprt, game_score, pair_bin

QUESTIONS = (("greedy", "random"), ("search", "greedy"))


def deals(game: str, stronger: str, weaker: str, count: int, seed: int) -> list[tuple[float, float]]:
    """A's (the stronger bot's) score in each game of ``count`` deals, seats swapped: ``(first, second)``."""
    played = []
    for index in range(count):
        deal = game_seed(seed, index)
        first = play_game(game, {"players": 2}, deal, [stronger, weaker]).ranks
        second = play_game(game, {"players": 2}, deal, [weaker, stronger]).ranks
        played.append((game_score(first[0], first[1]), game_score(second[1], second[0])))
    return played


def run_test(
    test: Sprt, scores: list[tuple[float, float]], paired: bool, max_games: int, rng: random.Random
) -> tuple[int, str]:
    """Games played and the verdict of one simulated SPRT drawing from ``scores``."""
    counts = [0] * (5 if paired else 3)
    games = 0
    while games < max_games:
        if paired:
            counts[pair_bin(*rng.choice(scores))] += 1
            games += 2
        else:
            for _ in range(2):  # two single games of different deals, one in each seat order
                counts[round(2 * rng.choice(scores)[games % 2])] += 1
                games += 1
        verdict = test.verdict(counts)
        if verdict != "continue":
            return games, verdict
    return games, "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300, help="deals played per game and question")
    parser.add_argument("--tests", type=int, default=400, help="simulated SPRTs per design")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--elo1", type=float, default=30.0, help="H1's logistic Elo (H0: 0)")
    parser.add_argument("--max-games", type=int, default=4000)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    test = Sprt(0.0, args.elo1, model="logistic")
    for game in ("card", "board"):
        for stronger, weaker in QUESTIONS:
            scores = deals(game, stronger, weaker, args.deals, args.seed)
            rng = random.Random(args.seed)
            results: dict[bool, list[tuple[int, str]]] = {True: [], False: []}
            for _ in range(args.tests):  # interleaved: each design in turn
                for paired in (True, False):
                    results[paired].append(run_test(test, scores, paired, args.max_games, rng))
            means = {}
            for paired in (True, False):
                games = [played for played, _ in results[paired]]
                h1 = sum(verdict == "H1" for _, verdict in results[paired]) / args.tests
                none = sum(verdict == "none" for _, verdict in results[paired]) / args.tests
                means[paired] = statistics.mean(games)
                print(
                    f"{game:5} {stronger} vs {weaker:6} {'paired  ' if paired else 'unpaired'} "
                    f"median {statistics.median(games):6.0f} mean {means[paired]:7.1f} games, "
                    f"H1 {h1:.3f}, no verdict {none:.3f}"
                )
            print(
                f"{game:5} {stronger} vs {weaker:6} unpaired / paired mean games: {means[False] / means[True]:.2f}"
            )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
