"""Bots and tournaments through the API, run by the embedded queue (this process's threads) on SQLite and on
PostgreSQL, against real push bots on loopback and a pull bot playing through the games API."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from ratings import pool as rating_pool
from store.models import ActionRecord, Result
from tests.apikit import API, Player, new_player
from tests.arenakit import (
    SECRET,
    arena_app,
    create_tournament,
    greedy_choice,
    illegal_choice,
    push_bots,
    random_choice,
    register,
    wait_done,
    wait_pool,
)
from tests.conftest import dispose


def test_a_round_robin_is_played_to_the_end_with_standings(client: FlaskClient, owner: Player) -> None:
    with push_bots(greedy_choice, random_choice, random_choice) as servers:
        bots = [register(client, owner, name, server.url) for name, server in zip("GRS", servers, strict=True)]
        created = create_tournament(client, owner, [bot["id"] for bot in bots], rounds=1)
        assert created["progress"] == {"done": 0, "total": 6}  # 3 pairs x 2 seatings
        done = wait_done(client, created["id"])
    assert done["progress"] == {"done": 6, "total": 6}
    assert len(done["results"]) == 6
    seatings = sorted(tuple(result["bot_ids"]) for result in done["results"])
    ids = [bot["id"] for bot in bots]
    assert seatings == sorted((a, b) for a in ids for b in ids if a != b)  # each pair in both seat orders
    for result in done["results"]:
        assert sorted(result["ranks"]) in ([1, 2], [1, 1])
        game = client.get(f"{API}/games/{result['game_id']}").get_json()
        assert game["status"] == "over"
        assert result["faults"] == [0, 0] and result["forfeited"] == []
    rows = {row["bot_id"]: row for row in done["standings"]}
    assert set(rows) == set(ids)
    for row in rows.values():
        assert row["low"] <= row["elo"] <= row["high"] and row["games"] == 4
    assert abs(sum(row["elo"] for row in rows.values()) / 3 - 1500) < 1e-6
    pairs = {(entry["bot_id"], entry["opponent_id"]): entry for entry in done["head_to_head"]}
    assert len(pairs) == 6 and all(entry["games"] == 2 for entry in pairs.values())


def test_the_pool_table_equals_a_fit_of_the_stored_results(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with push_bots(greedy_choice, random_choice, random_choice) as servers:
        bots = [register(client, owner, name, server.url) for name, server in zip("GRS", servers, strict=True)]
        first = create_tournament(client, owner, [bot["id"] for bot in bots], game="card", rounds=1)
        wait_done(client, first["id"])
        unrated = create_tournament(client, owner, [bot["id"] for bot in bots[:2]], game="card", rated=False)
        wait_done(client, unrated["id"])
    pool = wait_pool(client, 6)
    with arena.extensions["db_sessions"]() as session:
        results = session.scalars(
            select(Result).where(Result.game == "card", Result.rated.is_(True)).order_by(Result.id)
        ).all()
    table = rating_pool.standings([(result.version_ids, result.ranks) for result in results])  # bot versions
    bot_of = {
        version: bot for result in results for version, bot in zip(result.version_ids, result.bot_ids, strict=True)
    }
    assert pool["games"] == 6
    shown = ("name", "version", "faults_per_100_moves")  # not the fit's: the rows as shown
    assert [{key: row[key] for key in row if key not in shown} for row in pool["standings"]] == [
        {**row.to_json(), "bot_id": bot_of[row.player]} for row in table
    ]
    assert [row["version"] for row in pool["standings"]] == [1, 1, 1]
    assert client.get(f"{API}/standings", query_string={"game": "board"}).get_json()["standings"] == []


def test_a_bot_that_answers_illegal_actions_forfeits_after_three_faults(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with push_bots(illegal_choice, random_choice) as servers:
        bad, good = (register(client, owner, name, server.url) for name, server in zip("BG", servers, strict=True))
        created = create_tournament(client, owner, [bad["id"], good["id"]])
        done = wait_done(client, created["id"])
    for result in done["results"]:
        seat = result["bot_ids"].index(bad["id"])
        assert result["reason"] == "forfeit" and result["forfeited"] == [seat]
        assert result["ranks"][seat] == 2 and result["ranks"][1 - seat] == 1
        assert result["faults"][seat] == 3
        with arena.extensions["db_sessions"]() as session:
            faults = session.scalars(
                select(ActionRecord.fault)
                .where(ActionRecord.game_id == result["game_id"], ActionRecord.seat == seat)
                .order_by(ActionRecord.ply)
            ).all()
        assert faults == ["illegal"] * 3  # the fallback was played for each; the third forfeits
    standings = {row["bot_id"]: row for row in done["standings"]}
    assert standings[bad["id"]]["forfeits"] == 2 and standings[good["id"]]["wins"] == 2


def pull_loop(client: FlaskClient, bot: dict[str, Any], stop: threading.Event, moves: list[int]) -> None:
    """A pull bot: long-polls its inbox (every game where it must decide) and answers through the games API."""
    headers = {"Authorization": f"Bearer {bot['token']}"}
    while not stop.is_set():
        inbox = client.get(f"{API}/decisions", query_string={"wait": 1}, headers=headers).get_json()
        for pending in inbox["decisions"]:
            response = client.post(
                f"{API}/games/{pending['game_id']}/actions",
                json={"action": pending["actions"][0]["id"], "expected_ply": pending["ply"]},
                headers=headers,
            )
            if response.status_code == 200:
                moves.append(pending["game_id"])


def test_a_pull_bot_and_push_bots_play_one_tournament(arena: Flask, owner: Player) -> None:
    client = arena.test_client()
    with push_bots(random_choice) as servers:
        push = register(client, owner, "pusher", servers[0].url)
        pull = register(client, owner, "puller", None)
        assert pull["mode"] == "pull" and push["mode"] == "push"
        stop, moves = threading.Event(), []
        thread = threading.Thread(target=pull_loop, args=(arena.test_client(), pull, stop, moves), daemon=True)
        thread.start()
        try:
            created = create_tournament(client, owner, [push["id"], pull["id"]], move_timeout_ms=5000)
            done = wait_done(client, created["id"])
        finally:
            stop.set()
            thread.join(10)
    assert done["progress"]["done"] == 2
    assert len(moves) > 10  # the pull bot made its own moves
    for result in done["results"]:
        assert result["forfeited"] == []
        assert sum(result["faults"]) <= 1  # a pull bot may lose one race against its deadline, not three


def test_registration_proves_the_endpoint_and_owners_alone_change_bots(client: FlaskClient, owner: Player) -> None:
    other = new_player(client, "other")
    with push_bots(random_choice) as servers:
        bot = register(client, owner, "mine", servers[0].url)
        assert len(bot["secret"]) >= 32 and bot["token"].startswith("sa_") and bot["owner_id"] == owner.id
        listed = client.get(f"{API}/bots").get_json()["bots"]
        assert [entry["id"] for entry in listed] == [bot["id"]] and "secret" not in listed[0]
        assert listed[0]["url"] is None  # the endpoint is the owner's business
        assert client.get(f"{API}/bots/{bot['id']}", headers=other.headers).get_json()["url"] is None
        assert client.get(f"{API}/bots/{bot['id']}", headers=owner.headers).get_json()["url"] == servers[0].url
        patch = client.patch(f"{API}/bots/{bot['id']}", json={"name": "theirs"}, headers=other.headers)
        assert patch.status_code == 403
        rotated = client.patch(f"{API}/bots/{bot['id']}", json={"secret": "n" * 40}, headers=owner.headers)
        assert rotated.status_code == 422  # the bot still verifies with the old secret only: the proof fails
        assert "the bot rejected our signature" in rotated.get_json()["message"]
        renamed = client.patch(f"{API}/bots/{bot['id']}", json={"name": "renamed"}, headers=owner.headers)
        assert renamed.status_code == 200 and renamed.get_json()["name"] == "renamed"
    assert client.delete(f"{API}/bots/{bot['id']}", headers=other.headers).status_code == 403
    assert client.delete(f"{API}/bots/{bot['id']}", headers=owner.headers).status_code == 204
    assert client.get(f"{API}/bots/{bot['id']}").status_code == 404


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://127.0.0.1/bot", "url"),
        ("http://127.0.0.1:9/bot", "did not prove itself"),  # nothing listens on port 9
        ("not a url", "url"),
    ],
)
def test_registration_refuses_bad_endpoints(client: FlaskClient, owner: Player, url: str, message: str) -> None:
    response = client.post(
        f"{API}/bots", json={"name": "x", "url": url, "games": ["board"], "secret": SECRET}, headers=owner.headers
    )
    assert response.status_code == 422
    assert message in response.get_json()["message"]


def test_registration_refuses_loopback_unless_allowed(database_url: str) -> None:
    app = arena_app(database_url)
    app.extensions["settings"].bot_allow = ""
    client = app.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice) as servers:
        response = client.post(
            f"{API}/bots",
            json={"name": "x", "url": servers[0].url, "games": ["board"], "secret": SECRET},
            headers=owner.headers,
        )
    dispose(app)
    assert response.status_code == 422
    assert "loopback" in response.get_json()["message"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"bot_ids": ["A", 999]}, "no bot 999"),
        ({"bot_ids": ["A", "A"]}, "listed twice"),
        ({"bot_ids": ["A", "C"]}, "do not play the board game"),
        ({"table_size": 3}, "at least 3 bots"),
        ({"settings": {"variant": "nope"}}, "settings"),
        ({"settings": {"players": 4}}, "disagree"),
        ({"start_at": "2099-01-01T00:00:00+00:00"}, "REDIS_URL"),
        ({"repeat_every": 60}, "repeat_times"),
        ({"rounds": 0}, "rounds"),
    ],
)
def test_bad_tournaments_are_refused_with_the_reason(
    client: FlaskClient, owner: Player, change: dict[str, Any], message: str
) -> None:
    with push_bots(random_choice) as servers:
        ids = {
            name: register(client, owner, name, servers[0].url, games=games)["id"]
            for name, games in (("A", ("board",)), ("B", ("board", "card")), ("C", ("card",)))
        }
    body: dict[str, Any] = {"game": "board", "bot_ids": [ids["A"], ids["B"]], "table_size": 2, **change}
    body["bot_ids"] = [ids.get(bot, bot) for bot in body["bot_ids"]]
    response = client.post(f"{API}/tournaments", json=body, headers=owner.headers)
    assert response.status_code == 422
    assert message in str(response.get_json()), response.get_json()
    unauthorized = client.post(f"{API}/tournaments", json={"game": "board", "bot_ids": [ids["A"], ids["B"]]})
    assert unauthorized.status_code == 401
