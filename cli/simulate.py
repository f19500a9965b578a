"""``sorry-arena simulate``: play N games in-process between engine-level bots and print the results.

A progress bar shows on a terminal (rich); ``--json`` prints one JSON object instead of the tables.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

import engine
from engine.bots import BOTS
from engine.card.cards import DEFAULT_DECK
from engine.simulation import GameRecord, simulate

MAX_GAMES = 10_000_000


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= MAX_GAMES:
        raise argparse.ArgumentTypeError(f"expected a number from 1 to {MAX_GAMES}, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"expected a seed from 0 to 2**63-1, got {value}")
    return value


def _pawns(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= 20:
        raise argparse.ArgumentTypeError(f"expected 1 to 20 pawns, got {value}")
    return value


def _bots(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in BOTS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown bot(s) {', '.join(unknown)!r}; known: {', '.join(BOTS)}")
    return names


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "simulate",
        help="play games in-process between engine-level bots",
        description="Play N games between engine-level bots (seats rotate each game) and print the results.",
    )
    parser.add_argument("--game", choices=sorted(engine.GAMES), default="board")
    board = parser.add_argument_group("board game options")
    board.add_argument("--variant", choices=("standard", "team", "points"), default=None, help="default: standard")
    board.add_argument("--edition", choices=("1992", "1972"), default=None, help="default: 1992")
    card = parser.add_argument_group("card game options")
    card.add_argument("--longer-game", action="store_true", help="play 'For a Longer Game' (A5)")
    card.add_argument("--pawns", type=_pawns, default=None, help="pawns per player (default 4)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
    parser.add_argument("--turn-cap", type=_positive, default=None, help="end a game after this many turns")
    parser.add_argument("--games", type=_positive, default=100)
    parser.add_argument("--seed", type=_seed, default=0)
    parser.add_argument(
        "--bots",
        type=_bots,
        default=["random", "greedy"],
        help=f"comma-separated bots, repeated to fill the seats ({', '.join(BOTS)})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run, parser=parser)


def settings_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The game's settings from the flags; a flag of the other game is a usage error."""
    settings: dict[str, Any] = {"players": args.players}
    if args.game == "board":
        if args.longer_game or args.pawns is not None:
            parser.error("--longer-game and --pawns apply to the card game (--game card) only")
        settings["variant"] = args.variant or "standard"
        settings["edition"] = args.edition or "1992"
    else:
        if args.variant is not None or args.edition is not None:
            parser.error("--variant and --edition apply to the board game (--game board) only")
        settings["longer_game"] = args.longer_game
        if args.pawns is not None:
            settings["pawns"] = args.pawns
    if args.turn_cap is not None:
        settings["turn_cap"] = args.turn_cap
    return settings


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    settings = settings_from(args, parser)
    try:
        engine.normalize_settings(args.game, settings)
    except engine.SettingsError as error:
        parser.error(str(error))
    console = Console(stderr=True)
    with Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=args.json or not console.is_terminal,
        transient=True,
    ) as progress:
        task = progress.add_task("games", total=args.games)

        def advance(_: GameRecord) -> None:
            progress.advance(task)

        summary = simulate(args.game, settings, args.games, args.seed, args.bots, on_game=advance)
    report = summary.to_json()
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0


def print_report(report: dict[str, Any]) -> None:
    console = Console()
    settings = report["settings"]
    shown = [f"{key} {value}" for key, value in settings.items() if key != "deck"]
    if "deck" in settings:
        shown.append("default deck" if settings["deck"] == DEFAULT_DECK else "custom deck")
    title = f"{report['games']} {report['game']} games, " + ", ".join(shown)
    bots = Table(title=title)
    for column in ("bot", "seats played", "wins", "win rate", "mean rank"):
        bots.add_column(column, justify="left" if column == "bot" else "right")
    for name, row in report["wins_by_bot"].items():
        bots.add_row(
            name, str(row["seats_played"]), str(row["wins"]), f"{row['win_rate']:.1%}", f"{row['mean_rank']:.2f}"
        )
    console.print(bots)
    seats = Table(title="wins by seat")
    for seat in range(len(report["wins_by_seat"])):
        seats.add_column(f"seat {seat}", justify="right")
    seats.add_row(*(str(wins) for wins in report["wins_by_seat"]))
    console.print(seats)
    console.print(
        f"mean game length: {report['mean_turns']:.1f} turns, {report['mean_decisions']:.1f} decisions; "
        f"turn-capped games: {report['turn_capped']}\n"
        f"speed: {report['games_per_second']:.1f} games/s, {report['decisions_per_second']:,.0f} decisions/s "
        f"({report['seconds']:.2f} s)"
    )
