"""The pages through Flask's test client, on SQLite and PostgreSQL: the index links every page, the standings equal
the API's fitted table, a finished tournament's page shows its progress, standings, head-to-head and every game, its live
part answers 304 while nothing changed, a tournament game shows each move's latency and fault, and each step of a
replay shows the engine's position."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from tests.arenakit import sometimes_illegal, wait_pool
from tests.service.web.webkit import (
    BOARD_SETTINGS,
    CARD_SETTINGS,
    elements,
    finished_game,
    page,
    states,
    tournament,
)

STANDINGS = [
    "/standings/board/standard",
    "/standings/board/team",
    "/standings/board/points",
    "/standings/board/standard-1972",
    "/standings/board/team-1972",
    "/standings/board/points-1972",
    "/standings/card/standard",
    "/standings/card/longer",
]


def links(html: str) -> set[str]:
    return {found["href"] for found in elements(html, "a", href="*")}


def test_the_index_links_every_page_and_each_one_renders(app: Flask, client: FlaskClient) -> None:
    game_id = finished_game(client, "card", CARD_SETTINGS)
    with tournament(app, client, rounds=1) as done:
        index = page(client, "/")
        found = links(index)
        assert set(STANDINGS) <= found
        assert {"/tournaments", "/games", "/docs", f"/tournaments/{done['id']}", f"/games/{game_id}"} <= found
        for path in sorted(found - {"/docs"}):
            if path.startswith("/"):
                page(client, path)
        tournament_page = page(client, f"/tournaments/{done['id']}")
        assert "/" in links(tournament_page)
        about = tournament_page.split('class="about"')[1].split("</p>")[0]
        assert (" 1 round, " in about or " 1 ronde, " in about) and "rounds" not in about and "rondes" not in about


def test_the_site_has_an_icon(client: FlaskClient) -> None:
    icons = elements(page(client, "/"), "link", rel="icon")
    assert [icon["href"] for icon in icons] == ["/assets/favicon.svg"]
    for path in ("/assets/favicon.svg", "/favicon.ico"):
        answer = client.get(path)
        assert (answer.status_code, answer.mimetype) == (200, "image/svg+xml"), path
        assert answer.data.startswith(b"<svg")
        answer.close()


def test_the_standings_page_shows_the_api_ratings_and_a_line_per_bot(app: Flask, client: FlaskClient) -> None:
    with tournament(app, client, rounds=2) as done:
        api = wait_pool(client, done["progress"]["total"])  # the refit is a job: it may come after the tournament
        html = page(client, "/standings/card/standard")
    rows = elements(html, "tr", data_bot="*", data_rating="*")
    assert [(row["data-bot"], row["data-rating"]) for row in rows] == [
        (line["name"], f"{line['rating']:.1f}") for line in api["standings"]
    ]
    assert sum(int(row["data-games"]) for row in rows) == 2 * done["progress"]["total"]
    assert [(row["data-low"], row["data-high"]) for row in rows] == [
        (f"{line['low']:.1f}", f"{line['high']:.1f}") for line in api["standings"]
    ]
    assert all(float(row["data-low"]) < float(row["data-rating"]) < float(row["data-high"]) for row in rows)
    lines = elements(html, "polyline", "rating-line")  # each bot's incremental Elo as the games came in
    assert {line["data-bot"] for line in lines} == {"greedy", "random", "random2"}
    assert f"{api['games']} rated games" in html


def test_a_finished_tournament_shows_progress_standings_head_to_head_and_every_game(
    app: Flask, client: FlaskClient
) -> None:
    with tournament(app, client, rounds=2) as done:
        html = page(client, f"/tournaments/{done['id']}")
    total = done["progress"]["total"]
    assert elements(html, "div", "live", data_status="done", data_done=str(total), data_total=str(total))
    assert f"{total} of {total} games played" in html
    names = {row["bot_id"]: row["name"] for row in done["standings"]}
    table = elements(html, "tr", data_bot="*", data_bot_id="*")
    assert [int(row["data-bot-id"]) for row in table] == [row["bot_id"] for row in done["standings"]]
    cells = {
        (int(cell["data-bot-id"]), int(cell["data-opponent-id"])): (
            float(cell["data-score"]),
            int(cell["data-games"]),
        )
        for cell in elements(html, "td", data_score="*")
    }
    assert cells == {
        (row["bot_id"], row["opponent_id"]): (row["score"], row["games"]) for row in done["head_to_head"]
    }
    assert {f"/games/{result['game_id']}" for result in done["results"]} <= links(html)
    assert len(elements(html, "tr", data_number="*", data_status="done")) == total
    assert set(names.values()) <= set(re.findall(r"<th scope=\"row\">([^<]+)</th>", html))


def test_the_live_part_answers_304_until_something_changes(app: Flask, client: FlaskClient) -> None:
    with tournament(app, client, rounds=1) as done:
        path = f"/tournaments/{done['id']}/live"
        first = client.get(path)
        assert first.status_code == 200 and first.headers["ETag"]
        assert 'class="live"' in first.get_data(as_text=True) and "<html" not in first.get_data(as_text=True)
        again = client.get(path, headers={"If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304 and not again.data
        french = client.get(path, headers={"If-None-Match": first.headers["ETag"], "Accept-Language": "fr"})
        assert french.status_code == 200 and "parties jouées sur" in french.get_data(as_text=True)
        embedded = elements(page(client, f"/tournaments/{done['id']}"), "div", id="live")[0]["data-etag"]
        assert f'"{embedded}"' == first.headers["ETag"]


def test_a_tournament_game_shows_each_move_with_its_latency_and_fault(app: Flask, client: FlaskClient) -> None:
    with tournament(app, client, rounds=1) as done:
        result = done["results"][0]
        html = page(client, f"/games/{result['game_id']}")
        rows = elements(html, "tr", data_ply="*", data_seat="*")
    assert len(rows) == result["moves"]
    assert [int(row["data-ply"]) for row in rows] == list(range(1, result["moves"] + 1))
    latencies = re.findall(r'<td class="num latency">([^<]*)</td>', html)
    assert len(latencies) == result["moves"] and all(re.fullmatch(r"[\d.]+ ms", text) for text in latencies)
    assert f"Game of tournament {done['id']}" in html


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_faults_are_shown_on_their_moves(app: Flask, client: FlaskClient) -> None:
    from tests.apikit import new_player
    from tests.arenakit import create_tournament, push_bots, register, wait_done

    owner = new_player(client, "owner")
    with push_bots(sometimes_illegal(0.3, seed=2), sometimes_illegal(0.0)) as servers:
        bots = [register(client, owner, f"bot{n}", server.url)["id"] for n, server in enumerate(servers)]
        created = create_tournament(client, owner, bots, game="card", settings={"players": 2, "pawns": 2})
        done = wait_done(client, created["id"])
    faulted = [result for result in done["results"] if sum(result["faults"])]
    assert faulted, "the sometimes-illegal bot never faulted"
    html = page(client, f"/games/{faulted[0]['game_id']}")
    rows = elements(html, "tr", "faulted")
    assert len(rows) == sum(faulted[0]["faults"]) and {row["data-fault"] for row in rows} <= {"illegal", "forfeit"}
    assert "illegal move" in html
    assert "coup illégal" in page(client, f"/games/{faulted[0]['game_id']}", **{"Accept-Language": "fr"})


def board_pawns(html: str) -> dict[str, str]:
    return {found["data-pawn"]: found["data-location"] for found in elements(html, "g", "pawn")}


def card_numbers(html: str) -> dict[str, Any]:
    table = elements(html, "div", "card-table")[0]
    seats = elements(html, "tr", "seat")
    return {
        "total": int(table["data-total"]),
        "pile": [card for card in table["data-pile"].split(",") if card],
        "home": [int(seat["data-home"]) for seat in seats],
        "hand_sizes": [int(seat["data-hand-size"]) for seat in seats],
    }


def test_each_step_of_a_finished_game_shows_the_engines_position(app: Flask, client: FlaskClient) -> None:
    board_id = finished_game(client, "board", BOARD_SETTINGS)
    card_id = finished_game(client, "card", CARD_SETTINGS)
    board_states = states(app, board_id, "board", BOARD_SETTINGS)
    for ply in [*range(0, len(board_states), 7), len(board_states) - 1]:
        html = page(client, f"/games/{board_id}/at/{ply}")
        assert board_pawns(html) == engine.view(board_states[ply], None)["pawns"], ply
        assert elements(html, "div", "step", data_ply=str(ply))
    for ply, state in enumerate(states(app, card_id, "card", CARD_SETTINGS)):
        html = page(client, f"/games/{card_id}/at/{ply}")
        view = engine.view(state, None)
        assert card_numbers(html) == {key: view[key] for key in ("total", "pile", "home", "hand_sizes")}, ply
        hands = [
            [li["data-card"] for li in elements(cell, "li")]
            for cell in re.findall(r'<td class="hand">(.*?)</td>', html)
        ]
        assert hands == [engine.view(state, seat)["hand"] for seat in range(3)], ply
