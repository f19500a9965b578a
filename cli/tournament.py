"""``sorry-arena tournament create|status|standings``: drive tournaments through the REST API, with a live
progress bar and the standings as a table.

``--api`` and ``--token`` go before or after the action (``tournament --token T create ...`` or ``tournament create
--token T ...``). ``--api`` is the service's root URL; the API's own path (``/api/v1``) given with it is dropped.
The service's refusals are shown as sentences: its message, and each invalid field on a line of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any
from urllib.parse import urlsplit

import requests
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cli.options import bounded_int

DEFAULT_API = "http://127.0.0.1:8000"
API_PATH = "/api/v1"


class ApiError(Exception):
    pass


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


def flatten(errors: Any, path: str = "") -> list[str]:
    """A 422's field errors as ``field: message`` lines (nested fields dotted: ``settings.variant``)."""
    if isinstance(errors, dict):
        return [line for key, value in errors.items() for line in flatten(value, f"{path}.{key}" if path else key)]
    if isinstance(errors, list) and all(isinstance(item, str) for item in errors):
        return [f"{path}: {' '.join(errors)}" if path else " ".join(errors)]
    if isinstance(errors, list):
        return [line for index, item in enumerate(errors) for line in flatten(item, f"{path}.{index}")]
    return [f"{path}: {errors}" if path else str(errors)]


def refusal(status: int, body: Any) -> str:
    """What the service said when it refused a request, in sentences: its message, or each invalid field on a line
    of its own (``rounds: Must be greater than or equal to 1.``); never a Python dict."""
    if not isinstance(body, dict):
        return f"HTTP {status}"
    errors = body.get("errors")
    if isinstance(errors, dict) and errors:
        # the top level says where (json, query, headers...): the field names alone say enough
        lines = [line for where in errors.values() for line in flatten(where)]
        return f"HTTP {status}: the request was refused:\n" + "\n".join(f"  {line}" for line in lines)
    message = body.get("message")
    return f"HTTP {status}: {message}" if isinstance(message, str) and message else f"HTTP {status}"


class Api:
    def __init__(self, root: str, token: str | None) -> None:
        self.root = root
        self.base = root + API_PATH
        self.session = requests.Session()
        self.session.trust_env = False
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self.session.request(method, self.base + path, timeout=30, **kwargs)
        except requests.RequestException as error:
            raise ApiError(f"cannot reach the service at {self.base}: {error.__class__.__name__}") from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code == 404 and not self.is_service():
            raise ApiError(f"no sorry-arena API at {self.root} (expected the service's root, e.g. {DEFAULT_API})")
        if not isinstance(body, dict):  # another web server at that address, or a proxy's page
            raise ApiError(f"the service at {self.base} did not answer JSON (is --api the sorry-arena service?)")
        if response.status_code >= 400:
            raise ApiError(refusal(response.status_code, body))
        return body

    def is_service(self) -> bool:
        """Whether the service's health check answers at ``--api`` (after a 404: a wrong path, or no such thing)."""
        try:
            response = self.session.get(f"{self.base}/health", timeout=30)
            return response.status_code == 200 and response.json() == {"ok": True}
        except (requests.RequestException, ValueError):
            return False


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
    parser.set_defaults(run=run, parser=parser)


def watch(api: Api, tournament: dict[str, Any], console: Console) -> dict[str, Any]:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(f"tournament {tournament['id']}", total=tournament["progress"]["total"])
        while True:
            progress.update(task, completed=tournament["progress"]["done"])
            if tournament["status"] == "done":
                return tournament
            time.sleep(0.5)
            tournament = api.call("GET", f"/tournaments/{tournament['id']}")


def shown(elo: float) -> int:
    """An Elo figure as the standings table prints it: to the nearest whole point."""
    return int(f"{elo:.0f}")


def print_standings(tournament: dict[str, Any], console: Console) -> None:
    table = Table(title=f"{tournament['name']} ({tournament['game']}, {tournament['variant']}): standings")
    for column in ("#", "bot", "Elo", "95% interval", "games", "wins", "mean rank", "forfeits"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for place, row in enumerate(tournament["standings"], 1):
        table.add_row(
            str(place),
            row["name"],
            str(shown(row["elo"])),
            f"{shown(row['low'])} to {shown(row['high'])}",
            str(row["games"]),
            str(row["wins"]),
            f"{row['mean_rank']:.2f}",
            str(row["forfeits"]),
        )
    console.print(table)


def print_status(tournament: dict[str, Any], console: Console) -> None:
    done, total = tournament["progress"]["done"], tournament["progress"]["total"]
    console.print(
        f"tournament {tournament['id']} ({tournament['name']}): {tournament['status']}, {done}/{total} games"
    )


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    console = Console()
    api = Api(args.api, args.token)
    try:
        if args.action == "create":
            body = {
                "name": args.name,
                "game": args.game,
                "settings": args.settings,
                "bot_ids": args.bots,
                "table_size": args.table_size,
                "rounds": args.rounds,
                "seed": args.seed,
                "move_timeout_ms": args.move_timeout_ms,
                "rated": not args.unrated,
                "start_at": args.start_at,
                "repeat_every": args.repeat_every,
                "repeat_times": args.repeat_times,
            }
            tournament = api.call("POST", "/tournaments", json=body)
            print_status(tournament, console)
            if args.watch:
                print_standings(watch(api, tournament, console), console)
        elif args.action == "status":
            tournament = api.call("GET", f"/tournaments/{args.id}")
            if args.watch:
                tournament = watch(api, tournament, console)
            print_status(tournament, console)
        elif args.game is not None:
            pool = api.call("GET", "/standings", params={"game": args.game, "variant": args.variant})
            table = Table(title=f"Elo, {pool['game']} ({pool['variant']}), {pool['games']} rated games")
            for column in ("#", "bot", "Elo", "games"):
                table.add_column(column)
            for place, row in enumerate(pool["standings"], 1):
                table.add_row(str(place), row["name"], f"{row['rating']:.0f}", str(row["games"]))
            console.print(table)
        elif args.id is not None:
            print_standings(api.call("GET", f"/tournaments/{args.id}"), console)
        else:
            parser.error("standings needs a tournament id or --game")
    except ApiError as error:
        print(f"sorry-arena tournament: {error}", file=sys.stderr)
        return 1
    return 0
