"""A gauntlet's tests: one bot against ``k`` opponents, one SPRT (``ratings/sprt.py``) each, with Holm's step-down
correction so that the chance of even one false "A is stronger" among the ``k`` stays at most ``alpha``.

The sequential Holm procedure (J. Bartroff and T. L. Lai, "Multistage tests of multiple hypotheses",
Communications in Statistics, 2010): each match's H1 bound is Wald's upper bound at the level ``alpha / (k - r)``,
``r`` the matches of the gauntlet that accepted H1 so far, ``ln((1 - beta) / (alpha / (k - r)))``: ``alpha / k``
(Bonferroni) until a first match accepts H1, then looser as the field is beaten. The H0 bound is fixed for the whole
gauntlet, Wald's lower bound at ``alpha / k``, ``ln(beta / (1 - alpha / k))``, whatever the rejections (a match's
H0 is never re-opened). Why that holds the family-wise error: say ``m`` of the ``k`` nulls are true. When the first
true null is rejected at most ``k - m`` matches accepted H1 before (all of them false nulls), so it crossed a bound at
a level at most ``alpha / m``; its LLR reached Wald's upper bound at ``alpha / m`` before the fixed lower bound, which
under its null has a chance of about ``alpha / m`` (Wald's bound, less with the overshoot); over the ``m`` true
nulls, about ``alpha``. Matches played at once can only see fewer rejections than there are (a stricter bound),
never more. ``tests/ratings/test_gauntlet.py`` measures it by simulation: 16 opponents all as strong as the bot.

:func:`combined` gives the gauntlet one verdict: ``all`` (evidence that A is stronger than every opponent), ``some``
(than ``j`` of ``k``), ``none`` (no evidence against any), or ``continue`` while a match whose verdict could change
it is still played. Pure: standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ratings.sprt import check_errors

Combined = Literal["continue", "all", "some", "none"]


def gauntlet_bounds(alpha: float, beta: float, k: int, rejected: int) -> tuple[float, float]:
    """The bounds ``(lower, upper)`` of a gauntlet's match, ``k`` matches of which ``rejected`` accepted H1 (see the
    module docstring): a single match (``k = 1``) has Wald's own."""
    check_errors(alpha, beta)
    if not 0 <= rejected < k:
        raise ValueError(f"a gauntlet of {k} matches has 0 to {k - 1} rejections before the last, not {rejected}")
    lower = math.log(beta / (1.0 - alpha / k))
    upper = math.log((1.0 - beta) / (alpha / (k - rejected)))
    return lower, upper


@dataclass(frozen=True)
class GauntletVerdict:
    """The combined verdict: ``verdict`` over ``k`` matches, ``stronger`` of them H1 (evidence that A is stronger),
    ``weaker`` H0, the rest undecided (playing, inconclusive or cancelled)."""

    verdict: Combined
    k: int
    stronger: int
    weaker: int

    def words(self, elo0: float, elo1: float, model: str, seats: int) -> str:
        """The verdict in words, with the test and the table size."""
        test = f"Holm-corrected at elo0={elo0:g}, elo1={elo1:g}, {model} Elo, at {seats} seats"
        if self.verdict == "continue":
            return f"playing: {self.stronger} of {self.k} decided for A so far ({test})"
        if self.verdict == "all":
            return f"evidence that A is stronger than all {self.k} ({test})"
        if self.verdict == "some":
            return f"evidence that A is stronger than {self.stronger} of {self.k} ({test})"
        return f"no evidence that A is stronger than any of the {self.k} ({test})"


def combined(verdicts: Sequence[str]) -> GauntletVerdict:
    """One verdict from the matches' (``H1``, ``H0``, ``continue``, ``inconclusive``, ``cancelled``)."""
    k = len(verdicts)
    stronger = sum(verdict == "H1" for verdict in verdicts)
    weaker = sum(verdict == "H0" for verdict in verdicts)
    if "continue" in verdicts:
        kind: Combined = "continue"
    elif stronger == k:
        kind = "all"
    elif stronger:
        kind = "some"
    else:
        kind = "none"
    return GauntletVerdict(verdict=kind, k=k, stronger=stronger, weaker=weaker)
