"""``sorry-arena simulate``: play N games between bots and print the results; every game goes to a replay file.

The bots (``--bots``, :mod:`cli.simulate_bots`) are engine-level bots by name, a bot author's Python file that
defines ``choose(request)``, played in-process, or a push bot's URL, played over HTTP. Games between engine-level
bots alone run at the engine's own speed (:func:`engine.simulation.play_game`); a game with a file or URL bot asks
it as the service would (:mod:`cli.simulate_play`: the same request, faults, fallback moves and forfeits). Each
game is written to the replay file as it ends (:mod:`cli.simulate_replays`).

A progress bar shows on a terminal (rich); ``--json`` prints one JSON object instead of the tables. Ctrl-C stops
the run: the games played so far are reported (the replay file holds exactly them, whole lines only) and the
command exits with 130. Its parser: ``cli/parsers/simulate.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from types import FrameType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from cli import simulate_play
from cli.gamesettings import normalized_settings
from cli.parsers.simulate import SECRET_VARIABLE
from cli.simulate_bots import BotError, EngineBot, Player, load_bots
from cli.simulate_replays import ReplayFile
from cli.simulate_report import print_report
from engine.simulation import Summary, game_seed, play_game, seating


class Interrupts:
    """Ctrl-C as ``KeyboardInterrupt``, but held back while a finished game is counted and written
    (:meth:`held`), so that the report and the replay file hold the same whole games. Only where Python's own
    handler is in place, in the main thread (a handler someone else set is left alone)."""

    def __init__(self) -> None:
        self.holding = False
        self.pending = False
        self.installed = False

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread() and (
            signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            signal.signal(signal.SIGINT, self._interrupt)
            self.installed = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        if self.pending:
            raise KeyboardInterrupt


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    settings = normalized_settings(args, parser)
    secret = args.secret if args.secret is not None else os.environ.get(SECRET_VARIABLE, "")
    # with --json, what a file bot prints goes to stderr: stdout holds the one JSON object
    quiet = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    try:
        with quiet:
            players = load_bots(
                args.bots, game=args.game, secret=secret, allow=args.allow, timeout_ms=args.move_timeout_ms
            )
    except BotError as error:
        parser.error(str(error))
    replays = None
    if not args.no_replays:
        try:
            replays = ReplayFile.open(args.replays)
        except OSError as error:
            parser.error(f"cannot write the replay file {args.replays or 'replays/'}: {error.strerror or error}")
    try:
        with quiet:
            summary, interrupted = play(args, settings, players, replays)
    finally:
        if replays is not None:
            replays.close()
    report = summary.to_json()
    report.update(
        move_timeout_ms=args.move_timeout_ms,
        replays=None if replays is None else str(replays.path),
        interrupted=interrupted,
    )
    for name, player in players.items():
        report["wins_by_bot"][name]["kind"] = player.kind
        report["wins_by_bot"][name]["first_fault"] = getattr(player, "first_fault", None)
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report, args.games)
    return 130 if interrupted else 0


def play(
    args: argparse.Namespace, settings: dict[str, Any], players: dict[str, Player], replays: ReplayFile | None
) -> tuple[Summary, bool]:
    """Play the games (until Ctrl-C): the summary of the games played, and whether the run was interrupted."""
    summary = Summary(args.game, settings, args.seed, list(players))
    engine_only = all(isinstance(player, EngineBot) for player in players.values())
    seats: int = settings["players"]
    console = Console(stderr=True)
    interrupted = False
    started = time.perf_counter()
    with (
        Interrupts() as interrupts,
        Progress(
            TextColumn("simulating"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=args.json or not console.is_terminal,
            transient=True,
        ) as progress,
    ):
        task = progress.add_task("games", total=args.games)
        try:
            for index in range(args.games):
                names = seating(args.bots, seats, index)
                seed = game_seed(args.seed, index)
                began = datetime.now(UTC)
                if engine_only:
                    record = play_game(args.game, settings, seed, names)
                else:
                    record = simulate_play.play_game(
                        args.game, settings, seed, names, players, index + 1, args.move_timeout_ms
                    )
                with interrupts.held():
                    summary.add(record)
                    if replays is not None:
                        replays.write(args.game, settings, record, index + 1, began, datetime.now(UTC))
                progress.advance(task)
        except KeyboardInterrupt:
            interrupted = True
    summary.seconds = time.perf_counter() - started
    return summary, interrupted
