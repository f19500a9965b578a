"""Cancelling a tournament through the API, on the embedded queue (this process's threads), on SQLite and
PostgreSQL: its queued games dropped, a game being played stopped at its next step (a game waiting for a pull bot's
move at once, not at its 60 s deadline), the slot given back, nothing more written; idempotent; the owner's or the
operator's only; its results out of the rating pool."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import NamedTuple

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, text, update
from sqlalchemy.orm import Session, sessionmaker

from service import cancellation
from store import gamelog
from store.database import make_engine, sessions
from store.models import Game, RatingPool, Result, Tournament, TournamentGame
from store.models import Player as Account
from tests.apikit import API, Player, new_player
from tests.arenakit import (
    arena_app,
    assert_idle,
    create_tournament,
    push_bots,
    random_choice,
    register,
    tournament_row,
    wait_done,
    wait_pool,
)
from tests.conftest import dispose
from tournament import jobs
from tournament.play import leases
from tournament.play import scheduled as tournament_scheduled

OPERATOR_TOKEN = "op-" + "x" * 40


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url, operator_token=OPERATOR_TOKEN)
    yield app
    app.extensions["queue"].wait(timeout=60)
    dispose(app)


def statuses(arena: Flask, tournament_id: int) -> list[str]:
    with arena.extensions["db_sessions"]() as session:
        return list(
            session.scalars(
                select(TournamentGame.status)
                .where(TournamentGame.tournament_id == tournament_id)
                .order_by(TournamentGame.number)
            )
        )


def wait_for(check: object, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "never came"
        time.sleep(0.05)


def stuck_tournament(client: FlaskClient, owner: Player, arena: Flask) -> int:
    """A tournament of two pull bots that never move (60 s deadlines), one of its games being played."""
    bots = [register(client, owner, name, None, ("card",))["id"] for name in ("p1", "p2")]
    created = create_tournament(
        client, owner, bots, game="card", settings={"pawns": 2}, rounds=2, move_timeout_ms=60_000
    )
    wait_for(lambda: "running" in statuses(arena, created["id"]))
    return int(created["id"])


def test_a_cancelled_tournament_stops_its_games_and_gives_the_slots_back(arena: Flask) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    tournament_id = stuck_tournament(client, owner, arena)
    started = time.monotonic()
    response = client.post(f"{API}/tournaments/{tournament_id}/cancel", headers=owner.headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json()["status"] == "cancelled" and response.get_json()["finished_at"] is not None
    assert set(statuses(arena, tournament_id)) == {"cancelled"}
    # the game waiting for its pull bot's move stops now: the queue is idle long before the 60 s deadline
    assert_idle(arena, timeout=30)
    assert time.monotonic() - started < 30
    assert set(statuses(arena, tournament_id)) == {"cancelled"}
    with arena.extensions["db_sessions"]() as session:
        assert session.scalars(select(Result).where(Result.tournament_id == tournament_id)).all() == []
    again = client.post(f"{API}/tournaments/{tournament_id}/cancel", headers=owner.headers)
    assert again.status_code == 200 and again.get_json()["status"] == "cancelled"
    listed = client.get(f"{API}/tournaments", query_string={"status": "cancelled"}).get_json()["tournaments"]
    assert [t["id"] for t in listed] == [tournament_id]
    page = client.get(f"/tournaments/{tournament_id}")
    assert page.status_code == 200 and "cancelled" in page.get_data(as_text=True)


def test_only_the_owner_or_the_operator_cancels(arena: Flask) -> None:
    client = arena.test_client()
    owner, stranger = new_player(client, "owner"), new_player(client, "stranger")
    tournament_id = stuck_tournament(client, owner, arena)
    refused = client.post(f"{API}/tournaments/{tournament_id}/cancel", headers=stranger.headers)
    assert refused.status_code == 403 and "only its owner or the operator" in refused.get_json()["message"]
    assert client.post(f"{API}/tournaments/{tournament_id}/cancel").status_code == 401
    assert client.post(f"{API}/tournaments/999999/cancel", headers=owner.headers).status_code == 404
    operator = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
    cancelled = client.post(f"{API}/tournaments/{tournament_id}/cancel", headers=operator)
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    assert_idle(arena, timeout=30)


def test_a_done_tournament_cannot_be_cancelled_and_a_cancelled_one_leaves_the_pool(arena: Flask) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice) as servers:
        bots = [
            register(client, owner, name, server.url)["id"] for name, server in zip("ab", servers, strict=True)
        ]
        done = wait_done(client, create_tournament(client, owner, bots, game="card")["id"])
    refused = client.post(f"{API}/tournaments/{done['id']}/cancel", headers=owner.headers)
    assert refused.status_code == 409 and "is done" in refused.get_json()["message"]
    pool = wait_pool(client, 2)
    # a cancellation that raced with the last result leaves a cancelled tournament with results: the refit after
    # it (the job the cancellation enqueues) leaves them out, although its table counts fewer games
    with arena.extensions["db_sessions"]() as session:
        session.execute(update(Tournament).where(Tournament.id == done["id"]).values(status="cancelled"))
        session.commit()
    assert jobs.cancelled(done["id"]) == "refitted"
    pool = client.get(f"{API}/standings", query_string={"game": "card"}).get_json()
    assert pool["games"] == 0 and pool["standings"] == []
    with arena.extensions["db_sessions"]() as session:
        assert session.scalar(select(RatingPool.cancelled).where(RatingPool.game == "card")) == 1


def test_a_cancelled_tournaments_games_end_and_take_no_more_moves(arena: Flask) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    bots = [register(client, owner, name, None, ("card",)) for name in ("p1", "p2")]
    created = create_tournament(
        client, owner, [bot["id"] for bot in bots], game="card", settings={"pawns": 2}, move_timeout_ms=60_000
    )
    asked: dict[str, object] = {}

    def a_bot_is_asked() -> bool:
        for bot in bots:
            inbox = client.get(f"{API}/decisions", headers={"Authorization": f"Bearer {bot['token']}"}).get_json()
            if inbox["decisions"]:
                asked.update(bot=bot, decision=inbox["decisions"][0])
                return True
        return False

    wait_for(a_bot_is_asked)
    bot, decision = asked["bot"], asked["decision"]
    headers = {"Authorization": f"Bearer {bot['token']}"}  # type: ignore[index]
    game_id, ply = decision["game_id"], decision["ply"]  # type: ignore[index]
    cancelled = client.post(f"{API}/tournaments/{created['id']}/cancel", headers=owner.headers)
    assert cancelled.status_code == 200
    game = client.get(f"{API}/games/{game_id}").get_json()
    assert game["status"] == "cancelled" and game["seed"] is None and game["result"] is None
    move = client.post(
        f"{API}/games/{game_id}/actions",
        json={"action": decision["actions"][0]["id"], "expected_ply": ply},  # type: ignore[index]
        headers=headers,
    )
    assert move.status_code == 409 and move.get_json()["message"] == f"game {game_id} is cancelled"
    assert client.get(f"{API}/decisions", headers=headers).get_json()["decisions"] == []
    waited = client.get(f"{API}/games/{game_id}/actions", query_string={"wait": 30}, headers=headers)
    assert waited.status_code == 200 and waited.get_json()["status"] == "cancelled"
    listed = client.get(f"{API}/games", query_string={"status": "cancelled"}).get_json()
    assert game_id in [found["id"] for found in listed]
    assert_idle(arena, timeout=30)
    assert client.get(f"{API}/games/{game_id}").get_json()["ply"] == ply, "nothing was written after the cancel"


def waiting_on_a_lock(made: sessionmaker[Session]) -> int:
    """How many statements of the PostgreSQL database wait on a lock."""
    with made() as session:
        query = (
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(session.scalar(text(query)) or 0)


@pytest.fixture
def made(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    yield sessions(engine)
    engine.dispose()


class Scheduled(NamedTuple):
    tournament_id: int
    scheduled_id: int
    owner_id: int
    seats: list[int]


def scheduled_game(made: sessionmaker[Session]) -> Scheduled:
    """A running tournament's one scheduled game, not started, between two accounts."""
    with made() as session:
        owner = Account(name="owner", token_hash="0" * 64)
        bots = [Account(name=name, token_hash=name * 64) for name in "ab"]
        session.add_all([owner, *bots])
        session.flush()
        tournament = tournament_row(session, owner.id, bot_ids=[1, 2], status="running")
        scheduled = TournamentGame(
            tournament_id=tournament.id, number=0, round=0, bot_ids=[1, 2], seed=1, status="pending"
        )
        session.add(scheduled)
        session.commit()
        return Scheduled(tournament.id, scheduled.id, owner.id, [bot.id for bot in bots])


def start(runner: Session, scheduled: Scheduled) -> int:
    """Take the game's lease and create its game, as a runner does, in ``runner``'s transaction: the game's id."""
    assert leases.lease(runner, scheduled.scheduled_id, "runner", 30) is not None
    game = gamelog.create(runner, "card", {}, 1, 2, scheduled.owner_id, scheduled.seats)
    tournament_scheduled.set_game(runner, scheduled.scheduled_id, game.id)
    return game.id


def cancelling(made: sessionmaker[Session], tournament_id: int) -> tuple[threading.Thread, list[object]]:
    """A thread cancelling the tournament (``cancellation.cancel``, as the API does), started, and what it returns
    (or raises) once done."""
    outcome: list[object] = []

    def cancel() -> None:
        try:
            with made() as session:
                found = session.get(Tournament, tournament_id)
                assert found is not None
                outcome.append(cancellation.cancel(session, found))
        except Exception as error:
            outcome.append(error)

    thread = threading.Thread(target=cancel)
    thread.start()
    return thread, outcome


def statuses_of(made: sessionmaker[Session], game_id: int, scheduled_id: int) -> tuple[str | None, str | None]:
    with made() as session:
        return (
            session.scalar(select(Game.status).where(Game.id == game_id)),
            session.scalar(select(TournamentGame.status).where(TournamentGame.id == scheduled_id)),
        )


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_cancel_that_waits_for_a_lease_being_taken_stops_the_game_it_created(
    made: sessionmaker[Session],
) -> None:
    """A runner takes a game's lease and creates its game in one transaction; a cancellation that comes meanwhile
    waits for it (PostgreSQL: seen waiting on a lock) and must then see that game: end it and return it to wake,
    or the runner would wait for a pull bot's move, unwoken, until the deadline, in a game left active."""
    scheduled = scheduled_game(made)
    with made() as runner:
        game_id = start(runner, scheduled)
        thread, outcome = cancelling(made, scheduled.tournament_id)
        wait_for(lambda: waiting_on_a_lock(made) == 1)
        runner.commit()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert outcome == [[(game_id, 0)]]
    assert statuses_of(made, game_id, scheduled.scheduled_id) == ("cancelled", "cancelled")


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_cancel_and_a_worker_saving_its_game_do_not_deadlock(made: sessionmaker[Session]) -> None:
    """A worker saving a game locks the game's row, then its scheduled game's (its lease); a cancellation that
    comes meanwhile waits for the game's row (seen waiting on a lock) holding no scheduled game's lock, so the save
    goes on, and then the cancellation (the other order is a deadlock: PostgreSQL ends one of them with an error)."""
    scheduled = scheduled_game(made)
    with made() as runner:
        game_id = start(runner, scheduled)
        runner.commit()
        runner.execute(update(Game).where(Game.id == game_id).values(ply=Game.ply))
        thread, outcome = cancelling(made, scheduled.tournament_id)
        wait_for(lambda: waiting_on_a_lock(made) == 1)
        renewed = runner.execute(
            update(TournamentGame)
            .where(TournamentGame.id == scheduled.scheduled_id, TournamentGame.worker == "runner")
            .values(attempts=TournamentGame.attempts)
        )
        assert renewed.rowcount == 1  # type: ignore[attr-defined]
        runner.commit()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert outcome == [[(game_id, 0)]]
    assert statuses_of(made, game_id, scheduled.scheduled_id) == ("cancelled", "cancelled")
