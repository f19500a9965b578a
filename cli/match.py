"""``sorry-arena match BOT_A BOT_B``: is bot A stronger than bot B? A match through the REST API (on paired
deals when every bot is yours, else on independent deals: the service decides), followed with a live bar of its
log-likelihood ratio between the test's bounds, then its verdict.

The bots are ids on a service (``--api``, ``--token`` as for ``sorry-arena tournament``), or local bots as
``sorry-arena simulate`` takes them (an engine bot's name, a Python file, a push bot's URL): then the match is played
here, in-process, without a service (:mod:`cli.match_local`). Mixing the two is a usage error. The match stops when
the SPRT decides (``H1``: evidence that A is stronger; ``H0``: no evidence of a gain of ``--elo1``; the verdict says
the hypotheses, the Elo model and the table size) or at ``--max-games`` (inconclusive). Its first line names the
bots, the game and the table size (seats per game). Before the first game it prints the test's plan (the chance of H1, of no verdict and the games expected at ``--elo0``, halfway and
``--elo1``), after the verdict the estimate, labelled as not corrected for early stopping. The exit status says the verdict: 0 for H1, 3 for H0, 4 inconclusive, 1 for a refusal or an error
(130 for a local match stopped by Ctrl-C). Its parser: ``cli/parsers/match.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from rich.console import Console

from cli.match_report import EXIT, estimate_line, header_line, llr_bar, plan_lines, show, summary, verdict_line
from cli.tournament import Api, ApiError


def fillers(text: str, parser: argparse.ArgumentParser) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        parser.error(f"--fillers: expected bot ids separated by commas, got {text!r}")


def bot_id(text: str) -> int | None:
    """The bot id ``text`` names (a plain whole number), else ``None``: a local bot."""
    return int(text) if text.strip().isdigit() else None


def watch(api: Api, match: dict[str, Any], console: Console, quiet: bool) -> dict[str, Any]:
    with llr_bar(console, disable=quiet) as progress:
        task = progress.add_task(summary(match), total=1000)
        while True:
            show(progress, task, match)
            if match["status"] in ("done", "cancelled"):
                return match
            time.sleep(0.5)
            match = api.call("GET", f"/matches/{match['id']}")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    ids = [bot_id(args.bot_a), bot_id(args.bot_b)]
    if ids.count(None) == 2:
        from cli import match_local

        if args.no_watch:
            parser.error("--no-watch: a local match is played here, while the command runs")
        return match_local.run(args, parser)
    if ids.count(None) == 1:
        local = args.bot_a if ids[0] is None else args.bot_b
        parser.error(
            f"cannot mix a bot id with a local bot ({local!r}): give two ids (a match on the service) "
            "or two local bots (engine bot names, .py files or URLs: a match played here)"
        )
    for name, value in zip(("bot_a", "bot_b"), ids, strict=True):
        if value is None or not 1 <= value <= 2**31 - 1:
            parser.error(f"argument {name}: expected a bot id from 1 to {2**31 - 1}, got {value}")
    for flag, given in (("--secret", args.secret), ("--allow", args.allow), ("--replays", args.replays)):
        if given is not None:
            parser.error(f"{flag} applies to a local match (local bots), not to bot ids on a service")
    if args.no_replays:
        parser.error("--no-replays applies to a local match (local bots): the service keeps its games")
    console = Console()
    api = Api(args.api, args.token)
    body = {
        "bot_a": ids[0],
        "bot_b": ids[1],
        "game": args.game,
        "settings": args.settings,
        "table_size": args.table_size,
        "fillers": fillers(args.fillers, parser),
        "elo0": args.elo0,
        "elo1": args.elo1,
        "alpha": args.alpha,
        "beta": args.beta,
        "model": args.model,
        "max_games": args.max_games,
        "move_timeout_ms": args.move_timeout_ms,
        "seed": args.seed,
    }
    try:
        match = api.call("POST", "/matches", json=body)
        if not args.json:
            console.print(header_line(f"match {match['id']}", match), soft_wrap=True)
            for line in plan_lines(match):
                console.print(line, soft_wrap=True)
        if args.no_watch:
            if args.json:
                print(json.dumps(match))
            return 0
        match = watch(api, match, console, quiet=args.json)
    except ApiError as error:
        print(f"sorry-arena match: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(match))
    else:
        console.print(verdict_line(match), soft_wrap=True)
        estimated = estimate_line(match)
        if estimated:
            console.print(estimated, soft_wrap=True)
    return EXIT.get(match["verdict"], 1)
