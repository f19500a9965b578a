"""Challenges through the API, on SQLite and PostgreSQL: a person plays one game against a push bot and a pull bot,
the bots played by the embedded queue as in a tournament and the person's seat waited on as a pull bot's; the
consent rules of tournaments; bad requests; a person who stops answering forfeits at the second missed deadline; one
challenge not over per account, the person's time per move capped; leaving by cancelling."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

import engine
from engine import records
from store.gamelog import as_utc
from store.models import ActionRecord, Game
from tests.apikit import API, Player, get_actions, new_player, submit
from tests.arenakit import arena, client, create_tournament, owner, push_bots, random_choice, register
from tests.liveserver import serving
from tests.service.challengekit import challenge, open_bot, opponents, play_person, wait_game, wait_status

__all__ = ["arena", "client", "owner"]  # the fixtures


def actions_of(app: Flask, game_id: int) -> list[tuple[int, str, str | None]]:
    with app.extensions["db_sessions"]() as session:
        rows = session.execute(
            select(ActionRecord.seat, ActionRecord.action, ActionRecord.fault)
            .where(ActionRecord.game_id == game_id)
            .order_by(ActionRecord.ply)
        ).all()
    return [tuple(row) for row in rows]  # type: ignore[misc]


def test_a_person_plays_a_card_game_against_a_push_bot_and_a_pull_bot(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with serving(arena) as base, opponents(client, owner, base) as (push, pull):
        created = challenge(
            client, owner, game="card", settings={"pawns": 2}, bot_ids=[push["id"], pull["id"]], seat=1
        )
        assert created["status"] in ("scheduled", "running") and created["seat"] == 1
        assert [(p["seat"], p["mode"], p["bot_id"]) for p in created["players"]] == [
            (0, "push", push["id"]),
            (1, "human", None),
            (2, "pull", pull["id"]),
        ]
        assert created["players"][1]["name"] == owner.name
        game_id = wait_game(client, created["id"])["game_id"]
        seen = client.get(f"{API}/games/{game_id}", headers=owner.headers).get_json()
        assert seen["your_seat"] == 1 and seen["view"]["hand"]  # the person's own view, hand included
        moves = play_person(client, game_id, owner)
        done = wait_status(client, created["id"], "done")
    assert moves > 0
    assert done["game_status"] == "over"
    result = done["result"]
    assert result["bot_ids"] == [push["id"], 0, pull["id"]] and sorted(result["ranks"])[0] == 1
    assert result["faults"] == [0, 0, 0] and result["forfeited"] == []
    played = actions_of(arena, game_id)
    assert {seat for seat, _, _ in played} == {0, 1, 2} and all(fault is None for _, _, fault in played)
    with arena.extensions["db_sessions"]() as session:
        game = session.get(Game, game_id)
        assert game is not None and game.status == "over"
        replayed = engine.replay("card", game.settings, game.seed, [action for _, action, _ in played])
        assert engine.to_json(replayed) == json.loads(game.state)
    record = client.get(f"{API}/games/{game_id}/record").get_json()
    assert [seat.get("bot_id") for seat in record["seats"]] == [push["id"], None, pull["id"]]
    assert record["seats"][1] == {"seat": 1, "name": owner.name, "player_id": owner.id}
    tournament = client.get(f"{API}/tournaments/{created['id']}").get_json()
    assert tournament["rated"] is False and tournament["progress"] == {"done": 1, "total": 1}
    export = client.get(f"{API}/tournaments/{created['id']}/games.jsonl").get_data(as_text=True).splitlines()
    assert json.loads(export[0])["seats"][1]["name"] == owner.name


def test_a_person_who_stops_answering_forfeits_at_the_second_missed_deadline(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    """A bot forfeits at its third timeout in a row; a person who missed one deadline and then another has left:
    the game (and the worker's slot) does not wait out a third. The game's record says so and checks."""
    with push_bots(random_choice) as servers:
        bot = register(client, owner, "pushy", servers[0].url)
        created = challenge(client, owner, game="board", bot_ids=[bot["id"]], seat=0, move_timeout_ms=1000)
        done = wait_status(client, created["id"], "done")
    assert done["result"]["forfeited"] == [0] and done["result"]["ranks"] == [2, 1]
    assert done["result"]["faults"] == [2, 0]
    faults = [fault for seat, _, fault in actions_of(arena, done["game_id"]) if seat == 0]
    assert faults[:2] == ["timeout"] * 2 and set(faults[2:]) <= {"forfeit"}
    record = client.get(f"{API}/games/{done['game_id']}/record").get_json()
    assert records.check(record) == []


def test_an_account_has_one_challenge_not_over_at_a_time(client: FlaskClient, owner: Player) -> None:
    """A second challenge while the first waits on its person is a 429 naming the setting; once the first is left
    (cancelled), a new one is taken. Another account is not held back by this one's."""
    bot = open_bot(client, owner, "pully", None)
    first = challenge(client, owner, game="card", bot_ids=[bot["id"]], move_timeout_ms=60_000)
    response = client.post(
        f"{API}/challenges", json={"game": "card", "bot_ids": [bot["id"]]}, headers=owner.headers
    )
    assert response.status_code == 429, response.get_data(as_text=True)
    message = response.get_json()["message"]
    assert "SORRY_ARENA_LIVE_CHALLENGES" in message and "at most 1 challenge" in message, message
    other = new_player(client, "other")
    theirs = challenge(client, other, game="card", bot_ids=[bot["id"]], move_timeout_ms=60_000)
    for made, person in ((first, owner), (theirs, other)):
        left = client.post(f"{API}/tournaments/{made['id']}/cancel", headers=person.headers)
        assert left.status_code == 200, left.get_data(as_text=True)
    again = challenge(client, owner, game="card", bot_ids=[bot["id"]], move_timeout_ms=60_000)
    client.post(f"{API}/tournaments/{again['id']}/cancel", headers=owner.headers)


def test_the_persons_time_per_move_is_capped_and_the_bots_keep_the_tournaments_limit(
    client: FlaskClient, owner: Player
) -> None:
    bot = open_bot(client, owner, "pully", None)
    response = client.post(
        f"{API}/challenges",
        json={"game": "card", "bot_ids": [bot["id"]], "move_timeout_ms": 120_001},
        headers=owner.headers,
    )
    assert response.status_code == 422, response.get_data(as_text=True)
    message = response.get_json()["message"]
    assert "at most 120000 ms" in message and "SORRY_ARENA_CHALLENGE_MOVE_TIMEOUT_MS" in message, message
    assert 'id="move-seconds" min="1" max="120" value="120"' in client.get("/play").get_data(as_text=True)
    made = challenge(client, owner, game="card", bot_ids=[bot["id"]], seat=1)
    assert made["move_timeout_ms"] == 120_000 and made["bot_move_timeout_ms"] == 60_000
    game_id = wait_game(client, made["id"])["game_id"]
    pully = Player(bot["player_id"], bot["name"], bot["token"])

    def shown_against_saved(offered: dict[str, Any]) -> float:
        """The seconds from the position's save to the deadline shown."""
        with client.application.extensions["db_sessions"]() as session:
            saved_at = as_utc(session.scalar(select(Game.updated_at).where(Game.id == game_id)))
        return (datetime.fromisoformat(offered["deadline"]) - saved_at).total_seconds()

    checked = set()
    try:
        for _ in range(50):  # the bot and the person move, by hand here, until each was asked once
            for who, player in (("bot", pully), ("person", owner)):
                offered = get_actions(client, game_id, player, wait=1)
                if offered["your_decision"]:
                    checked.add((who, round(shown_against_saved(offered), 2)))
                    response = submit(client, game_id, player, offered["actions"][0]["id"], offered["ply"])
                    assert response.status_code == 200, response.get_data(as_text=True)
            if len({who for who, _ in checked}) == 2:
                break
    finally:
        client.post(f"{API}/tournaments/{made['id']}/cancel", headers=owner.headers)
    assert checked == {("bot", 60.0), ("person", 120.0)}, checked


def test_the_person_leaves_by_cancelling(arena: Flask, client: FlaskClient, owner: Player) -> None:
    with push_bots(random_choice) as servers:
        bot = register(client, owner, "pushy", servers[0].url)
        created = challenge(client, owner, game="card", bot_ids=[bot["id"]], seat=0)
        game_id = wait_game(client, created["id"])["game_id"]
        assert get_actions(client, game_id, owner, wait=10)["your_decision"]
        response = client.post(f"{API}/tournaments/{created['id']}/cancel", headers=owner.headers)
        assert response.status_code == 200, response.get_data(as_text=True)
        left = wait_status(client, created["id"], "cancelled")
        assert arena.extensions["queue"].wait(timeout=30)  # the worker stopped waiting on the person's seat
    assert left["game_status"] == "cancelled" and left["result"] is None


def test_only_your_own_bots_or_bots_open_to_others(client: FlaskClient, owner: Player) -> None:
    stranger = new_player(client, "stranger")
    closed = register(client, owner, "closed", None)
    refused = client.post(
        f"{API}/challenges", json={"game": "card", "bot_ids": [closed["id"]]}, headers=stranger.headers
    )
    assert refused.status_code == 403 and "open_to_others" in refused.get_json()["message"]
    listed = client.get(f"{API}/challenges/opponents?game=card", headers=stranger.headers).get_json()
    assert listed == {"bots": [], "more": False}
    mine = client.get(f"{API}/challenges/opponents?game=card", headers=owner.headers).get_json()
    assert mine["bots"] == [{"id": closed["id"], "name": "closed", "mode": "pull", "yours": True}]
    opened = open_bot(client, owner, "opened", None)
    listed = client.get(f"{API}/challenges/opponents?game=card", headers=stranger.headers).get_json()
    assert [bot["id"] for bot in listed["bots"]] == [opened["id"]] and not listed["bots"][0]["yours"]
    created = challenge(client, stranger, game="card", bot_ids=[opened["id"]], seat=1)
    assert created["owner_id"] == stranger.id
    response = client.post(f"{API}/tournaments/{created['id']}/cancel", headers=stranger.headers)
    assert response.status_code == 200
    bot_token = Player(0, "bot", closed["token"])
    response = client.post(
        f"{API}/challenges", json={"game": "card", "bot_ids": [closed["id"]]}, headers=bot_token.headers
    )
    assert response.status_code == 403 and "bot's token" in response.get_json()["message"]


def test_bad_challenges_are_refused_with_a_reason(client: FlaskClient, owner: Player) -> None:
    bot = register(client, owner, "pully", None, games=("card",))

    def refused(body: dict[str, Any], code: int, words: str) -> None:
        response = client.post(f"{API}/challenges", json=body, headers=owner.headers)
        assert response.status_code == code, response.get_data(as_text=True)
        assert words in response.get_json()["message"], response.get_json()

    refused({"game": "card", "bot_ids": [bot["id"]], "seat": 2}, 422, "seat must be from 0 to 1")
    refused({"game": "card", "bot_ids": [bot["id"]], "settings": {"players": 3}}, 422, "settings.players (3)")
    refused({"game": "card", "bot_ids": [bot["id"]], "settings": {"pawns": 0}}, 422, "settings:")
    refused({"game": "board", "bot_ids": [bot["id"]]}, 422, "do not play the board game")
    refused({"game": "card", "bot_ids": [bot["id"], bot["id"]]}, 422, "listed twice")
    refused({"game": "card", "bot_ids": [999]}, 422, "no bot 999")
    refused({"game": "card", "bot_ids": []}, 422, "bot_ids")
    refused({"game": "card", "bot_ids": [bot["id"]], "move_timeout_ms": 10}, 422, "move_timeout_ms")
    refused({"game": "chess", "bot_ids": [bot["id"]]}, 422, "game")
    response = client.post(f"{API}/challenges", json={"game": "card", "bot_ids": [bot["id"]]})
    assert response.status_code == 401
    assert client.get(f"{API}/challenges/opponents").status_code == 422
    assert client.get(f"{API}/challenges/opponents?game=card").status_code == 401
    assert client.get(f"{API}/challenges/12345").status_code == 404
    with push_bots(random_choice, random_choice) as servers:
        ids = [register(client, owner, name, server.url)["id"] for name, server in zip("AB", servers, strict=True)]
        tournament = create_tournament(client, owner, ids)
        response = client.get(f"{API}/challenges/{tournament['id']}")
        assert response.status_code == 404 and "tournament of bots" in response.get_json()["message"]
        client.post(f"{API}/tournaments/{tournament['id']}/cancel", headers=owner.headers)
