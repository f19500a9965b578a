"""``sorry-arena demo``: a local round-robin tournament between the example bots, with standings.

It starts the example bots (``clients/examples``: search, greedy, random) as push endpoints on loopback, each in a
process of its own (``python -m clients --bot NAME --push``), builds the service, registers the bots through the
API, runs the tournament with a progress bar and prints the standings with their 95% intervals.

On the embedded default it needs nothing else: a SQLite file in a temporary directory and the service's own
in-process job queue. With ``DATABASE_URL`` set it uses that database; with ``REDIS_URL`` set, RQ on that Redis
and ``--workers`` ``sorry-arena worker`` processes that it starts and stops.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cli.options import bounded_int
from cli.tournament import print_standings

EXAMPLES = ("search", "greedy", "random")
STARTUP_S = 20.0
"""How long a bot or worker process may take to start."""


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
        description=(
            "Start the example bots, run a round robin between them and print the standings. Embedded default: "
            "SQLite and an in-process queue; DATABASE_URL and REDIS_URL, when set, are used instead."
        ),
    )
    parser.add_argument("--game", choices=["board", "card"], default="card")
    parser.add_argument("--bots", type=bot_names, default=list(EXAMPLES), help="e.g. search,greedy,random")
    parser.add_argument("--table-size", type=bounded_int(2, 4, "a table size"), default=2)
    parser.add_argument("--rounds", type=bounded_int(1, 100, "a number of rounds"), default=50)
    parser.add_argument("--seed", type=bounded_int(0, 2**62, "a seed"), default=1)
    parser.add_argument(
        "--workers", type=bounded_int(1, 16, "a number of workers"), default=2, help="RQ workers (with REDIS_URL)"
    )
    parser.set_defaults(run=run, parser=parser)


def start_bot(name: str, secret: str, stack: ExitStack) -> str:
    """Start an example bot's push server in a process of its own; its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "clients", "--bot", name, "--push", "--port", "0"],
        env={**os.environ, "SORRY_ARENA_SECRET": secret},
        stdout=subprocess.PIPE,
        text=True,
    )
    stack.callback(stop, process)
    assert process.stdout is not None
    line = process.stdout.readline()  # "<name> (board, card) serving at http://127.0.0.1:PORT -- ..."
    found = re.search(r"serving at (http://\S+)", line)
    if found is None:
        raise RuntimeError(f"the {name} bot did not start (exit code {process.poll()}): {line.strip()!r}")
    return found.group(1)


def start_workers(count: int, env: dict[str, str], stack: ExitStack) -> None:
    for _ in range(count):
        process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "worker", "--maintenance-interval", "5", "--games", "1"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        stack.callback(stop, process)


def stop(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def intervals_apart(standings: list[dict[str, Any]]) -> bool:
    """Whether each bot's 95% interval lies wholly above the next one's (standings are best first)."""
    return all(upper["low"] > lower["high"] for upper, lower in itertools.pairwise(standings))


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.table_size > len(args.bots):
        parser.error(f"--table-size {args.table_size} needs at least {args.table_size} bots")
    from runtime.settings import Settings
    from service.app import create_app
    from store import migrate
    from store.database import normalize_database_url

    console = Console()
    redis_url = os.environ.get("REDIS_URL") or None
    with tempfile.TemporaryDirectory(prefix="sorry-arena-demo-") as scratch, ExitStack() as stack:
        database_url = normalize_database_url(
            os.environ.get("DATABASE_URL") or f"sqlite:///{Path(scratch) / 'demo.db'}"
        )
        try:
            migrate.upgrade(database_url)
        except Exception as exc:  # an unreachable or refused database: one line, no traceback
            print(
                f"sorry-arena demo: cannot use the database {database_url}: {exc}".splitlines()[0], file=sys.stderr
            )
            return 1
        # two games at once: the search bot thinks for a share of its deadline, and more games at once on a
        # 2-core machine would starve its thinking and blur the standings the demo shows
        settings = Settings(
            database_url=database_url, redis_url=redis_url, bot_allow="loopback", games_per_worker=2
        )
        app = create_app(settings)
        stack.callback(app.extensions["db_engine"].dispose)
        if redis_url:
            env = {**os.environ, "DATABASE_URL": database_url, "SORRY_ARENA_BOT_ALLOW": "loopback"}
            start_workers(args.workers, env, stack)
        client = app.test_client()
        owner = client.post("/api/v1/players", json={"name": f"demo-{secrets.token_hex(3)}"}).get_json()
        headers = {"Authorization": f"Bearer {owner['token']}"}
        bot_ids = []
        for number, name in enumerate(args.bots, 1):
            secret = secrets.token_urlsafe(32)
            try:
                url = start_bot(name, secret, stack)
            except RuntimeError as exc:
                print(f"sorry-arena demo: {exc}", file=sys.stderr)
                return 1
            label = f"{name}-{number}"
            reply = client.post(
                "/api/v1/bots",
                json={"name": label, "url": url, "games": [args.game], "secret": secret},
                headers=headers,
            )
            if reply.status_code != 201:
                print(f"sorry-arena demo: registering {label}: {reply.get_json()['message']}", file=sys.stderr)
                return 1
            bot_ids.append(reply.get_json()["id"])
        body = {
            "name": "demo",
            "game": args.game,
            "bot_ids": bot_ids,
            "table_size": args.table_size,
            "rounds": args.rounds,
            "seed": args.seed,
        }
        created = client.post("/api/v1/tournaments", json=body, headers=headers)
        if created.status_code != 201:
            print(f"sorry-arena demo: {created.get_json()['message']}", file=sys.stderr)
            return 1
        tournament = created.get_json()
        where = (
            f"{database_url.split('@')[-1]} with {'RQ on ' + redis_url if redis_url else 'an in-process queue'}"
        )
        console.print(
            f"{len(bot_ids)} bots ({', '.join(args.bots)}), {args.game} game, "
            f"{tournament['progress']['total']} games on {where}"
        )
        tournament = follow(
            tournament, lambda: client.get(f"/api/v1/tournaments/{tournament['id']}").get_json(), console
        )
        print_standings(tournament, console)
        if intervals_apart(tournament["standings"]):
            order = " > ".join(row["name"] for row in tournament["standings"])
            console.print(f"{order}: every 95% interval lies wholly above the next one's")
        else:
            console.print("some 95% intervals overlap: more --rounds would tell those bots apart")
        if not redis_url:
            app.extensions["queue"].wait(timeout=30)
    return 0


def follow(tournament: dict[str, Any], fetch: Callable[[], dict[str, Any]], console: Console) -> dict[str, Any]:
    """Show a progress bar until the tournament is done; the finished tournament."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("playing", total=tournament["progress"]["total"])
        while tournament["status"] != "done":
            time.sleep(0.2)
            tournament = fetch()
            progress.update(task, completed=tournament["progress"]["done"])
    return tournament
