"""Entry point of the ``sorry-arena`` command: parses the sub-command and turns bad input into usage errors.

Each sub-command has two modules: its parser, ``cli/parsers/<name>.py`` with ``add_parser(commands)``, and the
module that does its work, named in :data:`COMMANDS`, with ``run(args, parser)``. The parsers are light (they load
none of the service's libraries: the contract of the command line's parsers in pyproject.toml), so ``sorry-arena
--help``, a usage error before the command and a mistyped command build every command's parser and still start at
once; a chosen command builds its own parser alone. The module that does the work is imported only once the command
line is parsed, so that a usage error loads nothing of the service and a command's start-up pays for its own
dependencies only (``sorry-arena simulate`` loads no Flask, SQLAlchemy, Alembic, RQ or Redis:
``tests/cli/test_startup.py``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from cli.options import ArgumentParser
from cli.stopping import TERMINATED_EXIT, Terminated

COMMANDS: dict[str, str] = {
    "simulate": "cli.simulate",
    "selfplay": "cli.selfplay",
    "serve": "cli.serve",
    "config": "cli.config",
    "db": "cli.db",
    "openapi": "cli.openapi",
    "worker": "cli.worker",
    "tournament": "cli.tournament",
    "demo": "cli.demo",
    "export": "cli.export",
    "replay": "cli.replay",
    "view": "cli.view",
    "match": "cli.match",
    "ladder": "cli.ladder",
}
"""Each sub-command's name and the module that runs it, in the order ``--help`` lists them; the command's parser is
the module of the same name in ``cli/parsers/``."""


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command named first on the command line, if it is one of :data:`COMMANDS` (else ``None``: all parsers)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command, or of ``command`` alone (importing only its parser's module)."""
    parser = ArgumentParser(  # every option's default in its help; no token quoted back in a usage error
        prog="sorry-arena", description="Play, test and rank bots for the SORRY! board and card games."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in [command] if command is not None else COMMANDS:
        importlib.import_module(f"cli.parsers.{name}").add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(chosen_command(argv))
    args = parser.parse_args(argv)
    try:
        command = importlib.import_module(COMMANDS[args.command])
        return int(command.run(args, args.parser))
    except Terminated:  # SIGTERM, where the command asked for it (cli/stopping.py)
        print("terminated", file=sys.stderr)
        return TERMINATED_EXIT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
