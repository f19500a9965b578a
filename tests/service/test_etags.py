"""ETags vary with what the caller may see (``service/api/games.py``): ``GET /games/{id}`` is tagged by the
caller's seat (every spectator's view is the same) and the game's seat holders, besides its ply, status and
language, so that a player who takes a seat never gets a 304 on the spectator view it fetched before (a card
game's seat sees its hand at once, while the game is still open), nor a spectator on the seats as they were;
every tagged answer (and its 304) says ``Vary: Authorization, Accept-Language``. On SQLite and PostgreSQL."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.apikit import API, create_game, new_player, started_game, take_seat


def test_taking_a_seat_changes_the_takers_etag(client: FlaskClient) -> None:
    creator, taker = new_player(client, "creator"), new_player(client, "taker")
    game_id = create_game(client, creator, "card", {}, seats=3, seed=4)["id"]
    url = f"{API}/games/{game_id}"
    before = client.get(url, headers=taker.headers)
    assert before.status_code == 200 and before.get_json()["your_seat"] is None
    assert "hand" not in before.get_json()["view"] or not before.get_json()["view"]["hand"]
    tag = before.headers["ETag"]
    assert client.get(url, headers={**taker.headers, "If-None-Match": tag}).status_code == 304
    take_seat(client, game_id, taker, 1)
    after = client.get(url, headers={**taker.headers, "If-None-Match": tag})
    assert after.status_code == 200, "a 304 would keep the spectator view"
    body = after.get_json()
    assert body["status"] == "open" and body["your_seat"] == 1 and body["view"]["hand"]
    assert after.headers["ETag"] != tag
    again = client.get(url, headers={**taker.headers, "If-None-Match": after.headers["ETag"]})
    assert again.status_code == 304


def test_a_spectators_etag_changes_when_a_seat_is_taken(client: FlaskClient) -> None:
    creator = new_player(client, "creator")
    game_id = create_game(client, creator, "board", {"variant": "points"}, seats=3)["id"]
    url = f"{API}/games/{game_id}"
    tag = client.get(url).headers["ETag"]
    take_seat(client, game_id, new_player(client, "first"), 2)
    changed = client.get(url, headers={"If-None-Match": tag})
    assert changed.status_code == 200 and [p["seat"] for p in changed.get_json()["players"]] == [2]
    # every spectator, with a token or without, sees the same body under the same tag
    onlooker = new_player(client, "onlooker")
    assert (
        client.get(url, headers={**onlooker.headers, "If-None-Match": changed.headers["ETag"]}).status_code == 304
    )


def test_seats_do_not_share_etags_and_answers_vary_by_authorization(client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {}, seats=2, seed=9)
    url = f"{API}/games/{game_id}"
    tags = set()
    for player in [*players, None]:
        response = client.get(url, headers=player.headers if player else {})
        assert response.headers["Vary"] == "Authorization, Accept-Language"
        tags.add(response.headers["ETag"])
        again = client.get(
            url, headers={**(player.headers if player else {}), "If-None-Match": response.headers["ETag"]}
        )
        assert again.status_code == 304 and "Authorization" in again.headers["Vary"]
    assert len(tags) == 3
    actions = client.get(f"{url}/actions", headers=players[0].headers)
    assert actions.headers["Vary"] == "Authorization, Accept-Language"
