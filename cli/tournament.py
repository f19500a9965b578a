"""``sorry-arena tournament create|status|standings``: drive tournaments through the REST API, with a live
progress bar and the standings as a table.

``--api`` and ``--token`` go before or after the action (``tournament --token T create ...`` or ``tournament create
--token T ...``). ``--api`` is the service's root URL; the API's own path (``/api/v1``) given with it is dropped.
The service's refusals are shown as sentences: its message, and each invalid field on a line of its own. Its
parser: ``cli/parsers/tournament.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import requests
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cli.parsers.tournament import API_PATH, DEFAULT_API


class ApiError(Exception):
    pass


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
        """The service's answer (a JSON object) to one request; its refusal, or no service, as an :class:`ApiError`."""
        return self.answer(method, path, **kwargs)[0]

    def listing(self, path: str, **kwargs: Any) -> tuple[list[Any], dict[str, Any]]:
        """One page of a paged listing (a JSON array) and its ``X-Pagination`` header (``total``, ``total_pages``,
        ``page``...; empty if the service sent none)."""
        body, response = self.answer("GET", path, listing=True, **kwargs)
        try:
            pagination = json.loads(response.headers.get("X-Pagination") or "{}")
        except ValueError:
            pagination = {}
        return body, pagination if isinstance(pagination, dict) else {}

    def answer(
        self, method: str, path: str, listing: bool = False, **kwargs: Any
    ) -> tuple[Any, requests.Response]:
        try:
            response = self.session.request(method, self.base + path, timeout=30, **kwargs)
        except requests.RequestException as error:
            raise ApiError(f"cannot reach the service at {self.base}: {error.__class__.__name__}") from None
        if response.status_code == 204:  # done, nothing to say (a removal)
            return {}, response
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code == 404 and not self.is_service():
            raise ApiError(f"no sorry-arena API at {self.root} (expected the service's root, e.g. {DEFAULT_API})")
        listed = listing and response.status_code < 400 and isinstance(body, list)
        if not isinstance(body, dict) and not listed:  # another web server at that address, or a proxy's page
            raise ApiError(f"the service at {self.base} did not answer JSON (is --api the sorry-arena service?)")
        if response.status_code >= 400:
            raise ApiError(refusal(response.status_code, body))
        return body, response

    def is_service(self) -> bool:
        """Whether the service's health check answers at ``--api`` (after a 404: a wrong path, or no such thing)."""
        try:
            response = self.session.get(f"{self.base}/health", timeout=30)
            body = response.json()  # {"ok": true}, and since 0.2 the service's "version" beside it
            return response.status_code == 200 and isinstance(body, dict) and body.get("ok") is True
        except (requests.RequestException, ValueError):
            return False


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
            asked = {"game": args.game, "variant": args.variant, "table_size": args.table_size}
            pool = api.call("GET", "/standings", params=asked)
            table = Table(
                title=f"Elo, {pool['game']} ({pool['variant']}), {pool['table_size']} seats, "
                f"{pool['games']} rated games"
            )
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
