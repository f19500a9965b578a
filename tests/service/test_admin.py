"""The operator's admin API (``/api/v1/admin``), on SQLite and PostgreSQL, through the Flask test client: every
route refuses a missing token (401) and another account's (403); accounts listed with their usage and searched by
name; an account disabled has its tokens and its bots' refused at once, by this app and by a second app on the same
database, and its tournaments cancelled; a token revoked; any bot paused, unpaused, deleted; any tournament
cancelled; the queue and the workers reported; every action in the audit log; and a rotated operator token takes
the old one's powers at once. The tournaments here use pull bots that never move: they stay running until
cancelled."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from store.models import AdminAction, Player, Tournament, TournamentGame
from tests.apikit import API, new_player
from tests.apikit import Player as Account
from tests.arenakit import arena_app
from tests.conftest import dispose

OPERATOR_TOKEN = "op-" + "a" * 40
OPERATOR = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
ADMIN = f"{API}/admin"


def cancel_all(app: Flask, headers: dict[str, str]) -> None:
    client = app.test_client()
    for status in ("scheduled", "running"):
        listed = client.get(f"{API}/tournaments", query_string={"status": status}).get_json()["tournaments"]
        for tournament in listed:
            client.post(f"{API}/tournaments/{tournament['id']}/cancel", headers=headers)
    assert app.extensions["queue"].wait(timeout=60), "the queue did not drain"


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url, operator_token=OPERATOR_TOKEN)
    yield app
    cancel_all(app, OPERATOR)
    dispose(app)


@pytest.fixture
def client(arena: Flask) -> FlaskClient:
    return arena.test_client()


def pull_bot(client: FlaskClient, owner: Account, name: str) -> dict[str, Any]:
    body = {"name": name, "url": None, "games": ["card"]}
    response = client.post(f"{API}/bots", json=body, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def tournament(client: FlaskClient, headers: dict[str, str], bot_ids: list[int], **fields: Any) -> Any:
    body = {"game": "card", "settings": {"pawns": 2}, "bot_ids": bot_ids, "move_timeout_ms": 60_000, **fields}
    return client.post(f"{API}/tournaments", json=body, headers=headers)


def running_tournament(client: FlaskClient, owner: Account, names: tuple[str, str]) -> tuple[int, list[Any]]:
    bots = [pull_bot(client, owner, name) for name in names]
    made = tournament(client, owner.headers, [bot["id"] for bot in bots])
    assert made.status_code == 201, made.get_data(as_text=True)
    tournament_id = made.get_json()["id"]
    deadline = time.monotonic() + 60
    while client.get(f"{API}/tournaments/{tournament_id}").get_json()["status"] != "running":  # its games laid out
        assert time.monotonic() < deadline, "the tournament did not start"
        time.sleep(0.05)
    return tournament_id, bots


def audit(client: FlaskClient) -> list[dict[str, Any]]:
    response = client.get(f"{ADMIN}/audit", headers=OPERATOR)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["actions"]  # type: ignore[no-any-return]


ROUTES = [
    ("get", "/accounts"),
    ("post", "/accounts/1/disable"),
    ("post", "/accounts/1/enable"),
    ("post", "/accounts/1/revoke-token"),
    ("get", "/bots"),
    ("post", "/bots/1/pause"),
    ("post", "/bots/1/unpause"),
    ("delete", "/bots/1"),
    ("post", "/tournaments/1/cancel"),
    ("get", "/queue"),
    ("get", "/workers"),
    ("get", "/audit"),
]


def test_every_admin_route_needs_the_operators_token(client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    for method, path in ROUTES:
        anonymous = getattr(client, method)(ADMIN + path)
        assert anonymous.status_code == 401, (method, path, anonymous.get_data(as_text=True))
        other = getattr(client, method)(ADMIN + path, headers=ada.headers)
        assert other.status_code == 403, (method, path)
        assert "operator" in other.get_json()["message"]
    assert client.get(f"{ADMIN}/audit", headers=OPERATOR).get_json()["actions"] == []  # nothing was done
    assert client.get(f"{ADMIN}/accounts", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_accounts_listed_with_their_usage_searched_and_paged(client: FlaskClient) -> None:
    ada, bob = new_player(client, "Ada Lovelace"), new_player(client, "bob")
    tournament_id, _ = running_tournament(client, ada, ("ada1", "ada2"))
    listed = client.get(f"{ADMIN}/accounts", headers=OPERATOR)
    assert listed.status_code == 200
    accounts = {row["id"]: row for row in listed.get_json()["accounts"]}
    assert set(accounts) >= {ada.id, bob.id}
    assert all(row["name"] not in ("ada1", "ada2") for row in accounts.values()), "bots' own accounts are left out"
    assert accounts[ada.id]["bots"] == 2 and accounts[bob.id]["bots"] == 0
    total = client.get(f"{API}/tournaments/{tournament_id}").get_json()["progress"]["total"]
    assert accounts[ada.id]["games_queued"] == total > 0
    assert accounts[ada.id]["games_played"] == 0 and accounts[ada.id]["disabled"] is False
    found = client.get(f"{ADMIN}/accounts", query_string={"name": "lovel"}, headers=OPERATOR).get_json()
    assert [row["id"] for row in found["accounts"]] == [ada.id]
    assert (
        client.get(f"{ADMIN}/accounts", query_string={"name": "%"}, headers=OPERATOR).get_json()["accounts"] == []
    )
    paged = client.get(f"{ADMIN}/accounts", query_string={"page_size": 1, "page": 2}, headers=OPERATOR)
    assert len(paged.get_json()["accounts"]) == 1 and "X-Pagination" in paged.headers
    for bad in ({"page_size": 1000}, {"page": 0}, {"disabled": "maybe"}, {"name": ""}, {"name": "a\x00"}):
        refused = client.get(f"{ADMIN}/accounts", query_string=bad, headers=OPERATOR)
        assert refused.status_code == 422, (bad, refused.get_data(as_text=True))


def test_a_disabled_account_is_refused_at_once_everywhere_and_its_tournaments_cancelled(
    arena: Flask, client: FlaskClient, database_url: str
) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    tournament_id, bots = running_tournament(client, ada, ("ada1", "ada2"))
    bot_token = {"Authorization": f"Bearer {bots[0]['token']}"}
    other = arena_app(database_url, operator_token=OPERATOR_TOKEN)  # a second API process on the same database
    try:
        second = other.test_client()
        assert second.get(f"{API}/decisions", headers=ada.headers).status_code == 200  # it has seen the token
        assert client.get(f"{API}/decisions", headers=bot_token).status_code == 200
        done = client.post(f"{ADMIN}/accounts/{ada.id}/disable", headers=OPERATOR)
        assert done.status_code == 200, done.get_data(as_text=True)
        body = done.get_json()
        assert body["account"]["disabled"] is True and body["cancelled_tournaments"] == [tournament_id]
        assert sorted(body["bot_accounts"]) == sorted(bot["player_id"] for bot in bots)
        for app_client in (client, second):
            for headers in (ada.headers, bot_token):
                refused = app_client.get(f"{API}/decisions", headers=headers)
                assert refused.status_code == 403, refused.get_data(as_text=True)
                assert "disabled" in refused.get_json()["message"]
        assert (
            second.post(f"{API}/bots", json={"name": "x", "games": ["card"]}, headers=ada.headers).status_code
            == 403
        )
        assert client.get(f"{API}/decisions", headers=bob.headers).status_code == 200  # others are untouched
        assert client.get(f"{API}/tournaments/{tournament_id}").get_json()["status"] == "cancelled"
        with arena.extensions["db_sessions"]() as session:
            statuses = set(
                session.scalars(select(TournamentGame.status).where(TournamentGame.tournament_id == tournament_id))
            )
            assert statuses <= {"cancelled"}, statuses
        queue = client.get(f"{ADMIN}/queue", headers=OPERATOR).get_json()
        assert all(row["account_id"] != ada.id for row in queue["accounts"])
        logged = audit(client)[0]
        assert (
            logged["action"] == "disable" and logged["target_kind"] == "account" and logged["target_id"] == ada.id
        )
        assert logged["detail"]["cancelled_tournaments"] == [tournament_id]
        # enabled again: the tokens work, the tournament stays cancelled
        assert client.post(f"{ADMIN}/accounts/{ada.id}/enable", headers=OPERATOR).status_code == 200
        for app_client in (client, second):
            assert app_client.get(f"{API}/decisions", headers=ada.headers).status_code == 200
            assert app_client.get(f"{API}/decisions", headers=bot_token).status_code == 200
        assert client.get(f"{API}/tournaments/{tournament_id}").get_json()["status"] == "cancelled"
        assert [row["action"] for row in audit(client)[:2]] == ["enable", "disable"]
    finally:
        dispose(other)


def test_the_operators_own_account_and_unknown_ids(client: FlaskClient) -> None:
    me = client.get(f"{ADMIN}/accounts", query_string={"name": "operator"}, headers=OPERATOR).get_json()
    operator_id = next(row["id"] for row in me["accounts"] if row["operator"])
    for action in ("disable", "revoke-token"):
        refused = client.post(f"{ADMIN}/accounts/{operator_id}/{action}", headers=OPERATOR)
        assert refused.status_code == 409 and "SORRY_ARENA_OPERATOR_TOKEN" in refused.get_json()["message"]
    for method, path in [
        ("post", "/accounts/99999/disable"),
        ("post", "/accounts/99999/revoke-token"),
        ("post", "/bots/99999/pause"),
        ("delete", "/bots/99999"),
        ("post", "/tournaments/99999/cancel"),
        ("post", "/accounts/99999999999/disable"),
    ]:
        missing = getattr(client, method)(ADMIN + path, headers=OPERATOR)
        assert missing.status_code == 404, (path, missing.get_data(as_text=True))
        assert "99999" in missing.get_json()["message"]
    assert audit(client) == [], "a refused action writes nothing"


def test_a_revoked_token_is_refused_and_the_new_one_works(client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    revoked = client.post(f"{ADMIN}/accounts/{ada.id}/revoke-token", headers=OPERATOR)
    assert revoked.status_code == 200
    token = revoked.get_json()["token"]
    assert token != ada.token and token.startswith("sa_")
    assert client.get(f"{API}/decisions", headers=ada.headers).status_code == 401
    assert client.get(f"{API}/decisions", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    logged = audit(client)[0]
    assert logged["action"] == "revoke_token" and logged["target_id"] == ada.id
    assert token not in str(logged), "the audit log never holds a token"


def test_any_bot_paused_unpaused_deleted_and_any_tournament_cancelled(client: FlaskClient) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    tournament_id, bots = running_tournament(client, ada, ("ada1", "ada2"))
    spare = pull_bot(client, ada, "ada3")
    paused = client.post(f"{ADMIN}/bots/{spare['id']}/pause", headers=OPERATOR)
    assert paused.status_code == 200 and paused.get_json()["paused"] is True
    refused = tournament(client, ada.headers, [bots[0]["id"], spare["id"]])
    assert refused.status_code == 422 and "paused" in refused.get_json()["message"]
    flagged = client.get(f"{ADMIN}/bots", headers=OPERATOR).get_json()["bots"]
    assert [bot["id"] for bot in flagged if bot["paused"]] == [spare["id"]]
    assert client.post(f"{ADMIN}/bots/{spare['id']}/unpause", headers=OPERATOR).get_json()["paused"] is False
    assert tournament(client, ada.headers, [bots[0]["id"], spare["id"]]).status_code == 201
    # bob is not the owner: 403 on the public route, the operator may
    assert client.delete(f"{API}/bots/{spare['id']}", headers=bob.headers).status_code == 403
    deleted = client.delete(f"{ADMIN}/bots/{spare['id']}", headers=OPERATOR)
    assert deleted.status_code == 200 and deleted.get_json()["active"] is False
    assert client.get(f"{API}/bots/{spare['id']}").status_code == 404
    cancelled = client.post(f"{ADMIN}/tournaments/{tournament_id}/cancel", headers=OPERATOR)
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    actions = [(row["action"], row["target_kind"], row["target_id"]) for row in audit(client)]
    assert actions == [
        ("cancel_tournament", "tournament", tournament_id),
        ("delete_bot", "bot", spare["id"]),
        ("unpause_bot", "bot", spare["id"]),
        ("pause_bot", "bot", spare["id"]),
    ]
    assert client.post(f"{ADMIN}/bots/abc/pause", headers=OPERATOR).status_code == 404


def test_the_queue_and_the_embedded_workers(client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    tournament_id, _ = running_tournament(client, ada, ("ada1", "ada2"))
    total = client.get(f"{API}/tournaments/{tournament_id}").get_json()["progress"]["total"]
    queue = client.get(f"{ADMIN}/queue", headers=OPERATOR).get_json()
    mine = next(row for row in queue["accounts"] if row["account_id"] == ada.id)
    assert mine["fed"] + mine["unfed"] + mine["running"] == total
    oldest = queue[
        "oldest_waiting"
    ]  # read by a query of its own: the embedded queue may have started it meanwhile
    if oldest is not None:
        assert (oldest["tournament_id"], oldest["account_id"]) == (tournament_id, ada.id)
        assert oldest["age_seconds"] >= 0
    workers = client.get(f"{ADMIN}/workers", headers=OPERATOR).get_json()
    assert workers["queue"] == "embedded" and len(workers["workers"]) == 1
    assert workers["workers"][0]["slots"] >= 1 and workers["workers"][0]["busy"] >= 0


def test_a_rotated_operator_token_loses_its_powers_at_once(database_url: str) -> None:
    first = arena_app(database_url, operator_token="op-" + "b" * 40)
    old = {"Authorization": "Bearer op-" + "b" * 40}
    try:
        client = first.test_client()
        ada = new_player(client, "ada")
        bots = [pull_bot(client, ada, name)["id"] for name in ("ada1", "ada2")]
        made = tournament(client, old, bots)
        assert made.status_code == 201 and made.get_json()["official"] is True
        official = made.get_json()["id"]
        assert client.get(f"{ADMIN}/accounts", headers=old).status_code == 200
    finally:
        cancel_all(first, old)
        dispose(first)
    second = arena_app(database_url, operator_token="op-" + "c" * 40)  # restarted with a new token
    new = {"Authorization": "Bearer op-" + "c" * 40}
    try:
        client = second.test_client()
        for path in (f"{ADMIN}/accounts", f"{API}/decisions", f"{API}/tournaments/{official}/cancel"):
            method = client.post if path.endswith("cancel") else client.get
            assert method(path, headers=old).status_code == 401, path  # before B is ever used
        assert client.get(f"{ADMIN}/accounts", headers=new).status_code == 200
        assert client.get(f"{ADMIN}/accounts", headers=old).status_code == 401
        with second.extensions["db_sessions"]() as session:
            operators = list(session.scalars(select(Player).where(Player.operator.is_(True))))
            assert len(operators) == 1
            owner = session.scalar(select(Tournament.owner_id).where(Tournament.id == official))
            assert owner == operators[0].id
            assert session.scalar(select(AdminAction.id)) is None
        cancelled = client.post(f"{API}/tournaments/{official}/cancel", headers=new)
        assert cancelled.status_code == 200, "the official tournament is still the operator's"
    finally:
        cancel_all(second, new)
        dispose(second)
