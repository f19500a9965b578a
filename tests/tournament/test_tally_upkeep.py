"""The upkeep that folds finished games into their bots' tallies (``store/bottallies.py``): the embedded service's
maintenance (``jobs.maintain_embedded``, SQLite and PostgreSQL) and the workers' recovery (``recovery.recover``, with
RQ on a Redis database of the test's own) each fold every game of a finished tournament, after which the tallies
stored alone say what counting every move said (the bots' and the tournament's), and the bot page shows the same
figures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, func, select, update

from runtime.jobqueue import RQQueue
from runtime.settings import Settings
from runtime.wakeups import Notifier
from store import bottallies
from store.models import Bot, BotTally, Game, Tournament, TournamentFaultTally
from tests.apikit import new_player
from tests.arenakit import arena_app, create_tournament, push_bots, random_choice, register, wait_done
from tests.conftest import dispose
from tournament import jobs
from tournament.dispatch import context, recovery


def sometimes_broken(request: dict[str, Any]) -> str:
    if request["ply"] % 5 == 2:
        raise RuntimeError("odd ply")  # a status fault, never three in a row
    return random_choice(request)


@pytest.fixture
def played(database_url: str) -> Iterator[Flask]:
    """An embedded app whose tournament is over, its games not folded yet."""
    app = arena_app(database_url)
    client: FlaskClient = app.test_client()
    owner = new_player(client, "owner")
    with push_bots(sometimes_broken, random_choice) as servers:
        ids = [register(client, owner, name, server.url)["id"] for name, server in zip("ab", servers, strict=True)]
        tournament = create_tournament(client, owner, ids, game="card", settings={"pawns": 2}, rounds=2)["id"]
        wait_done(client, tournament, timeout=120)
    app.extensions["queue"].wait(timeout=30)
    yield app
    dispose(app)


Expected = tuple[dict[int, bottallies.Tallies], dict[int, dict[str, int]]]


def unfolded(app: Flask) -> Expected:
    """Every bot's tallies and the tournament's faults counted from the moves (nothing folded), and the games left
    to fold."""
    with app.extensions["db_sessions"]() as session:
        session.execute(delete(BotTally))
        session.execute(delete(TournamentFaultTally))
        session.execute(update(Game).values(tallied=False))
        session.commit()
        found = {player: bottallies.read(session, player) for player in session.scalars(select(Bot.player_id))}
        faults = bottallies.read_tournament(session, session.scalars(select(Tournament.id)).one())
    assert all(tallies.games == 4 and tallies.latency for tallies in found.values())
    assert any(tallies.faults.get("status") for tallies in found.values())
    assert faults == {player: tallies.faults for player, tallies in found.items() if tallies.faults}
    return found, faults


def folded(app: Flask, expected: Expected) -> None:
    bots, faults = expected
    with app.extensions["db_sessions"]() as session:
        assert session.scalar(select(func.count()).where(Game.tallied.is_(False))) == 0
        stored = dict(
            session.execute(
                select(BotTally.player_id, BotTally.count).where(BotTally.measure == bottallies.GAMES)
            ).all()
        )
        assert stored == {player: 4 for player in bots}  # every game in the stored tallies alone
        assert {player: bottallies.read(session, player) for player in bots} == bots
        tournament = session.scalars(select(Tournament.id)).one()
        assert bottallies.read_tournament(session, tournament) == faults
        assert session.scalar(select(func.count()).select_from(TournamentFaultTally)) == sum(
            map(len, faults.values())
        )


def test_the_embedded_maintenance_folds_every_finished_game(played: Flask) -> None:
    expected = unfolded(played)
    jobs.maintain_embedded()
    folded(played, expected)
    client = played.test_client()
    with played.extensions["db_sessions"]() as session:
        bot_id, player = session.execute(select(Bot.id, Bot.player_id).order_by(Bot.id)).first()  # type: ignore[misc]
    page = client.get(f"/bots/{bot_id}").get_data(as_text=True)
    assert '<td class="num games">4</td>' in page
    for kind, count in expected[0][player].faults.items():
        assert f'data-fault="{kind}" data-count="{count}"' in page


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_workers_recovery_folds_every_finished_game(
    played: Flask, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = unfolded(played)
    monkeypatch.setattr(context, "_context", None)  # the recovery's own context, as a worker's
    context.configure(Settings(lease_seconds=3), played.extensions["db_engine"], Notifier(), RQQueue(redis_url))
    assert recovery.recover(context.get()) == []
    folded(played, expected)
