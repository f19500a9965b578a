"""The game API's happy paths: players and tokens, games, seats, hands, actions, events, replays,
pagination and filters, ETags and French texts, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import random

from sqlalchemy import create_engine, inspect, select, text

import engine
from engine import i18n
from runtime import release
from store.models import Player as PlayerRow
from tests.apikit import (
    API,
    SHORT_CARD,
    create_game,
    get_actions,
    get_events,
    get_game,
    new_player,
    play_to_end,
    started_game,
    submit,
    take_seat,
)


def test_a_token_is_shown_once_and_stored_only_as_its_sha256(client, database_url):
    player = new_player(client, "ada")
    assert player.token and player.name == "ada"
    db = create_engine(database_url)
    try:
        with db.connect() as connection:
            row = connection.execute(select(PlayerRow).where(PlayerRow.id == player.id)).one()
            assert row.token_hash == hashlib.sha256(player.token.encode()).hexdigest()
            # no column of any table holds the token itself
            for table in inspect(connection).get_table_names():
                for record in connection.execute(text(f'SELECT * FROM "{table}"')):
                    assert player.token not in json.dumps([str(value) for value in record])
    finally:
        db.dispose()
    # the token works, and no endpoint shows it again
    game = create_game(client, player)
    assert player.token not in json.dumps(game)
    assert player.token not in client.get(f"{API}/games", headers=player.headers).get_data(as_text=True)


def test_a_new_game_is_open_with_normalized_settings_and_no_seed(client):
    ada = new_player(client)
    game = create_game(client, ada, "board", {"variant": "points"}, seats=3, seed=42)
    assert game["status"] == "open" and game["ply"] == 0 and game["seats"] == 3
    assert game["settings"] == engine.normalize_settings("board", {"variant": "points", "players": 3})
    assert game["seed"] is None  # not before the game is over
    assert game["your_seat"] is None and game["players"] == []
    assert game["view"] == json.loads(
        json.dumps(engine.view(engine.new_game("board", game["settings"], 42), None))
    )


def test_the_game_starts_when_every_seat_is_taken(client):
    players = [new_player(client, name) for name in ("ada", "bob", "cy")]
    game_id = create_game(client, players[0], "card", {}, seats=3)["id"]
    assert take_seat(client, game_id, players[1], 2) == {"game_id": game_id, "seat": 2, "status": "open"}
    assert take_seat(client, game_id, players[0])["seat"] == 0  # any seat: the first free one
    assert take_seat(client, game_id, players[2]) == {"game_id": game_id, "seat": 1, "status": "active"}
    game = get_game(client, game_id, players[2])
    assert game["status"] == "active" and game["your_seat"] == 1
    assert [(p["seat"], p["name"]) for p in game["players"]] == [(0, "ada"), (1, "cy"), (2, "bob")]
    assert game["view"]["seat"] == 1 and game["view"]["hand"] is not None


def test_a_hand_is_shown_to_its_owner_only(client):
    game_id, (ada, _bob) = started_game(client, *SHORT_CARD, seed=3)
    mine = client.get(f"{API}/games/{game_id}/hands/0", headers=ada.headers)
    assert mine.status_code == 200
    assert mine.get_json()["cards"] == get_game(client, game_id, ada)["view"]["hand"]
    assert len(mine.get_json()["cards"]) == get_game(client, game_id)["view"]["hand_sizes"][0] > 0
    theirs = client.get(f"{API}/games/{game_id}/hands/1", headers=ada.headers)
    assert theirs.status_code == 403
    assert "cards" not in theirs.get_json() and theirs.get_json()["code"] == 403
    outsider = new_player(client, "eve")
    assert client.get(f"{API}/games/{game_id}/hands/0", headers=outsider.headers).status_code == 403


def test_actions_are_offered_to_the_seat_asked_only(client):
    game_id, players = started_game(client, "board", {"variant": "points"}, seats=2, seed=11)
    state = engine.new_game("board", get_game(client, game_id)["settings"], 11)
    asked = engine.decision(state)
    mine = get_actions(client, game_id, players[asked.seat])
    assert mine["your_decision"] is True and mine["seat"] == asked.seat
    assert mine["decision"] == {"seat": asked.seat, "kind": asked.kind}
    assert mine["deadline"] is None and mine["ply"] == 0
    assert [a["id"] for a in mine["actions"]] == [a.id for a in engine.legal_actions(state, asked.seat)]
    assert all(a["text"] for a in mine["actions"])
    other = get_actions(client, game_id, players[1 - asked.seat])
    assert other["your_decision"] is False and other["actions"] == []
    assert other["decision"] == mine["decision"]


def test_a_submitted_action_returns_the_new_view(client):
    game_id, players = started_game(client, *SHORT_CARD, seed=5)
    state = engine.new_game("card", get_game(client, game_id)["settings"], 5)
    seat = engine.decision(state).seat
    action = engine.legal_actions(state, seat)[0].id
    response = submit(client, game_id, players[seat], action, 0)
    assert response.status_code == 200
    engine.apply(state, action, seat)
    body = response.get_json()
    assert body["ply"] == 1 and body["game_id"] == game_id
    assert body["view"] == json.loads(json.dumps(engine.view(state, seat)))
    assert get_game(client, game_id)["ply"] == 1


def test_a_finished_game_shows_its_seed_and_a_replay_that_rebuilds_it(client):
    game_id, players = started_game(client, *SHORT_CARD, seats=3, seed=2024)
    played = play_to_end(client, game_id, players, random.Random(1))
    public = get_game(client, game_id)
    assert public["status"] == "over" and public["seed"] == 2024 and public["ply"] == len(played)
    record = get_events(client, game_id)["replay"]  # a spectator sees it
    assert record["actions"] == played and record["seed"] == 2024 and record["game"] == "card"
    final = engine.replay(record["game"], record["settings"], record["seed"], record["actions"])
    assert engine.is_over(final)
    assert public["result"] == engine.result(final).to_json()
    assert public["view"] == json.loads(json.dumps(engine.view(final, None)))
    # no action is accepted after the end
    late = submit(client, game_id, players[0], "pass", len(played))
    assert late.status_code == 409 and "over" in late.get_json()["message"]


def test_events_are_public_ones_plus_the_callers_private_ones(client):
    game_id, (ada, _bob) = started_game(client, *SHORT_CARD, seed=9)
    ada_events = get_events(client, game_id, ada)["events"]
    public = get_events(client, game_id)["events"]
    assert get_events(client, game_id)["replay"] is None  # not before the end
    assert public and all(not e["private"] and e["event"]["to"] is None for e in public)
    private = [e for e in ada_events if e["private"]]
    assert private and all(e["event"]["to"] == 0 for e in private)  # the deal of ada's hand
    assert [e for e in ada_events if not e["private"]] == public
    assert [e["seq"] for e in ada_events] == sorted(e["seq"] for e in ada_events)
    since = ada_events[0]["seq"]
    later = client.get(f"{API}/games/{game_id}/events?since={since}&limit=2", headers=ada.headers).get_json()
    assert later["events"] == ada_events[1:3]


def test_games_page_newest_first_by_keyset_with_a_next_link_while_there_are_more(client):
    ada = new_player(client)
    ids = [create_game(client, ada)["id"] for _ in range(5)]
    first = client.get(f"{API}/games?page_size=2")
    assert first.status_code == 200
    assert [g["id"] for g in first.get_json()] == ids[::-1][:2]
    assert "X-Pagination" not in first.headers  # no count of the games
    assert first.headers["Link"] == f'<http://localhost{API}/games?page_size=2&before={ids[3]}>; rel="next"'
    second = client.get(f"{API}/games?page_size=2&before={ids[3]}")
    assert [g["id"] for g in second.get_json()] == [ids[2], ids[1]]
    assert 'rel="first"' in second.headers["Link"] and f"before={ids[1]}" in second.headers["Link"]
    last = client.get(f"{API}/games?page_size=2&before={ids[1]}")
    assert [g["id"] for g in last.get_json()] == [ids[0]]
    assert 'rel="next"' not in last.headers["Link"]
    assert client.get(f"{API}/games?page=1&page_size=2").get_json() == first.get_json()
    gone = client.get(f"{API}/games?page=2")
    assert gone.status_code == 422 and "before=<game id>" in gone.get_data(as_text=True)


def test_games_are_filtered_by_game_status_and_player(client):
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    board = create_game(client, ada, "board", {}, seats=2)["id"]
    card = create_game(client, ada, "card", {}, seats=2)["id"]
    take_seat(client, card, ada)
    take_seat(client, card, bob)
    take_seat(client, board, bob)

    def ids(query: str) -> list[int]:
        response = client.get(f"{API}/games?{query}")
        assert response.status_code == 200, response.get_data(as_text=True)
        return [g["id"] for g in response.get_json()]

    assert ids("game=board") == [board]
    assert ids("game=card") == [card]
    assert ids("status=active") == [card]
    assert ids("status=open") == [board]
    assert ids("status=over") == []
    assert ids(f"player={ada.id}") == [card]
    assert ids(f"player={bob.id}") == [card, board]
    assert ids(f"player={bob.id}&game=board&status=open") == [board]


def test_the_listing_shows_each_caller_its_own_seat_view(client):
    game_id, (_ada, bob) = started_game(client, *SHORT_CARD, seed=4)
    listed = client.get(f"{API}/games", headers=bob.headers).get_json()
    assert [g["your_seat"] for g in listed] == [1]
    assert listed[0]["view"] == get_game(client, game_id, bob)["view"]
    assert client.get(f"{API}/games").get_json()[0]["view"]["hand"] is None


def test_etag_gives_304_until_the_game_moves(client):
    game_id, players = started_game(client, *SHORT_CARD, seed=8)
    seat = get_game(client, game_id)["view"]["decision"]["seat"]
    url = f"{API}/games/{game_id}/actions"
    first = client.get(url, headers=players[seat].headers)
    tag = first.headers["ETag"]
    assert first.status_code == 200 and tag
    again = client.get(url, headers={**players[seat].headers, "If-None-Match": tag})
    assert again.status_code == 304 and again.get_data() == b""
    game_tag = client.get(f"{API}/games/{game_id}").headers["ETag"]
    assert client.get(f"{API}/games/{game_id}", headers={"If-None-Match": game_tag}).status_code == 304
    action = first.get_json()["actions"][0]["id"]
    assert submit(client, game_id, players[seat], action, 0).status_code == 200
    moved = client.get(url, headers={**players[seat].headers, "If-None-Match": tag})
    assert moved.status_code == 200 and moved.headers["ETag"] != tag
    assert client.get(f"{API}/games/{game_id}", headers={"If-None-Match": game_tag}).status_code == 200


def test_accept_language_fr_gives_french_texts(client):
    game_id, players = started_game(client, "board", {"variant": "points"}, seed=12)
    seat = get_game(client, game_id)["view"]["decision"]["seat"]
    url = f"{API}/games/{game_id}/actions"
    english = client.get(url, headers=players[seat].headers).get_json()["actions"]
    french = client.get(url, headers={**players[seat].headers, "Accept-Language": "fr-CA,fr;q=0.9"}).get_json()
    assert [a["id"] for a in french["actions"]] == [a["id"] for a in english]
    for fr, en in zip(french["actions"], english, strict=True):
        description = {k: v for k, v in fr.items() if k not in ("id", "text")}
        assert fr["text"] == i18n.describe_action("board", description, "fr")
        assert en["text"] == i18n.describe_action("board", description, "en")
    assert any(fr["text"] != en["text"] for fr, en in zip(french["actions"], english, strict=True))
    events = client.get(f"{API}/games/{game_id}/events", headers={"Accept-Language": "fr"}).get_json()["events"]
    assert events and all(e["text"] == i18n.describe_event("board", e["event"], "fr") for e in events)
    # the English ETag is not reused for the French body
    tag = client.get(url, headers=players[seat].headers).headers["ETag"]
    assert (
        client.get(
            url, headers={**players[seat].headers, "Accept-Language": "fr", "If-None-Match": tag}
        ).status_code
        == 200
    )


def test_the_health_endpoint_answers(client):
    response = client.get(f"{API}/health")
    assert response.status_code == 200 and response.get_json() == {"ok": True, "version": release.version()}


def test_a_submission_that_leaves_the_seat_asked_returns_its_next_actions(client):
    # board seed 0: the first action of seat 0 (its first legal one) draws again (a 2), so seat 0 decides again
    game_id, players = started_game(client, "board", {}, seats=2, seed=0)
    state = engine.new_game("board", get_game(client, game_id)["settings"], 0)
    seat = engine.decision(state).seat
    action = engine.legal_actions(state, seat)[0].id
    engine.apply(state, action, seat)
    assert engine.decision(state).seat == seat
    body = submit(client, game_id, players[seat], action, 0).get_json()
    assert body["your_decision"] is True and body["ply"] == 1 and body["status"] == "active"
    asked = engine.decision(state)
    assert body["decision"] == {"seat": asked.seat, "kind": asked.kind}
    assert body["actions"] == get_actions(client, game_id, players[seat])["actions"]  # no GET needed: the same
    assert [a["id"] for a in body["actions"]] == [a.id for a in engine.legal_actions(state, seat)]
    assert body["view"] == json.loads(json.dumps(engine.view(state, seat)))
    # an answer that hands the decision over offers nothing
    other = submit(client, game_id, players[seat], body["actions"][0]["id"], 1).get_json()
    engine.apply(state, body["actions"][0]["id"], seat)
    asked = engine.decision(state)
    if asked.seat != seat:
        assert other["your_decision"] is False and other["actions"] == []
        assert other["decision"]["seat"] == asked.seat
