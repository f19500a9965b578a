"""The parser of ``sorry-arena match``: the two bots, the service's options (``--api``, ``--token``) or a local match's
(``--secret``, ``--allow``, the replay file), the game, the SPRT's bounds and model, the games' deadline and
number, the seed."""

from __future__ import annotations

import argparse
from typing import Any

from cli.options import bounded_int
from cli.parsers.simulate import SECRET_VARIABLE, allowlist
from cli.parsers.tournament import add_global_options, json_object


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
        "--table-size",
        type=bounded_int(2, 4, "a table size"),
        default=2,
        help="seats per game, 2 to 4 (default: 2, as sorry-arena simulate's --players; Elo depends on it)",
    )
    parser.add_argument(
        "--fillers",
        default="",
        help="the bots of the other seats of a 3- or 4-seat table, separated by commas (table size - 2): ids, or "
        "local bots for a local match",
    )
    parser.add_argument(
        "--elo0", type=bounded_float(-1000, 1000, "an Elo"), default=0.0, help="H0's Elo (of --model)"
    )
    parser.add_argument(
        "--elo1", type=bounded_float(-1000, 1000, "an Elo"), default=30.0, help="H1's Elo (of --model)"
    )
    parser.add_argument("--alpha", type=bounded_float(0.001, 0.5, "a probability"), default=0.05, help="false H1")
    parser.add_argument("--beta", type=bounded_float(0.001, 0.5, "a probability"), default=0.05, help="false H0")
    parser.add_argument(
        "--model",
        choices=["normalized", "logistic"],
        default="normalized",
        help="the Elo of --elo0 and --elo1 (default: normalized)",
    )
    parser.add_argument(
        "--max-games",
        type=bounded_int(2, 20_000, "a number of games"),
        default=2000,
        help="stop here undecided (default: 2000, what a service accepts by default)",
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
    parser.set_defaults(parser=parser)
