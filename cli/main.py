"""Entry point of the ``sorry-arena`` command: parses the sub-command and turns bad input into usage errors.

Each sub-command is a module of ``cli/`` with ``add_parser(commands)`` and ``run(args, parser)``, registered by
name in :data:`COMMANDS`. A module is imported only when its command is chosen, so that a command's start-up pays
for its own dependencies only (``sorry-arena simulate`` loads no Flask, SQLAlchemy, Alembic, RQ or Redis:
``tests/cli/test_startup.py``); ``sorry-arena --help``, a usage error before the command and a mistyped command
import them all, to list every command.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from cli.options import ArgumentParser

COMMANDS: dict[str, str] = {
    "simulate": "cli.simulate",
    "serve": "cli.serve",
    "db": "cli.db",
    "openapi": "cli.openapi",
    "worker": "cli.worker",
    "tournament": "cli.tournament",
    "demo": "cli.demo",
    "export": "cli.export",
    "replay": "cli.replay",
    "view": "cli.view",
    "match": "cli.match",
}
"""Each sub-command's name and its module, in the order ``--help`` lists them."""


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command named first on the command line, if it is one of :data:`COMMANDS` (else ``None``: all load)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command, or of ``command`` alone (importing only its module)."""
    parser = ArgumentParser(  # every option's default in its help; no token quoted back in a usage error
        prog="sorry-arena", description="Play, test and rank bots for the SORRY! board and card games."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in [command] if command is not None else COMMANDS:
        importlib.import_module(COMMANDS[name]).add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(chosen_command(argv))
    args = parser.parse_args(argv)
    try:
        return int(args.run(args, args.parser))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
