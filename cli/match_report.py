"""How ``sorry-arena match`` shows a match, wherever it is played (through the REST API, ``cli/match.py``, or
in-process, ``cli/match_local.py``): a live bar of the log-likelihood ratio between the test's bounds, a summary
line, the verdict, and the exit status that says it."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

EXIT = {"H1": 0, "H0": 3, "inconclusive": 4, "cancelled": 1}


def bar_value(match: dict[str, Any]) -> float:
    """The LLR's place between the bounds, 0 (H0) to 1 (H1): what the bar shows."""
    lower, upper = match["lower"], match["upper"]
    return float(min(max((match["llr"] - lower) / (upper - lower), 0.0), 1.0))


def summary(match: dict[str, Any]) -> str:
    """The LLR, the Elo difference and the counts: of pairs on paired deals, of games (lost, tied, won) on
    independent deals (a match with another account's bot)."""
    paired = match.get("paired", True)  # a local match (cli/match_local.py) is always paired
    elo = match["elo"]
    shown = "no pair yet" if paired else "no game yet"
    if elo is not None:
        low = "-inf" if elo["low"] is None else f"{elo['low']:+.0f}"
        high = "+inf" if elo["high"] is None else f"{elo['high']:+.0f}"
        middle = "inf" if elo["elo"] is None else f"{elo['elo']:+.0f}"
        shown = f"Elo {middle} [{low}, {high}]"
    counted = f"{match['pairs']} pairs" if paired else f"{sum(match['counts'])} games lost/tied/won"
    return f"LLR {match['llr']:+.2f} ({match['lower']:.2f}, {match['upper']:.2f}) {shown}, {counted} {match['counts']}"


def llr_bar(console: Console, disable: bool = False) -> Progress:
    """The live bar of a match's LLR between H0 and H1, its :func:`summary` beside it."""
    columns = (TextColumn("H0"), BarColumn(), TextColumn("H1 {task.description}"), TimeElapsedColumn())
    return Progress(*columns, console=console, transient=False, disable=disable)


def show(progress: Progress, task: Any, match: dict[str, Any]) -> None:
    progress.update(task, completed=round(1000 * bar_value(match)), description=summary(match))


def verdict_line(match: dict[str, Any]) -> str:
    meaning = {
        "H1": f"{match['name_a']} is stronger (at least {match['elo1']:g} Elo, H1 accepted)",
        "H0": f"{match['name_a']} is not {match['elo1']:g} Elo stronger (at most {match['elo0']:g}: H0 accepted)",
        "inconclusive": f"no verdict in {match['max_games']} games",
        "cancelled": "the match was cancelled",
    }
    verdict = match["verdict"]
    return f"verdict: {verdict}: {meaning.get(verdict, verdict)}; {match['games']} games"
