"""Standings rebuilt by the upgrade (tournament/standings/upkeep.py, cli/db.py): a database of an older release with
finished rated games, one pool with a table that release stored (incremental Elo rows, without intervals: none this
release can show, and counting as many results as the refit, so the workers' refits never replaced it) and one pool
with no row at all; right after ``sorry-arena db upgrade``, before any worker ran, the API and the standings page
show every pool's table. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, insert

from cli.main import main
from store import migrate
from tests.conftest import dispose, make_app
from tests.databases import postgres_database
from tests.store.test_bot_versions_migration import WHEN, fill, table


@pytest.fixture(params=["sqlite", "postgresql"])
def at_0006(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database migrated to 0006, with ``fill``'s rows, a rated board result and an older release's card table."""
    if request.param == "sqlite":
        urls: Iterator[str] = iter([f"sqlite:///{tmp_path / 'old.db'}"])
    else:
        urls = postgres_database("sorry_arena_standings_upgrade")
    for url in urls:
        migrate.upgrade(url, "0006")
        engine = create_engine(url)
        try:
            fill(engine)
            board(engine)
        finally:
            engine.dispose()
        yield url


def board(engine: Any) -> None:
    """A board tournament with one rated result (bots 1 and 5), no pool row for it; the card pool's table as an older
    release stored it (no interval), counting its one result."""
    game = {
        "id": 2,
        "game": "board",
        "settings": {"players": 2},
        "seed": 2,
        "seats": 2,
        "status": "over",
        "ply": 0,
        "state": "{}",
        "result": None,
        "created_by": 1,
        "created_at": WHEN,
        "updated_at": WHEN,
    }
    tournament = {
        "id": 2,
        "owner_id": 1,
        "name": "b",
        "game": "board",
        "settings": {"players": 2},
        "variant": "standard",
        "bot_ids": [1, 5],
        "table_size": 2,
        "rounds": 1,
        "seed": 2,
        "seed_salt": None,
        "official": False,
        "move_timeout_ms": 1000,
        "rated": True,
        "start_at": None,
        "repeat_every": None,
        "repeat_times": None,
        "parent_id": None,
        "run": 1,
        "status": "done",
        "games_total": 1,
        "standings": None,
        "standings_through": 1,
        "created_at": WHEN,
        "finished_at": WHEN,
    }
    scheduled = {
        "id": 2,
        "tournament_id": 2,
        "number": 0,
        "round": 0,
        "bot_ids": [1, 5],
        "seed": 2,
        "game_id": 2,
        "status": "done",
        "fed": True,
        "attempts": 1,
        "worker": None,
        "lease_until": None,
    }
    result = {
        "id": 2,
        "tournament_game_id": 2,
        "tournament_id": 2,
        "game_id": 2,
        "game": "board",
        "variant": "standard",
        "rated": True,
        "bot_ids": [1, 5],
        "ranks": [1, 0],
        "reason": "win",
        "forfeited": [],
        "faults": [0, 0],
        "moves": 10,
        "finished_at": WHEN,
    }
    old_table = [  # incremental Elo, as pools were before they were fitted
        {"bot_id": 2, "name": "greedy", "rating": 1516.0, "games": 1},
        {"bot_id": 1, "name": "greedy", "rating": 1484.0, "games": 1},
    ]
    pool = {
        "game": "card",
        "variant": "standard",
        "through": 1,
        "games": 1,
        "cancelled": 0,
        "table": old_table,
        "updated_at": WHEN,
    }
    with engine.begin() as connection:
        for name, row in [
            ("games", game),
            ("tournaments", tournament),
            ("tournament_games", scheduled),
            ("results", result),
            ("rating_pools", pool),
        ]:
            connection.execute(insert(table(engine, name)), [row])


def test_every_pool_shows_its_table_right_after_the_upgrade(
    at_0006: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["db", "upgrade", "--database-url", at_0006]) == 0
    err = capsys.readouterr().err
    assert "the board standard 2-seat pool's table refit: 1 rated game(s)" in err
    assert "the card standard 2-seat pool's table refit: 1 rated game(s)" in err
    app = make_app(at_0006)  # no worker, no maintenance: only what the upgrade stored
    try:
        client = app.test_client()
        for game, variant, bots, name in [
            ("card", "standard", {1, 2}, "greedy-2"),
            ("board", "standard", {1, 5}, "x" * 64),
        ]:
            body = client.get(f"/api/v1/standings?game={game}&variant={variant}").get_json()
            assert body["games"] == 1, body
            assert {row["bot_id"] for row in body["standings"]} == bots, body
            assert all(row["low"] < row["rating"] < row["high"] for row in body["standings"]), body
            page = client.get(f"/standings/{game}/{variant}").get_data(as_text=True)
            assert name in page, page
    finally:
        dispose(app)
    capsys.readouterr()
    assert main(["db", "upgrade", "--database-url", at_0006]) == 0
    assert "refit" not in capsys.readouterr().err, "nothing is behind any more"
