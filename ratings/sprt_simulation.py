"""The real SPRT of ``ratings/sprt.py`` simulated on games without ties (independent deals: trinomial counts with no
tie), fast enough to run thousands of matches: what the tests of gauntlets (``ratings/gauntlet.py``) and the
benchmark of the estimate after stopping (``benchmarks/sprt_verdicts.py``) measure.

With no tie the counts after ``n`` games are ``(n - w, 0, w)`` and the LLR increases with the wins ``w``: the test
stops with H1 once ``w`` reaches the least ``w`` whose LLR is at or above the upper bound, with H0 once ``w`` falls
to the greatest whose LLR is at or below the lower bound. :func:`thresholds` finds both for every ``n`` with the LLR
itself (:meth:`ratings.sprt.Sprt.llr`, a few calls per ``n``), so that a simulated match is then a walk of ``w``
against two tables, the very test a match runs. Pure: standard library only.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ratings.gauntlet import gauntlet_bounds
from ratings.sprt import NORMALIZED_SCALE, Sprt, Verdict


@dataclass(frozen=True)
class Thresholds:
    """For ``n`` games (index ``n``, from 1): H1 once the wins reach ``h1[n]``, H0 once they fall to ``h0[n]``."""

    h0: list[int]
    h1: list[int]

    def verdict(self, games: int, wins: int) -> Verdict:
        if wins >= self.h1[games]:
            return "H1"
        if wins <= self.h0[games]:
            return "H0"
        return "continue"


def thresholds(test: Sprt, lower: float, upper: float, max_games: int) -> Thresholds:
    """The wins at which the test stops after each number of games up to ``max_games`` (no ties)."""
    h0, h1 = [-1], [1]
    for n in range(1, max_games + 1):

        def llr(wins: int, n: int = n) -> float:
            return test.llr([n - wins, 0, wins])

        w = min(h1[-1] + 1, n + 1)  # the H1 threshold moves by at most one win per game
        while w > 0 and llr(w - 1) >= upper:
            w -= 1
        while w <= n and llr(w) < upper:
            w += 1
        h1.append(w)
        w = max(min(h0[-1], n), -1)
        while w + 1 <= n and llr(w + 1) <= lower:
            w += 1
        while w >= 0 and llr(w) > lower:
            w -= 1
        h0.append(w)
    return Thresholds(h0=h0, h1=h1)


def win_chance(nelo: float) -> float:
    """The chance of a win in a game without ties whose normalized Elo is ``nelo``: ``(p - 1/2) / sqrt(p (1 - p))``
    times ``800 / ln 10``, solved for ``p``."""
    t = nelo / NORMALIZED_SCALE
    return 0.5 + 0.5 * t / math.sqrt(1.0 + t * t)


def play(limits: Thresholds, p: float, max_games: int, rng: random.Random) -> tuple[Verdict | str, int, int]:
    """One simulated match: its verdict (``inconclusive`` at ``max_games``), the games played and the wins."""
    wins = 0
    for n in range(1, max_games + 1):
        wins += rng.random() < p
        verdict = limits.verdict(n, wins)
        if verdict != "continue":
            return verdict, n, wins
    return "inconclusive", max_games, wins


class GauntletSimulation:
    """Simulated gauntlets of the test ``test`` against ``k`` opponents, with Holm's bounds
    (:func:`ratings.gauntlet.gauntlet_bounds`; ``holm=False``: each match at the full ``alpha``, as uncorrected): the
    matches advance one game each in turn, as a gauntlet's matches are played at once, and each bound is read with
    the rejections made so far. The thresholds of each level are found once, when first needed."""

    def __init__(self, test: Sprt, k: int, max_games: int, holm: bool = True) -> None:
        self.test, self.k, self.max_games, self.holm = test, k, max_games, holm
        self.levels: dict[int, Thresholds] = {}

    def limits(self, rejected: int) -> Thresholds:
        key = rejected if self.holm else -1
        if key not in self.levels:
            bounds = gauntlet_bounds(self.test.alpha, self.test.beta, self.k, rejected) if self.holm else None
            lower, upper = bounds or self.test.bounds
            self.levels[key] = thresholds(self.test, lower, upper, self.max_games)
        return self.levels[key]

    def play(self, chances: list[float], rng: random.Random) -> list[str]:
        """One gauntlet whose ``i``-th match A wins each game with chance ``chances[i]``: each match's verdict."""
        verdicts = ["continue"] * len(chances)
        wins = [0] * len(chances)
        rejected = 0
        for n in range(1, self.max_games + 1):
            limits = self.limits(rejected)
            for i, p in enumerate(chances):
                if verdicts[i] != "continue":
                    continue
                wins[i] += rng.random() < p
                verdict = limits.verdict(n, wins[i])
                if verdict == "H1":
                    rejected += 1
                    limits = self.limits(min(rejected, self.k - 1))
                if verdict != "continue":
                    verdicts[i] = verdict
            if "continue" not in verdicts:
                break
        return [("inconclusive" if verdict == "continue" else verdict) for verdict in verdicts]
