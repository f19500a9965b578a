"""No response, event or error shows a seat anything its engine view does not, checked at the API level.

Two whole games (the board game's points variant, where hands are secret, and the card game) are played through
the API with random legal actions; before each ply every seat and a spectator read the game, their actions, their
events, and provoke errors. Once the game is over, its replay (public then) rebuilds every state with the engine,
and each recorded answer is compared with ``engine.view(state, seat)`` and the events the engine gave that seat.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine
from engine.board.cards import CARDS as BOARD_CARDS
from tests.apikit import (
    API,
    as_json,
    get_actions,
    get_events,
    get_game,
    play_to_end,
    started_game,
    states_by_ply,
    submit,
)

GAMES = [
    pytest.param("board", {"variant": "points", "turn_cap": 30}, 3, 77, id="board-points"),
    pytest.param("card", {"pawns": 2}, 3, 78, id="card"),
]


def card_names(game: str, settings: dict[str, Any]) -> list[str]:
    return sorted(settings["deck"]) if game == "card" else sorted(set(BOARD_CARDS))


def probe_ids(game: str, settings: dict[str, Any], hand: list[str]) -> list[str]:
    """Action ids built from every card the seat does not hold: legal for nobody, or for another seat only."""
    others = [card for card in card_names(game, settings) if card not in hand]
    if game == "card":
        return [f"play:{card}" for card in others] + [f"discard:{card}" for card in others]
    return [f"discard:{card}" for card in others] + [f"{card}:start:red" for card in others]


def no_hands_key(data: Any) -> bool:
    """Whether no object in ``data`` has the engine's full-state key ``hands``."""
    if isinstance(data, dict):
        return "hands" not in data and all(no_hands_key(value) for value in data.values())
    if isinstance(data, list):
        return all(no_hands_key(value) for value in data)
    return True


@pytest.mark.parametrize(("game", "settings", "seats", "seed"), GAMES)
def test_every_answer_shows_a_seat_exactly_its_engine_view(client, game, settings, seats, seed):
    game_id, players = started_game(client, game, settings, seats, seed)
    full_settings = get_game(client, game_id)["settings"]
    seen: list[dict[str, Any]] = []  # per ply: what each seat and the spectator got

    def look(ply: int) -> None:
        public = get_game(client, game_id)
        asked = public["view"]["decision"]["seat"]
        record: dict[str, Any] = {
            "public": public,
            "public_events": get_events(client, game_id),
            "seats": [],
        }
        for seat, player in enumerate(players):
            mine = {
                "game": get_game(client, game_id, player),
                "actions": get_actions(client, game_id, player),
                "events": get_events(client, game_id, player),
                "errors": [],
            }
            hand = mine["game"]["view"].get("hand") or []
            if seat != asked:
                # acting out of turn: the answer must not depend on what the seat asked may do
                offered = get_actions(client, game_id, players[asked])["actions"]
                for action in (offered[0]["id"], "no-such-action"):
                    response = submit(client, game_id, player, action, ply)
                    mine["errors"].append((action, response.status_code, response.get_json()))
            elif ply % 4 == 0:
                # illegal actions made of cards other seats may hold: one answer for all of them
                for action in probe_ids(game, full_settings, hand):
                    if action not in {a["id"] for a in mine["actions"]["actions"]}:
                        response = submit(client, game_id, player, action, ply)
                        mine["errors"].append((action, response.status_code, response.get_json()))
            record["seats"].append(mine)
        seen.append(record)

    played = play_to_end(client, game_id, players, random.Random(seed), before_each_ply=look)
    assert len(seen) == len(played) > 3

    replay = get_events(client, game_id)["replay"]
    assert replay is not None and replay["actions"] == played and replay["seed"] == seed
    states = states_by_ply(game, replay["settings"], replay["seed"], replay["actions"])
    assert engine.is_over(states[-1])
    events_by_ply = engine_events_by_ply(game, replay["settings"], seed, played)

    for ply, record in enumerate(seen):
        state = states[ply]
        asked = engine.decision(state)
        public = record["public"]
        assert public["view"] == as_json(engine.view(state, None)), f"spectator view at ply {ply}"
        assert public["seed"] is None and public["your_seat"] is None and public["result"] is None
        assert public["view"].get("hand") is None
        assert no_hands_key(public)
        visible = [e for e in events_by_ply[ply] if e["to"] is None]
        assert [e["event"] for e in record["public_events"]["events"]] == visible, f"public events at ply {ply}"
        assert record["public_events"]["replay"] is None

        for seat, mine in enumerate(record["seats"]):
            where = f"seat {seat} at ply {ply}"
            view = as_json(engine.view(state, seat))
            assert mine["game"]["view"] == view, where
            assert mine["game"]["your_seat"] == seat and mine["game"]["seed"] is None, where
            assert no_hands_key(mine), where
            actions = mine["actions"]
            assert actions["decision"] == {"seat": asked.seat, "kind": asked.kind} == view["decision"], where
            legal = [a.id for a in engine.legal_actions(state, seat)]
            assert [a["id"] for a in actions["actions"]] == legal, where
            assert actions["your_decision"] == (seat == asked.seat) == bool(legal), where
            visible = [e for e in events_by_ply[ply] if e["to"] in (None, seat)]
            assert [e["event"] for e in mine["events"]["events"]] == visible, where
            assert all(e["private"] == (e["event"]["to"] == seat) for e in mine["events"]["events"]), where
            assert mine["events"]["replay"] is None, where
            check_errors(mine["errors"], seat, ply)

    # after the end: the seed, the result, the final views; still no other seat's private events
    final = states[-1]
    for seat, player in enumerate(players):
        shown = get_game(client, game_id, player)
        assert shown["view"] == as_json(engine.view(final, seat))
        assert shown["seed"] == seed and shown["result"] == as_json(engine.result(final).to_json())
        events = [e["event"] for e in get_events(client, game_id, player)["events"]]
        assert events == [e for e in events_by_ply[-1] if e["to"] in (None, seat)]
        for other in range(seats):
            if other != seat:
                hand = client.get(f"{API}/games/{game_id}/hands/{other}", headers=player.headers)
                assert hand.status_code == 403 and "cards" not in hand.get_json()
    spectator = get_game(client, game_id)
    assert spectator["view"] == as_json(engine.view(final, None)) and spectator["view"].get("hand") is None
    assert [e["event"] for e in get_events(client, game_id)["events"]] == [
        e for e in events_by_ply[-1] if e["to"] is None
    ]


def engine_events_by_ply(game: str, settings: dict[str, Any], seed: int, actions: list[str]) -> list[list[Any]]:
    """``[ply]``: every event the engine gave before the action of that ply (the last entry: all of them)."""
    state = engine.new_game(game, settings, seed)
    events = engine.opening_events(state)
    so_far = [as_json(events)]
    for action in actions:
        events = events + engine.apply(state, action)
        so_far.append(as_json(events))
    return so_far


def check_errors(errors: list[tuple[str, int, dict[str, Any]]], seat: int, ply: int) -> None:
    """Every refused action got a 409 whose message, the action's id aside, is the same for all of them: the
    answer tells the seat nothing about which actions other seats hold or may play."""
    messages = set()
    for action, status, body in errors:
        assert status == 409, (seat, ply, action, body)
        assert set(body) == {"code", "status", "message"}, body
        messages.add(body["message"].replace(repr(action), "<action>").replace(action, "<action>"))
    assert len(messages) <= 1, (seat, ply, messages)


def test_a_spectator_and_an_outsider_see_no_hand(client):
    game_id, players = started_game(client, "card", {"pawns": 2}, 2, 5)
    outsider_token = client.post(f"{API}/players", json={"name": "eve"}).get_json()["token"]
    outsider = {"Authorization": f"Bearer {outsider_token}"}
    state = engine.new_game("card", get_game(client, game_id)["settings"], 5)
    hands = [engine.view(state, seat)["hand"] for seat in range(2)]
    for headers in ({}, outsider):
        shown = client.get(f"{API}/games/{game_id}", headers=headers).get_json()
        assert shown["view"]["hand"] is None and shown["your_seat"] is None
        assert shown["view"] == as_json(engine.view(state, None))
        events = client.get(f"{API}/games/{game_id}/events", headers=headers).get_json()["events"]
        assert events and not any(e["private"] for e in events)
        assert all("cards" not in e["event"] for e in events)
        listed = client.get(f"{API}/games", headers=headers).get_json()
        assert all(g["view"]["hand"] is None for g in listed)
        assert client.get(f"{API}/games/{game_id}/hands/0", headers=headers).status_code in (401, 403)
    # the seated players do see their own, and each only its own
    for seat, player in enumerate(players):
        shown = get_game(client, game_id, player)
        assert shown["view"]["hand"] == hands[seat]
        dealt = [e["event"] for e in get_events(client, game_id, player)["events"] if e["private"]]
        assert dealt and all(e["to"] == seat for e in dealt)
    assert json.dumps(hands[0]) != json.dumps(hands[1])
