"""The normalized Elo difference of a match once its SPRT (``ratings/sprt.py``) has stopped, corrected for the
stopping: the median-unbiased estimate and a 95% interval by the stagewise ordering of the outcomes (as for group
sequential tests: C. Jennison and B. W. Turnbull, "Group Sequential Methods with Applications to Clinical Trials",
2000, chapter 8), on Wald's Brownian approximation of the LLR (``ratings/sprt_plan.py``).

A test that stops at a bound stopped because the evidence happened to be strong, so the fixed-sample estimate
(``ratings.sprt.estimate``) is too far from 0 and its interval covers the truth less often than it says. Order the
outcomes from the strongest for A to the weakest: H1 sooner, H1 later, no verdict at ``max_games`` by the LLR
reached, H0 later, H0 sooner. For a true effect ``t``, ``G(t)`` is the chance of an outcome at least as strong as
the one observed; it grows with ``t``. The estimate solves ``G(t) = 1/2``, the interval ``G(t) = 0.025`` and
``0.975``. With the motion of drift ``(t1 - t0)(t - (t0 + t1)/2)`` and variance ``(t1 - t0)^2`` per observation
between the bounds, ``G`` is a series (the flux out of each bound by a time, and the killed density above a level;
Cox and Miller, 1965, 5.7). Only for the normalized model, whose LLR is that motion to first order whatever the
game; the approximation ignores the overshoot of the bounds. ``benchmarks/sprt_verdicts.py`` measures its coverage.
Pure: standard library only.
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from typing import Any

from ratings.sprt import NORMALIZED_SCALE, Sprt
from ratings.sprt_plan import operating_characteristic

TERMS = 400
SPAN = 40.0
"""The search for ``t`` runs over ``t0 - SPAN (t1 - t0)`` to ``t1 + SPAN (t1 - t0)``."""


@dataclass(frozen=True)
class Stopped:
    """The corrected normalized Elo (``nelo``, median-unbiased) and its 95% interval."""

    nelo: float
    nelo_low: float
    nelo_high: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def stronger_chance(
    test: Sprt,
    paired: bool,
    t: float,
    lower: float,
    upper: float,
    verdict: str,
    observations: int,
    llr: float,
) -> float:
    """``G(t)``: the chance, at a true effect ``t`` per observation, of an outcome at least as strong for A as a
    stop with ``verdict`` after ``observations`` (``inconclusive``: the test cut there, at ``max_games``, with the
    LLR ``llr``)."""
    per = _per_observation(paired)
    t0, t1 = test.elo0 * per, test.elo1 * per
    sigma2 = (t1 - t0) ** 2
    mu = (t1 - t0) * (t - (t0 + t1) / 2.0)
    c = mu / sigma2
    width, start = upper - lower, -lower
    flux_up = flux_down = 0.0  # the flux out of each bound after the time, times 1 / (sigma2 / width) e^(...)
    above = 0.0
    time = observations
    level = min(max(llr - lower, 0.0), width)
    for k in range(1, TERMS + 1):
        wave = k * math.pi / width
        rate = mu * mu / (2.0 * sigma2) + wave * wave * sigma2 / 2.0
        odd = k % 2 == 1
        decay = math.exp(-rate * time)
        if decay < 1e-20 and k > 2:  # every further term is smaller still
            break
        flux_up += (1.0 if odd else -1.0) * wave * math.sin(wave * start) * decay / rate
        flux_down += wave * math.sin(wave * start) * decay / rate
        if verdict == "inconclusive":
            top = -wave * (-1.0 if odd else 1.0) * math.exp(c * width)
            bottom = math.exp(c * level) * (c * math.sin(wave * level) - wave * math.cos(wave * level))
            above += math.sin(wave * start) * (top - bottom) / (c * c + wave * wave) * decay
    ever_up = operating_characteristic(2.0 * c, lower, upper)
    up_by = ever_up - (sigma2 / width) * math.exp(c * (width - start)) * flux_up
    down_by = (1.0 - ever_up) - (sigma2 / width) * math.exp(-c * start) * flux_down
    if verdict == "H1":
        return _clip(up_by)
    if verdict == "H0":
        return _clip(1.0 - down_by)
    return _clip(up_by + (2.0 / width) * math.exp(-c * start) * above)


@functools.lru_cache(maxsize=4096)
def stopped(
    test: Sprt, paired: bool, lower: float, upper: float, verdict: str, observations: int, llr: float
) -> Stopped | None:
    """The corrected estimate of a match over (``H1``, ``H0``, ``inconclusive``) after ``observations`` (pairs on
    paired deals, games on independent ones), or ``None``: not the normalized model, or not over. A decided match's
    never changes: kept (a few thousand) once computed."""
    if test.model != "normalized" or verdict not in ("H1", "H0", "inconclusive") or observations < 1:
        return None
    per = _per_observation(paired)
    t0, t1 = test.elo0 * per, test.elo1 * per
    low_t, high_t = t0 - SPAN * (t1 - t0), t1 + SPAN * (t1 - t0)

    def solve(target: float) -> float:
        low, high = low_t, high_t
        for _ in range(45):
            middle = (low + high) / 2.0
            if stronger_chance(test, paired, middle, lower, upper, verdict, observations, llr) < target:
                low = middle
            else:
                high = middle
        return (low + high) / 2.0 / per

    return Stopped(nelo=solve(0.5), nelo_low=solve(0.025), nelo_high=solve(0.975))


def _per_observation(paired: bool) -> float:
    """The effect ``t`` of one observation per normalized Elo: a pair's on paired deals, a game's on independent ones
    (as ``ratings.sprt_plan.effect``)."""
    return (math.sqrt(2.0) if paired else 1.0) / NORMALIZED_SCALE


def _clip(value: float) -> float:
    return min(max(value, 0.0), 1.0)
