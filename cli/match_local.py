"""``sorry-arena match`` between local bots: the service's match played here, in-process, without a service.

The bots are what ``sorry-arena simulate`` takes (:mod:`cli.simulate_bots`: an engine bot's name, a Python file that
defines ``choose(request)``, a push bot's URL), A, B and the ``--fillers`` of a 3- or 4-seat table. The games are
the service's paired schedule (:func:`tournament.plans.pairs.schedule`: the two games of a pair share a deal, A and B
swap seats), with the bots' places in the command line as their ids (A 0, B 1, the fillers 2 and 3) and ``--seed``
as the tournament seed (no secret salt: the deals are the caller's to know). A filler may be the same bot as A, B
or another filler (it is counted by its seat, not its name). Each game is played as the service
asks bots (:func:`cli.simulate_play.play_game`: faults, fallback moves and forfeits included) and written to the
replay file as it ends (:mod:`cli.simulate_replays`); after each completed pair its pentanomial bin
(:func:`tournament.plans.pairs.count`) joins the counts and the SPRT (:class:`ratings.sprt.Sprt`) decides whether to go
on. The match stops at a verdict or when ``--max-games`` (rounded up to whole pairs) are played: inconclusive.

The live bar, the final lines and the exit statuses are the service path's (:mod:`cli.match`); ``--json`` prints
the match as one JSON object in the shape of the service's. Ctrl-C stops the match: what was decided so far (the
completed pairs; a pair's first game alone does not count, but its line is in the replay file) is printed, and the
command exits with 130.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import sys
from datetime import UTC, datetime
from typing import Any

from rich.console import Console

import engine
from botlink import netguard
from cli import simulate_play
from cli.match_report import EXIT, estimate_line, header_line, llr_bar, plan_lines, show, summary, verdict_line
from cli.parsers.simulate import SECRET_VARIABLE
from cli.simulate import Interrupts
from cli.simulate_bots import BotError, Player, load_bots
from cli.simulate_replays import ReplayFile
from ratings.sprt import Sprt, estimate
from ratings.sprt_plan import plan
from ratings.sprt_stopped import stopped
from tournament.plans.pairs import count, pairs_of, schedule

INTERRUPTED_EXIT = 130


def local_fillers(text: str, table_size: int, parser: argparse.ArgumentParser) -> list[str]:
    """The filler bots of ``--fillers``: exactly ``table_size - 2`` of them."""
    specs = [part.strip() for part in text.split(",")] if text.strip() else []
    if not all(specs):
        parser.error(f"--fillers: an empty entry in {text!r}: list bots separated by single commas")
    if len(specs) != table_size - 2:
        parser.error(
            f"--fillers: a table of {table_size} seats needs {table_size - 2} filler bot(s), got {len(specs)}"
        )
    return specs


def local_settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """``--settings`` normalized, ``players`` the table size (as the service checks them)."""
    settings = dict(args.settings)
    if settings.setdefault("players", args.table_size) != args.table_size:
        parser.error(f"--settings: players ({settings['players']}) and --table-size ({args.table_size}) disagree")
    try:
        return dict(engine.normalize_settings(args.game, settings))
    except engine.SettingsError as error:
        parser.error(f"--settings: {error}")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    fillers = local_fillers(args.fillers, args.table_size, parser)
    specs = [args.bot_a, args.bot_b, *fillers]
    if args.bot_a == args.bot_b:
        parser.error(f"A and B must be different bots, got {args.bot_a} twice")
    if not args.elo0 < args.elo1:
        parser.error(f"--elo0 must be less than --elo1, got {args.elo0:g} and {args.elo1:g}")
    try:
        test = Sprt(args.elo0, args.elo1, args.alpha, args.beta, args.model)
    except ValueError as error:
        parser.error(str(error))
    settings = local_settings(args, parser)
    secret = args.secret if args.secret is not None else os.environ.get(SECRET_VARIABLE, "")
    allow = args.allow if args.allow is not None else netguard.parse_allowlist("loopback")
    # with --json, what a file bot prints goes to stderr: stdout holds the one JSON object
    quiet = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    try:
        with quiet:
            players = load_bots(specs, game=args.game, secret=secret, allow=allow, timeout_ms=args.move_timeout_ms)
    except BotError as error:
        parser.error(str(error))
    replays = None
    if not args.no_replays:
        try:
            replays = ReplayFile.open(args.replays)
        except OSError as error:
            parser.error(f"cannot write the replay file {args.replays or 'replays/'}: {error.strerror or error}")
    seed = args.seed if args.seed is not None else secrets.randbits(62)
    match = start(args, fillers, test, settings, seed, replays)
    console = Console()
    if not args.json:
        console.print(f"{header_line('local match', match)}, seed {seed}", soft_wrap=True)
        for line in plan_lines(match):
            console.print(line, soft_wrap=True)
    try:
        with quiet:
            interrupted = play(args, test, match, specs, players, replays, console)
    finally:
        if replays is not None:
            replays.close()
    if args.json:
        print(json.dumps(match))
    elif interrupted:
        console.print(f"interrupted: {summary(match)}; {match['games']} games played, no verdict", soft_wrap=True)
    else:
        console.print(verdict_line(match), soft_wrap=True)
        estimated = estimate_line(match)
        if estimated:
            console.print(estimated, soft_wrap=True)
    if replays is not None and not args.json:
        console.print(f"replays: {replays.path} ({replays.games} games)", soft_wrap=True)
    return INTERRUPTED_EXIT if interrupted else EXIT[match["verdict"]]


def start(
    args: argparse.Namespace,
    fillers: list[str],
    test: Sprt,
    settings: dict[str, Any],
    seed: int,
    replays: ReplayFile | None,
) -> dict[str, Any]:
    """The match before its first game, in the shape of the service's (``GET /api/v1/matches/{id}``)."""
    lower, upper = test.bounds
    return {
        "bot_a": args.bot_a,
        "bot_b": args.bot_b,
        "name_a": args.bot_a,
        "name_b": args.bot_b,
        "fillers": fillers,
        "game": args.game,
        "settings": settings,
        "table_size": args.table_size,
        "elo0": args.elo0,
        "elo1": args.elo1,
        "alpha": args.alpha,
        "beta": args.beta,
        "model": args.model,
        "max_games": args.max_games,
        "seed": seed,
        "move_timeout_ms": args.move_timeout_ms,
        "status": "running",
        "verdict": "continue",
        "interrupted": False,
        "llr": 0.0,
        "lower": lower,
        "upper": upper,
        "pairs": 0,
        "counts": [0, 0, 0, 0, 0],
        "games": 0,
        "elo": None,
        "elo_stopped": None,
        "plan": [point.to_json() for point in plan(test, True, args.max_games)],
        "replays": None if replays is None else str(replays.path),
    }


def play(
    args: argparse.Namespace,
    test: Sprt,
    match: dict[str, Any],
    specs: list[str],
    players: dict[str, Player],
    replays: ReplayFile | None,
    console: Console,
) -> bool:
    """Play the pairs in order until a verdict, ``--max-games`` or Ctrl-C, updating ``match`` after each game;
    whether Ctrl-C stopped it."""
    fillers = list(range(2, len(specs)))
    games = schedule(0, 1, fillers, args.max_games, match["seed"], None)
    pair: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
    with Interrupts() as interrupts, llr_bar(console, disable=args.json) as progress:
        task = progress.add_task(summary(match), total=1000)
        try:
            for pairing in games:
                names = [specs[seat] for seat in pairing.seats]
                began = datetime.now(UTC)
                record = simulate_play.play_game(
                    args.game,
                    match["settings"],
                    pairing.seed,
                    names,
                    players,
                    pairing.index + 1,
                    args.move_timeout_ms,
                )
                with interrupts.held():
                    if replays is not None:
                        replays.write(
                            args.game, match["settings"], record, pairing.index + 1, began, datetime.now(UTC)
                        )
                    match["games"] += 1
                    pair.append((pairing.round, pairing.seats, record.ranks))
                    if len(pair) == 2:
                        add_pair(test, match, pair)
                        pair = []
                    show(progress, task, match)
                if match["verdict"] != "continue":
                    break
        except KeyboardInterrupt:
            match["status"], match["interrupted"] = "interrupted", True
            return True
    if match["verdict"] == "continue" and match["pairs"] >= pairs_of(args.max_games):
        match["verdict"] = "inconclusive"
    match["status"] = "done"
    lower, upper = test.bounds
    corrected = stopped(test, True, lower, upper, match["verdict"], match["pairs"], match["llr"])
    match["elo_stopped"] = corrected.to_json() if corrected else None
    return False


def add_pair(test: Sprt, match: dict[str, Any], pair: list[tuple[int, tuple[int, ...], tuple[int, ...]]]) -> None:
    """Count a completed pair (A is seat id 0, B 1) and test again."""
    counted = count(0, 1, pair)
    counts = [total + new for total, new in zip(match["counts"], counted.counts, strict=True)]
    found = estimate(counts)
    match.update(
        counts=counts,
        pairs=match["pairs"] + counted.pairs,
        llr=test.llr(counts),
        verdict=test.verdict(counts),
        elo=found.to_json() if found else None,
    )
