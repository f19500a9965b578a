"""Run a bot: ``python -m clients --bot greedy|random|path/to/bot.py --push --port 8001 --secret S``.

``--push`` serves the bot over HTTP until Ctrl-C (clients/push.py); register its URL with the service (any base
path, e.g. ``http://127.0.0.1:8001/bot``). A bot file is any Python file that defines ``choose(request) -> str``.
The secret may come from the environment (``SORRY_ARENA_SECRET``) rather than the command line, where other
users of the machine could read it.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import sys
from pathlib import Path

from clients.push import Choose, serve

BUILT_IN = {"greedy": "clients.examples.greedy_bot", "random": "clients.examples.random_bot"}


def load_bot(spec: str) -> tuple[str, Choose]:
    """The bot's name and ``choose`` function: a built-in name or a Python file. Raises ``ValueError``."""
    if spec in BUILT_IN:
        module = importlib.import_module(BUILT_IN[spec])
        return spec, module.choose
    path = Path(spec)
    if path.suffix != ".py":
        raise ValueError(f"--bot must be {' or '.join(BUILT_IN)} or a path to a .py file, not {spec!r}")
    if not path.is_file():
        raise ValueError(f"no such bot file: {spec}")
    module_spec = importlib.util.spec_from_file_location(f"sorry_bot_{path.stem}", path)
    if module_spec is None or module_spec.loader is None:
        raise ValueError(f"cannot load {spec} as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    choose = getattr(module, "choose", None)
    if not callable(choose):
        raise ValueError(f"{spec} defines no choose(request) function")
    return path.stem, choose


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m clients",
        description="Run a SORRY! bot for the sorry-arena service.",
        epilog='Example: python -m clients --bot greedy --push --port 8001 --secret "$SECRET"',
    )
    parser.add_argument("--bot", required=True, help="greedy, random, or a path to a .py file defining choose()")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--push", action="store_true", help="serve the bot over HTTP; the service calls it")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=8001, help="port to listen on (default 8001; 0: any free port)"
    )
    parser.add_argument(
        "--secret",
        default=os.environ.get("SORRY_ARENA_SECRET"),
        help="the bot's secret from the service, to check request signatures (default: $SORRY_ARENA_SECRET)",
    )
    parser.add_argument("--name", help="the name the bot reports (default: the bot's name or file name)")
    parser.add_argument("--games", default="board,card", help="games the bot plays (default board,card)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser().error(f"--port must be from 0 to 65535, not {args.port}")
    games = [game.strip() for game in args.games.split(",") if game.strip()]
    if not games or not set(games) <= {"board", "card"}:
        parser().error(f"--games must list board and/or card, not {args.games!r}")
    try:
        name, choose = load_bot(args.bot)
    except ValueError as exc:
        parser().error(str(exc))
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, format="%(message)s")
    try:
        server = serve(
            choose, host=args.host, port=args.port, secret=args.secret, name=args.name or name, games=games
        )
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{server.name} ({', '.join(games)}) serving at {server.url} -- register e.g. {server.url}/bot")
    if not args.secret:
        print("warning: no --secret: request signatures are NOT checked", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
