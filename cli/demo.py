"""``sorry-arena demo``: a local round-robin tournament between the example bots, with standings.

It starts the example bots (``clients/examples``: search, greedy, random) as push endpoints on loopback, each in a
process of its own (``python -m clients --bot NAME --push``), builds the service, registers the bots through the
API, runs the tournament with a progress bar and prints the standings with their 95% intervals.

On the embedded default it needs nothing else: a SQLite file in a temporary directory (deleted at the end) and
the service's own in-process job queue. With ``DATABASE_URL`` set it uses that database; with ``REDIS_URL`` set, RQ
on that Redis and ``--workers`` ``sorry-arena worker`` processes that it starts and stops. A database that is not
the demo's own keeps what the demo leaves there, so there the tournament is unrated (it stays out of the Elo
standings) and the demo's bots, whose URLs die with their processes, are deactivated on exit (``DELETE
/api/v1/bots/{id}``: they join no new tournament) however the demo ends.

``--keep`` serves the pages (the tournament, the standings, the replays) on 127.0.0.1 after the standings are
printed, until Ctrl-C. SIGTERM stops the demo as Ctrl-C does (``cli/stopping.py``): its bots and workers stopped,
its temporary folder removed; while the tournament plays it exits with 143 (128 + 15; Ctrl-C: 130), while
``--keep`` serves the pages with 0 after ``stopped``, as on Ctrl-C. Its parser: ``cli/parsers/demo.py``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cli.stopping import stopping_on
from cli.tournament import print_standings, shown

if TYPE_CHECKING:
    from flask import Flask
    from flask.testing import FlaskClient

STARTUP_S = 20.0
"""How long a bot or worker process may take to start."""
DEMO_MOVE_TIMEOUT_MS = 5000
"""The demo tournament's move deadline (the service's default is 1 s)."""


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
    """Whether each bot's 95% interval lies wholly above the next one's (standings are best first), as the table
    prints them: two intervals that meet at one whole point once rounded are not called apart."""
    return all(shown(upper["low"]) > shown(lower["high"]) for upper, lower in itertools.pairwise(standings))


class DemoError(Exception):
    """What stops the demo, in one line for the user."""


class NewerRelease(DemoError):
    """The database is at a revision this release does not know (exit 2)."""


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.table_size > len(args.bots):
        parser.error(f"--table-size {args.table_size} needs at least {args.table_size} bots")
    if args.port is not None and not args.keep:
        parser.error("--port is the port of --keep's pages: give --keep too")
    try:
        with stopping_on(signal.SIGTERM):  # the clean-up of Ctrl-C (the bots, the temporary folder) on SIGTERM too
            play(args, Console())
    except NewerRelease as exc:
        print(f"sorry-arena demo: {exc}", file=sys.stderr)
        return 2
    except DemoError as exc:
        print(f"sorry-arena demo: {exc}", file=sys.stderr)
        return 1
    return 0


def play(args: argparse.Namespace, console: Console) -> None:
    from runtime.settings import Settings
    from service.app import create_app
    from store import migrate
    from store.urls import normalize_database_url

    redis_url = os.environ.get("REDIS_URL") or None
    own_database = not os.environ.get("DATABASE_URL")
    with tempfile.TemporaryDirectory(prefix="sorry-arena-demo-") as scratch, ExitStack() as stack:
        database_url = normalize_database_url(
            os.environ.get("DATABASE_URL") or f"sqlite:///{Path(scratch) / 'demo.db'}"
        )
        try:
            migrate.upgrade(database_url)
        except migrate.NewerDatabase as exc:
            raise NewerRelease(str(exc)) from None
        except Exception as exc:  # an unreachable or refused database: one line, no traceback
            raise DemoError(f"cannot use the database {database_url}: {exc}".splitlines()[0]) from None
        # two games at once: the search bot thinks for a share of its deadline, and more games at once on a
        # 2-core machine would starve its thinking and blur the standings the demo shows; both the demo's (its one
        # account holds every slot: nobody else plays here)
        settings = Settings(
            database_url=database_url,
            redis_url=redis_url,
            bot_allow="loopback",
            games_per_worker=2,
            account_share_percent=100,
        )
        app = create_app(settings)
        stack.callback(app.extensions["db_engine"].dispose)
        if redis_url:
            env = {
                **os.environ,
                "DATABASE_URL": database_url,
                "SORRY_ARENA_BOT_ALLOW": "loopback",
                "SORRY_ARENA_ACCOUNT_SHARE_PERCENT": "100",
            }
            start_workers(args.workers, env, stack)
        client = app.test_client()
        owner = client.post("/api/v1/players", json={"name": f"demo-{secrets.token_hex(3)}"}).get_json()
        headers = {"Authorization": f"Bearer {owner['token']}"}
        bot_ids: list[int] = []
        stack.callback(retire, client, headers, bot_ids)  # the bots registered by then, however the demo ends
        # bot names are unique in a database: the demo's own names its bots plainly, another's after the demo
        suffix = "" if own_database else f"-{owner['name'].removeprefix('demo-')}"
        for number, name in enumerate(args.bots, 1):
            bot_ids.append(register(client, headers, name, f"{name}-{number}{suffix}", args.game, stack))
        body = {
            "name": "demo",
            "game": args.game,
            "bot_ids": bot_ids,
            "table_size": args.table_size,
            "rounds": args.rounds,
            "seed": args.seed,
            # the search bot thinks for a fifth of its deadline: 5 s lets it finish its samples on a loaded
            # machine too, so the standings show the bots' strength, not the machine's load
            "move_timeout_ms": DEMO_MOVE_TIMEOUT_MS,
            "rated": own_database,  # a database of the user's: its Elo standings stay the real bots'
        }
        created = client.post("/api/v1/tournaments", json=body, headers=headers)
        if created.status_code != 201:
            raise DemoError(created.get_json()["message"])
        tournament = created.get_json()
        stack.callback(abandon, client, headers, tournament["id"])  # before the bots go: runs in reverse order
        where = (
            f"{database_url.split('@')[-1]} with {'RQ on ' + redis_url if redis_url else 'an in-process queue'}"
        )
        console.print(
            f"{len(bot_ids)} bots ({', '.join(args.bots)}), {args.game} game, "
            f"{tournament['progress']['total']} games on {where}"
        )
        if not own_database:
            console.print("unrated (DATABASE_URL is not the demo's own); the demo's bots are deactivated on exit")
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
        if args.keep:
            keep_serving(app, tournament, args.port or 0)


def register(
    client: FlaskClient, headers: dict[str, str], name: str, label: str, game: str, stack: ExitStack
) -> int:
    """Start the example bot ``name`` and register it with the service as ``label``; its id."""
    secret = secrets.token_urlsafe(32)
    try:
        url = start_bot(name, secret, stack)
    except RuntimeError as exc:
        raise DemoError(str(exc)) from None
    reply = client.post(
        "/api/v1/bots", json={"name": label, "url": url, "games": [game], "secret": secret}, headers=headers
    )
    if reply.status_code != 201:
        raise DemoError(f"registering {label}: {reply.get_json()['message']}")
    return int(reply.get_json()["id"])


def abandon(client: FlaskClient, headers: dict[str, str], tournament_id: int) -> None:
    """Cancel the demo's tournament if it did not finish (the demo was interrupted or failed): in a database that
    is not the demo's own it must not stay ``running`` with the games of bots about to die."""
    try:
        status = client.get(f"/api/v1/tournaments/{tournament_id}").get_json()["status"]
        if status in ("scheduled", "running"):
            reply = client.post(f"/api/v1/tournaments/{tournament_id}/cancel", headers=headers)
            if reply.status_code != 200:
                print(
                    f"sorry-arena demo: could not cancel tournament {tournament_id}: {reply.get_json()['message']}",
                    file=sys.stderr,
                )
    except Exception as exc:  # the database went away meanwhile: say so
        print(
            f"sorry-arena demo: could not cancel tournament {tournament_id}: {exc}".splitlines()[0],
            file=sys.stderr,
        )


def retire(client: FlaskClient, headers: dict[str, str], bot_ids: list[int]) -> None:
    """Deactivate the demo's bots (their URLs die with their processes): they join no new tournament."""
    for bot_id in bot_ids:
        try:
            reply = client.delete(f"/api/v1/bots/{bot_id}", headers=headers)
            problem = None if reply.status_code == 204 else (reply.get_json() or {}).get("message")
        except Exception as exc:  # the database went away meanwhile: say so, and go on with the others
            problem = f"{exc}".splitlines()[0] if str(exc) else exc.__class__.__name__
        if problem:
            print(f"sorry-arena demo: could not deactivate bot {bot_id}: {problem}", file=sys.stderr)


def keep_serving(app: Flask, tournament: dict[str, Any], port: int) -> None:
    """Serve the app's pages on 127.0.0.1 until Ctrl-C or SIGTERM, after printing where to look."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            pass

    try:
        server = make_server("127.0.0.1", port, app, threaded=True, request_handler=Quiet)
    except OSError as exc:
        raise DemoError(f"cannot serve the pages on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    base = f"http://127.0.0.1:{server.server_port}"
    try:  # from here on Ctrl-C (SIGTERM too: a KeyboardInterrupt) stops the pages, however soon it comes
        print(f"tournament: {base}/tournaments/{tournament['id']}", flush=True)
        if tournament["rated"]:
            print(f"standings:  {base}/standings/{tournament['game']}/{tournament['variant']}", flush=True)
        else:
            print(f"standings:  on the tournament's page (unrated: not in the Elo standings, {base}/)", flush=True)
        print("serving the pages until Ctrl-C", flush=True)
        server.serve_forever()  # werkzeug's ends quietly on a KeyboardInterrupt while it serves
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print("stopped", flush=True)


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
