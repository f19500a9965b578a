"""Run a bot: ``python -m clients --bot greedy|random|path/to/bot.py --push ...`` or ``... --pull ...``; the
installed client (``pip install ./clients``: clients/pyproject.toml) names it ``sorry-arena-bot``.

``--push`` serves the bot over HTTP until Ctrl-C (clients/push.py); register its URL with the service (any base
path, e.g. ``http://127.0.0.1:8001/bot``). ``--pull`` plays through the service's REST API with the bot's token
(clients/pull.py): register the bot without a URL. A bot file is any Python file that defines
``choose(request) -> str`` (clients/bot.py is the template). The secret and the token may come from the
environment (``SORRY_ARENA_SECRET``, ``SORRY_ARENA_TOKEN``) rather than the command line, where other users of the
machine could read them. While the secret is rotated, ``--old-secret`` (or ``SORRY_ARENA_OLD_SECRET``) is
accepted beside the new one.

Ctrl-C stops either mode without a traceback: once the bot runs, it prints ``stopped`` (pulling, with what it did)
and exits with status 0 (:func:`interruptible`); before, while it starts up, it ends at once with the signal's
status (130 in a shell): ``python -m clients`` and clients/bot.py put SIGINT at its default action first thing.
"""

from __future__ import annotations

import signal

if __name__ == "__main__" and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C while starting up (the imports below too): end quietly

import argparse
import importlib.util
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from clients.pull import DEFAULT_DEADLINE_MS, DEFAULT_THREADS, MAX_THREADS, PullClient, PullError, Stats
from clients.push import Choose, serve

BUILT_IN = {
    "greedy": "clients.examples.greedy_bot",
    "random": "clients.examples.random_bot",
    "search": "clients.examples.search_bot",
}
DEFAULT_URL = "http://127.0.0.1:8000"
PUSH_ONLY = ("host", "port", "secret", "old_secret", "games")
PULL_ONLY = ("url", "token", "wait", "deadline_ms", "max_games", "until_idle", "threads")


@contextmanager
def interruptible() -> Iterator[None]:
    """Within, Ctrl-C raises ``KeyboardInterrupt``, which the caller catches to stop cleanly; after, SIGINT is back at
    its default, so that a second Ctrl-C while the bot shuts down ends it at once. Only a program's quiet start-up
    (SIGINT at its default) is changed: a handler that whoever runs :func:`main` set (a test runner's; SIGINT
    ignored in a background job) is left alone."""
    ours = (
        signal.getsignal(signal.SIGINT) is signal.SIG_DFL and threading.current_thread() is threading.main_thread()
    )
    try:
        if ours:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        yield
    finally:
        if ours:
            signal.signal(signal.SIGINT, signal.SIG_DFL)


def load_bot(spec: str) -> tuple[str, Choose]:
    """The bot's name and ``choose`` function: a built-in name or a Python file. Raises ``ValueError``."""
    if spec in BUILT_IN:
        try:
            module = importlib.import_module(BUILT_IN[spec])
        except ImportError as exc:  # the search example without the project's engine (an installed client)
            raise ValueError(f"--bot {spec}: {exc}") from None
        return spec, module.choose
    path = Path(spec)
    if path.suffix != ".py":
        raise ValueError(f"--bot must be {', '.join(BUILT_IN)} or a path to a .py file, not {spec!r}")
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


def number(kind: Callable[[str], float], low: float, high: float, what: str) -> Callable[[str], float]:
    """An argparse type: a ``kind`` (int or float) from ``low`` to ``high``, else a clear error."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not low <= value <= high:  # also refuses nan
            raise argparse.ArgumentTypeError(f"expected {what} from {low:g} to {high:g}, got {text!r}")
        return value

    return parse


def service_url(text: str) -> str:
    parts = urlsplit(text)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port == -1 or port == 0:
        raise argparse.ArgumentTypeError(f"expected the service's http(s)://host[:port] URL, got {text!r}")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise argparse.ArgumentTypeError(f"expected a URL without query, fragment or user name, got {text!r}")
    return text


def program() -> str:
    """How the client was started: ``python -m clients``, or the installed ``sorry-arena-bot`` command."""
    called = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return "python -m clients" if called in ("", "__main__.py", "-m", "-c") else called


def parser(bot_required: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=program() if bot_required else None,  # a bot file's own main: its file name
        description="Run a SORRY! bot for the sorry-arena service.",
        epilog='Examples: python -m clients --bot greedy --push --port 8001 --secret "$SECRET"; '
        'SORRY_ARENA_TOKEN="$TOKEN" python -m clients --bot my_bot.py --pull --url http://127.0.0.1:8000',
    )
    parser.add_argument(
        "--bot", required=bot_required, help="greedy, random, or a path to a .py file defining choose()"
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--push", action="store_true", help="serve the bot over HTTP; the service calls it")
    mode.add_argument("--pull", action="store_true", help="play through the service's REST API with a token")
    parser.add_argument("--name", help="the name the bot reports (default: the bot's name or file name)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request or move")
    push = parser.add_argument_group("push mode")
    push.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    push.add_argument("--port", type=int, help="port to listen on (default 8001; 0: any free port)")
    push.add_argument(
        "--secret",
        help="the bot's secret, the one you chose and registered the bot with, to check request signatures "
        "(default: $SORRY_ARENA_SECRET)",
    )
    push.add_argument(
        "--old-secret",
        action="append",
        help="while rotating the secret: the old one, still accepted beside --secret (repeatable; default: "
        "$SORRY_ARENA_OLD_SECRET); drop it once the service signs with the new one",
    )
    push.add_argument("--games", help="games the bot plays (default board,card)")
    pull = parser.add_argument_group("pull mode")
    pull.add_argument(
        "--url",
        type=service_url,
        help=f"the service's base URL (default $SORRY_ARENA_API, else {DEFAULT_URL}); a trailing /api/v1 is dropped",
    )
    pull.add_argument("--token", help="the bot's token from its registration (default: $SORRY_ARENA_TOKEN)")
    pull.add_argument(
        "--wait", type=number(float, 0, 30, "seconds"), help="longest long poll in seconds (default 30)"
    )
    pull.add_argument(
        "--deadline-ms",
        type=number(int, 1, 3_600_000, "milliseconds"),
        help="the request's deadline_ms when the service sends no deadline (games outside tournaments; "
        f"default {DEFAULT_DEADLINE_MS})",
    )
    pull.add_argument(
        "--max-games", type=number(int, 1, 10**9, "a number of games"), help="stop after this many games"
    )
    pull.add_argument(
        "--until-idle", action="store_true", help="stop once the bot has moved and sits in no active game"
    )
    pull.add_argument(
        "--threads",
        type=number(int, 1, MAX_THREADS, "a number of threads"),
        help=f"decisions answered at once, each in its own thread, for a bot in several games (default "
        f"{DEFAULT_THREADS}); choose() must then be safe to call from several threads",
    )
    return parser


def main(argv: list[str] | None = None, *, choose: Choose | None = None, name: str | None = None) -> int:
    """The command line; a bot file may pass its own ``choose`` (and name) instead of ``--bot``."""
    usage = parser(bot_required=choose is None)
    args = usage.parse_args(argv)
    mode = "--push" if args.push else "--pull"
    for option in PULL_ONLY if args.push else PUSH_ONLY:
        if getattr(args, option) not in (None, False):
            usage.error(f"--{option.replace('_', '-')} is for {'--pull' if args.push else '--push'}, not {mode}")
    if args.bot is not None:
        try:
            name, choose = load_bot(args.bot)
        except ValueError as exc:
            usage.error(str(exc))
    assert choose is not None
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, format="%(message)s")
    if args.push:
        return run_push(args, usage, choose, args.name or name or "bot")
    return run_pull(args, usage, choose, args.name or name or "bot")


def run_push(args: argparse.Namespace, usage: argparse.ArgumentParser, choose: Choose, name: str) -> int:
    host = args.host if args.host is not None else "127.0.0.1"
    port = args.port if args.port is not None else 8001
    if not 0 <= port <= 65535:
        usage.error(f"--port must be from 0 to 65535, not {port}")
    text = args.games if args.games is not None else "board,card"
    games = [game.strip() for game in text.split(",") if game.strip()]
    if not games or not set(games) <= {"board", "card"}:
        usage.error(f"--games must list board and/or card, not {text!r}")
    secret = args.secret if args.secret is not None else os.environ.get("SORRY_ARENA_SECRET")
    old = args.old_secret if args.old_secret is not None else [os.environ.get("SORRY_ARENA_OLD_SECRET") or ""]
    previous = [text for text in old if text]
    if previous and not secret:
        usage.error("--old-secret is accepted beside the new secret: give --secret (or $SORRY_ARENA_SECRET) too")
    if args.old_secret is not None and len(previous) < len(args.old_secret):
        usage.error("--old-secret must not be empty")
    try:
        server = serve(
            choose, host=host, port=port, secret=secret, name=name, games=games, previous_secrets=previous
        )
    except OSError as exc:
        print(f"cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    try:
        with interruptible():
            print(
                f"{server.name} ({', '.join(games)}) serving at {server.url} -- register e.g. {server.url}/bot",
                flush=True,
            )
            if not secret:
                print("warning: no --secret: request signatures are NOT checked", file=sys.stderr)
            if previous:
                print(
                    "accepting the old secret beside the new one (a rotation): restart without --old-secret once "
                    "the service signs with the new one",
                    flush=True,
                )
            server.serve_forever()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        server.server_close()
    return 0


def run_pull(args: argparse.Namespace, usage: argparse.ArgumentParser, choose: Choose, name: str) -> int:
    url = args.url or os.environ.get("SORRY_ARENA_API") or DEFAULT_URL
    try:
        service_url(url)
    except argparse.ArgumentTypeError as exc:
        usage.error(f"$SORRY_ARENA_API: {exc}")
    token = args.token if args.token is not None else os.environ.get("SORRY_ARENA_TOKEN")
    if not token:
        usage.error(
            "--pull needs the bot's token: --token or $SORRY_ARENA_TOKEN (shown when the bot was registered)"
        )
    client = PullClient(
        choose,
        url,
        token,
        wait=30.0 if args.wait is None else args.wait,
        deadline_ms=args.deadline_ms or DEFAULT_DEADLINE_MS,
        name=name,
        threads=args.threads or DEFAULT_THREADS,
    )
    try:
        with interruptible():
            print(f"{name} playing at {client.api.url} (pull mode) -- Ctrl-C to stop", flush=True)
            if args.token is not None:
                print(
                    "warning: --token on the command line is visible to other users of this machine; "
                    "prefer $SORRY_ARENA_TOKEN",
                    file=sys.stderr,
                )
            stats = client.run(max_games=args.max_games, until_idle=args.until_idle)
    except PullError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"stopped: {summary(client.stats)}")
        return 0
    print(summary(stats))
    return 0


def summary(stats: Stats) -> str:
    return f"{stats.games} games, {stats.moves} moves, {stats.conflicts} too late, {stats.skipped} skipped"


if __name__ == "__main__":
    sys.exit(main())
