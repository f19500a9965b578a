"""Decision deadlines (SQLite and PostgreSQL): a tournament game's decision must be answered by the time its
position was saved (``games.updated_at``) plus the tournament's ``move_timeout_ms``, shown alike by
``GET /games/{id}/actions``, ``GET /decisions`` and a move's reply, by every API process; the worker never plays the
fallback before the deadline it shows; games outside tournaments show none. And the reference pull client gives
``choose`` the time left until it, on the service's clock."""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

import engine
from clients.pull import PullClient, ServiceClock
from store import gamelog
from store.gamelog import as_utc
from store.models import ActionRecord, Bot, Game, Tournament, TournamentGame
from tests.apikit import (
    API,
    SQLITE_ONLY,
    Player,
    asked_seat,
    get_actions,
    get_decisions,
    started_game,
    submit,
)
from tests.arenakit import Running, arena_app, create_tournament, push_bots, random_choice, register, wait_done
from tests.conftest import dispose
from tests.liveserver import running, serving

TIMEOUT_MS = 1500


def parse(deadline: str) -> datetime:
    moment = datetime.fromisoformat(deadline)
    assert moment.tzinfo is not None, deadline
    return moment


def to_ms(moment: datetime) -> datetime:
    """``moment`` rounded down to the millisecond, as deadlines are shown."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def saved(app: Flask, game_id: int) -> tuple[int, datetime]:
    """The game's ply and the time its position was saved, from the database."""
    with app.extensions["db_sessions"]() as session:
        ply, updated_at = session.execute(select(Game.ply, Game.updated_at).where(Game.id == game_id)).one()
    return ply, as_utc(updated_at)


def tournament_game(app: Flask, owner: Player, bots: list[dict[str, Any]], timeout_ms: int, seed: int) -> int:
    """A tournament game created as the worker creates it (``store.gamelog.create``), without a worker to
    play it: its seats' bots (pull bots) move through the API alone."""
    with app.extensions["db_sessions"]() as session:
        rows = [session.get(Bot, bot["id"]) for bot in bots]
        tournament = Tournament(
            owner_id=owner.id,
            name="deadlines",
            game="board",
            settings=engine.normalize_settings("board", {"players": 2}),
            variant="standard",
            bot_ids=[bot["id"] for bot in bots],
            table_size=2,
            rounds=1,
            seed=seed,
            move_timeout_ms=timeout_ms,
            status="running",
            games_total=1,
        )
        session.add(tournament)
        session.flush()
        scheduled = TournamentGame(
            tournament_id=tournament.id, number=0, round=0, bot_ids=tournament.bot_ids, seed=seed, status="running"
        )
        session.add(scheduled)
        session.flush()
        game = gamelog.create(
            session,
            tournament.game,
            tournament.settings,
            seed,
            tournament.table_size,
            owner.id,
            [row.player_id for row in rows if row is not None],
        )
        scheduled.game_id = game.id
        session.commit()
        return game.id


def test_a_tournament_decisions_deadline_is_its_save_time_plus_the_timeout_in_every_process(
    arena: Flask, client: FlaskClient, owner: Player, database_url: str
) -> None:
    """Moves alternate between two apps (two processes' caches): at every ply both show every seat the same
    deadline, the saved time + the timeout; the inbox shows it; a move's reply shows the next decision's, which lies
    between the request's start and end (+ the timeout)."""
    bots = [register(client, owner, f"puller{n}", None) for n in range(2)]
    players = [Player(bot["player_id"], bot["name"], bot["token"]) for bot in bots]
    game_id = tournament_game(arena, owner, bots, TIMEOUT_MS, seed=5)
    timeout = timedelta(milliseconds=TIMEOUT_MS)
    other = arena_app(database_url)
    try:
        apps = [client, other.test_client()]
        rng = random.Random(5)
        for ply in range(40):
            here, there = apps[ply % 2], apps[(ply + 1) % 2]
            seat = asked_seat(here, game_id)
            if seat is None:
                break
            stored_ply, saved_at = saved(arena, game_id)
            assert stored_ply == ply
            expected = to_ms(saved_at + timeout)
            shown = {get_actions(app, game_id, player)["deadline"] for app in (there, here) for player in players}
            assert len(shown) == 1 and parse(shown.pop()) == expected  # whoever asks, in either process
            inbox = [d for d in get_decisions(there, players[seat])["decisions"] if d["game_id"] == game_id]
            assert [(d["ply"], parse(d["deadline"])) for d in inbox] == [(ply, expected)]
            offered = get_actions(here, game_id, players[seat])
            assert offered["your_decision"]
            started = datetime.now(UTC)
            response = submit(here, game_id, players[seat], rng.choice(offered["actions"])["id"], ply)
            ended = datetime.now(UTC)
            assert response.status_code == 200, response.get_data(as_text=True)
            reply = response.get_json()
            if reply["decision"] is None:
                assert reply["deadline"] is None
                break
            assert to_ms(started + timeout) <= parse(reply["deadline"]) <= ended + timeout
            assert get_actions(there, game_id, players[0])["deadline"] == reply["deadline"]
    finally:
        dispose(other)


def test_games_outside_tournaments_have_no_deadline(client: FlaskClient) -> None:
    game_id, players = started_game(client, "board", {"players": 2}, seats=2, seed=3)
    for ply in range(6):
        seat = asked_seat(client, game_id)
        assert seat is not None
        assert {get_actions(client, game_id, player)["deadline"] for player in players} == {None}
        assert [d["deadline"] for d in get_decisions(client, players[seat])["decisions"]] == [None]
        action = get_actions(client, game_id, players[seat])["actions"][0]["id"]
        response = submit(client, game_id, players[seat], action, ply)
        assert response.status_code == 200 and response.get_json()["deadline"] is None


@dataclass
class Seen:
    """A decision the pull bot found in its inbox."""

    game_id: int
    ply: int
    deadline: datetime
    polled: datetime
    """When the inbox's answer arrived."""
    not_before: datetime | None
    """When the bot's last move in this game was sent (the position was saved after it), if it moved last."""
    shown_by_actions: str | None
    """``GET /games/{id}/actions``'s deadline at the same ply (``None``: the game had moved on)."""
    saved: tuple[int, datetime]
    """The game's ply and save time in the database just after."""


def pull_bot(app: Flask, token: str, stop: threading.Event, seen: list[Seen], skipped: dict[int, Seen]) -> None:
    """Answers every decision at once, but the first of each game, which it leaves to time out."""
    client, headers = app.test_client(), {"Authorization": f"Bearer {token}"}
    answered: dict[int, int] = {}
    moved: dict[int, datetime] = {}
    while not stop.is_set():
        inbox = client.get(f"{API}/decisions", query_string={"wait": 1}, headers=headers).get_json()
        polled = datetime.now(UTC)
        for pending in inbox["decisions"]:
            game_id, ply = pending["game_id"], pending["ply"]
            if answered.get(game_id, -1) >= ply:
                continue
            answered[game_id] = ply
            actions = client.get(f"{API}/games/{game_id}/actions", headers=headers).get_json()
            decision = Seen(
                game_id,
                ply,
                parse(pending["deadline"]),
                polled,
                moved.pop(game_id, None),
                actions["deadline"] if actions["ply"] == ply else None,
                saved(app, game_id),
            )
            seen.append(decision)
            if game_id not in skipped:
                skipped[game_id] = decision
                continue
            sent = datetime.now(UTC)
            response = client.post(
                f"{API}/games/{game_id}/actions",
                json={"action": pending["actions"][0]["id"], "expected_ply": ply},
                headers=headers,
            )
            if response.status_code == 200:  # (a 409: too late, the worker's fallback took the ply)
                moved[game_id] = sent


def test_the_worker_never_times_a_pull_bot_out_before_the_deadline_it_shows(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    timeout_ms = 2000
    timeout = timedelta(milliseconds=timeout_ms)
    seen: list[Seen] = []
    skipped: dict[int, Seen] = {}
    with push_bots(random_choice) as servers:
        pusher = register(client, owner, "pusher", servers[0].url)
        puller = register(client, owner, "puller", None)
        stop = threading.Event()
        thread = threading.Thread(target=pull_bot, args=(arena, puller["token"], stop, seen, skipped), daemon=True)
        thread.start()
        try:
            created = create_tournament(client, owner, [pusher["id"], puller["id"]], move_timeout_ms=timeout_ms)
            done = wait_done(client, created["id"])
        finally:
            stop.set()
            thread.join(10)
    assert done["progress"] == {"done": 2, "total": 2} and len(skipped) == 2
    assert len(seen) > 10
    exact = 0
    for decision in seen:
        assert decision.deadline <= decision.polled + timeout  # saved before the inbox showed it
        if decision.not_before is not None:  # saved after the bot's own last move was sent
            assert decision.deadline >= to_ms(decision.not_before + timeout)
        if decision.shown_by_actions is not None:
            assert parse(decision.shown_by_actions) == decision.deadline
        ply, saved_at = decision.saved
        if ply == decision.ply:
            assert decision.deadline == to_ms(saved_at + timeout)
            exact += 1
    assert exact > len(seen) // 2
    # a decision left unanswered: the worker played the fallback only after the deadline it showed
    with arena.extensions["db_sessions"]() as session:
        for decision in skipped.values():
            fault, created_at = session.execute(
                select(ActionRecord.fault, ActionRecord.created_at).where(
                    ActionRecord.game_id == decision.game_id, ActionRecord.ply == decision.ply
                )
            ).one()
            assert fault == "timeout"
            assert as_utc(created_at) >= decision.deadline


def test_a_pull_bots_move_that_lands_as_its_wait_runs_out_stands_and_the_game_goes_on(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    """The worker's wait for the pull bot runs out just as the bot's move is saved: the fallback loses the race (its
    save finds the ply taken), the bot's move stands without a fault, and the worker goes on from it, every later move
    at the next ply."""
    notifier = arena.extensions["notifier"]
    waiting = notifier.wait
    late: list[tuple[int, int]] = []
    with push_bots(random_choice) as servers:
        pusher = register(client, owner, "pusher", servers[0].url)
        puller = register(client, owner, "puller", None)
        headers = {"Authorization": f"Bearer {puller['token']}"}

        def move_then_wait(game_id: int, ready: Any, timeout: float) -> bool:
            """The pull bot: moves as soon as asked; the first time, the wait is told it ran out all the same."""
            asked = client.get(f"{API}/games/{game_id}/actions", headers=headers).get_json()
            moved = client.post(
                f"{API}/games/{game_id}/actions",
                json={"action": asked["actions"][0]["id"], "expected_ply": asked["ply"]},
                headers=headers,
            )
            assert moved.status_code == 200, moved.get_data(as_text=True)
            if not late:
                late.append((game_id, asked["ply"]))
                return False
            return bool(waiting(game_id, ready, timeout))

        notifier.wait = move_then_wait
        created = create_tournament(client, owner, [pusher["id"], puller["id"]], move_timeout_ms=TIMEOUT_MS)
        done = wait_done(client, created["id"], timeout=60)
    assert done["progress"] == {"done": 2, "total": 2}
    [(game_id, ply)] = late
    with arena.extensions["db_sessions"]() as session:
        game = session.get(Game, game_id)
        assert game is not None and game.status == "over"
        records = session.execute(
            select(ActionRecord.ply, ActionRecord.seat, ActionRecord.fault)
            .where(ActionRecord.game_id == game_id)
            .order_by(ActionRecord.ply)
        ).all()
    assert [record.ply for record in records] == list(range(game.ply))
    assert records[ply].fault is None
    assert all(record.fault is None for record in records)


# The reference client


@SQLITE_ONLY
def test_the_pull_client_gives_choose_the_time_left_until_the_services_deadline(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    timeout_ms, flag_ms = 5000, 123_456
    pulled: list[dict[str, Any]] = []

    def choose(request: dict[str, Any]) -> str:
        pulled.append(request)
        return random_choice(request)

    with serving(arena) as url, push_bots(random_choice) as servers:
        pusher = register(client, owner, "pusher", servers[0].url)
        puller = register(client, owner, "puller", None)
        running = Running(PullClient(choose, url, puller["token"], wait=1, deadline_ms=flag_ms), max_games=2)
        created = create_tournament(client, owner, [pusher["id"], puller["id"]], move_timeout_ms=timeout_ms)
        done = wait_done(client, created["id"])
        stats = running.join()  # once it has seen both games end (not when this test sees the tournament done)
    assert stats.games == 2 and len(pulled) == stats.moves > 10
    for result in done["results"]:
        assert result["faults"] == [0, 0]
    for request in pulled:
        assert type(request["deadline_ms"]) is int and 1 <= request["deadline_ms"] <= timeout_ms
    left = sorted(request["deadline_ms"] for request in pulled)
    assert left[len(left) // 2] > timeout_ms // 2  # the time left, not a constant: most of it, as the bot is quick
    # without a tournament (no deadline), the client's own deadline_ms
    game_id, players = started_game(client, "board", {"players": 2}, seats=2, seed=8)
    with serving(arena) as url:
        pulled.clear()
        seat = asked_seat(client, game_id)
        assert seat is not None
        running = Running(PullClient(choose, url, players[seat].token, wait=1, deadline_ms=flag_ms))
        deadline = time.monotonic() + 60
        while not pulled and time.monotonic() < deadline:
            time.sleep(0.05)
        running.finish()
    assert pulled and {request["deadline_ms"] for request in pulled} == {flag_ms}


class Skewed(BaseHTTPRequestHandler):
    """A service whose clock runs ``server.skew`` seconds ahead: its inbox lists one decision due ``server.left``
    seconds from its own now, then nothing; a move is refused (409)."""

    protocol_version = "HTTP/1.1"
    server: SkewedServer

    def date_time_string(self, timestamp: float | None = None) -> str:
        return formatdate(time.time() + self.server.skew, usegmt=True)

    def answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        decisions = []
        if not self.server.listed:
            self.server.listed = True
            due = datetime.fromtimestamp(time.time() + self.server.skew + self.server.left, UTC)
            state = engine.new_game("board", {"players": 2}, 1)
            asked = engine.decision(state)
            assert asked is not None
            decisions.append(
                {
                    "game_id": 1,
                    "game": "board",
                    "ply": 0,
                    "seat": asked.seat,
                    "decision": {"seat": asked.seat, "kind": asked.kind},
                    "deadline": due.isoformat(timespec="milliseconds"),
                    "view": engine.view(state, asked.seat),
                    "actions": [action.to_json() for action in engine.legal_actions(state, asked.seat)],
                }
            )
        self.answer(200, json.dumps({"decisions": decisions, "more": False, "games": 1}).encode())

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.answer(409, b'{"code": 409, "status": "Conflict", "message": "stale ply"}')

    def log_message(self, format: str, *args: Any) -> None:
        pass


class SkewedServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, skew: float, left: float) -> None:
        super().__init__(("127.0.0.1", 0), Skewed)
        self.skew, self.left, self.listed = skew, left, False


def skewed(skew: float, left: float) -> Any:
    return running(SkewedServer(skew, left))


@pytest.mark.parametrize("skew", [0.0, 3600.0, -3600.0])
def test_the_time_left_is_reckoned_on_the_services_clock(skew: float) -> None:
    """The deadline is the service's time: a client clock an hour off is corrected by the Date headers (to
    within their second), and an agreeing one is trusted as it is."""
    got: list[int] = []

    def choose(request: dict[str, Any]) -> str:
        got.append(request["deadline_ms"])
        return str(request["actions"][0]["id"])

    with skewed(skew, left=5.0) as url:
        running = Running(PullClient(choose, url, "sa_x", wait=0, deadline_ms=777))
        deadline = time.monotonic() + 60  # at once, but a loaded machine may take its time
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        running.finish()
    assert len(got) == 1
    # Clocks that agree: exact (less the moments the answer took). An hour off: corrected by the Date headers, to
    # within their whole second (a client behind the service overestimates the time left, one ahead of it
    # underestimates it).
    slack = 1000  # a slow, shared machine
    assert 5000 - (1000 if skew < 0 else 0) - slack <= got[0] <= 5000 + (1000 if skew > 0 else 0)


def test_the_service_clock_narrows_its_offset_and_starts_again_when_a_clock_is_set() -> None:
    clock = ServiceClock()
    assert clock.offset() == 0
    base = 1_800_000_000.0
    for fraction in (0.1, 0.35, 0.6, 0.85):  # answers stamped at different fractions of the service's second
        sent = base + fraction - 100.0  # the client's clock is 100 s behind the service's
        clock.observe(formatdate(base + fraction, usegmt=True), sent, sent + 0.01)
        base += 7
    assert 99.1 <= clock.low <= clock.offset() <= clock.high <= 100.2
    assert clock.high - clock.low < 0.3
    # the client's clock is set right: the next answer contradicts the bounds, which start again from it
    clock.observe(formatdate(base + 0.5, usegmt=True), base + 0.5, base + 0.51)
    assert clock.offset() == 0
    clock.observe("not a date", 0.0, 1.0)
    clock.observe(None, 0.0, 1.0)
    assert clock.offset() == 0
