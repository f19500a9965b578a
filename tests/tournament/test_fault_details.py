"""A push bot's fault reaches its author in words: the runner stores the detail of each faulted move (a status
fault quotes the bot's error reply, cut to 120 characters), listed by ``GET /api/v1/bots/{id}/faults``. On SQLite
and PostgreSQL."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.apikit import API, Player
from tests.arenakit import create_tournament, push_bots, random_choice, register, wait_done


def broken_choice(request: dict[str, Any]) -> str:
    raise KeyError("bumps")  # clients/push.py answers 500 {"error": "choose() raised KeyError: 'bumps'"}


def test_a_status_fault_quotes_the_bots_error_reply(client: FlaskClient, owner: Player) -> None:
    with push_bots(broken_choice, random_choice) as (bad_server, good_server):
        bad = register(client, owner, "broken", bad_server.url)
        good = register(client, owner, "steady", good_server.url)
        # its error comes back at once, yet on a loaded machine later than the default second: a generous deadline
        created = create_tournament(client, owner, [bad["id"], good["id"]], move_timeout_ms=20_000)
        wait_done(client, created["id"], timeout=180)
    response = client.get(f"{API}/bots/{bad['id']}/faults", headers=owner.headers)
    faults = response.get_json()["faults"]
    assert len(faults) == 6  # three in a row forfeit each of its two games
    for fault in faults:
        assert fault["fault"] == "status" and fault["game_status"] == "over"
        assert "500" in fault["detail"] and "choose() raised KeyError: 'bumps'" in fault["detail"]
        assert len(fault["detail"]) <= 120 and fault["latency_ms"] >= 0
    assert client.get(f"{API}/bots/{good['id']}/faults").get_json()["faults"] == []


ASKED: set[int] = set()
"""The games in which the chatty bot was asked already."""


def chatty_choice(request: dict[str, Any]) -> str:
    request["debug"] = f"ply {request['ply']}:\tthinking\x1b[31m" + "x" * 2000  # clients/push.py sends it
    if request["game_id"] not in ASKED or request["ply"] % 5 == 1:  # its first answer of each game, and more
        ASKED.add(request["game_id"])
        return "not-an-action"  # an illegal answer, with its debug text
    return random_choice(request)


def test_a_push_bots_debug_text_is_kept_with_its_moves(client: FlaskClient, owner: Player) -> None:
    ASKED.clear()  # game ids start again with each database
    with push_bots(chatty_choice, random_choice) as (chatty_server, quiet_server):
        chatty = register(client, owner, "chatty", chatty_server.url)
        quiet = register(client, owner, "quiet", quiet_server.url)
        created = create_tournament(
            client,
            owner,
            [chatty["id"], quiet["id"]],
            game="card",
            settings={"players": 2, "pawns": 2},
            move_timeout_ms=20_000,  # no answer late on a loaded machine: the faults are the bot's illegal ones
        )
        done = wait_done(client, created["id"], timeout=180)
    game_id = done["results"][0]["game_id"]
    record = client.get(f"{API}/games/{game_id}/record").get_json()
    seat = done["results"][0]["bot_ids"].index(chatty["id"])
    mine = [action for action in record["actions"] if action["seat"] == seat]
    others = [action for action in record["actions"] if action["seat"] != seat]
    assert mine and all(action["debug"].startswith(f"ply {action['ply']}: thinking[31m") for action in mine)
    assert all(len(action["debug"].encode()) <= 1024 and "\x1b" not in action["debug"] for action in mine)
    assert all("debug" not in action for action in others)  # no debug text: no field
    faults = client.get(f"{API}/bots/{chatty['id']}/faults", query_string={"game_id": game_id}).get_json()
    illegal = [fault for fault in faults["faults"] if fault["fault"] == "illegal"]
    assert illegal and all("not-an-action" in f["detail"] and f["debug"].startswith("ply ") for f in illegal)
