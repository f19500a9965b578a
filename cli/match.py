"""``sorry-arena match BOT_A BOT_B``: is bot A stronger than bot B? A match on paired deals through the REST API,
followed with a live bar of its log-likelihood ratio between the test's bounds, then its verdict.

The bots are ids on a service (``--api``, ``--token`` as for ``sorry-arena tournament``), or local bots as
``sorry-arena simulate`` takes them (an engine bot's name, a Python file, a push bot's URL): then the match is played
here, in-process, without a service (:mod:`cli.match_local`). Mixing the two is a usage error. The match stops when
the SPRT decides (``H1``: A is at least ``--elo1`` stronger; ``H0``: at most ``--elo0``) or at ``--max-games``
(inconclusive). The exit status says the verdict: 0 for H1, 3 for H0, 4 inconclusive, 1 for a refusal or an error
(130 for a local match stopped by Ctrl-C).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from cli.options import bounded_int
from cli.simulate import SECRET_VARIABLE, allowlist
from cli.tournament import Api, ApiError, add_global_options, json_object

EXIT = {"H1": 0, "H0": 3, "inconclusive": 4, "cancelled": 1}


def bounded_float(low: float, high: float, what: str) -> Any:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, a number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what} from {low:g} to {high:g}, got {text}")
        return value

    return parse


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "match",
        help="is bot A stronger than bot B? an SPRT match on paired deals",
        description="Play bot A against bot B on paired deals (the same deal twice, seats swapped) until the "
        "sequential probability ratio test decides, with a live bar of its log-likelihood ratio: on a service's "
        "workers (bots by id), or here, without a service (local bots: an engine bot's name, a Python file that "
        "defines choose(request), or a push bot's http(s):// URL, as sorry-arena simulate takes them).",
        epilog="Example: sorry-arena match ./my_bot_v2.py ./my_bot_v1.py --game card --elo0 0 --elo1 20",
    )
    parser.add_argument("bot_a", help="the bot tested: its id on the service, or a local bot")
    parser.add_argument("bot_b", help="the bot it is tested against (an id, or a local bot, as bot_a)")
    add_global_options(parser, after_action=False)
    parser.add_argument("--game", choices=["board", "card"], required=True, help="the game to play")
    parser.add_argument(
        "--settings",
        type=json_object,
        default={},
        help='game settings as JSON, e.g. {"variant":"team"} (default: {}, the game\'s defaults)',
    )
    parser.add_argument(
        "--table-size", type=bounded_int(2, 4, "a table size"), default=2, help="seats per game, 2 to 4"
    )
    parser.add_argument(
        "--fillers",
        default="",
        help="the bots of the other seats of a 3- or 4-seat table, separated by commas (table size - 2): ids, or "
        "local bots for a local match",
    )
    parser.add_argument("--elo0", type=bounded_float(-1000, 1000, "an Elo"), default=0.0, help="H0's Elo")
    parser.add_argument("--elo1", type=bounded_float(-1000, 1000, "an Elo"), default=30.0, help="H1's Elo")
    parser.add_argument("--alpha", type=bounded_float(0.001, 0.5, "a probability"), default=0.05, help="false H1")
    parser.add_argument("--beta", type=bounded_float(0.001, 0.5, "a probability"), default=0.05, help="false H0")
    parser.add_argument(
        "--model", choices=["normalized", "logistic"], default="normalized", help="the Elo of --elo0 and --elo1"
    )
    parser.add_argument(
        "--max-games", type=bounded_int(2, 20_000, "a number of games"), default=2000, help="stop here undecided"
    )
    parser.add_argument(
        "--move-timeout-ms",
        type=bounded_int(10, 60_000, "milliseconds"),
        default=1000,
        metavar="MS",
        help="a bot's time to answer a move, in milliseconds (later is a fault)",
    )
    parser.add_argument(
        "--seed", type=bounded_int(0, 2**62 - 1, "a seed"), default=None, help="the seed (default: a random one)"
    )
    parser.add_argument("--no-watch", action="store_true", help="start it and print its id, without following it")
    parser.add_argument("--json", action="store_true", help="print the match's end as one JSON object, no bar")
    local = parser.add_argument_group("local matches (file and URL bots)")
    local.add_argument(
        "--secret",
        default=None,
        help=f"the secret that signs the requests to URL bots (default: ${SECRET_VARIABLE}; none: unsigned)",
    )
    local.add_argument(
        "--allow",
        type=allowlist,
        default=None,
        metavar="NETWORKS",
        help="where URL bots may be: loopback, addresses or CIDR networks, comma-separated (default: loopback)",
    )
    replays = local.add_mutually_exclusive_group()
    replays.add_argument(
        "--replays",
        metavar="FILE",
        help="write every game to FILE, one JSON line each (default: replays/simulate-<UTC time>.jsonl)",
    )
    replays.add_argument("--no-replays", action="store_true", help="write no replay file")
    parser.set_defaults(run=run, parser=parser)


def fillers(text: str, parser: argparse.ArgumentParser) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        parser.error(f"--fillers: expected bot ids separated by commas, got {text!r}")


def bot_id(text: str) -> int | None:
    """The bot id ``text`` names (a plain whole number), else ``None``: a local bot."""
    return int(text) if text.strip().isdigit() else None


def bar_value(match: dict[str, Any]) -> float:
    """The LLR's place between the bounds, 0 (H0) to 1 (H1): what the bar shows."""
    lower, upper = match["lower"], match["upper"]
    return float(min(max((match["llr"] - lower) / (upper - lower), 0.0), 1.0))


def summary(match: dict[str, Any]) -> str:
    elo = match["elo"]
    shown = "no pair yet"
    if elo is not None:
        low = "-inf" if elo["low"] is None else f"{elo['low']:+.0f}"
        high = "+inf" if elo["high"] is None else f"{elo['high']:+.0f}"
        middle = "inf" if elo["elo"] is None else f"{elo['elo']:+.0f}"
        shown = f"Elo {middle} [{low}, {high}]"
    return (
        f"LLR {match['llr']:+.2f} ({match['lower']:.2f}, {match['upper']:.2f}) {shown}, "
        f"{match['pairs']} pairs {match['counts']}"
    )


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
            console.print(f"match {match['id']}: {match['name_a']} (A) against {match['name_b']} (B)")
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
        console.print(verdict_line(match))
    return EXIT.get(match["verdict"], 1)
