"""The owner's view of a game in play (``service/web/owner.py``): the viewer's page and its fragments, asked with
a token, show the fault detail and debug text of the seats that token owns (its bots' seats, or its own), and of
no other seat; a spectator and the other bot's owner see none of it while the game runs, and no one sees an action
id or a hand. Such responses say ``Vary: Authorization`` and ``Cache-Control: private``; a bad token is a 401 page.
On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from service import db
from store import gamelog
from tests.apikit import API, Player, get_actions, new_player
from tests.arenakit import register
from tests.service.test_bot_faults import DETAIL, running_game
from tests.service.web.webkit import elements

SEEN_BY_SEAT_0 = (str(escape(DETAIL[:40])), "searched 812 nodes")
"""The fault detail and the debug text of seat 0's first move (a push bot's status fault)."""
SEEN_BY_SEAT_1 = (">mine</pre>",)
"""The debug text of seat 1's first move (a good one)."""


def game_with_bots(app: Flask, client: FlaskClient) -> tuple[int, Player, Player, Player, int]:
    """A card game in play between the bots of two owners: seat 0's move a fault with a detail and a debug text,
    seat 1's a good one with a debug text, then a pull move with a debug text by the bot asked; the game, the
    owners, seat 0's bot as a player, and the seat of the pull move."""
    mine, theirs = new_player(client, "author"), new_player(client, "rival")
    bots = [register(client, mine, "faulty", None), register(client, theirs, "steady", None)]
    game_id = running_game(app, [bot["player_id"] for bot in bots])
    players = [Player(bot["player_id"], bot["name"], bot["token"]) for bot in bots]
    for seat, player in enumerate(players):
        offered = get_actions(client, game_id, player)
        if offered["your_decision"]:
            body = {"action": offered["actions"][0]["id"], "expected_ply": 2, "debug": f"pulled by seat {seat}"}
            response = client.post(f"{API}/games/{game_id}/actions", json=body, headers=player.headers)
            assert response.status_code == 200, response.get_data(as_text=True)
            return game_id, mine, theirs, players[0], seat
    raise AssertionError("no bot is asked at ply 2")


def finish(app: Flask, game_id: int) -> None:
    """End the game after its three moves (as the runner would on a forfeit)."""
    with app.app_context():
        session = db.session()
        assert gamelog.finish(session, game_id, 3, {"ranks": [2, 1], "reason": "forfeit", "forfeited": [0]})
        session.commit()


def paths(game_id: int) -> list[str]:
    return [f"/games/{game_id}", f"/games/{game_id}/steps?after=0"] + [
        f"/games/{game_id}/at/{ply}" for ply in range(4)
    ]


def shown(client: FlaskClient, game_id: int, player: Player | None) -> tuple[str, list[Any]]:
    """Everything the viewer shows ``player`` (``None``: a spectator), and the responses."""
    headers = player.headers if player else {}
    responses = [client.get(path, headers=headers) for path in paths(game_id)]
    for response in responses:
        assert response.status_code == 200, response.get_data(as_text=True)
    return "\n".join(response.get_data(as_text=True) for response in responses), responses


def test_each_owner_sees_the_details_of_its_own_seats_only(app: Flask, client: FlaskClient) -> None:
    game_id, mine, theirs, seat_0_bot, pulled = game_with_bots(app, client)
    pulled_text = f"pulled by seat {pulled}"
    expected = {"author": {0}, "rival": {1}, "faulty": {0}, None: set()}
    for player in (mine, theirs, seat_0_bot, None):
        html, responses = shown(client, game_id, player)
        owned = expected[player.name if player else None]
        assert (all(text in html for text in SEEN_BY_SEAT_0)) == (0 in owned), player
        assert (SEEN_BY_SEAT_1[0] in html) == (1 in owned), player
        assert (pulled_text in html) == (pulled in owned), player  # a pull bot's debug text, as a push bot's
        assert "<code>" not in html, "an action id is shown while the game runs"
        assert not elements(html, "td", "hand"), "a hand is shown while the game runs"
        for response in responses:
            assert "Authorization" in response.headers["Vary"]
            assert response.headers["Cache-Control"] == "private, no-cache"
            assert response.headers["X-Owner-Seats"] == ",".join(str(seat) for seat in sorted(owned))
    # the fault's detail sits beside the fault, on its row and on its step
    html, _ = shown(client, game_id, mine)
    row = elements(html, "tr", data_ply="1", data_seat="0")
    assert row, "seat 0's first move has its row"
    step = client.get(f"/games/{game_id}/at/1", headers=mine.headers).get_data(as_text=True)
    assert 'class="fault-detail"' in step and '<pre class="debug" data-seat="0">searched 812 nodes' in step

    finish(app, game_id)
    html, responses = shown(client, game_id, None)
    assert all(text in html for text in (*SEEN_BY_SEAT_0, *SEEN_BY_SEAT_1, pulled_text)) and "<code>" in html
    assert all("Authorization" in response.headers["Vary"] for response in responses)


def test_a_bad_token_is_a_401_page_that_says_so(app: Flask, client: FlaskClient) -> None:
    game_id, *_ = game_with_bots(app, client)
    for header in ("Bearer sa_not-a-token", "Basic YWRhOmFkYQ==", "Bearer "):
        for path in paths(game_id):
            response = client.get(path, headers={"Authorization": header})
            assert response.status_code == 401, (header, path)
            body = response.get_data(as_text=True)
            assert "The token was refused" in body and "Not signed in" in body
            assert "searched 812" not in body
    response = client.get(paths(game_id)[0], headers={"Authorization": "Bearer nope", "Accept-Language": "fr"})
    assert response.status_code == 401 and "Le jeton a été refusé" in response.get_data(as_text=True)


def test_the_sign_in_box_is_on_the_page_of_a_game_in_play_only(app: Flask, client: FlaskClient) -> None:
    game_id, *_ = game_with_bots(app, client)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert elements(page, "form", "owner-sign-in") and 'type="password"' in page
    finish(app, game_id)
    assert not elements(client.get(f"/games/{game_id}").get_data(as_text=True), "form", "owner-sign-in")
