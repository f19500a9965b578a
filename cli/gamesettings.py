"""The settings of an offline game from the command line's game options (``cli/parsers/gameoptions.py``), shared by
``sorry-arena simulate`` and ``sorry-arena selfplay``."""

from __future__ import annotations

import argparse
from typing import Any

import engine


def settings_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The game's settings from the flags; a flag of the other game is a usage error. The table is 2 seats unless
    ``--players`` says otherwise (as ``sorry-arena match``'s), 4 for the board game's team variant."""
    seats = args.players if args.players is not None else 4 if args.variant == "team" else 2
    settings: dict[str, Any] = {"players": seats}
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


def normalized_settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """:func:`settings_from`, checked and completed by the engine (``engine.normalize_settings``); settings the
    engine refuses are a usage error with its message."""
    try:
        return engine.normalize_settings(args.game, settings_from(args, parser))
    except engine.SettingsError as error:
        parser.error(str(error))
