"""How ``sorry-arena match`` shows a match, wherever it is played (through the REST API, ``cli/match.py``, or
in-process, ``cli/match_local.py``): its first line (the bots, the game, the table size and the fillers), the test
and its plan before the first game, a live bar of the log-likelihood
ratio between the test's bounds, a summary line, the verdict in words (with the hypotheses, the Elo model and the
table size), the estimate labelled as not corrected for early stopping, and the exit status that says the verdict."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ratings.verdict_words import STOPPED_COVERAGE, verdict_words

EXIT = {"H1": 0, "H0": 3, "inconclusive": 4, "cancelled": 1}


def bar_value(match: dict[str, Any]) -> float:
    """The LLR's place between the bounds, 0 (H0) to 1 (H1): what the bar shows."""
    lower, upper = match["lower"], match["upper"]
    return float(min(max((match["llr"] - lower) / (upper - lower), 0.0), 1.0))


def summary(match: dict[str, Any]) -> str:
    """The LLR, the counts (of pairs on paired deals, of games lost, tied and won on independent deals: a match with
    another account's bot) and the Elo difference in the Elo of the test's model, labelled (last: a narrow terminal
    cuts it, the final lines give it whole)."""
    paired = match.get("paired", True)  # a local match (cli/match_local.py) is always paired
    elo = match["elo"]
    model = match.get("model", "normalized")
    shown = ("no pair yet" if paired else "no game yet") if elo is None else f"{model} Elo {elo_range(elo, model)}"
    counted = f"{match['pairs']} pairs" if paired else f"{sum(match['counts'])} games lost/tied/won"
    llr = f"LLR {match['llr']:+.2f} ({match['lower']:.2f}, {match['upper']:.2f})"
    return f"{llr}, {counted} {match['counts']}, {shown}"


def elo_range(elo: dict[str, Any], model: str) -> str:
    """``+12 [-3, +27]``: the estimate in ``model``'s Elo (normalized or logistic) and its 95% interval."""
    keys = ("nelo", "nelo_low", "nelo_high") if model == "normalized" else ("elo", "low", "high")
    middle, low, high = (elo[key] for key in keys)

    def shown(value: float | None, infinite: str) -> str:
        return infinite if value is None else f"{value:+.0f}"

    infinite = "-inf" if elo.get("score", 1.0) < 0.5 else "+inf"  # every pair lost, or every one won
    return f"{shown(middle, infinite)} [{shown(low, '-inf')}, {shown(high, '+inf')}]"


def header_line(title: str, match: dict[str, Any]) -> str:
    """The match's first line: A and B, the game and the table size (seats per game), and the fillers that take
    the other seats of a larger table (bot ids on the service, local bots as given)."""
    line = (
        f"{title}: {match['name_a']} (A) against {match['name_b']} (B), {match['game']} game, "
        f"{match['table_size']} seats per game"
    )
    fillers = [f"bot {filler}" if isinstance(filler, int) else str(filler) for filler in match["fillers"]]
    return f"{line} (the other seats: {', '.join(fillers)})" if fillers else line


def plan_lines(match: dict[str, Any]) -> list[str]:
    """Before the first game: the test, then at each true difference of its plan the chance of H1, of no verdict
    and the games expected (Wald's approximation, ``ratings/sprt_plan.py``)."""
    lines = [f"the test: {test_words(match)}, alpha {match['alpha']:g}, beta {match['beta']:g}"]
    for point in match["plan"]:
        lines.append(
            f"  if A is truly {point['elo']:+g} {match['model']} Elo: H1 {point['p_h1']:.0%} "
            f"({point['p_h1_ever']:.0%} without a limit), no verdict in {match['max_games']} games "
            f"{point['p_none']:.0%}, about {point['games']:.0f} games"
        )
    lines.append("  (Wald's approximation: docs/ratings.md)")
    return lines


def test_words(match: dict[str, Any]) -> str:
    return f"elo0={match['elo0']:g}, elo1={match['elo1']:g}, {match['model']} Elo, at {match['table_size']} seats"


def estimate_line(match: dict[str, Any]) -> str | None:
    """The estimate once the match is over, labelled: it is not corrected for early stopping."""
    elo = match["elo"]
    if elo is None:
        return None
    shown = (
        f"estimate: {elo_range(elo, 'normalized')} normalized Elo, {elo_range(elo, 'logistic')} logistic (nominal "
        f"95% intervals, {COVERAGE_NOTE})"
    )
    corrected = match.get("elo_stopped")
    if corrected:
        shown += (
            f"\ncorrected for early stopping: {elo_range(corrected, 'normalized')} normalized Elo "
            "(median-unbiased, 95% interval)"
        )
    return shown


COVERAGE_NOTE = f"not corrected for early stopping: after a verdict they cover the truth in about {STOPPED_COVERAGE} of matches"
"""What the interval shown after the test stopped is worth, measured by ``benchmarks/sprt_verdicts.py``."""


def llr_bar(console: Console, disable: bool = False) -> Progress:
    """The live bar of a match's LLR between H0 and H1, its :func:`summary` beside it."""
    columns = (TextColumn("H0"), BarColumn(), TextColumn("H1 {task.description}"), TimeElapsedColumn())
    return Progress(*columns, console=console, transient=False, disable=disable)


def show(progress: Progress, task: Any, match: dict[str, Any]) -> None:
    progress.update(task, completed=round(1000 * bar_value(match)), description=summary(match))


def verdict_line(match: dict[str, Any]) -> str:
    """The verdict in words (``ratings/verdict_words.py``: the service's ``verdict_text``) and the games played."""
    said = match.get("verdict_text") or verdict_words(
        match["verdict"],
        match["elo0"],
        match["elo1"],
        match["model"],
        match["table_size"],
        match["max_games"],
        match["name_a"],
        match["name_b"],
    )
    return f"verdict: {match['verdict']}: {said}; {match['games']} games"
