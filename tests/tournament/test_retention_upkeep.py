"""Retention in the upkeep: with ``SORRY_ARENA_KEEP_MOVES_DAYS`` the embedded service's maintenance
(``jobs.maintain_embedded``, SQLite and PostgreSQL) and the workers' recovery (``recovery.recover``, with RQ on a
Redis database of the test's own) fold the finished games and archive those older than the days kept; without it
(the default) nothing is archived. The setting reads whole days or ``off``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import func, select, update

from runtime.jobqueue import RQQueue
from runtime.settings import Settings
from runtime.wakeups import Notifier
from store.models import ActionRecord, ArchivedGame, Game, now
from tests.apikit import API, play_to_end, started_game
from tests.arenakit import arena_app
from tests.conftest import dispose
from tournament import jobs
from tournament.dispatch import context, recovery


def aged_games(app: Flask, count: int = 2) -> list[int]:
    """``count`` pull games played to their end, then made to have begun and ended 3 days ago."""
    client = app.test_client()
    ids = []
    for number in range(count):
        game_id, players = started_game(client, seed=number + 1)
        play_to_end(client, game_id, players, random.Random(number))
        ids.append(game_id)
    with app.extensions["db_sessions"]() as session:
        old = now() - timedelta(days=3)
        session.execute(update(Game).where(Game.id.in_(ids)).values(created_at=old, updated_at=old))
        session.commit()
    return ids


def archived(app: Flask, ids: list[int]) -> tuple[int, int]:
    """The archived games among ``ids`` and their action rows left."""
    with app.extensions["db_sessions"]() as session:
        return (
            session.scalar(select(func.count()).where(ArchivedGame.game_id.in_(ids))) or 0,
            session.scalar(select(func.count()).where(ActionRecord.game_id.in_(ids))) or 0,
        )


@pytest.fixture
def kept_a_day(database_url: str) -> Iterator[Flask]:
    """An embedded app keeping moves a day, its jobs pointed at it (as its first job would)."""
    app = arena_app(database_url, keep_moves_days=1)
    app.extensions["queue"].start()
    yield app
    app.extensions["queue"].wait(timeout=30)
    dispose(app)


def test_the_embedded_maintenance_archives_the_old_games(kept_a_day: Flask) -> None:
    ids = aged_games(kept_a_day)
    records = [kept_a_day.test_client().get(f"{API}/games/{game_id}/record").get_data() for game_id in ids]
    assert archived(kept_a_day, ids)[1] > 0
    jobs.maintain_embedded()
    assert archived(kept_a_day, ids) == (len(ids), 0)
    assert [kept_a_day.test_client().get(f"{API}/games/{game_id}/record").get_data() for game_id in ids] == records


def test_without_the_setting_nothing_is_archived(database_url: str) -> None:
    app = arena_app(database_url)
    app.extensions["queue"].start()
    try:
        ids = aged_games(app, 1)
        moves = archived(app, ids)[1]
        jobs.maintain_embedded()
        assert archived(app, ids) == (0, moves)
    finally:
        app.extensions["queue"].wait(timeout=30)
        dispose(app)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_workers_recovery_archives_the_old_games(
    kept_a_day: Flask, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = aged_games(kept_a_day)
    monkeypatch.setattr(context, "_context", None)  # the recovery's own context, as a worker's
    settings = Settings(lease_seconds=3, keep_moves_days=1)
    context.configure(settings, kept_a_day.extensions["db_engine"], Notifier(), RQQueue(redis_url))
    assert recovery.recover(context.get()) == []
    assert archived(kept_a_day, ids) == (len(ids), 0)


def test_the_setting_reads_whole_days_or_off() -> None:
    assert Settings.from_env({}).keep_moves_days is None
    assert Settings.from_env({"SORRY_ARENA_KEEP_MOVES_DAYS": "off"}).keep_moves_days is None
    assert Settings.from_env({"SORRY_ARENA_KEEP_MOVES_DAYS": "90"}).keep_moves_days == 90
    for bad in ("0", "1.5", "forever", "36501"):
        with pytest.raises(ValueError, match="SORRY_ARENA_KEEP_MOVES_DAYS must be a whole number from 1 to 36500"):
            Settings.from_env({"SORRY_ARENA_KEEP_MOVES_DAYS": bad})
