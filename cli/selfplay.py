"""``sorry-arena selfplay``: games between engine bots written as one row per decision (:mod:`envs.selfplay`,
:mod:`envs.datafiles`), then a one-line summary: games, rows, seconds, decisions per second. Its parser:
``cli/parsers/selfplay.py``."""

from __future__ import annotations

import argparse
import json
import time

from cli.gamesettings import normalized_settings
from envs.datafiles import MissingExtra, file_format, pyarrow_modules, write
from envs.selfplay import selfplay


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    settings = normalized_settings(args, parser)
    try:
        if file_format(args.out) == ".parquet":
            pyarrow_modules()  # before any game is played
    except (ValueError, MissingExtra) as error:
        parser.error(str(error))
    started = time.perf_counter()
    try:
        rows = write(args.out, selfplay(args.game, settings, args.games, args.seed, args.bots))
    except OSError as error:
        parser.error(f"cannot write {args.out}: {error.strerror or error}")
    seconds = time.perf_counter() - started
    summary = {
        "game": args.game,
        "settings": settings,
        "bots": args.bots,
        "games": args.games,
        "rows": rows,
        "out": args.out,
        "seconds": round(seconds, 3),
        "decisions_per_second": round(rows / seconds) if seconds else None,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{args.games} {args.game} games, {rows} decisions written to {args.out} in {seconds:.1f} s "
            f"({summary['decisions_per_second']} decisions/s)"
        )
    return 0
