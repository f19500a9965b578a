"""The options that choose a game and its settings, shared by the commands that play games offline (``sorry-arena
simulate``, ``sorry-arena selfplay``), with the argument types they check: a whole number in range, a seed."""

from __future__ import annotations

import argparse
from typing import Any

import engine

MAX_GAMES = 10_000_000


def whole_number(low: int, high: int, expected: str = "") -> Any:
    """An argument type: a whole number from ``low`` to ``high``; ``expected`` says what in the error (default:
    "a number from LOW to HIGH")."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected {expected or f'a number from {low} to {high}'}, got {value}"
            )
        return value

    return parse


positive = whole_number(1, MAX_GAMES)
seed = whole_number(0, 2**63 - 1, "a seed from 0 to 2**63-1")


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """``--game`` and the settings of either game: ``--variant``, ``--edition``; ``--longer-game``, ``--pawns``;
    ``--players``, ``--turn-cap`` (:func:`cli.gamesettings.settings_from` reads them)."""
    parser.add_argument("--game", choices=sorted(engine.GAMES), default="board")
    board = parser.add_argument_group("board game options")
    board.add_argument("--variant", choices=("standard", "team", "points"), default=None, help="default: standard")
    board.add_argument("--edition", choices=("1992", "1972"), default=None, help="default: 1992")
    card = parser.add_argument_group("card game options")
    card.add_argument("--longer-game", action="store_true", help="play 'For a Longer Game' (A5)")
    card.add_argument(
        "--pawns", type=whole_number(1, 20, "1 to 20 pawns"), default=None, help="pawns per player (default 4)"
    )
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4),
        default=None,
        help="seats per game (default: 2, as sorry-arena match's --table-size; 4 for --variant team)",
    )
    parser.add_argument("--turn-cap", type=positive, default=None, help="end a game after this many turns")
