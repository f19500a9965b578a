"""Games of push bots played while the database refuses writes for a few seconds (PostgreSQL read-only, a full
SQLite disk) and takes them again: each save waits with its moves kept, so every ply is asked of its bot exactly
once; no game fails or is played again; each finishes, and its record replays. A game its worker must give up
while its save waits (its lease lost) is resumed from its last stored ply: only the plies not stored are asked
again."""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, select, update

import engine
from store.models import Game, TournamentGame, now
from tests.apikit import API, new_player
from tests.arenakit import (
    arena_app,
    create_tournament,
    played,
    push_bots,
    register,
    wait_done,
    wait_for,
)
from tests.conftest import dispose
from tests.sickdatabase import CountingBot, Sickness
from tournament.dispatch import context

OUTAGE_S = 3.0
"""How long the database refuses writes once a save found it so (the outage the test makes, not a wait on it)."""


def saves_waiting(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if "waits for the database" in record.getMessage()]


def replays(client: FlaskClient, game_id: int, plies: int) -> None:
    """The game's record replays through the engine to its end, with every stored ply."""
    record = client.get(f"{API}/games/{game_id}/record").get_json()
    actions = [entry["action"] for entry in record["actions"]]
    replayed = engine.replay(record["game"], record["settings"], record["seed"], actions)
    assert engine.is_over(replayed) and len(actions) == plies


@pytest.fixture
def arena(database_url: str) -> Any:
    app = arena_app(database_url)
    yield app
    app.extensions["queue"].wait(timeout=60)
    dispose(app)


def test_games_wait_for_a_database_that_refuses_writes_and_ask_each_ply_once(
    arena: Flask, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    sickness = Sickness(database_url, arena.extensions["db_engine"], sqlite_kind="full")
    bot = CountingBot(sickness)
    with caplog.at_level(logging.WARNING), push_bots(bot.choose, bot.choose) as servers:
        bots = [register(client, owner, f"counted{n}", server.url)["id"] for n, server in enumerate(servers)]
        created = create_tournament(client, owner, bots, move_timeout_ms=10000)
        try:
            wait_for("a game at the outage's ply", bot.turned.is_set, timeout=60)
            wait_for("a save that waits", lambda: saves_waiting(caplog), timeout=60)
            time.sleep(OUTAGE_S)  # the outage's length: the save waits meanwhile
        finally:
            sickness.off()
        done = wait_done(client, created["id"], timeout=120)
    assert done["progress"] == {"done": 2, "total": 2}
    with arena.extensions["db_sessions"]() as session:
        scheduled = session.execute(select(TournamentGame.attempts, TournamentGame.status)).all()
    assert scheduled == [(1, "done")] * 2  # no game failed or was played again
    for result in done["results"]:
        moves = played(arena, result["game_id"])
        assert all(move.fault is None for move in moves)
        assert bot.plies(result["game_id"]) == dict.fromkeys(range(len(moves)), 1)  # each ply asked once
        replays(client, result["game_id"], len(moves))
    waits = saves_waiting(caplog)
    assert any(f"waits for the database ({sickness.kind})" in record.getMessage() for record in waits), waits
    assert any("stored after waiting" in record.getMessage() for record in caplog.records)
    assert all(record.exc_info is None for record in caplog.records) and "Traceback" not in caplog.text


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_game_given_up_while_its_save_waits_is_resumed_asking_only_the_plies_not_stored(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The lease of a game whose save waits is marked lost (as when another worker took it over): its worker
    gives it up; once the database takes writes and its lease has run out, the recovery gives it again to a worker
    (this process's), which resumes it from its last stored ply. The plies it had kept unstored are asked once
    more, no other."""
    app = arena_app(database_url, maintenance_seconds=0.2)
    client = app.test_client()
    sickness = Sickness(database_url, app.extensions["db_engine"])
    bot = CountingBot(sickness)
    try:
        owner = new_player(client, "owner")
        with caplog.at_level(logging.WARNING), push_bots(bot.choose, bot.choose) as servers:
            bots = [register(client, owner, f"counted{n}", server.url)["id"] for n, server in enumerate(servers)]
            created = create_tournament(client, owner, bots, move_timeout_ms=10000)
            try:
                wait_for("a game at the outage's ply", bot.turned.is_set, timeout=60)
                (waiting,) = wait_for("a save that waits", lambda: saves_waiting(caplog)[:1], timeout=60)
                game_id = int(waiting.getMessage().split()[1].removesuffix("'s"))
                with app.extensions["db_sessions"]() as session:
                    stored = session.scalar(select(Game.ply).where(Game.id == game_id))
                    scheduled_id = session.scalar(
                        select(TournamentGame.id).where(TournamentGame.game_id == game_id)
                    )
                for holding in context.get().heartbeat.held():
                    if holding.scheduled_id == scheduled_id:
                        holding.lost.set()
                wait_for("the game given up", lambda: "another worker took it over" in caplog.text, timeout=60)
            finally:
                sickness.off()
            expire_lease(database_url, scheduled_id)  # (the other game's is renewed by now)
            done = wait_done(client, created["id"], timeout=120)
        assert done["progress"] == {"done": 2, "total": 2}
        assert stored is not None
        for result in done["results"]:
            moves = played(app, result["game_id"])
            asked = bot.plies(result["game_id"])
            assert sorted(asked) == list(range(len(moves)))
            again = [ply for ply, count in asked.items() if count > 1]
            if result["game_id"] == game_id:  # the plies after its last stored one, up to where it waited
                assert max(asked.values()) == 2 and again == list(range(stored, stored + len(again))), again
                assert again  # it had kept moves
            else:
                assert again == []
            replays(client, result["game_id"], len(moves))
        assert "Traceback" not in caplog.text
    finally:
        app.extensions["queue"].wait(timeout=60)
        dispose(app)


def expire_lease(database_url: str, scheduled_id: int) -> None:
    """The scheduled game's lease runs out now, written on a connection of its own (the app's pool may still hold
    connections opened while the database was read-only: each refuses one write, then is replaced)."""
    database = create_engine(database_url)
    try:
        with database.begin() as connection:
            connection.execute(
                update(TournamentGame)
                .where(TournamentGame.id == scheduled_id)
                .values(lease_until=now() - timedelta(seconds=1))
            )
    finally:
        database.dispose()
