"""What a match's verdict and estimate are worth, and what a gauntlet's Holm correction holds, by simulation of the
real SPRT (``ratings/sprt_simulation.py``: the test of ``ratings/sprt.py`` on games without ties).

    .venv/bin/python benchmarks/sprt_verdicts.py [--matches 2000] [--gauntlets 1000] [--max-games 2000] [--seed 1]

For the default test (normalized Elo ``[0, 30]``, alpha = beta = 0.05, ``--max-games``) at true normalized Elo 0,
10, 15, 20, 30 and 45 it plays ``--matches`` simulated matches each and prints: the share that accepted H1, H0 and
none; the mean games; beside them Wald's approximation of the plan (``ratings/sprt_plan.py``) that a match shows
before it starts; the mean normalized estimate after stopping among the H1 verdicts; and how often the nominal 95%
interval of the normalized Elo (``ratings.sprt.estimate``, not corrected for early stopping) covers the truth, over
all matches and among the H1 and H0 verdicts; and for the estimate corrected for early stopping
(``ratings/sprt_stopped.py``), how often its 95% interval covers the truth and its estimate lies above it (1/2 for a
median-unbiased one). Then ``--gauntlets`` gauntlets of 16 opponents all as strong as the
bot (every null true), with Holm's step-down (``ratings/gauntlet.py``) and without a correction: the share with at
least one false H1 (the family-wise error), with a one-sided 95% upper bound. The load average is printed before
and after (nothing is timed: a loaded machine only takes longer).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings.sprt import Sprt, estimate
from ratings.sprt_plan import point
from ratings.sprt_simulation import GauntletSimulation, play, thresholds, win_chance
from ratings.sprt_stopped import stopped

TRUTHS = (0.0, 10.0, 15.0, 20.0, 30.0, 45.0)


def wilson_upper(hits: int, trials: int, z: float = 1.6449) -> float:
    p = hits / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return (centre + spread) / (1 + z * z / trials)


def share(covered: dict[str, int], verdicts: dict[str, int], kind: str) -> str:
    """The share of ``kind``'s verdicts whose interval covered the truth."""
    return f"{covered[kind] / verdicts[kind]:6.1%}" if verdicts[kind] else "   -  "


def matches(args: argparse.Namespace, rng: random.Random) -> None:
    test = Sprt(0.0, 30.0)
    lower, upper = test.bounds
    limits = thresholds(test, lower, upper, args.max_games)
    print(
        "true nElo | H1    H0    none  | games | Wald: H1    none  games | H1 mean nElo | covered: all   H1     H0"
        "     | corrected: covered, above the truth"
    )
    for truth in TRUTHS:
        p = win_chance(truth)
        verdicts: dict[str, int] = {"H1": 0, "H0": 0, "inconclusive": 0}
        covered: dict[str, int] = {"H1": 0, "H0": 0, "inconclusive": 0}
        games = 0
        h1_estimates: list[float] = []
        corrected_covered = corrected_above = 0
        for _ in range(args.matches):
            verdict, n, wins = play(limits, p, args.max_games, rng)
            verdicts[verdict] += 1
            games += n
            found = estimate([n - wins, 0, wins])
            assert found is not None
            covered[verdict] += found.nelo_low <= truth <= found.nelo_high
            if verdict == "H1":
                h1_estimates.append(found.nelo)
            corrected = stopped(test, False, lower, upper, verdict, n, test.llr([n - wins, 0, wins]))
            assert corrected is not None
            corrected_covered += corrected.nelo_low <= truth <= corrected.nelo_high
            corrected_above += corrected.nelo > truth
        wald = point(test, truth, False, args.max_games, lower, upper)

        mean_h1 = sum(h1_estimates) / len(h1_estimates) if h1_estimates else math.nan
        print(
            f"{truth:9g} | {verdicts['H1'] / args.matches:5.1%} {verdicts['H0'] / args.matches:5.1%} "
            f"{verdicts['inconclusive'] / args.matches:5.1%} | {games / args.matches:5.0f} | "
            f"     {wald.p_h1:5.1%} {wald.p_none:5.1%} {wald.games:5.0f} | {mean_h1:12.1f} | "
            f"      {sum(covered.values()) / args.matches:6.1%} {share(covered, verdicts, 'H1')} "
            f"{share(covered, verdicts, 'H0')} | {corrected_covered / args.matches:6.1%} "
            f"{corrected_above / args.matches:6.1%}"
        )


def gauntlets(args: argparse.Namespace, rng: random.Random) -> None:
    test = Sprt(0.0, 30.0)
    p = win_chance(0.0)
    for holm in (True, False):
        simulation = GauntletSimulation(test, 16, args.max_games, holm=holm)
        false_pass = sum("H1" in simulation.play([p] * 16, rng) for _ in range(args.gauntlets))
        name = "Holm's step-down" if holm else "uncorrected     "
        print(
            f"16 opponents at Elo 0, {name}: at least one false H1 in {false_pass} of {args.gauntlets} gauntlets "
            f"({false_pass / args.gauntlets:.1%}, one-sided 95% upper bound {wilson_upper(false_pass, args.gauntlets):.1%})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--gauntlets", type=int, default=1000)
    parser.add_argument("--max-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    matches(args, rng)
    gauntlets(args, rng)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
