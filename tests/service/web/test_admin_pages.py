"""The operator's pages (``/admin``), on SQLite and PostgreSQL: the page itself (a sign-in, no data) comes to
anyone; each of its fragments shows its section to the operator's token, and is a 401 page without a token or
with an unknown one, a 403 page with another account's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.apikit import API, new_player
from tests.arenakit import arena_app
from tests.conftest import dispose

OPERATOR = {"Authorization": "Bearer op-" + "p" * 40}


@pytest.fixture
def client(database_url: str) -> Iterator[FlaskClient]:
    app: Flask = arena_app(database_url, operator_token="op-" + "p" * 40)
    yield app.test_client()
    assert app.extensions["queue"].wait(timeout=60)
    dispose(app)


def test_the_admin_page_and_its_fragments_show_the_operator_everything(client: FlaskClient) -> None:
    page = client.get("/admin")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="admin-sign-in"' in html and "admin.js" in html
    for section in ("accounts", "bots", "queue", "workers", "audit"):
        assert f'data-section="{section}"' in html
    ada = new_player(client, "Ada Lovelace")
    bot = client.post(f"{API}/bots", json={"name": "adabot", "games": ["card"]}, headers=ada.headers).get_json()
    assert client.post(f"{API}/admin/bots/{bot['id']}/pause", headers=OPERATOR).status_code == 200
    assert client.post(f"{API}/admin/accounts/{ada.id}/disable", headers=OPERATOR).status_code == 200
    parts = {
        section: client.get(f"/admin/parts/{section}", headers=OPERATOR)
        for section in ("accounts", "bots", "queue", "workers", "audit")
    }
    for section, part in parts.items():
        assert part.status_code == 200, (section, part.get_data(as_text=True))
        assert part.headers["Cache-Control"] == "private, no-cache" and "Authorization" in part.headers["Vary"]
    accounts = parts["accounts"].get_data(as_text=True)
    assert f'data-account="{ada.id}"' in accounts and "Ada Lovelace" in accounts and "disabled" in accounts
    assert f'data-action="accounts/{ada.id}/enable"' in accounts
    assert "adabot" not in accounts, "a bot's own account is no account of the list"
    bots = parts["bots"].get_data(as_text=True)
    assert (
        f'data-bot="{bot["id"]}"' in bots
        and "paused" in bots
        and f'data-action="bots/{bot["id"]}/unpause"' in bots
    )
    assert "No game waiting." in parts["queue"].get_data(as_text=True)
    assert 'data-queue="embedded"' in parts["workers"].get_data(as_text=True)
    audit = parts["audit"].get_data(as_text=True)
    assert "disable" in audit and "pause_bot" in audit and audit.index("disable") < audit.index("pause_bot")
    searched = client.get("/admin/parts/accounts", query_string={"name": "nobody"}, headers=OPERATOR)
    assert "Ada Lovelace" not in searched.get_data(as_text=True)
    french = client.get("/admin/parts/audit", query_string={"lang": "fr"}, headers=OPERATOR)
    assert "Quand" in french.get_data(as_text=True)


def test_the_fragments_refuse_anyone_but_the_operator(client: FlaskClient) -> None:
    bob = new_player(client, "bob")
    for section in ("accounts", "bots", "queue", "workers", "audit"):
        anonymous = client.get(f"/admin/parts/{section}")
        assert anonymous.status_code == 401 and "token" in anonymous.get_data(as_text=True)
        unknown = client.get(f"/admin/parts/{section}", headers={"Authorization": "Bearer nope"})
        assert unknown.status_code == 401
        other = client.get(f"/admin/parts/{section}", headers=bob.headers)
        assert other.status_code == 403 and "SORRY_ARENA_OPERATOR_TOKEN" in other.get_data(as_text=True)
        assert "bob" not in other.get_data(as_text=True)
    assert client.get("/admin/parts/secrets", headers=OPERATOR).status_code == 404
