"""The parser of ``sorry-arena selfplay``: the game and its settings, the engine bots, the number of games, the seed
and the output file (``.jsonl`` or ``.parquet``), each value checked as it is parsed."""

from __future__ import annotations

import argparse
from typing import Any

from cli.parsers.gameoptions import add_game_options, positive, seed
from engine.bots import BOTS


def _bots(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in BOTS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown engine bot(s) {', '.join(repr(name) for name in unknown)}; known: {', '.join(BOTS)}"
        )
    return names


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "selfplay",
        help="play games between engine bots and write every decision as training data",
        description="Play N games between engine bots and write one row per decision: the deciding seat's view "
        "(its own: hidden cards stay hidden), its legal action ids, the action taken, and the game's final ranks "
        "(docs/gym.md). A .parquet file needs the parquet extra: pip install 'sorry-arena[parquet]'.",
        epilog="Example: sorry-arena selfplay --game card --games 1000 --out card.parquet",
    )
    parser.add_argument("--games", type=positive, default=100)
    parser.add_argument("--out", required=True, metavar="FILE", help="a .jsonl or .parquet file")
    add_game_options(parser)
    parser.add_argument(
        "--bots",
        type=_bots,
        default=["greedy"],
        metavar="BOT,BOT,...",
        help=f"engine bots ({', '.join(BOTS)}), comma-separated, repeated to fill the seats and rotated from game "
        "to game (default: greedy)",
    )
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.set_defaults(parser=parser)
