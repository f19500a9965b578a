"""Helpers of the bot and tournament tests (tests/tournament/, tests/clients/, and others): an app that may call
loopback bots and the fixtures on it (``arena``, ``client``, ``owner``: a folder's conftest.py imports them), push
bots served in threads and pull clients run on threads, registration and tournament creation through the API, and
a wait for a tournament's end."""

from __future__ import annotations

import json
import random
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

import engine
from clients.examples import greedy_bot, random_bot
from clients.pull import PullClient, Stats
from clients.push import PushServer, serve
from runtime.settings import Settings
from service.app import create_app
from store.models import ActionRecord, Game, Ladder, Result, Tournament
from tests.apikit import API, Player, new_player
from tests.botservers import Behaviour, BotServer, Handler, Received, reply
from tests.conftest import TEST_LIMITS, dispose
from tournament.standings import ladderfit, poolfit, poolstate

SECRET = "s" * 40
Choose = Callable[[dict[str, Any]], str]


def arena_app(database_url: str, redis_url: str | None = None, **settings: Any) -> Flask:
    settings = {**TEST_LIMITS, **settings}
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, bot_allow="loopback", **settings))
    app.config["TESTING"] = True
    return app


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    """An app that may call loopback bots and runs its jobs on its own threads (the embedded queue), on SQLite and
    PostgreSQL; its queue drained before the database goes."""
    app = arena_app(database_url)
    yield app
    app.extensions["queue"].wait(timeout=60)
    dispose(app)


@pytest.fixture
def client(arena: Flask) -> FlaskClient:
    return arena.test_client()


@pytest.fixture
def owner(client: FlaskClient) -> Player:
    """A player who owns the bots."""
    return new_player(client, "owner")


@contextmanager
def push_bots(*chooses: Choose, secret: str = SECRET) -> Iterator[list[PushServer]]:
    servers = [serve(choose, secret=secret, name=f"bot{n}").start_background() for n, choose in enumerate(chooses)]
    try:
        yield servers
    finally:
        for server in servers:
            server.shutdown()


class Running:
    """A pull client playing on a thread until stopped (or until its own stop condition)."""

    def __init__(self, client: PullClient, **stop_when: Any) -> None:
        self.client = client
        self.stop = threading.Event()
        self.stats: Stats | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, kwargs=stop_when, daemon=True)
        self.thread.start()

    def _run(self, **stop_when: Any) -> None:
        try:
            self.stats = self.client.run(self.stop, **stop_when)
        except BaseException as error:
            self.error = error

    def join(self, timeout: float = 180) -> Stats:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the pull client did not stop"
        if self.error is not None:
            raise self.error
        assert self.stats is not None
        return self.stats

    def finish(self) -> Stats:
        self.stop.set()
        return self.join()


def register(
    client: FlaskClient,
    owner: Player,
    name: str,
    url: str | None,
    games: tuple[str, ...] = ("board", "card"),
    secret: str = SECRET,
) -> dict[str, Any]:
    response = client.post(
        f"{API}/bots",
        json={"name": name, "url": url, "games": list(games), "secret": secret},
        headers=owner.headers,
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    body: dict[str, Any] = response.get_json()
    return body


def create_tournament(client: FlaskClient, owner: Player, bot_ids: list[int], **fields: Any) -> dict[str, Any]:
    body = {"game": "board", "bot_ids": bot_ids, "table_size": 2, "rounds": 1, "seed": 7, **fields}
    response = client.post(f"{API}/tournaments", json=body, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    created: dict[str, Any] = response.get_json()
    return created


def wait_for(what: str, check: Callable[[], Any], timeout: float = 180) -> Any:
    """Until ``check()`` returns something true, polled every 0.1 s: that; a failure naming ``what`` after
    ``timeout`` seconds (generous: only a broken build, or a crawling machine, reaches it)."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(0.1)


def wait_pool(
    client: FlaskClient, games: int, game: str = "card", variant: str = "standard", table_size: int = 2
) -> dict[str, Any]:
    """``GET /api/v1/standings`` of the pool once its table counts ``games`` rated games: every pool is refit by a
    job off the game path (asked for at a tournament's last result), which may run after the tournament is done."""
    asked = {"game": game, "variant": variant, "table_size": table_size}
    app = client.application

    def fitted() -> dict[str, Any] | None:
        body: dict[str, Any] = client.get("/api/v1/standings", query_string=asked).get_json()
        if body["games"] == games:
            return body
        # As every worker's clock and the embedded service's maintenance do each second (a test app runs neither):
        # a refit asked for while the pool's job was finishing is refused by the queue, and asked again here.
        poolfit.ask_due(app.extensions["db_sessions"], app.extensions["queue"])
        return None

    found: dict[str, Any] = wait_for(
        f"the {game} {variant} {table_size}-seat pool's table of {games} games", fitted
    )
    return found


def wait_ladder_fit(client: FlaskClient, ladder_id: int) -> dict[str, Any]:
    """``GET /api/v1/ladders/{id}`` once the ladder's standings are the fit of every rated result it has: the fit
    is a job off the game path, asked for at most every few seconds, so the last results of a burst are fitted by
    the workers' clock (or the embedded maintenance), whose ask is made here (a test app runs neither)."""
    app = client.application
    sessions = app.extensions["db_sessions"]

    def fitted() -> dict[str, Any] | None:
        with sessions() as session:
            found = session.execute(select(Ladder.fitted, Ladder.rated).where(Ladder.id == ladder_id)).one()
        if found.fitted == found.rated:
            body: dict[str, Any] = client.get(f"{API}/ladders/{ladder_id}").get_json()
            return body
        ladderfit.ask_due(sessions, app.extensions["queue"])
        return None

    found: dict[str, Any] = wait_for(f"ladder {ladder_id}'s fit of every rated result", fitted)
    return found


def wait_done(client: FlaskClient, tournament_id: int, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get(f"{API}/tournaments/{tournament_id}").get_json()
        if body["status"] == "done":
            return body
        assert time.monotonic() < deadline, f"tournament not done in {timeout} s: {body['progress']}"
        time.sleep(0.1)


def assert_idle(app: Flask, timeout: float) -> None:
    """Assert that the app's embedded queue has no job queued or running within ``timeout`` seconds; if it still
    has, the message shows where each of its threads is (a game stuck past a cancellation, say)."""
    if app.extensions["queue"].wait(timeout=timeout):
        return
    frames = sys._current_frames()
    stacks = [
        f"{thread.name}:\n{''.join(traceback.format_stack(frames[thread.ident]))}"
        for thread in threading.enumerate()
        if thread.name.startswith("sorry-arena") and thread.ident in frames
    ]
    raise AssertionError(f"the queue is not idle after {timeout} s; its threads:\n" + "\n".join(stacks))


def random_choice(request: dict[str, Any]) -> str:
    return str(random_bot.choose(request))


def greedy_choice(request: dict[str, Any]) -> str:
    return str(greedy_bot.choose(request))


def illegal_choice(request: dict[str, Any]) -> str:
    return "no-such-action"


def sometimes_illegal(rate: float, seed: int = 0) -> Choose:
    generator = random.Random(seed)

    def choose(request: dict[str, Any]) -> str:
        return "no-such-action" if generator.random() < rate else random_choice(request)

    return choose


def bot_server(move: Behaviour, info: Behaviour | None = None) -> BotServer:
    """A bot (tests/botservers.py) that answers ``info``, ``start`` and ``end`` as it should (or ``info`` as
    given: a health check that fails) and every ``move`` with ``move``; it records what it received."""
    proper = reply()

    def behave(handler: Handler, request: Received) -> None:
        route = request.path.rstrip("/").rsplit("/", 1)[-1]
        if route == "move":
            move(handler, request)
        elif route == "info" and info is not None:
            info(handler, request)
        else:
            proper(handler, request)

    return BotServer(behave)


@dataclass(frozen=True)
class Played:
    """One saved action of a tournament game."""

    ply: int
    seat: int
    action: str
    fault: str | None
    latency_ms: float | None


def played(app: Flask, game_id: int) -> list[Played]:
    """The saved actions of a game, in order."""
    with app.extensions["db_sessions"]() as session:
        rows = session.execute(
            select(
                ActionRecord.ply,
                ActionRecord.seat,
                ActionRecord.action,
                ActionRecord.fault,
                ActionRecord.latency_ms,
            )
            .where(ActionRecord.game_id == game_id)
            .order_by(ActionRecord.ply)
        ).all()
    return [Played(*row) for row in rows]


def saved_game(app: Flask, game_id: int) -> Game:
    with app.extensions["db_sessions"]() as session:
        game = session.get(Game, game_id)
    assert game is not None
    return game


def replays_to_saved_state(app: Flask, game_id: int) -> bool:
    """Whether the saved actions (fallbacks included) replay, from the seed, to the saved position."""
    game = saved_game(app, game_id)
    actions = [move.action for move in played(app, game_id)]
    assert [move.ply for move in played(app, game_id)] == list(range(game.ply))
    replayed = engine.replay(game.game, game.settings, game.seed, actions)
    return bool(engine.to_json(replayed) == json.loads(game.state))


def write_result(session: Session, row: dict[str, Any]) -> None:
    """Write a standard card game's result (``row``: its columns) and count it in its pool's state, uncommitted, as
    ``tournament.play.results.finish`` does in its transaction."""
    counted = poolstate.record(
        session,
        row["tournament_id"],
        "card",
        "standard",
        row["version_ids"],
        row["ranks"],
        row["faults"],
        row["finished_at"],
        row.get("forfeited", ()),
    )
    session.execute(insert(Result).values({**row, "counted": counted}))


def tournament_row(session: Session, owner_id: int, **fields: Any) -> Tournament:
    """A tournament made straight in the database, its games not laid out, flushed: running, of one 2-seat standard
    card game between bots 1 and 2, unless ``fields`` say otherwise."""
    made = Tournament(
        owner_id=owner_id,
        **{
            "name": "t",
            "game": "card",
            "settings": {},
            "variant": "standard",
            "bot_ids": [1, 2],
            "table_size": 2,
            "rounds": 1,
            "seed": 1,
            "move_timeout_ms": 1000,
            "status": "running",
            "games_total": 1,
            **fields,
        },
    )
    session.add(made)
    session.flush()
    return made
