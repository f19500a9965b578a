"""Entry point of the ``sorry-arena`` command: parses the sub-command and turns bad input into usage errors."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cli import db, demo, export, openapi, replay, serve, simulate, tournament, view, worker
from cli.options import ArgumentParser


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(  # every option's default in its help; no token quoted back in a usage error
        prog="sorry-arena", description="Play, test and rank bots for the SORRY! board and card games."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    simulate.add_parser(commands)
    serve.add_parser(commands)
    db.add_parser(commands)
    openapi.add_parser(commands)
    worker.add_parser(commands)
    tournament.add_parser(commands)
    demo.add_parser(commands)
    export.add_parser(commands)
    replay.add_parser(commands)
    view.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args, args.parser))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
