"""A pull bot's late move against the end of a game by forfeit (SQLite and PostgreSQL): at every point of the ending
(before the write of the timeout that forfeits, inside its transaction, before the game's ``finish``, inside that
transaction) a move of the seat the stored position asks lands through the games API. It either lands before the
ending (and stands: the seat moved, the game goes on) or finds the game over (a 409): never a move stored after the
game's last ply. Every record of the tournament then replays with ``sorry-arena replay`` and imports into
``sorry-arena view``'s database.

The bots never move: each decision times out (a short timeout, whatever the machine's load), so each game ends when
a seat's third timeout in a row forfeits it. The late move is made by the test from inside the worker's write path
(``store.gamelog.save`` and ``store.gamelog.finish`` wrapped), on a thread of its own: a move that must wait for the
worker's transaction waits there, and the worker goes on."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, text

import engine
from cli import view
from cli.main import main
from service.gameplay import FORFEITED
from store import gamelog, migrate
from store.models import Seat, Tournament, TournamentGame
from tests.apikit import API, Player
from tests.arenakit import create_tournament, register, wait_done, wait_for

POINTS = ("before the forfeiting write", "inside the forfeiting write", "before the finish", "inside the finish")
TIMEOUT_MS = 150


class LateMoves:
    """The late move made once per game at ``point`` of its ending, and what the games API answered it."""

    def __init__(self, app: Flask, point: str, database_url: str) -> None:
        self.app = app
        self.point = point
        self.postgres = database_url.startswith("postgresql")
        self.tokens: dict[int, str] = {}
        self.in_a_row: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self.fired: set[int] = set()
        self.threads: list[threading.Thread] = []
        self.answers: dict[int, tuple[int, int, int]] = {}
        """game id -> (the ply the late move answered, its seat, the API's status code)."""
        self.lock = threading.Lock()
        self.on = True

    def forfeits(self, write: gamelog.Advance) -> bool:
        """Whether the worker's ``write`` holds a seat's third fault in a row (counted from the writes seen)."""
        game = self.in_a_row[write.game_id]
        third = False
        for row in write.then[0][1]:
            game[row["seat"]] = game[row["seat"]] + 1 if row["fault"] not in (None, "forfeit") else 0
            third = third or game[row["seat"]] >= 3
        return third

    def fire(self, game_id: int, wait: bool) -> None:
        """Make the late move on a thread; ``wait``: until it is answered (no transaction of the worker is open),
        else until it waits for the worker's transaction (PostgreSQL: its row lock; SQLite: sent) or is answered."""
        with self.lock:
            if not self.on or game_id in self.fired:
                return
            self.fired.add(game_id)
        sent = threading.Event()
        thread = threading.Thread(target=self.move, args=(game_id, sent), daemon=True)
        self.threads.append(thread)
        thread.start()
        if wait:
            thread.join(60)
            assert not thread.is_alive()
        else:
            wait_for("the late move sent", sent.is_set, timeout=60)
            if self.postgres:  # (a move that found the game over never waits)
                waiting = lambda: self.blocked() or not thread.is_alive()  # noqa: E731
                wait_for("the late move waiting for the worker's lock, or answered", waiting, timeout=60)

    def blocked(self) -> bool:
        with self.app.extensions["db_engine"].connect() as connection:
            waiting = connection.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
                )
            ).scalar()
        return bool(waiting)

    def move(self, game_id: int, sent: threading.Event) -> None:
        """A move of the seat the stored position asks, at its ply, through the games API."""
        with self.app.extensions["db_sessions"]() as session:
            stored = gamelog.position(session, game_id)
            players = dict(session.execute(select(Seat.seat, Seat.player_id).where(Seat.game_id == game_id)).all())
        assert stored is not None
        state = gamelog.decode_state(stored.state)
        asked = engine.decision(state)
        assert asked is not None
        action = engine.legal_actions(state, asked.seat)[0].id
        sent.set()
        response = self.app.test_client().post(
            f"{API}/games/{game_id}/actions",
            json={"action": action, "expected_ply": stored.ply},
            headers={"Authorization": f"Bearer {self.tokens[players[asked.seat]]}"},
        )
        assert response.status_code in (200, 409), response.get_data(as_text=True)
        self.answers[game_id] = (stored.ply, asked.seat, response.status_code)

    def wrap_save(self, save: Callable[..., bool]) -> Callable[..., bool]:
        def hooked(session: Any, write: gamelog.Advance) -> bool:
            third = self.forfeits(write)
            if third and self.point == "before the forfeiting write":
                self.fire(write.game_id, wait=True)
            saved = save(session, write)
            if third and saved and self.point == "inside the forfeiting write":
                self.fire(write.game_id, wait=False)
            return saved

        return hooked

    def wrap_finish(self, finish: Callable[..., bool]) -> Callable[..., bool]:
        def hooked(session: Any, game_id: int, ply: int, result: Any) -> bool:
            if self.point == "before the finish":
                self.fire(game_id, wait=True)
            finished = finish(session, game_id, ply, result)
            if self.point == "inside the finish":
                self.fire(game_id, wait=False)
            return finished

        return hooked


@pytest.mark.parametrize("point", POINTS)
def test_a_late_move_at_any_point_of_a_forfeit_ending_is_never_stored_after_the_end(
    arena: Flask,
    client: FlaskClient,
    owner: Player,
    database_url: str,
    point: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    late = LateMoves(arena, point, database_url)
    monkeypatch.setattr(gamelog, "save", late.wrap_save(gamelog.save))
    monkeypatch.setattr(gamelog, "finish", late.wrap_finish(gamelog.finish))
    bots = [register(client, owner, f"silent{n}", None) for n in range(2)]
    late.tokens = {bot["player_id"]: bot["token"] for bot in bots}
    created = create_tournament(client, owner, [bot["id"] for bot in bots], move_timeout_ms=TIMEOUT_MS)
    done = wait_done(client, created["id"], timeout=90)
    late.on = False
    for thread in late.threads:
        thread.join(60)
        assert not thread.is_alive()
    games = [result["game_id"] for result in done["results"]]
    assert len(games) == 2 and set(late.answers) == set(games)  # the late move was made in every game
    for result in done["results"]:
        ply, seat, status = late.answers[result["game_id"]]
        moves = client.get(f"{API}/games/{result['game_id']}/record").get_json()["actions"]
        if point == "before the forfeiting write":  # it landed first: it stands, and the game went on
            assert status == 200
            assert (moves[ply]["seat"], moves[ply]["fault"]) == (seat, None) and len(moves) > ply + 1
        else:  # the game was over, or the worker's write held its row: refused
            assert status == 409
            assert len(moves) <= ply + 1
        assert result["reason"] == "forfeit" and len(result["forfeited"]) == 1

    exported = tmp_path / "games.jsonl"
    command = ["export", "--tournament", str(created["id"]), "--database-url", database_url, "-o", str(exported)]
    assert main(command) == 0
    assert main(["replay", str(exported)]) == 0
    viewer = f"sqlite:///{tmp_path / 'view.db'}"
    migrate.upgrade(viewer)
    assert sorted(name for name, _ in view.imported(str(exported), viewer)) == sorted(
        f"game {game}" for game in games
    )


def test_a_stored_game_whose_record_fails_its_replay_is_never_exported(
    arena: Flask,
    client: FlaskClient,
    owner: Player,
    database_url: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A move stored after a game's end by forfeit (as the race above once let one be): the game's record would fail
    ``sorry-arena replay``, so the download, ``sorry-arena export`` and the game's record leave it out, saying so."""
    bots = [register(client, owner, f"silent{n}", None) for n in range(2)]
    created = create_tournament(client, owner, [bot["id"] for bot in bots], move_timeout_ms=TIMEOUT_MS)
    done = wait_done(client, created["id"], timeout=90)
    damaged, kept = (result["game_id"] for result in done["results"])
    with arena.extensions["db_sessions"]() as session:
        stored = gamelog.position(session, damaged)
        assert stored is not None
        state = gamelog.decode_state(stored.state)
        asked = engine.decision(state)
        assert asked is not None  # over by forfeit, not by the rules: the position still asks
        row = {
            "game_id": damaged,
            "ply": stored.ply,
            "seat": asked.seat,
            "action": engine.legal_actions(state, asked.seat)[0].id,
            "latency_ms": None,
            "fault": None,
            "fault_detail": None,
            "debug": None,
            "now": stored.saved_at,
        }
        session.connection().execute(gamelog.RECORD_ACTION, row)
        session.commit()
    response = client.get(f"{API}/games/{damaged}/record")
    assert response.status_code == 409
    assert "fails its replay check" in response.get_json()["message"]
    assert client.get(f"{API}/games/{kept}/record").status_code == 200
    lines = client.get(f"{API}/tournaments/{created['id']}/games.jsonl").get_data(as_text=True).splitlines()
    assert [json.loads(line)["game_id"] for line in lines] == [kept]
    assert f"game {damaged}: its stored record fails its replay, not exported" in caplog.text
    exported = tmp_path / "games.jsonl"
    command = ["export", "--tournament", str(created["id"]), "--database-url", database_url, "-o", str(exported)]
    assert main(command) == 0
    assert [json.loads(line)["game_id"] for line in exported.read_text().splitlines()] == [kept]
    assert main(["replay", str(exported)]) == 0


def three_seat_game(app: Flask, owner: Player, bots: list[dict[str, Any]]) -> int:
    """A three-seat tournament game of pull bots, created as the worker creates it, with no worker playing it."""
    with app.extensions["db_sessions"]() as session:
        settings = engine.normalize_settings("board", {"players": 3})
        tournament = Tournament(
            owner_id=owner.id,
            name="forfeits",
            game="board",
            settings=settings,
            variant="standard",
            bot_ids=[bot["id"] for bot in bots],
            table_size=3,
            rounds=1,
            seed=3,
            move_timeout_ms=TIMEOUT_MS,
            status="running",
            games_total=1,
        )
        session.add(tournament)
        session.flush()
        scheduled = TournamentGame(
            tournament_id=tournament.id, number=0, round=0, bot_ids=tournament.bot_ids, seed=3, status="running"
        )
        session.add(scheduled)
        session.flush()
        game = gamelog.create(session, "board", settings, 3, 3, owner.id, [bot["player_id"] for bot in bots])
        scheduled.game_id = game.id
        session.commit()
        return game.id


def play_until_asked(app: Flask, game_id: int, seat: int, faults: int) -> int:
    """Write moves as the worker does (the fallback for every seat: ``faults`` timeouts of ``seat``, good moves of
    the others and of ``seat`` once its timeouts are written) until ``seat`` is asked after its ``faults`` timeouts
    in a row; the ply it is asked at."""
    with app.extensions["db_sessions"]() as session:
        stored = gamelog.position(session, game_id)
        assert stored is not None
        state, ply, written = gamelog.decode_state(stored.state), stored.ply, 0
        while True:
            asked = engine.decision(state)
            assert asked is not None
            if asked.seat == seat and written == faults:
                session.commit()
                return ply
            fault = "timeout" if asked.seat == seat else None
            written += fault is not None
            action = engine.fallback_action(state)
            engine.apply(state, action, asked.seat, events=False)
            move = gamelog.Move(ply, asked.seat, action, float(TIMEOUT_MS) if fault else 5.0, fault)
            assert gamelog.save(session, gamelog.advance(game_id, [move], state))
            session.commit()
            ply += 1


def test_a_pull_bot_that_forfeited_a_game_of_three_cannot_move_in_it(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    """At a table of three the others play on after a forfeit, the fallback playing the forfeited seat's turns; a
    move of its own, sent while the game rests at its turn, is a 409 (stored, it would fail the game's replay)."""
    bots = [register(client, owner, f"puller{n}", None) for n in range(3)]
    game_id = three_seat_game(arena, owner, bots)
    headers = {"Authorization": f"Bearer {bots[0]['token']}"}

    def move(ply: int) -> Any:
        actions = client.get(f"{API}/games/{game_id}/actions", headers=headers).get_json()
        assert actions["ply"] == ply and actions["your_decision"]
        body = {"action": actions["actions"][0]["id"], "expected_ply": ply}
        return client.post(f"{API}/games/{game_id}/actions", json=body, headers=headers)

    ply = play_until_asked(arena, game_id, 0, faults=2)
    assert move(ply).status_code == 200  # two timeouts in a row: still playing
    ply = play_until_asked(arena, game_id, 0, faults=3)
    refused = move(ply)
    assert refused.status_code == 409
    assert refused.get_json()["message"] == f"{FORFEITED.format(game_id=game_id, faults=3)}"
