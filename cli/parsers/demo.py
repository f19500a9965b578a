"""The parser of ``sorry-arena demo``: the game, the example bots, the table size, the rounds and the seed, the RQ
workers (with ``REDIS_URL``), and ``--keep``'s pages and their port."""

from __future__ import annotations

import argparse
from typing import Any

from cli.options import bounded_int

EXAMPLES = ("search", "greedy", "random")
"""The example bots of ``clients/examples`` that the demo can start."""


def bot_names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(EXAMPLES))
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown bots {', '.join(unknown)}: the examples are {', '.join(EXAMPLES)}"
        )
    if len(names) < 2:
        raise argparse.ArgumentTypeError("a tournament needs at least 2 bots")
    return names


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "demo",
        help="a local tournament between the example bots, with standings",
        description=(
            "Start the example bots, run a round robin between them and print the standings. Embedded default: "
            "SQLite and an in-process queue; DATABASE_URL and REDIS_URL, when set, are used instead."
        ),
    )
    parser.add_argument("--game", choices=["board", "card"], default="card", help="the game to play")
    parser.add_argument(
        "--bots", type=bot_names, default=list(EXAMPLES), help="the example bots, separated by commas"
    )
    parser.add_argument(
        "--table-size", type=bounded_int(2, 4, "a table size"), default=2, help="seats per game, 2 to 4"
    )
    parser.add_argument(
        "--rounds",
        type=bounded_int(1, 1000, "a number of rounds"),
        default=160,  # 960 games (the quota is 1,000): the three bots' 95% intervals apart with room to spare
        help="round-robin rounds, 1 to 1000 (each pairing plays every seat order once per round)",
    )
    parser.add_argument("--seed", type=bounded_int(0, 2**62, "a seed"), default=1, help="the tournament's seed")
    parser.add_argument(
        "--workers",
        type=bounded_int(1, 16, "a number of workers"),
        default=2,
        help="RQ worker processes, 1 to 16 (only with REDIS_URL)",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="after the standings, serve the pages (tournament, standings, replays) on 127.0.0.1 until Ctrl-C",
    )
    parser.add_argument(
        "--port",
        type=bounded_int(0, 65535, "a port"),
        default=None,
        help="the port of --keep's pages (default: any free port)",
    )
    parser.set_defaults(parser=parser)
