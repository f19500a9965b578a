"""``sorry-arena view FILE [--port N]``: the web viewer for the games of a records file, on this machine only.

The records (JSON lines, ``engine/records.py``) are checked (``engine.records.check``: a record that fails is
refused, its problems printed) and imported into a temporary SQLite database through the game log
(``store.gamelog``: ``create``, then ``advance``/``save`` of the actions as the engine applies them, then ``finish``
with the record's result), so the viewer reads them as any stored game; a player per seat name. The service app
(``service.app.create_app``) is served on 127.0.0.1 (never another address) by werkzeug until Ctrl-C; the
temporary database is removed on the way out. A record without a result shows as a game in play. Its parser:
``cli/parsers/view.py``.
"""

from __future__ import annotations

import argparse
import secrets
import signal
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

import engine
from cli.recordfiles import label, records_of
from cli.replay import name
from cli.stopping import stopping_on
from engine.records import RecordError, check
from store import gamelog, migrate
from store.database import make_engine, sessions
from store.models import Player

HOST = "127.0.0.1"
BATCH = 500
"""Moves per write of the game log."""


class Players:
    """One player per seat name (a name seated twice in a game is two players)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.known: dict[tuple[str, int], int] = {}

    def seated(self, seats: list[dict[str, Any]]) -> list[int]:
        ids = []
        for seat in seats:
            key = (seat["name"], sum(1 for earlier in seats[: seat["seat"]] if earlier["name"] == seat["name"]))
            if key not in self.known:
                player = Player(name=seat["name"][:64], token_hash=secrets.token_hex(32))  # no token matches
                self.session.add(player)
                self.session.flush()
                self.known[key] = player.id
            ids.append(self.known[key])
        return ids


def load(session: Session, players: Players, record: dict[str, Any]) -> int:
    """Store a checked record as a game, through the game log; its id."""
    seated = players.seated(record["seats"])
    game = gamelog.create(
        session, record["game"], record["settings"], record["seed"], len(seated), seated[0], seated
    )
    state = engine.new_game(record["game"], record["settings"], record["seed"])
    moves: list[gamelog.Move] = []

    def write() -> None:
        over = engine.is_over(state)
        advance = gamelog.advance(game.id, moves, state, engine.result(state) if over else None)
        if not gamelog.save(session, advance):
            raise RuntimeError(f"game {game.id} was not at ply {moves[0].ply}")
        moves.clear()

    for action in record["actions"]:
        engine.apply(state, action["action"], action["seat"], events=False)
        moves.append(
            gamelog.Move(
                action["ply"],
                action["seat"],
                action["action"],
                action.get("latency_ms"),
                action.get("fault"),
            )
        )
        if len(moves) >= BATCH:
            write()
    if moves:
        write()
    if record["result"] is not None:
        gamelog.finish(session, game.id, len(record["actions"]), record["result"])
    session.commit()
    return game.id


def imported(path: str, url: str) -> list[tuple[str, int]]:
    """Check and import the records of ``path`` into the database at ``url``: (the game's name, its id) of each
    one accepted. Refused records are reported on stderr. Raises RecordError for an unreadable file."""
    shown: list[tuple[str, int]] = []
    engine_ = make_engine(url)
    try:
        with sessions(engine_)() as session:
            players = Players(session)
            for line, record in records_of(path):
                title = name(record, line)
                problems = check(record)
                if problems:
                    print(f"{label(path)}: {title}: refused: {'; '.join(problems)}", file=sys.stderr)
                    continue
                shown.append((title, load(session, players, record)))
    finally:
        engine_.dispose()
    return shown


def listening(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1 at ``port`` (0: a free one); OSError if it cannot (the port is taken)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((HOST, port))
        listener.listen(64)
    except OSError:
        listener.close()
        raise
    return listener


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        listener = listening(args.port)
    except OSError as error:
        print(f"sorry-arena view: cannot listen on {HOST}:{args.port}: {error.strerror or error}", file=sys.stderr)
        return 1
    with listener, tempfile.TemporaryDirectory(prefix="sorry-arena-view-") as folder:
        url = f"sqlite:///{Path(folder) / 'games.db'}"
        migrate.upgrade(url)
        try:
            games = imported(args.file, url)
        except RecordError as error:
            print(f"sorry-arena view: {error}", file=sys.stderr)
            return 2
        if not games:
            print(f"sorry-arena view: {label(args.file)}: no record could be shown", file=sys.stderr)
            return 1
        serve(listener, url, games)
    print("viewer stopped", file=sys.stderr)
    return 0


def serve(listener: socket.socket, url: str, games: list[tuple[str, int]]) -> None:
    """Serve the app on the database at ``url`` from ``listener`` until SIGINT or SIGTERM."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    from runtime.settings import Settings
    from service.app import create_app

    class Quiet(WSGIRequestHandler):
        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            pass  # no line per request: the viewer's pages fetch many

    app = create_app(Settings(database_url=url))
    server = make_server(HOST, 0, app, threaded=True, request_handler=Quiet, fd=listener.fileno())
    base = f"http://{HOST}:{listener.getsockname()[1]}"
    first_title, first_id = games[0]
    print(f"{first_title}: {base}/games/{first_id}")
    print(f"{len(games)} game{'s' if len(games) != 1 else ''}: {base}/games")
    print("Ctrl-C stops the viewer", flush=True)
    try:
        with stopping_on(signal.SIGINT, signal.SIGTERM):
            server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:  # either signal (cli/stopping.py)
        pass
    finally:
        server.server_close()
        app.extensions["db_engine"].dispose()
