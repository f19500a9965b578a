"""A match's verdict in words (``sorry-arena match``, ``verdict_text`` of ``GET /api/v1/matches/{id}``): what the
test showed and no more, with the hypotheses, the Elo model and the table size.

An SPRT that accepts H1 gives *evidence that A is stronger* (at a true ``elo0`` it does so with a chance of at most
about ``alpha``), not that A is ``elo1`` stronger: a bot truly halfway between the hypotheses passes about half the
time. One that accepts H0 found *no evidence of a gain of* ``elo1`` (a true ``elo1`` is missed with a chance of about
``beta``), not that A is at most ``elo0`` stronger. Pure.
"""

from __future__ import annotations

STOPPED_COVERAGE = "88-94%"
"""How often the nominal 95% interval shown once a match has stopped covers the true difference, measured by
``benchmarks/sprt_verdicts.py`` (the default test, 0 to +45 normalized Elo): the interval is not corrected for early
stopping."""


def test_words(elo0: float, elo1: float, model: str, seats: int, gauntlet: int = 1) -> str:
    """``elo0=0, elo1=30, normalized Elo, at 2 seats``, and the Holm correction of a gauntlet of more than one."""
    said = f"elo0={elo0:g}, elo1={elo1:g}, {model} Elo, at {seats} seats"
    return said if gauntlet <= 1 else f"{said}, Holm-corrected over a gauntlet of {gauntlet}"


def verdict_words(
    verdict: str,
    elo0: float,
    elo1: float,
    model: str,
    seats: int,
    max_games: int,
    a: str = "A",
    b: str = "B",
    gauntlet: int = 1,
) -> str:
    """The verdict (``H1``, ``H0``, ``inconclusive``, ``cancelled``, ``continue``) in words."""
    test = test_words(elo0, elo1, model, seats, gauntlet)
    if verdict == "H1":
        return f"evidence that {a} is stronger than {b} (H1 accepted at {test})"
    if verdict == "H0":
        return f"no evidence of a gain of {elo1:g} by {a} over {b} (H0 accepted at {test})"
    if verdict == "inconclusive":
        return f"no verdict in {max_games} games ({test})"
    if verdict == "cancelled":
        return f"cancelled before a verdict ({test})"
    return f"playing: no verdict yet ({test})"
