"""Who may enter which bots into a tournament, and how much one account may queue, on SQLite and PostgreSQL:
another account's bot only if its owner opened it to others (``open_to_others``, off by default, at registration
or by PATCH); the operator (``SORRY_ARENA_OPERATOR_TOKEN``) may seat any bot in an official tournament; quotas per
account (``SORRY_ARENA_QUOTA_*``) refuse what would fill the queue for everyone, saying which quota and its value.
The tournaments here use pull bots that never move: they stay running, and are cancelled at the end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, select

from service import quotas
from store.models import Tournament, TournamentGame
from tests.apikit import API, Player, new_player
from tests.arenakit import arena_app, tournament_row
from tests.conftest import dispose
from tournament.plans import runs

OPERATOR_TOKEN = "op-" + "y" * 40
OPERATOR = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
QUOTAS = {"quota_games": 6, "quota_queued": 10, "quota_tournaments": 2, "quota_repeats": 3}


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url, operator_token=OPERATOR_TOKEN, **QUOTAS)
    yield app
    client = app.test_client()
    # the scheduled ones too: a tournament created last may not have started yet, and its games, started after
    # this, would wait for their pull bots until their deadline
    for status in ("scheduled", "running"):
        listed = client.get(f"{API}/tournaments", query_string={"status": status}).get_json()["tournaments"]
        for tournament in listed:
            client.post(f"{API}/tournaments/{tournament['id']}/cancel", headers=OPERATOR)
    assert app.extensions["queue"].wait(timeout=60), "the queue did not drain"
    dispose(app)


@pytest.fixture
def client(arena: Flask) -> FlaskClient:
    return arena.test_client()


def pull_bot(client: FlaskClient, owner: Player, name: str, **fields: Any) -> dict[str, Any]:
    body = {"name": name, "url": None, "games": ["card"], **fields}
    response = client.post(f"{API}/bots", json=body, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def create(client: FlaskClient, headers: dict[str, str], bot_ids: list[int], **fields: Any) -> Any:
    body = {"game": "card", "settings": {"pawns": 2}, "bot_ids": bot_ids, "move_timeout_ms": 60_000, **fields}
    return client.post(f"{API}/tournaments", json=body, headers=headers)


def test_another_accounts_bot_enters_only_if_its_owner_opened_it(client: FlaskClient) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    mine = pull_bot(client, ada, "mine")
    theirs = pull_bot(client, bob, "theirs")
    assert theirs["open_to_others"] is False  # off by default
    refused = create(client, ada.headers, [mine["id"], theirs["id"]])
    assert refused.status_code == 403
    assert f"bot {theirs['id']} (theirs)" in refused.get_json()["message"]
    assert "open_to_others" in refused.get_json()["message"]
    # only its owner opens it
    assert (
        client.patch(f"{API}/bots/{theirs['id']}", json={"open_to_others": True}, headers=ada.headers).status_code
        == 403
    )
    opened = client.patch(f"{API}/bots/{theirs['id']}", json={"open_to_others": True}, headers=bob.headers)
    assert opened.status_code == 200 and opened.get_json()["open_to_others"] is True
    accepted = create(client, ada.headers, [mine["id"], theirs["id"]])
    assert accepted.status_code == 201 and accepted.get_json()["official"] is False
    # open at registration; closed again, it enters no new tournament
    other = pull_bot(client, bob, "other", open_to_others=True)
    assert client.get(f"{API}/bots/{other['id']}").get_json()["open_to_others"] is True
    client.patch(f"{API}/bots/{other['id']}", json={"open_to_others": False}, headers=bob.headers)
    assert create(client, ada.headers, [mine["id"], other["id"]]).status_code == 403


def test_the_operator_runs_official_tournaments_with_any_bots(client: FlaskClient) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    bots = [pull_bot(client, ada, "a")["id"], pull_bot(client, bob, "b")["id"]]
    made = create(client, OPERATOR, bots, rounds=5)  # 10 games: over ada's quota, none applies to the operator
    assert made.status_code == 201, made.get_data(as_text=True)
    assert made.get_json()["official"] is True
    assert create(client, {"Authorization": "Bearer op-wrong"}, bots).status_code == 401


def test_quotas_refuse_what_would_fill_the_queue_naming_the_quota(client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    bots = [pull_bot(client, ada, f"b{number}")["id"] for number in range(3)]
    too_big = create(client, ada.headers, bots, rounds=2)  # 12 games
    assert too_big.status_code == 422
    assert "SORRY_ARENA_QUOTA_GAMES" in too_big.get_json()["message"] and " 6 " in too_big.get_json()["message"]
    repeats = create(client, ada.headers, bots[:2], repeat_every=60, repeat_times=4)
    assert repeats.status_code == 422
    assert "SORRY_ARENA_QUOTA_REPEATS" in repeats.get_json()["message"] and " 3 " in repeats.get_json()["message"]
    first = create(client, ada.headers, bots, rounds=1)  # 6 games left to play
    assert first.status_code == 201
    queued = create(client, ada.headers, bots, rounds=1)  # 6 more: 12 > 10
    assert queued.status_code == 429
    assert "SORRY_ARENA_QUOTA_QUEUED" in queued.get_json()["message"] and "10" in queued.get_json()["message"]
    assert create(client, ada.headers, bots[:2], rounds=1).status_code == 201  # 2 more: 8
    busy = create(client, ada.headers, bots[:2], rounds=1)  # a third tournament
    assert busy.status_code == 429
    assert "SORRY_ARENA_QUOTA_TOURNAMENTS" in busy.get_json()["message"] and " 2 " in busy.get_json()["message"]
    # another account has quotas of its own; a cancelled tournament no longer counts
    bob = new_player(client, "bob")
    assert (
        create(
            client, bob.headers, [pull_bot(client, bob, "c")["id"], pull_bot(client, bob, "d")["id"]]
        ).status_code
        == 201
    )
    assert (
        client.post(f"{API}/tournaments/{first.get_json()['id']}/cancel", headers=ada.headers).status_code == 200
    )
    assert create(client, ada.headers, bots[:2], rounds=1).status_code == 201


def test_bad_quota_and_operator_settings_are_refused_naming_the_variable() -> None:
    from runtime.settings import Settings

    with pytest.raises(ValueError, match="SORRY_ARENA_QUOTA_GAMES must be a whole number"):
        Settings.from_env({"SORRY_ARENA_QUOTA_GAMES": "lots"})
    with pytest.raises(ValueError, match="SORRY_ARENA_QUOTA_TOURNAMENTS must be from 1"):
        Settings.from_env({"SORRY_ARENA_QUOTA_TOURNAMENTS": "0"})
    with pytest.raises(ValueError, match="SORRY_ARENA_OPERATOR_TOKEN must be one word of at least 32"):
        Settings.from_env({"SORRY_ARENA_OPERATOR_TOKEN": "short"})
    settings = Settings.from_env({"SORRY_ARENA_QUOTA_QUEUED": "50", "SORRY_ARENA_OPERATOR_TOKEN": "z" * 32})
    assert settings.quota_queued == 50 and settings.operator_token == "z" * 32


def test_a_tournament_that_starts_while_the_games_left_are_counted_counts_once(
    arena: Flask, client: FlaskClient
) -> None:
    """The games left to play are read in one statement: a tournament that starts right after the count's first
    statement (its games laid out, its status running) is counted as waiting or as laid out. Read in two
    statements, PostgreSQL gave each its own snapshot and the tournament counted as neither, so a tournament over
    the quota got in."""
    ada = new_player(client, "ada")
    bots = [pull_bot(client, ada, f"b{number}")["id"] for number in range(3)]
    engine, sessions = arena.extensions["db_engine"], arena.extensions["db_sessions"]
    with sessions() as session:  # waiting for its start time (the embedded queue takes none through the API)
        later = tournament_row(
            session,
            ada.id,
            name="later",
            settings={"pawns": 2, "players": 2},
            bot_ids=bots,
            move_timeout_ms=60_000,
            status="scheduled",
            games_total=6,
        )
        session.commit()
        later_id = later.id
    started: list[bool] = []

    def start_meanwhile(*_: Any) -> None:
        if started:
            return
        started.append(True)
        with sessions() as other:
            tournament = other.get(Tournament, later_id)
            assert tournament is not None and runs.start(other, tournament)

    with sessions() as session:
        event.listen(engine, "after_cursor_execute", start_meanwhile)
        try:
            left = quotas.games_left(session, ada.id)
        finally:
            event.remove(engine, "after_cursor_execute", start_meanwhile)
    assert started and left == 6
    with sessions() as session:
        laid_out = session.scalars(select(TournamentGame.status).where(TournamentGame.tournament_id == later_id))
        assert list(laid_out) == ["pending"] * 6  # it started meanwhile, all 6 games laid out
        assert quotas.games_left(session, ada.id) == 6


def test_a_later_run_that_starts_while_the_tournaments_are_counted_counts_once(
    arena: Flask, client: FlaskClient
) -> None:
    """A repeating tournament's later run made while the account's tournaments are counted (right after the count's
    first statement) is counted once: as live, or as a run still to come of its finished first run. Read in two
    statements, the run counted as neither (PostgreSQL gives each statement its own snapshot), and the account
    could hold a tournament past its quota."""
    ada = new_player(client, "ada")
    bots = [pull_bot(client, ada, f"b{number}")["id"] for number in range(2)]
    engine, sessions = arena.extensions["db_engine"], arena.extensions["db_sessions"]
    with sessions() as session:  # a first run and its second, both done; the third is to come
        first = tournament_row(session, ada.id, name="weekly", bot_ids=bots, status="done", repeat_every=60)
        first.repeat_times = 3
        session.flush()
        tournament_row(session, ada.id, name="weekly", bot_ids=bots, status="done", parent_id=first.id, run=2)
        session.commit()
        first_id = first.id
    made: list[bool] = []

    def third_run_meanwhile(*_: Any) -> None:
        if made:
            return
        made.append(True)
        with sessions() as other:
            tournament_row(other, ada.id, name="weekly", bot_ids=bots, status="running", parent_id=first_id, run=3)
            other.commit()

    with sessions() as session:
        assert quotas.active_tournaments(session, ada.id) == 1  # the third run, to come
        event.listen(engine, "after_cursor_execute", third_run_meanwhile)
        try:
            counted = quotas.active_tournaments(session, ada.id)
        finally:
            event.remove(engine, "after_cursor_execute", third_run_meanwhile)
        session.rollback()
        assert made and counted == 1
        assert quotas.active_tournaments(session, ada.id) == 1  # the third run, running


def test_a_repeat_counts_its_runs_to_come_and_as_one_tournament(arena: Flask, client: FlaskClient) -> None:
    """In-process, beside tests/service/test_quotas_served.py: a first run done, its second running (2 games laid
    out, not played) and its third and fourth to come (3 games each) count 2 + 2 x 3 games left to play and one
    tournament; a cancelled one's runs to come count nothing."""
    ada = new_player(client, "ada")
    sessions = arena.extensions["db_sessions"]
    with sessions() as session:
        first = tournament_row(session, ada.id, status="done", repeat_every=60, repeat_times=4, games_total=3)
        second = tournament_row(session, ada.id, status="running", parent_id=first.id, run=2, games_total=3)
        for number in range(3):
            status = "done" if number == 0 else "pending"
            session.add(TournamentGame(tournament_id=second.id, number=number, round=1, bot_ids=[1, 2], seed=number, status=status, fed=False, attempts=0))  # fmt: skip
        tournament_row(session, ada.id, status="cancelled", repeat_every=60, repeat_times=5, games_total=9)
        session.commit()
        assert quotas.games_left(session, ada.id) == 2 + 2 * 3
        assert quotas.active_tournaments(session, ada.id) == 1
