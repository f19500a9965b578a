"""The sequential probability ratio test (SPRT) of a match between two bots, on pairs of games (pentanomial) or on
single games (trinomial).

A match on *paired deals* plays its games in pairs that share one deal (the same seed): in the second game of a
pair the two bots swap seats. Each game scores bot A against bot B: 1 if A finished ahead of B, 0.5 if they tied, 0 if behind (in
a 3- or 4-seat game the other seats are fillers, the same bots in the same seats in both games of the pair, and
only A's and B's ranks count). A pair's outcome is the sum of A's two scores, one of five values 0, 0.5, 1, 1.5
and 2: the *pentanomial* counts ``counts[k]`` are the pairs that scored ``k / 2``. The deal's luck hits both games
of a pair alike, so the pair's sum varies less than two independent games would, and the test needs fewer games.
A match on *independent deals* (each game its own seed: the bots of other accounts never share a deal, since a bot
could remember a deal it held) counts single games instead: ``counts`` are the losses, ties and wins of A, the
*trinomial* counts, and the same test runs on them with a game's score ``x_i = i / 2`` (fastchess's trinomial
model, which it uses whenever the openings are not paired).

The test follows fastchess (its ``SPRT`` class and ``EloPentanomial``) and the notes it cites:

- the bounds: ``lower = ln(beta / (1 - alpha))``, ``upper = ln((1 - beta) / alpha)`` (Wald); the test stops with
  ``H1`` (A is at least ``elo1`` stronger) once ``LLR >= upper``, ``H0`` (at most ``elo0``) once
  ``LLR <= lower``, and continues in between;
- the LLR is the generalized SPRT of M. Van den Bergh ("Comments on Normalized Elo"): the log-likelihood ratio of
  the empirical pair outcomes under the two maximum-likelihood distributions constrained by each hypothesis,
  ``LLR = N * sum_i phat_i * (ln p1_i - ln p0_i)`` with ``N`` the pairs and ``phat_i`` the observed frequencies
  (a count of 0 counts as 0.001, as fastchess regularizes it). The per-pair score is ``x_i = i / 4`` (0, 0.25,
  0.5, 0.75, 1: the pair's points over 2);
- ``model="normalized"`` (fastchess's default): the hypotheses are on normalized Elo, ``t = (mu - 1/2) / sigma``
  with ``t_k = sqrt(2) * elo_k / (800 / ln 10)``; the constrained distribution is found by the fixed-point
  iteration of section 4.1 of the note (``phi_i = x_i - 1/2 - t/2 * sigma * (1 + ((x_i - mu) / sigma)^2)``,
  ``p_i = phat_i / (1 + theta * phi_i)`` with ``sum_i phat_i * phi_i / (1 + theta * phi_i) = 0``);
- ``model="logistic"``: the hypotheses are on logistic Elo, score ``s_k = 1 / (1 + 10^(-elo_k / 400))``, the
  constrained distribution ``p_i = phat_i / (1 + theta * (x_i - s))`` (proposition 1.1 of the note);
- the Elo difference: the mean pair score ``s`` and its variance per pair ``var / N``; ``elo = -400 log10(1 / s
  - 1)`` and the 95% interval maps ``s -+ 1.96 sqrt(var / N)`` the same way (fastchess prints the half width of
  that interval; it is asymmetric, and here both ends are given); the normalized Elo is ``(s - 1/2) /
  sqrt(2 var) * 800 / ln 10``.

The LLRs agree with fastchess's reference values to their 2 decimals (``tests/ratings/test_sprt.py``), except for
clean sweeps (every pair won), where fastchess's value depends on its root finder's tolerances against the
regularized empty bins; here each constrained maximum is solved to convergence. Pure: standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

Model = Literal["normalized", "logistic"]
Verdict = Literal["H0", "H1", "continue"]

MODELS: tuple[Model, ...] = ("normalized", "logistic")
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A pair's score per outcome bin: its points (0, 0.5, 1, 1.5 or 2) over the 2 games."""
GAME_SCORES = (0.0, 0.5, 1.0)
"""A single game's score per bin (loss, tie, win): the trinomial model of unpaired games."""
EMPTY_BIN = 1e-3
"""What a bin with no pair counts as in the LLR (fastchess's ``regularize``): every log stays finite."""
Z_95 = 1.959963984540054
MAX_NORMALIZED = 200.0
"""The largest normalized Elo of a hypothesis: beyond it the constrained maximum of section 4.1 has no solution
for many counts (a pair distribution on [0, 1] rarely has ``(mu - 1/2) / sigma`` above 0.8); use logistic Elo."""
NORMALIZED_SCALE = 800.0 / math.log(10.0)
"""Normalized Elo per unit of ``t = (mu - 1/2) / sigma`` of a single game (fastchess's ``800 / ln 10``)."""


def game_score(rank_a: int, rank_b: int) -> float:
    """A's score against B in one game from their ranks (lower is better): 1 ahead, 0.5 tied, 0 behind."""
    return 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0


def pair_bin(first: float, second: float) -> int:
    """The pentanomial bin (0 to 4) of a pair whose games scored ``first`` and ``second`` for A."""
    for score in (first, second):
        if score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game scores 0, 0.5 or 1, not {score}")
    return round(2 * (first + second))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``."""
    check_errors(alpha, beta)
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def check_errors(alpha: float, beta: float) -> None:
    if not 0.0 < alpha < 1.0 or not 0.0 < beta < 1.0:
        raise ValueError(f"alpha and beta must be between 0 and 1, not {alpha} and {beta}")
    if alpha + beta >= 1.0:
        raise ValueError(f"alpha + beta must be less than 1, not {alpha + beta}")


def check_counts(counts: Sequence[int]) -> None:
    if len(counts) not in (3, 5) or any(count < 0 for count in counts):
        raise ValueError(f"counts are 5 numbers of 0 or more (pairs), or 3 (single games), not {list(counts)}")


def support(counts: Sequence[int]) -> tuple[float, ...]:
    """The score of each bin: a pair's (0, 0.25, 0.5, 0.75, 1) or a single game's (0, 0.5, 1)."""
    return PAIR_SCORES if len(counts) == 5 else GAME_SCORES


def check_range(elo0: float, elo1: float, model: Model) -> None:
    if model == "normalized" and max(abs(elo0), abs(elo1)) > MAX_NORMALIZED:
        raise ValueError(
            f"normalized Elo hypotheses lie within +-{MAX_NORMALIZED:g}, not {elo0:g} and {elo1:g} "
            "(use the logistic model for larger differences)"
        )


def verdict(llr_value: float, lower: float, upper: float) -> Verdict:
    """``H1`` at or above ``upper``, ``H0`` at or below ``lower``, else ``continue``."""
    if llr_value >= upper:
        return "H1"
    if llr_value <= lower:
        return "H0"
    return "continue"


def score_of_elo(elo: float) -> float:
    """The expected score of a player ``elo`` logistic Elo stronger: ``1 / (1 + 10^(-elo / 400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of_score(score: float) -> float:
    """The logistic Elo difference of an expected ``score`` (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def llr(counts: Sequence[int], elo0: float, elo1: float, model: Model = "normalized") -> float:
    """The log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) given the pentanomial ``counts`` (pairs
    scoring 0, 0.5, 1, 1.5, 2 points), or the trinomial ``counts`` of unpaired games (losses, ties, wins: fastchess's
    trinomial model, ``t_k = elo_k / (800 / ln 10)`` without the ``sqrt(2)``); 0 before any pair."""
    check_counts(counts)
    if not elo0 < elo1:
        raise ValueError(f"elo0 must be less than elo1, not {elo0} and {elo1}")
    if model not in MODELS:
        raise ValueError(f"the model is one of {', '.join(MODELS)}, not {model!r}")
    check_range(elo0, elo1, model)
    if not sum(counts):
        return 0.0
    regular = [float(count) if count else EMPTY_BIN for count in counts]
    total = sum(regular)
    observed = [count / total for count in regular]
    scores = support(counts)
    if model == "normalized":
        per_unit = (math.sqrt(2.0) if len(counts) == 5 else 1.0) / NORMALIZED_SCALE
        p0 = _normalized_mle(observed, scores, elo0 * per_unit)
        p1 = _normalized_mle(observed, scores, elo1 * per_unit)
    else:
        p0 = _logistic_mle(observed, scores, score_of_elo(elo0))
        p1 = _logistic_mle(observed, scores, score_of_elo(elo1))
    return total * sum(o * (math.log(b) - math.log(a)) for o, a, b in zip(observed, p0, p1, strict=True))


@dataclass(frozen=True)
class EloEstimate:
    """A's Elo advantage over B from the pairs (or single games): logistic ``elo`` with its 95% interval
    ``low``-``high``, the mean score per game, the normalized Elo and its interval, and the pairs counted (the games,
    on independent deals)."""

    pairs: int
    score: float
    elo: float
    low: float
    high: float
    nelo: float
    nelo_low: float
    nelo_high: float

    def to_json(self) -> dict[str, Any]:
        """JSON-safe: an infinite bound (every pair won, or none) is ``None``."""
        return {key: (value if math.isfinite(value) else None) for key, value in asdict(self).items()}


def estimate(counts: Sequence[int]) -> EloEstimate | None:
    """The Elo difference and its 95% interval from the pentanomial frequencies of pairs, or the trinomial ones of
    single games (``None`` before any): the normalized Elo divides by a game's standard deviation, ``sqrt(2 var)``
    from a pair's variance, ``sqrt(var)`` from a game's (fastchess's ``EloPentanomial`` and ``EloWDL``)."""
    check_counts(counts)
    samples = sum(counts)
    if not samples:
        return None
    scores = support(counts)
    per_game = 2.0 if len(counts) == 5 else 1.0
    score = sum(count * x for count, x in zip(counts, scores, strict=True)) / samples
    variance = sum(count * (x - score) ** 2 for count, x in zip(counts, scores, strict=True)) / samples
    half = Z_95 * math.sqrt(variance / samples)
    low, high = score - half, score + half

    def nelo(s: float) -> float:
        if variance == 0.0:
            return 0.0 if s == 0.5 else math.copysign(math.inf, s - 0.5)
        return (s - 0.5) / math.sqrt(per_game * variance) * NORMALIZED_SCALE

    return EloEstimate(
        pairs=samples,
        score=score,
        elo=elo_of_score(score),
        low=elo_of_score(low),
        high=elo_of_score(high),
        nelo=nelo(score),
        nelo_low=nelo(low),
        nelo_high=nelo(high),
    )


@dataclass(frozen=True)
class Sprt:
    """A test's settings: the hypotheses (``elo0 < elo1``), the error rates and the Elo model."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "normalized"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)) or not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be less than elo1, not {self.elo0} and {self.elo1}")
        check_errors(self.alpha, self.beta)
        if self.model not in MODELS:
            raise ValueError(f"the model is one of {', '.join(MODELS)}, not {self.model!r}")
        check_range(self.elo0, self.elo1, self.model)

    @property
    def bounds(self) -> tuple[float, float]:
        return bounds(self.alpha, self.beta)

    def llr(self, counts: Sequence[int]) -> float:
        return llr(counts, self.elo0, self.elo1, self.model)

    def verdict(self, counts: Sequence[int]) -> Verdict:
        lower, upper = self.bounds
        return verdict(self.llr(counts), lower, upper)


def _root(function: Callable[[float], float], low: float, high: float, tolerance: float) -> float:
    """A root of an increasing ``function`` on the open interval ``(low, high)``, by bisection (fastchess uses the
    ITP method, which finds the same root in fewer steps)."""
    for _ in range(200):
        middle = (low + high) / 2.0
        if high - low <= 2.0 * tolerance:
            return middle
        value = function(middle)
        if value == 0.0:
            return middle
        if value < 0.0:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _tilted(observed: Sequence[float], phi: Sequence[float], tolerance: float) -> list[float]:
    """``p_i = phat_i / (1 + theta * phi_i)`` with ``theta`` solving ``sum phat_i phi_i / (1 + theta phi_i) = 0``,
    ``theta`` in ``(-1 / max(phi), -1 / min(phi))`` where every ``1 + theta * phi_i`` is positive."""
    low, high = -1.0 / max(phi), -1.0 / min(phi)

    def equation(theta: float) -> float:  # decreasing in theta: negated for the increasing root finder
        return -sum(o * f / (1.0 + theta * f) for o, f in zip(observed, phi, strict=True))

    theta = _root(equation, low, high, tolerance)
    return [o / (1.0 + theta * f) for o, f in zip(observed, phi, strict=True)]


def _logistic_mle(observed: Sequence[float], scores: Sequence[float], score: float) -> list[float]:
    """The distribution of mean ``score`` nearest the observed one (proposition 1.1 of the note)."""
    return _tilted(observed, [x - score for x in scores], 1e-9)


def _normalized_mle(observed: Sequence[float], scores: Sequence[float], t: float) -> list[float]:
    """The distribution with ``(mu - 1/2) / sigma = t`` nearest the observed one (section 4.1 of the note): the
    fixed point of the tilt, from the uniform distribution."""
    p = [1.0 / len(scores)] * len(scores)
    for _ in range(1000):
        mu = sum(x * q for x, q in zip(scores, p, strict=True))
        sigma = math.sqrt(sum(q * (x - mu) ** 2 for x, q in zip(scores, p, strict=True)))
        phi = [x - 0.5 - 0.5 * t * sigma * (1.0 + ((x - mu) / sigma) ** 2) for x in scores]
        new = _tilted(observed, phi, 1e-12)
        moved = max(abs(a - b) for a, b in zip(new, p, strict=True))
        p = new
        if moved < 1e-10:
            break
    return p
