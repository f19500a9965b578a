"""The parser of ``sorry-arena simulate``: the game and its settings, the bots, the number of games and the seed, the
file and URL bots' deadline, secret and allowlist, the replay file; each value checked as it is parsed."""

from __future__ import annotations

import argparse
from typing import Any

from botlink import netguard
from cli.parsers.gameoptions import add_game_options, positive, seed
from engine.bots import BOTS

SECRET_VARIABLE = "SORRY_ARENA_SECRET"


def _bots(text: str) -> list[str]:
    specs = [spec.strip() for spec in text.split(",")]
    if not all(specs):
        raise argparse.ArgumentTypeError(f"an empty entry in {text!r}: list bots separated by single commas")
    return specs


def _timeout_ms(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of milliseconds, got {text!r}") from None
    if not 10 <= value <= 60_000:
        raise argparse.ArgumentTypeError(f"expected 10 to 60000 milliseconds, got {value}")
    return value


def allowlist(text: str) -> tuple[netguard.Network, ...]:
    try:
        return netguard.parse_allowlist(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "simulate",
        help="play games between bots: engine bots, your bot's file, or push bots' URLs",
        description="Play N games between bots (seats rotate each game), print the results and write every game "
        "to a replay file. A bot is an engine bot's name, a Python file that defines choose(request) (played "
        "in-process), or a push bot's http(s):// URL (played over HTTP, as the service would).",
        epilog="Example: sorry-arena simulate --bots ./my_bot.py,greedy --games 200",
    )
    add_game_options(parser)
    parser.add_argument("--games", type=positive, default=100)
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument(
        "--bots",
        type=_bots,
        default=["random", "greedy"],
        metavar="BOT,BOT,...",
        help=f"comma-separated, repeated to fill the seats: an engine bot ({', '.join(BOTS)}), a path to a .py "
        "file that defines choose(request), or a push bot's http(s):// URL (default: random,greedy)",
    )
    bots = parser.add_argument_group("file and URL bots")
    bots.add_argument(
        "--move-timeout-ms",
        type=_timeout_ms,
        default=1000,
        metavar="MS",
        help="a bot's time per move, as a tournament's (default 1000; a file bot's call is timed)",
    )
    bots.add_argument(
        "--secret",
        default=None,
        help=f"the secret that signs the requests to URL bots (default: ${SECRET_VARIABLE}; none: unsigned)",
    )
    bots.add_argument(
        "--allow",
        type=allowlist,
        default=allowlist("loopback"),
        metavar="NETWORKS",
        help="where URL bots may be: loopback, addresses or CIDR networks, comma-separated (default: loopback)",
    )
    replays = parser.add_mutually_exclusive_group()
    replays.add_argument(
        "--replays",
        metavar="FILE",
        help="write every game to FILE, one JSON line each (default: replays/simulate-<UTC time>.jsonl)",
    )
    replays.add_argument("--no-replays", action="store_true", help="write no replay file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(parser=parser)
