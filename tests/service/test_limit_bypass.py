"""The rate limits cannot be gone around (``service/ratelimits.py``, ``service/api/bots.py``):

- a bot's own token registers no bots, nor changes or deletes any (a 403): else each bot's account, with a limit of
  its own, registers more, without end (an audit made 121 accounts under a 20/minute limit);
- a bot's registration makes an account, so it counts against the client address's account limit with the
  accounts of ``POST /players``: one address makes no more accounts than that limit, however it goes about it;
- a ``PATCH /bots/{id}`` that calls the bot (a new url or a new secret) counts against the owner's bot limit, so
  the outbound calls it makes are limited too (the audit made 200 in 1.8 s); a rename does not count;
- in Redis, requests that come at once each use exactly one of the budget (16 at once used 240 of 300: each
  took a share of 15 and all but the last one's leftovers were lost).

On SQLite and PostgreSQL; the Redis counter on a private Redis (``redis_url``).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from runtime.settings import Settings
from service.app import create_app
from service.auth import BOT_TOKEN
from service.ratelimits import RedisCounter
from tests.apikit import API, Player, new_player
from tests.botservers import BotServer, reply
from tests.conftest import TEST_LIMITS, dispose


@pytest.fixture
def apps(database_url: str) -> Iterator[Any]:
    made: list[Flask] = []

    def make(**limits: str) -> Flask:
        settings = Settings(database_url=database_url, bot_allow="loopback", **{**TEST_LIMITS, **limits})
        app = create_app(settings)
        app.config["TESTING"] = True
        made.append(app)
        return app

    yield make
    for app in made:
        dispose(app)


def register_pull_bot(client: FlaskClient, token: str, name: str | None = None) -> Any:
    """A pull bot, by default under a name of its own (the active bots' names are unique)."""
    return client.post(
        f"{API}/bots",
        json={"name": name or f"bot-{secrets.token_hex(6)}", "games": ["card"]},
        headers={"Authorization": f"Bearer {token}"},
    )


def test_a_bots_token_registers_no_bots_and_changes_none(apps: Any) -> None:
    client = apps().test_client()
    owner = new_player(client, "owner")
    created = register_pull_bot(client, owner.token)
    assert created.status_code == 201
    bot, bot_token = created.get_json(), created.get_json()["token"]
    as_bot = {"Authorization": f"Bearer {bot_token}"}
    refused = register_pull_bot(client, bot_token, "child")
    assert refused.status_code == 403 and refused.get_json()["message"] == BOT_TOKEN
    assert client.patch(f"{API}/bots/{bot['id']}", json={"name": "x"}, headers=as_bot).status_code == 403
    assert client.delete(f"{API}/bots/{bot['id']}", headers=as_bot).status_code == 403
    assert [entry["id"] for entry in client.get(f"{API}/bots").get_json()["bots"]] == [bot["id"]]
    other = register_pull_bot(client, owner.token, "other").get_json()
    tournament = {"game": "card", "bot_ids": [bot["id"], other["id"]], "table_size": 2}
    made = client.post(f"{API}/tournaments", json=tournament, headers=as_bot)
    assert made.status_code == 403 and made.get_json()["message"] == BOT_TOKEN, "nor creates tournaments"
    match = {"bot_a": bot["id"], "bot_b": other["id"], "game": "card"}
    assert client.post(f"{API}/matches", json=match, headers=as_bot).status_code == 403
    # the bot's token still plays: it creates and joins games as any player's does
    game = client.post(f"{API}/games", json={"game": "card", "seats": 2}, headers=as_bot)
    assert game.status_code == 201


def test_one_address_makes_no_more_accounts_than_its_limit(apps: Any) -> None:
    """The audit's attack: players register bots, bots register bots; all of it from one address."""
    client = apps(limit_accounts="20/minute", limit_bots="30/hour").test_client()
    tokens: list[str] = []
    made = 0
    for number in range(40):
        response = client.post(f"{API}/players", json={"name": f"p{number}"})
        if response.status_code != 201:
            assert response.status_code == 429
            break
        made += 1
        tokens.append(response.get_json()["token"])
        for _ in range(5):
            for token in list(tokens):
                bot = register_pull_bot(client, token)
                assert bot.status_code in (201, 403, 429), bot.get_data(as_text=True)
                if bot.status_code == 201:
                    made += 1
                    tokens.append(bot.get_json()["token"])
    assert made == 20
    message = register_pull_bot(client, tokens[0]).get_json()["message"]
    assert message.startswith("too many account creations: the limit is 20 per 1 minute per client address")


def test_patches_that_call_the_bot_are_limited(apps: Any) -> None:
    client = apps(limit_bots="3/hour").test_client()
    owner = new_player(client, "owner")
    with BotServer(reply()) as server:
        created = client.post(
            f"{API}/bots",
            json={"name": "b", "url": server.url(), "games": ["card"], "secret": "o" * 40},
            headers=owner.headers,
        )
        assert created.status_code == 201 and len(server.received) == 1
        bot_id = created.get_json()["id"]
        answers = [patch(client, owner, bot_id, {"secret": f"{n}" * 40}) for n in range(3)]
        answers += [patch(client, owner, bot_id, {"url": server.url(path="/other")}) for _ in range(3)]
        assert answers == [200, 200, 429, 429, 429, 429]
        assert len(server.received) == 3  # the refused ones called nothing
    assert patch(client, owner, bot_id, {"name": "renamed"}) == 200  # no call, no count
    refused = client.patch(f"{API}/bots/{bot_id}", json={"secret": "r" * 40}, headers=owner.headers)
    assert refused.get_json()["message"].startswith(
        "too many bot registrations and changes of a bot's url or secret: the limit is 3 per 1 hour per account"
    )


def patch(client: FlaskClient, owner: Player, bot_id: int, body: dict[str, Any]) -> int:
    return client.patch(f"{API}/bots/{bot_id}", json=body, headers=owner.headers).status_code


# --- the Redis counter under concurrent requests ------------------------------------------------------------------


@pytest.mark.parametrize("together", [2, 16, 40])
def test_requests_at_once_use_exactly_their_number_of_the_budget(redis_url: str, together: int) -> None:
    counter = RedisCounter(redis_url)
    at_once = threading.Barrier(together, timeout=30)
    script = counter.script

    def all_in_flight(**kwargs: Any) -> Any:
        at_once.wait()  # every request reaches Redis before any has its answer: none finds a share held
        return script(**kwargs)

    counter.script = all_in_flight
    results: list[bool] = []
    threads = [
        threading.Thread(target=lambda: results.append(counter.hit("moves/1/300/1/minute", 300, 60.0)[0]))
        for _ in range(together)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert results == [True] * together
    counter.script = script
    more = 0
    while counter.hit("moves/1/300/1/minute", 300, 60.0)[0]:
        more += 1
        assert more <= 300
    assert together + more == 300


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_concurrent_requests_through_the_app_are_counted_exactly(database_url: str, redis_url: str) -> None:
    app = create_app(
        Settings(database_url=database_url, redis_url=redis_url, **{**TEST_LIMITS, "limit_bots": "150/hour"})
    )
    try:
        owner = new_player(app.test_client(), "owner")
        codes: list[int] = []

        def register_some() -> None:
            client = app.test_client()
            for _ in range(12):
                codes.append(register_pull_bot(client, owner.token).status_code)

        threads = [threading.Thread(target=register_some) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert sorted(codes) == [201] * 150 + [429] * (16 * 12 - 150)
    finally:
        dispose(app)
