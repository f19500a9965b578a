"""Retention (store/retention.py, ``SORRY_ARENA_KEEP_MOVES_DAYS``) on SQLite and PostgreSQL: a real tournament
(push bots on loopback: a good one, a sloppy one, one that forfeits) and a pull game played to the end, archived:
their action rows are gone, and every reader answers as before (the record endpoint byte for byte, the tournament's
records download, the game detail's replay, the events, the game page and its steps, the tournament's table and the
bots' tallies); ``sorry-arena replay`` accepts the archived records; a game still played stays whole and moves the
cursor on; nothing newer than the cutoff is touched; the migration's downgrade puts the action rows back."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from cli.main import main
from store import bottallies, migrate, retention
from store.models import ActionRecord, ArchivedGame, Bot, Game, now
from tests.apikit import API, Player, create_game, new_player, play_to_end, started_game
from tests.arenakit import (
    arena_app,
    create_tournament,
    greedy_choice,
    illegal_choice,
    push_bots,
    register,
    sometimes_illegal,
    wait_done,
)
from tests.conftest import dispose


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url)
    yield app
    app.extensions["queue"].wait(timeout=60)
    dispose(app)


@pytest.fixture
def client(arena: Flask) -> FlaskClient:
    return arena.test_client()


@pytest.fixture
def played(arena: Flask, client: FlaskClient) -> dict[str, Any]:
    """A finished card-game round robin of three push bots (6 games), a pull game played to its end and one still
    waiting for a seat, every finished game folded into the tallies."""
    owner = new_player(client, "owner")
    with push_bots(greedy_choice, sometimes_illegal(0.2, seed=3), illegal_choice) as servers:
        bots = [
            register(client, owner, name, server.url)
            for name, server in zip(("greedy", "sloppy", "broken"), servers, strict=True)
        ]
        created = create_tournament(
            client, owner, [bot["id"] for bot in bots], game="card", settings={"pawns": 2}, seed=11
        )
        done = wait_done(client, created["id"])
    pull_game, players = started_game(client, seed=5)
    play_to_end(client, pull_game, players, random.Random(5))
    waiting = create_game(client, owner)["id"]
    with arena.extensions["db_sessions"]() as session:
        bottallies.fold_all(session, seconds=30)
    finished = [result["game_id"] for result in done["results"]] + [pull_game]
    return {"tournament": done["id"], "finished": finished, "waiting": waiting, "players": players, "bots": bots}


def without_nonces(page: str) -> str:
    """A page without its per-answer script nonces."""
    return re.sub(r"nonce(=|-)[\"']?[A-Za-z0-9+/=_-]+", "nonce", page)


def answers(client: FlaskClient, played: dict[str, Any], player: Player) -> dict[str, Any]:
    """What the API and the pages answer about the finished games."""
    seen: dict[str, Any] = {}
    for game_id in played["finished"]:
        for path in (f"{API}/games/{game_id}/record", f"{API}/games/{game_id}", f"{API}/games/{game_id}/events"):
            response = client.get(path)
            assert response.status_code == 200, response.get_data(as_text=True)
            seen[path] = response.get_data()
        game = client.get(f"{API}/games/{game_id}").get_json()
        for path in (f"/games/{game_id}", f"/games/{game_id}/at/{game['ply'] // 2}", f"/games/{game_id}/steps"):
            response = client.get(path)
            assert response.status_code == 200, response.get_data(as_text=True)
            seen[path] = without_nonces(response.get_data(as_text=True))
    pull_game = played["finished"][-1]
    seen["seat events"] = client.get(f"{API}/games/{pull_game}/events", headers=player.headers).get_data()
    tournament = played["tournament"]
    for path in (f"{API}/tournaments/{tournament}", f"{API}/tournaments/{tournament}/games.jsonl"):
        response = client.get(path)
        assert response.status_code == 200
        seen[path] = response.get_data()
    return seen


def tallies(arena: Flask, played: dict[str, Any]) -> list[Any]:
    with arena.extensions["db_sessions"]() as session:
        players = [session.get(Bot, bot["id"]).player_id for bot in played["bots"]]
        return [bottallies.read(session, player) for player in players]


def moves(arena: Flask, game_ids: list[int]) -> list[tuple[Any, ...]]:
    with arena.extensions["db_sessions"]() as session:
        return [
            tuple(row)
            for row in session.execute(
                select(
                    ActionRecord.game_id,
                    ActionRecord.ply,
                    ActionRecord.seat,
                    ActionRecord.action,
                    ActionRecord.latency_ms,
                    ActionRecord.fault,
                    ActionRecord.fault_detail,
                    ActionRecord.debug,
                )
                .where(ActionRecord.game_id.in_(game_ids))
                .order_by(ActionRecord.game_id, ActionRecord.ply)
            )
        ]


def test_archived_games_read_as_before_without_their_action_rows(
    arena: Flask, client: FlaskClient, played: dict[str, Any], database_url: str, tmp_path: Path
) -> None:
    finished, player = played["finished"], played["players"][0]
    before, counted, rows = answers(client, played, player), tallies(arena, played), moves(arena, finished)
    assert rows and any(row[5] is not None for row in rows)  # faults among them
    sessions = arena.extensions["db_sessions"]
    with sessions() as session:
        assert retention.archive_all(session, days=1) == 0  # nothing is a day old
        judged = retention.archive_all(session, days=1, seconds=600, batch=3, at=now() + timedelta(days=2))
        assert judged == len(finished) + 1  # the finished games, and the game waiting for a seat (kept)
        assert retention.archive(session, days=1, at=now() + timedelta(days=2)) == 0  # the cursor is past them
        kept = session.scalar(select(ArchivedGame.record).where(ArchivedGame.game_id == played["waiting"]))
        assert kept is None
        assert session.scalar(select(func.count()).select_from(ArchivedGame)) == len(finished) + 1
    assert moves(arena, finished) == []
    assert answers(client, played, player) == before
    assert tallies(arena, played) == counted

    records = tmp_path / "archived.jsonl"
    records.write_bytes(b"".join(before[f"{API}/games/{game_id}/record"] + b"\n" for game_id in finished))
    assert main(["replay", str(records)]) == 0

    downgraded = migrate.alembic_config(database_url)
    dispose(arena)  # the downgrade drops a table the app's pool may hold open
    from alembic import command

    command.downgrade(downgraded, "0015")
    try:
        restored = moves_at(database_url, finished)
    finally:
        command.upgrade(downgraded, "head")
    assert [row[:7] for row in restored] == [row[:7] for row in rows]


def moves_at(database_url: str, game_ids: list[int]) -> list[tuple[Any, ...]]:
    from store.database import make_engine, sessions

    engine = make_engine(database_url)
    try:
        with sessions(engine)() as session:
            return [
                tuple(row)
                for row in session.execute(
                    select(
                        ActionRecord.game_id,
                        ActionRecord.ply,
                        ActionRecord.seat,
                        ActionRecord.action,
                        ActionRecord.latency_ms,
                        ActionRecord.fault,
                        ActionRecord.fault_detail,
                    )
                    .where(ActionRecord.game_id.in_(game_ids))
                    .order_by(ActionRecord.game_id, ActionRecord.ply)
                )
            ]
    finally:
        engine.dispose()


def test_games_newer_than_the_cutoff_are_untouched(arena: Flask, played: dict[str, Any]) -> None:
    rows = moves(arena, played["finished"])
    with arena.extensions["db_sessions"]() as session:
        assert retention.archive_all(session, days=3, at=now() + timedelta(days=2)) == 0
        assert session.scalar(select(func.count()).select_from(ArchivedGame)) == 0
        assert session.scalar(select(func.count()).select_from(Game)) == len(played["finished"]) + 1
    assert moves(arena, played["finished"]) == rows
