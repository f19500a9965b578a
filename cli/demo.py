"""``sorry-arena demo``: a local round-robin tournament between the example bots, on the embedded default.

It serves the example bots (``clients/examples``) as push endpoints on loopback, builds the service on a SQLite
file in a temporary directory with its in-process job queue (no Redis needed), registers the bots through the
API, runs the tournament with a progress bar and prints the standings with their 95% intervals.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cli.options import bounded_int
from cli.tournament import print_standings

EXAMPLES = ("greedy", "random")


def bot_names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(EXAMPLES))
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown bots {', '.join(unknown)}: the examples are {', '.join(EXAMPLES)}"
        )
    if len(names) < 2:
        raise argparse.ArgumentTypeError("a tournament needs at least 2 bots")
    return names


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "demo",
        help="a local tournament between the example bots, with standings",
        description="Serve the example bots, run a round robin between them on SQLite, print the standings.",
    )
    parser.add_argument("--game", choices=["board", "card"], default="board")
    parser.add_argument(
        "--bots", type=bot_names, default=["greedy", "random", "random"], help="e.g. greedy,random"
    )
    parser.add_argument("--table-size", type=bounded_int(2, 4, "a table size"), default=2)
    parser.add_argument("--rounds", type=bounded_int(1, 100, "a number of rounds"), default=5)
    parser.add_argument("--seed", type=bounded_int(0, 2**62, "a seed"), default=1)
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.table_size > len(args.bots):
        parser.error(f"--table-size {args.table_size} needs at least {args.table_size} bots")
    from clients.examples import greedy_bot, random_bot
    from clients.push import serve
    from service import migrate
    from service.app import create_app
    from service.config import Settings

    chooses = {"greedy": greedy_bot.choose, "random": random_bot.choose}
    console = Console()
    with tempfile.TemporaryDirectory(prefix="sorry-arena-demo-") as scratch, ExitStack() as stack:
        database_url = f"sqlite:///{Path(scratch) / 'demo.db'}"
        migrate.upgrade(database_url)
        app = create_app(Settings(database_url=database_url, bot_allow="loopback"))
        client = app.test_client()
        owner = client.post("/api/v1/players", json={"name": "demo"}).get_json()
        headers = {"Authorization": f"Bearer {owner['token']}"}
        bot_ids = []
        for number, name in enumerate(args.bots, 1):
            secret = secrets.token_urlsafe(32)
            server = serve(chooses[name], secret=secret, name=name).start_background()
            stack.callback(server.shutdown)
            label = f"{name}-{number}"
            reply = client.post(
                "/api/v1/bots",
                json={"name": label, "url": server.url, "games": [args.game], "secret": secret},
                headers=headers,
            )
            if reply.status_code != 201:
                print(f"sorry-arena demo: registering {label}: {reply.get_json()['message']}", file=sys.stderr)
                return 1
            bot_ids.append(reply.get_json()["id"])
        created = client.post(
            "/api/v1/tournaments",
            json={
                "name": "demo",
                "game": args.game,
                "bot_ids": bot_ids,
                "table_size": args.table_size,
                "rounds": args.rounds,
                "seed": args.seed,
            },
            headers=headers,
        )
        if created.status_code != 201:
            print(f"sorry-arena demo: {created.get_json()['message']}", file=sys.stderr)
            return 1
        tournament = created.get_json()
        console.print(
            f"{len(bot_ids)} bots ({', '.join(args.bots)}), {args.game} game, "
            f"{tournament['progress']['total']} games on {database_url}"
        )
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            task = progress.add_task("playing", total=tournament["progress"]["total"])
            while tournament["status"] != "done":
                time.sleep(0.2)
                tournament = client.get(f"/api/v1/tournaments/{tournament['id']}").get_json()
                progress.update(task, completed=tournament["progress"]["done"])
        print_standings(tournament, console)
        app.extensions["queue"].wait(timeout=30)
        app.extensions["db_engine"].dispose()
    return 0
