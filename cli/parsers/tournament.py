"""The parser of ``sorry-arena tournament`` and its actions (``create``, ``status``, ``standings``), with the options
that ``sorry-arena match`` shares: the service's root URL and the bearer token (``--api``, ``--token``, before or
after the action), game settings as JSON."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any
from urllib.parse import urlsplit

from cli.options import bounded_int

DEFAULT_API = "http://127.0.0.1:8000"
API_PATH = "/api/v1"


def api_url(text: str) -> str:
    """The service's root URL, ``http(s)://host[:port][/prefix]``, without a trailing ``/`` or ``/api/v1``."""
    url = text.strip().rstrip("/")
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port in (-1, 0):
        raise argparse.ArgumentTypeError(f"expected the service's root URL, e.g. {DEFAULT_API}, got {text!r}")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise argparse.ArgumentTypeError(f"expected a URL without query, fragment or user name, got {text!r}")
    return url.removesuffix(API_PATH)


def bot_ids(text: str) -> list[int]:
    try:
        ids = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected bot ids separated by commas, got {text!r}") from None
    if len(ids) < 2:
        raise argparse.ArgumentTypeError("a tournament needs at least 2 bots")
    return ids


def json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


def add_global_options(parser: argparse.ArgumentParser, after_action: bool) -> None:
    """``--api`` and ``--token``, on ``tournament`` and again on each action: after the action their defaults are
    suppressed, so that a value given before it is not overwritten by the action's default."""
    parser.add_argument(
        "--api",
        type=api_url,
        default=argparse.SUPPRESS if after_action else os.environ.get("SORRY_ARENA_API") or DEFAULT_API,
        metavar="URL",
        help=f"the service's root URL (default: $SORRY_ARENA_API, else {DEFAULT_API}); a trailing /api/v1 is dropped",
    )
    parser.add_argument(
        "--token",
        default=argparse.SUPPRESS if after_action else os.environ.get("SORRY_ARENA_TOKEN"),
        help="your account's bearer token (default: $SORRY_ARENA_TOKEN; on the command line other users of the "
        "machine can read it)",
    )


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "tournament", help="create tournaments and follow them", description="Tournaments through the REST API."
    )
    add_global_options(parser, after_action=False)
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser(
        "create", help="create a round-robin tournament", description="Create a round-robin tournament."
    )
    add_global_options(create, after_action=True)
    create.add_argument("--game", choices=["board", "card"], required=True, help="the game to play")
    create.add_argument("--bots", type=bot_ids, required=True, help="the bots' ids, e.g. 1,2,3 (at least 2)")
    create.add_argument(
        "--table-size", type=bounded_int(2, 4, "a table size"), default=2, help="seats per game, 2 to 4"
    )
    create.add_argument(
        "--rounds",
        type=bounded_int(1, 1000, "a number of rounds"),
        default=1,
        help="rounds of the round robin, 1 to 1000 (each round plays every table in every seat order)",
    )
    create.add_argument(
        "--seed", type=bounded_int(0, 2**63 - 1, "a seed"), default=None, help="the seed (default: a random one)"
    )
    create.add_argument(
        "--settings",
        type=json_object,
        default={},
        help='game settings as JSON, e.g. {"variant":"team"} (default: {}, the game\'s defaults)',
    )
    create.add_argument(
        "--move-timeout-ms",
        type=bounded_int(10, 60_000, "milliseconds"),
        default=1000,
        metavar="MS",
        help="a bot's time to answer a move, in milliseconds, 10 to 60000 (later is a fault)",
    )
    create.add_argument("--name", default="tournament", help="the tournament's name")
    create.add_argument("--unrated", action="store_true", help="leave it out of the Elo standings")
    create.add_argument(
        "--start-at",
        default=None,
        metavar="TIME",
        help="when to start: ISO 8601 with a zone, e.g. 2030-01-31T18:00:00+00:00 (default: now; a later time "
        "needs Redis)",
    )
    create.add_argument(
        "--repeat-every",
        type=bounded_int(1, 365 * 86400, "seconds"),
        default=None,
        metavar="SECONDS",
        help="seconds between runs, 1 to 31536000, with --repeat-times (default: no repeat)",
    )
    create.add_argument(
        "--repeat-times",
        type=bounded_int(2, 10_000, "a number of runs"),
        default=None,
        metavar="N",
        help="how many runs in all, the first included, 2 to 10000, with --repeat-every (default: one run)",
    )
    create.add_argument("--watch", action="store_true", help="follow its progress, then print the standings")
    status = actions.add_parser(
        "status", help="a tournament's status and progress", description="A tournament's status and progress."
    )
    add_global_options(status, after_action=True)
    status.add_argument("id", type=bounded_int(1, 2**31 - 1, "a tournament id"), help="the tournament's id")
    status.add_argument("--watch", action="store_true", help="follow its progress until it is done")
    standings = actions.add_parser(
        "standings",
        help="a tournament's standings, or a game's Elo table",
        description="A tournament's standings, or with --game a game's Elo table.",
    )
    add_global_options(standings, after_action=True)
    standings.add_argument(
        "id", nargs="?", type=bounded_int(1, 2**31 - 1, "a tournament id"), help="the tournament's id"
    )
    standings.add_argument("--game", choices=["board", "card"], help="the Elo table of this game instead")
    standings.add_argument(
        "--variant", default="standard", help="the rating pool of --game (standard, team, points, ...)"
    )
    standings.add_argument(
        "--table-size",
        type=bounded_int(2, 4, "a table size"),
        default=2,
        help="the seats of --game's rating pool, 2 to 4: each table size is rated apart (default 2)",
    )
    parser.set_defaults(parser=parser)
