"""``sorry-arena ladder create|list|show|join|leave|pause|resume|close|watch``: ladders through the REST API.

``--api`` and ``--token`` go before or after the action, as for ``sorry-arena tournament``, whose client
(:class:`cli.tournament.Api`) this command shares: the service's refusals are its sentences, an unreachable service
or another server at ``--api`` a clear message, each with exit status 1. ``show`` prints a ladder and its standings
(each bot's rating on the Elo scale with its 95% interval, its games, its games today and the budget left of its
hour, and its state: provisional, playing, paused and why, left or inactive with the date of its last game);
``watch`` prints them again every ``--every`` seconds until Ctrl-C (exit status 0) or until the ladder is closed
and its last game over. Its parser: ``cli/parsers/ladder.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from cli.tournament import Api, ApiError, shown


def about(ladder: dict[str, Any]) -> str:
    """A ladder in one line: its id, name, status, game, table, budget and games."""
    rated = "rated" if ladder.get("rated") else "not rated"
    official = ", official" if ladder.get("official") else ""
    return (
        f"ladder {ladder['id']} ({ladder['name']}): {ladder['status']}{official}; {ladder['game']} "
        f"({ladder['variant']}), {ladder['table_size']} seats, {ladder['move_timeout_ms']} ms per move, {rated}; "
        f"{ladder['budget_per_hour']} games per bot per hour, at most {ladder['max_in_play']} in play; "
        f"{ladder['games_made']} games made, {ladder['games_in_play']} in play"
    )


def day(stamp: str | None) -> str:
    """The date of an ISO 8601 time the API gave (``2030-01-31``), or ``never``."""
    return stamp[:10] if stamp else "never"


def state(row: dict[str, Any]) -> str:
    """What a standings row says besides its figures, in words."""
    words = []
    if row.get("left"):
        words.append(f"left (last game: {day(row.get('last_game_at'))})")
    elif row.get("inactive"):
        words.append(f"inactive (last game: {day(row.get('last_game_at'))})")
    if row.get("paused"):
        words.append(f"paused: {row.get('pause_reason') or 'no reason given'}")
    if row.get("provisional"):
        words.append("provisional")
    if row.get("busy") and not row.get("left"):
        words.append("playing")
    return "; ".join(words)


def standings_table(ladder: dict[str, Any]) -> Table:
    """The standings as a table: the bots in, best first, numbered; then those that left, unnumbered."""
    table = Table(title=f"{ladder['name']} ({ladder['game']}, {ladder['variant']}): standings")
    for column in ("#", "bot", "rating", "95% interval", "games", "today", "budget left", "state"):
        table.add_column(column, justify="left" if column in ("bot", "state") else "right")
    place = 0
    for row in ladder.get("standings") or []:
        if not row.get("left"):
            place += 1
        table.add_row(
            "" if row.get("left") else str(place),
            str(row["name"]),
            str(shown(row["rating"])),
            f"{shown(row['low'])} to {shown(row['high'])}",
            str(row["games"]),
            str(row["games_today"]),
            str(row["budget_left"]),
            state(row),
            style="dim" if row.get("left") or row.get("inactive") else None,
        )
    return table


def show_ladder(ladder: dict[str, Any], console: Console) -> None:
    console.print(about(ladder), soft_wrap=True)
    if ladder.get("standings"):
        console.print(standings_table(ladder))
        console.print("provisional: the 95% interval is wider than ±50 (too few games to settle the rating)")
    else:
        console.print("no bot in this ladder yet")


def list_ladders(api: Api, args: argparse.Namespace, console: Console) -> None:
    params: dict[str, Any] = {"page": args.page}
    if args.status is not None:
        params["status"] = args.status
    ladders, pagination = api.listing("/ladders", params=params)
    table = Table(title="ladders")
    for column in ("id", "name", "game", "seats", "status", "games made", "in play"):
        table.add_column(column, justify="left" if column in ("name", "game", "status") else "right")
    for ladder in ladders:
        table.add_row(
            str(ladder["id"]),
            str(ladder["name"]),
            f"{ladder['game']} ({ladder['variant']})",
            str(ladder["table_size"]),
            str(ladder["status"]),
            str(ladder["games_made"]),
            str(ladder["games_in_play"]),
        )
    console.print(table)
    if pagination:
        pages, total = pagination.get("total_pages", 1), pagination.get("total", 0)
        console.print(
            f"page {pagination.get('page', args.page)} of {pages}; {total} ladder{'' if total == 1 else 's'}"
        )


def watch(api: Api, ladder_id: int, every: int, once: bool, console: Console) -> None:
    """Print the ladder every ``every`` seconds (the screen cleared first on a terminal) until Ctrl-C, or until it
    is closed with no game in play (or once)."""
    while True:
        ladder = api.call("GET", f"/ladders/{ladder_id}")
        if console.is_terminal and not once:
            console.clear()
        console.print(time.strftime("%Y-%m-%d %H:%M:%S"), soft_wrap=True)
        show_ladder(ladder, console)
        if once:
            return
        if ladder["status"] == "closed" and not ladder["games_in_play"]:
            console.print("the ladder is closed and its games are over")
            return
        time.sleep(every)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    console = Console()
    api = Api(args.api, args.token)
    try:
        if args.action == "create":
            body = {
                "name": args.name,
                "game": args.game,
                "settings": args.settings,
                "table_size": args.table_size,
                "move_timeout_ms": args.move_timeout_ms,
                "budget_per_hour": args.budget_per_hour,
                "rated": not args.unrated,
            }
            if args.max_in_play is not None:
                body["max_in_play"] = args.max_in_play
            console.print(about(api.call("POST", "/ladders", json=body)), soft_wrap=True)
        elif args.action == "list":
            list_ladders(api, args, console)
        elif args.action == "show":
            show_ladder(api.call("GET", f"/ladders/{args.id}"), console)
        elif args.action == "join":
            api.call("POST", f"/ladders/{args.id}/bots", json={"bot_id": args.bot_id})
            console.print(f"bot {args.bot_id} joined ladder {args.id}")
        elif args.action == "leave":
            api.call("DELETE", f"/ladders/{args.id}/bots/{args.bot_id}")
            console.print(f"bot {args.bot_id} left ladder {args.id} (its game in play, if any, finishes)")
        elif args.action in ("pause", "resume"):
            api.call("POST", f"/ladders/{args.id}/bots/{args.bot_id}/{args.action}")
            console.print(f"bot {args.bot_id} {args.action}d in ladder {args.id}")
        elif args.action == "close":
            ladder = api.call("POST", f"/ladders/{args.id}/close")
            console.print(about(ladder), soft_wrap=True)
        else:
            try:
                watch(api, args.id, args.every, args.once, console)
            except KeyboardInterrupt:  # the way to stop watching: not an error
                return 0
    except ApiError as error:
        print(f"sorry-arena ladder: {error}", file=sys.stderr)
        return 1
    return 0
