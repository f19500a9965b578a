"""The tables ``sorry-arena simulate`` prints: per bot its games, wins and win rate with the 95% Wilson interval,
mean rank and, when a file or URL bot played, its faults, forfeits and answer times; wins by seat; game length and
speed; where the replays went."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from engine.card.cards import DEFAULT_DECK

SPEEDS = {
    True: "engine bots only",
    False: "file bots in-process, URL bots over HTTP",
}


def milliseconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}" if value >= 1 else f"{value:.3f}"


def print_report(report: dict[str, Any], planned: int) -> None:
    """Print ``report`` (the ``--json`` object) as tables; ``planned``: the games asked for."""
    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, 120)  # a log or a pipe: no squeezed columns
    settings = report["settings"]
    shown = [f"{key} {value}" for key, value in settings.items() if key != "deck"]
    if "deck" in settings:
        shown.append("default deck" if settings["deck"] == DEFAULT_DECK else "custom deck")
    if report["interrupted"]:
        console.print(f"interrupted: {report['games']} of {planned} games played")
    rows = report["wins_by_bot"]
    widest = max(len(name) for name in rows)
    several_seats = any(row["seats_played"] != row["games"] for row in rows.values())
    bots = Table(title=f"{report['games']} {report['game']} games, " + ", ".join(shown))
    bots.add_column("bot", min_width=widest)
    for column in ("games", *(["seats"] if several_seats else []), "wins", "win rate"):
        bots.add_column(column, justify="right")
    bots.add_column("95% interval", justify="right", min_width=14)
    bots.add_column("mean rank", justify="right")
    for name, row in rows.items():
        low, high = row["win_interval"]
        cells = [name, str(row["games"]), *([str(row["seats_played"])] if several_seats else [])]
        cells += [
            str(row["wins"]),
            f"{row['win_rate']:.1%}",
            f"{low:.1%} to {high:.1%}",
            f"{row['mean_rank']:.2f}",
        ]
        bots.add_row(*cells)
    console.print(bots)
    engine_only = all(row["kind"] == "engine" for row in rows.values())
    if not engine_only:
        faults = Table(title=f"file and URL bots (move timeout {report['move_timeout_ms']} ms)")
        faults.add_column("bot", min_width=widest)
        for column in ("kind", "faults", "forfeits", "answers", "mean ms", "p95 ms", "max ms"):
            faults.add_column(column, justify="left" if column == "kind" else "right")
        for name, row in rows.items():
            if row["kind"] == "engine":
                continue
            latency = row["latency_ms"] or {"answers": 0, "mean": None, "p95": None, "max": None}
            times = [milliseconds(latency[key]) for key in ("mean", "p95", "max")]
            faults.add_row(
                name, row["kind"], str(row["faults"]), str(row["forfeits"]), str(latency["answers"]), *times
            )
        console.print(faults)
    seats = Table(title="wins by seat")
    for seat in range(len(report["wins_by_seat"])):
        seats.add_column(f"seat {seat}", justify="right")
    seats.add_row(*(str(wins) for wins in report["wins_by_seat"]))
    console.print(seats)
    console.print(
        f"mean game length: {report['mean_turns']:.1f} turns, {report['mean_decisions']:.1f} decisions; "
        f"turn-capped games: {report['turn_capped']}\n"
        f"speed: {report['games_per_second']:.1f} games/s, {report['decisions_per_second']:,.0f} decisions/s "
        f"({report['seconds']:.2f} s; {SPEEDS[engine_only]})",
        highlight=False,
    )
    for name, row in rows.items():
        if row.get("first_fault"):
            console.print(
                f"{name}: {row['faults']} faults; the first: {row['first_fault']}", highlight=False, soft_wrap=True
            )
    if report["replays"] is not None:
        console.print(f"replays: {report['replays']} ({report['games']} games)", highlight=False, soft_wrap=True)
