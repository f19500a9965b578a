"""A push bot on a client before 0.2 (protocol v1 only: ``tests/oldbot.py``, a process of its own) in an arena of
this release, on SQLite and PostgreSQL: it registers with protocol 1 and a warning (API field, bot page, one log
line); it plays a tournament against a current bot with no fault and no forfeit, its games rated, also when its
protocol was not known yet (a bot registered before the upgrade: found by its first health check), and on
PostgreSQL with RQ workers in their own processes; a wrong secret is refused in words the owner can act on, without
the bot's reply; once the window is over (``SORRY_ARENA_OLD_PROTOCOL_DAYS`` 0) the bot is refused at registration
and fails its health checks, while an upgraded one is recorded as v2 again."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select, update

from botlink import protocols
from botlink.calls import BotConnection
from botlink.netguard import parse_allowlist
from store.models import Bot, Result, TournamentGame
from tests.apikit import API, Player, new_player
from tests.arenakit import SECRET, arena_app, create_tournament, push_bots, random_choice, register, wait_done
from tests.conftest import dispose
from tests.databases import Templates
from tests.oldbot import old_bot
from tests.tournament.test_rq import Workers
from tournament.play import scheduled
from tournament.play.seats import check_health


@pytest.fixture
def old_url() -> Iterator[str]:
    with old_bot(SECRET) as url:
        yield url


def bot_row(app: Flask, bot_id: int) -> Bot:
    with app.extensions["db_sessions"]() as session:
        found = session.get(Bot, bot_id)
        assert isinstance(found, Bot)
        session.expunge(found)
        return found


def assert_played_clean(app: Flask, tournament_id: int) -> None:
    """Every game of the tournament finished rated, with no fault and no forfeit."""
    with app.extensions["db_sessions"]() as session:
        results = list(session.scalars(select(Result).where(Result.tournament_id == tournament_id)))
        games = session.scalar(select(func.count()).where(TournamentGame.tournament_id == tournament_id))
    assert results and len(results) == games
    for result in results:
        assert result.rated
        assert result.forfeited == [], result.forfeited
        assert result.faults == [0] * len(result.faults), result.faults


def test_an_old_client_bot_registers_with_a_warning_and_plays_without_forfeit(
    arena: Flask,
    client: FlaskClient,
    owner: Player,
    old_url: str,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.WARNING, logger="botlink.protocols")
    monkeypatch.setattr(protocols, "_warned", set())  # this process warned of another database's bot 1 maybe
    old = register(client, owner, "old", old_url)
    assert old["protocol"] == 1
    until = protocols.old_until(90).isoformat()
    assert old["protocol_warning"] and until in old["protocol_warning"] and "0.2" in old["protocol_warning"]
    shown = client.get(f"{API}/bots/{old['id']}").get_json()
    assert shown["protocol"] == 1 and shown["protocol_warning"] == old["protocol_warning"]
    page = client.get(f"/bots/{old['id']}").get_data(as_text=True)
    assert "protocol-warning" in page and until in page and 'data-protocol="1"' in page
    with push_bots(random_choice) as servers:
        new = register(client, owner, "new", servers[0].url)
        assert new["protocol"] == 2 and new["protocol_warning"] is None
        assert "protocol-warning" not in client.get(f"/bots/{new['id']}").get_data(as_text=True)
        created = create_tournament(client, owner, [old["id"], new["id"]], rounds=2)
        wait_done(client, created["id"])
        assert_played_clean(arena, created["id"])
        # a bot registered before this release has no protocol recorded: its first game's health check finds it
        with arena.extensions["db_sessions"]() as session:
            session.execute(update(Bot).where(Bot.id == old["id"]).values(protocol=None))
            session.commit()
        assert client.get(f"{API}/bots/{old['id']}").get_json()["protocol"] is None
        again = create_tournament(client, owner, [old["id"], new["id"]], rounds=1, game="card")
        wait_done(client, again["id"])
        assert_played_clean(arena, again["id"])
    assert bot_row(arena, old["id"]).protocol == 1
    ratings = client.get(f"{API}/bots/{old['id']}").get_json()["versions"][-1]["ratings"]
    assert {rating["game"] for rating in ratings} == {"board", "card"}, "its games are rated"
    warned = [record for record in caplog.records if f"bot {old['id']}:" in record.getMessage()]
    assert len(warned) == 1, "one warning line per bot per process"


def test_a_wrong_secret_is_said_so_without_quoting_the_bot(
    client: FlaskClient, owner: Player, old_url: str
) -> None:
    response = client.post(
        f"{API}/bots",
        json={"name": "wrong", "url": old_url, "games": ["board"], "secret": "x" * 40},
        headers=owner.headers,
    )
    assert response.status_code == 422
    message = response.get_json()["message"]
    assert "rejected our signature" in message and "secret" in message and "protocol v2" in message
    assert "bad or missing" not in response.get_data(as_text=True), "the bot's reply is not echoed"


def test_after_the_window_an_old_client_bot_is_refused_and_an_upgraded_one_is_recorded_again(
    database_url: str, old_url: str
) -> None:
    app = arena_app(database_url, old_protocol_days=0)
    try:
        client = app.test_client()
        owner = new_player(client, "late")
        response = client.post(
            f"{API}/bots",
            json={"name": "old", "url": old_url, "games": ["board"], "secret": SECRET},
            headers=owner.headers,
        )
        assert response.status_code == 422
        message = response.get_json()["message"]
        assert "protocol v1" in message and "2026-11-29" in message and "upgrade" in message
        with push_bots(random_choice) as servers:
            bot = register(client, owner, "moved", servers[0].url)
            assert bot["protocol"] == 2
            # the bot's endpoint now serves the old client (as if it went back to it): its health check fails
            with app.extensions["db_sessions"]() as session:
                session.execute(update(Bot).where(Bot.id == bot["id"]).values(url=old_url))
                session.commit()
            assert not health_check(app, bot["id"], old_url, days=0)
            stored = bot_row(app, bot["id"])
            assert stored.protocol == 1 and stored.failed_checks == 1
            shown = client.get(f"{API}/bots/{bot['id']}").get_json()
            assert shown["protocol_warning"] == shown["last_check_failure"] == protocols.refusal(0)
            assert "refused since 2026-11-29" in client.get(f"/bots/{bot['id']}").get_data(as_text=True)
            assert health_check(app, bot["id"], old_url, days=90), "within a window it passes"
            assert client.get(f"{API}/bots/{bot['id']}").get_json()["last_check_failure"] is None
            # restarted with another secret: its health check says so, quoting nothing of its reply
            with app.extensions["db_sessions"]() as session:
                session.execute(update(Bot).where(Bot.id == bot["id"]).values(secret="w" * 40))
                session.commit()
            assert not health_check(app, bot["id"], old_url, days=90)
            shown = client.get(f"{API}/bots/{bot['id']}").get_json()
            assert shown["last_check_failure"] == protocols.SIGNATURE_REJECTED and shown["protocol"] == 1
            page = client.get(f"/bots/{bot['id']}").get_data(as_text=True)
            assert "rejected our signature" in page and "bad or missing" not in page
            with app.extensions["db_sessions"]() as session:
                session.execute(update(Bot).where(Bot.id == bot["id"]).values(secret=SECRET))
                session.commit()
            # upgraded to the current client: the next check records protocol 2 and the warning goes
            assert health_check(app, bot["id"], servers[0].url, days=0)
            assert bot_row(app, bot["id"]).protocol == 2
            assert client.get(f"{API}/bots/{bot['id']}").get_json()["protocol_warning"] is None
    finally:
        dispose(app)


def health_check(app: Flask, bot_id: int, url: str, days: int) -> bool:
    """One health check of the bot (due at once), as a game's runner makes it; whether it passed."""
    with app.extensions["db_sessions"]() as session:
        bot = scheduled.seat_bots(session, [bot_id])[bot_id]
        with BotConnection(url, bot.secret, parse_allowlist("loopback"), timeout=5, protocol=2) as connection:
            check_health(session, bot, connection, interval=0, old_protocol_days=days)
    return bot_row(app, bot_id).check_failure is None


@pytest.fixture
def pg_url(templates: Templates) -> Iterator[str]:
    yield from templates.postgresql("sorry_arena_oldprotocol")


def test_with_rq_workers_on_postgresql_the_old_client_bot_plays_without_forfeit(
    pg_url: str, redis_url: str, tmp_path: Path, old_url: str
) -> None:
    app = arena_app(pg_url, redis_url)
    workers = Workers(pg_url, redis_url, tmp_path)
    try:
        client = app.test_client()
        owner = new_player(client, "owner")
        with push_bots(random_choice) as servers:
            old: dict[str, Any] = register(client, owner, "old", old_url)
            new = register(client, owner, "new", servers[0].url)
            assert old["protocol"] == 1
            created = create_tournament(client, owner, [old["id"], new["id"]], rounds=2)
            workers.start("--burst", "--name", "only")
            wait_done(client, created["id"])
            assert_played_clean(app, created["id"])
        logs = (tmp_path / "worker0.log").read_text(encoding="utf-8")
        assert logs.count(f"bot {old['id']}: this bot speaks protocol v1") == 1, logs[-2000:]
    finally:
        workers.stop()
        dispose(app)
