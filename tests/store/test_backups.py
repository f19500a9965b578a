"""Backups (docs/operations.md, "Backups"): a database holding finished games, bots, tournaments and a rated pool,
dumped and restored into a new database, serves the same answers: PostgreSQL through ``pg_dump`` (custom format)
and ``pg_restore``, SQLite through its online backup API. The reads compared, byte for byte (the pages without
their per-answer nonces): the listings, each game, its record, events and page, the tournament, its results,
records and page, the bots and their pages, the standings; and ``sorry-arena db check`` passes on the copy."""

from __future__ import annotations

import random
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.engine import make_url

from cli.main import main
from tests.apikit import API, new_player, play_to_end, started_game
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
from tests.databases import postgres_database, unavailable


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
def paths(arena: Flask, client: FlaskClient) -> list[str]:
    """A rated card tournament of three push bots played out, a pull game played to its end and one waiting for a
    seat; the GETs to compare."""
    owner = new_player(client, "owner")
    with push_bots(greedy_choice, sometimes_illegal(0.2, seed=3), illegal_choice) as servers:
        bots = [
            register(client, owner, name, server.url)
            for name, server in zip(("greedy", "sloppy", "broken"), servers, strict=True)
        ]
        created = create_tournament(
            client, owner, [bot["id"] for bot in bots], game="card", settings={"pawns": 2}, seed=11, rated=True
        )
        done = wait_done(client, created["id"])
    pull_game, _ = started_game(client, seed=5)
    play_to_end(client, pull_game, _, random.Random(5))
    started_game(client, seed=6)
    games = [result["game_id"] for result in done["results"]] + [pull_game]
    found = [
        f"{API}/games?page_size=100",
        f"{API}/tournaments",
        f"{API}/tournaments/{done['id']}",
        f"{API}/tournaments/{done['id']}/results",
        f"{API}/tournaments/{done['id']}/games.jsonl",
        f"{API}/bots",
        f"{API}/standings?game=card&variant=standard",
        "/",
        "/games",
        "/tournaments",
        f"/tournaments/{done['id']}",
        "/standings/card/standard",
    ]
    for game_id in games:
        found += [f"{API}/games/{game_id}", f"{API}/games/{game_id}/record", f"{API}/games/{game_id}/events"]
        found += [f"/games/{game_id}", f"/games/{game_id}/steps"]
    for bot in bots:
        found += [f"{API}/bots/{bot['id']}", f"{API}/bots/{bot['id']}/faults", f"/bots/{bot['id']}"]
    return found


def answers(app: Flask, paths: list[str]) -> dict[str, tuple[int, bytes]]:
    client = app.test_client()
    seen = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])
        body = response.get_data()
        if not path.startswith(API):
            body = re.sub(rb"nonce(=|-)[\"']?[A-Za-z0-9+/=_-]+", b"nonce", body)
        seen[path] = (response.status_code, body)
    return seen


def restored(app: Flask, url: str, paths: list[str]) -> dict[str, tuple[int, bytes]]:
    """The answers of an app on the restored database ``url``, after ``sorry-arena db check`` passed on it."""
    assert main(["db", "check", "--database-url", url]) == 0
    copy = arena_app(url)
    try:
        return answers(copy, paths)
    finally:
        dispose(copy)


def test_a_restored_dump_serves_the_same_answers(
    arena: Flask, paths: list[str], database_url: str, tmp_path: Path
) -> None:
    before = answers(arena, paths)
    assert any(b'"fault":"illegal"' in body for _, body in before.values())  # faults among the moves
    if database_url.startswith("sqlite"):
        source = sqlite3.connect(make_url(database_url).database or "")
        target = sqlite3.connect(tmp_path / "backup.db")
        with target:
            source.backup(target)
        source.close()
        target.close()
        assert restored(arena, f"sqlite:///{tmp_path / 'backup.db'}", paths) == before
        return
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        unavailable("pg_dump and pg_restore are not installed")
    plain = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    dump = tmp_path / "arena.dump"
    subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", plain], check=True, timeout=120)
    for copy in postgres_database("sorry_arena_restore"):
        target = make_url(copy).set(drivername="postgresql").render_as_string(hide_password=False)
        subprocess.run(["pg_restore", "--no-owner", f"--dbname={target}", str(dump)], check=True, timeout=120)
        assert restored(arena, copy, paths) == before


def test_answers_notice_a_difference(arena: Flask, paths: list[str], client: FlaskClient) -> None:
    """The comparison can fail: one more game changes the listing's answer."""
    before = answers(arena, paths)
    started_game(client, seed=8)
    after: dict[str, Any] = answers(arena, paths)
    assert after[f"{API}/games?page_size=100"] != before[f"{API}/games?page_size=100"]
