"""``sorry-arena tournament create|status|standings``: drive tournaments through the REST API, with a live
progress bar and the standings as a table. The service's error messages are shown as they are."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import requests
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cli.options import bounded_int

DEFAULT_API = "http://127.0.0.1:8000"


class ApiError(Exception):
    pass


class Api:
    def __init__(self, base: str, token: str | None) -> None:
        self.base = base.rstrip("/") + "/api/v1"
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
        if response.status_code >= 400:
            message = body.get("message") if isinstance(body, dict) else response.text[:200]
            details = body.get("errors") if isinstance(body, dict) else None
            raise ApiError(f"HTTP {response.status_code}: {message}" + (f" {details}" if details else ""))
        if not isinstance(body, dict):  # another web server at that address, or a proxy's page
            raise ApiError(f"the service at {self.base} did not answer JSON (is --api the sorry-arena service?)")
        return body


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


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "tournament", help="create tournaments and follow them", description="Tournaments through the REST API."
    )
    parser.add_argument("--api", default=os.environ.get("SORRY_ARENA_API") or DEFAULT_API, help="service URL")
    parser.add_argument("--token", default=os.environ.get("SORRY_ARENA_TOKEN"), help="your bearer token")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="create a round-robin tournament")
    create.add_argument("--game", choices=["board", "card"], required=True)
    create.add_argument("--bots", type=bot_ids, required=True, help="bot ids, e.g. 1,2,3")
    create.add_argument("--table-size", type=bounded_int(2, 4, "a table size"), default=2)
    create.add_argument("--rounds", type=bounded_int(1, 1000, "a number of rounds"), default=1)
    create.add_argument("--seed", type=bounded_int(0, 2**63 - 1, "a seed"), default=None)
    create.add_argument(
        "--settings", type=json_object, default={}, help='game settings as JSON, e.g. {"variant":"team"}'
    )
    create.add_argument("--move-timeout-ms", type=bounded_int(10, 60_000, "milliseconds"), default=1000)
    create.add_argument("--name", default="tournament")
    create.add_argument("--unrated", action="store_true", help="leave it out of the Elo standings")
    create.add_argument("--start-at", default=None, help="ISO 8601 time with a zone (needs Redis)")
    create.add_argument("--repeat-every", type=bounded_int(1, 365 * 86400, "seconds"), default=None)
    create.add_argument("--repeat-times", type=bounded_int(2, 10_000, "a number of runs"), default=None)
    create.add_argument("--watch", action="store_true", help="follow its progress, then print the standings")
    status = actions.add_parser("status", help="a tournament's status and progress")
    status.add_argument("id", type=bounded_int(1, 2**31 - 1, "a tournament id"))
    status.add_argument("--watch", action="store_true", help="follow its progress until it is done")
    standings = actions.add_parser("standings", help="a tournament's standings, or a game's Elo table")
    standings.add_argument("id", nargs="?", type=bounded_int(1, 2**31 - 1, "a tournament id"))
    standings.add_argument("--game", choices=["board", "card"], help="the Elo table of this game instead")
    standings.add_argument("--variant", default="standard")
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


def print_standings(tournament: dict[str, Any], console: Console) -> None:
    table = Table(title=f"{tournament['name']} ({tournament['game']}, {tournament['variant']}): standings")
    for column in ("#", "bot", "Elo", "95% interval", "games", "wins", "mean rank", "forfeits"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for place, row in enumerate(tournament["standings"], 1):
        table.add_row(
            str(place),
            row["name"],
            f"{row['elo']:.0f}",
            f"{row['low']:.0f} to {row['high']:.0f}",
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
