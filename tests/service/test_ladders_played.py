"""A ladder through the API end to end, on SQLite and PostgreSQL, played by the embedded queue's threads with push
bots: opened and joined through the API, its games made and played as the bots fall idle, the standings, games,
chart and each bot's ladders showing what was played; closed through the API, its tournament done once its last
game is over, no bot left busy."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.apikit import API, Player
from tests.arenakit import arena, client, owner, push_bots, random_choice, register, wait_for, wait_ladder_fit

__all__ = ["arena", "client", "owner"]  # the fixtures


def test_a_ladder_opened_joined_played_and_closed_through_the_api(client: FlaskClient, owner: Player) -> None:
    with push_bots(*[random_choice] * 3) as servers:
        bot_ids = [register(client, owner, f"p{n}", server.url)["id"] for n, server in enumerate(servers)]
        body = {"game": "card", "settings": {"pawns": 2}, "move_timeout_ms": 20_000, "budget_per_hour": 3600}
        made = client.post(f"{API}/ladders", json={**body, "max_in_play": 1}, headers=owner.headers)
        assert made.status_code == 201, made.get_data(as_text=True)
        ladder = made.get_json()["id"]
        for bot_id in bot_ids:
            joined = client.post(f"{API}/ladders/{ladder}/bots", json={"bot_id": bot_id}, headers=owner.headers)
            assert joined.status_code == 201, joined.get_data(as_text=True)

        def rated(count: int) -> Any:
            shown = client.get(f"{API}/ladders/{ladder}").get_json()
            return shown if sum(row["games"] for row in shown["standings"]) >= count else None

        shown = wait_for("6 seats rated", lambda: rated(6))
        closed = client.post(f"{API}/ladders/{ladder}/close", headers=owner.headers)
        assert closed.status_code == 200 and closed.get_json()["status"] == "closed"
        tournament = f"{API}/tournaments/{closed.get_json()['tournament_id']}"
        wait_for(
            "the closed ladder's tournament done", lambda: client.get(tournament).get_json()["status"] == "done"
        )
    assert shown["games_made"] >= 3 and shown["games_in_play"] <= 1  # max_in_play
    final = wait_ladder_fit(client, ladder)  # the standings: the fit of every result, asked for off the game path
    assert final["games_in_play"] == 0 and not any(row["busy"] for row in final["standings"])
    rows = final["standings"]
    assert [row["rating"] for row in rows] == sorted((row["rating"] for row in rows), reverse=True)
    games = sum(row["games"] for row in rows)
    assert games % 2 == 0 and all(row["version_id"] is not None for row in rows if row["games"])
    assert all(row["games_today"] >= row["games"] for row in rows)  # every game begun in the last minutes
    assert all(row["budget_left"] == 3600 - row["games_today"] for row in rows)
    recent = client.get(f"{API}/ladders/{ladder}/games", query_string={"state": "recent", "page_size": 100})
    finished = recent.get_json()
    rated_games = [game for game in finished if not game["void"]]
    assert 2 * len(rated_games) == games, finished
    assert all(sorted(game["ranks"]) in ([1, 2], [1, 1]) for game in finished)  # 1 best
    chart = client.get(f"{API}/ladders/{ladder}/chart").get_json()["lines"]
    assert sum(len(line["points"]) for line in chart) == games  # no thinning below 200 points a bot
    assert {line["bot_id"] for line in chart} == {row["bot_id"] for row in rows if row["games"]}
    places = client.get(f"{API}/bots/{bot_ids[0]}").get_json()["ladders"]
    assert [(place["ladder_id"], place["status"]) for place in places] == [(ladder, "closed")]
    by_bot = {row["bot_id"]: row for row in rows}
    assert places[0]["games"] == by_bot[bot_ids[0]]["games"]
    assert places[0]["rating"] == by_bot[bot_ids[0]]["rating"]
