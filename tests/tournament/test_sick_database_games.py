"""Games of push bots played while the database refuses writes for a few seconds (PostgreSQL read-only, a full
SQLite disk) and takes them again: each save waits with its moves kept, so every ply is asked of its bot exactly
once; no game fails or is played again; each finishes, and its record replays."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

import engine
from store.models import TournamentGame
from tests.apikit import API, new_player
from tests.arenakit import (
    arena_app,
    create_tournament,
    played,
    push_bots,
    random_choice,
    register,
    wait_done,
    wait_for,
)
from tests.conftest import dispose
from tests.sickdatabase import Sickness

OUTAGE_AT_PLY = 30
OUTAGE_S = 3.0
"""How long the database refuses writes once a save found it so (the outage the test makes, not a wait on it)."""


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
    asked: Counter[tuple[int, int]] = Counter()
    turned = threading.Event()
    lock = threading.Lock()

    def choose(request: dict[str, Any]) -> str:
        with lock:
            asked[request["game_id"], request["ply"]] += 1
            if request["ply"] == OUTAGE_AT_PLY and not turned.is_set():
                turned.set()
                sickness.on()  # before this answer: the batch it joins meets the outage
        return random_choice(request)

    with caplog.at_level(logging.WARNING), push_bots(choose, choose) as servers:
        bots = [register(client, owner, f"counted{n}", server.url)["id"] for n, server in enumerate(servers)]
        created = create_tournament(client, owner, bots, move_timeout_ms=10000)
        try:
            wait_for("a game at the outage's ply", turned.is_set, timeout=60)
            wait_for("a save that waits", lambda: saves_waiting(caplog), timeout=60)
            time.sleep(OUTAGE_S)  # the outage's length: the save waits meanwhile
        finally:
            sickness.off()
        done = wait_done(client, created["id"], timeout=120)
    waits = saves_waiting(caplog)
    assert done["progress"] == {"done": 2, "total": 2}
    with arena.extensions["db_sessions"]() as session:
        scheduled = session.execute(select(TournamentGame.attempts, TournamentGame.status)).all()
    assert scheduled == [(1, "done")] * 2  # no game failed or was played again
    for result in done["results"]:
        game_id = result["game_id"]
        moves = played(arena, game_id)
        assert all(move.fault is None for move in moves)
        assert {ply: asked[game_id, ply] for ply in range(len(moves))} == dict.fromkeys(range(len(moves)), 1)
        assert {ply for (game, ply) in asked if game == game_id} == set(range(len(moves)))
        record = client.get(f"{API}/games/{game_id}/record").get_json()
        actions = [entry["action"] for entry in record["actions"]]
        replayed = engine.replay(record["game"], record["settings"], record["seed"], actions)
        assert engine.is_over(replayed) and len(record["actions"]) == len(moves)
    assert any(f"waits for the database ({sickness.kind})" in record.getMessage() for record in waits), waits
    assert any("stored after waiting" in record.getMessage() for record in caplog.records)
    assert all(record.exc_info is None for record in caplog.records) and "Traceback" not in caplog.text


def saves_waiting(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if "waits for the database" in record.getMessage()]
