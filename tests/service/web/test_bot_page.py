"""A page per bot, ``/bots/<id>``: after a real tournament (push bots, one of them faulting now and then) it shows
the bot's owner, its games, its rating chart per pool, its wins by seat (which add up to its games), its faults by
kind (as many as the database holds for its finished games), its answer-time percentiles (in order) and its recent
games; the standings table links to it and counts each bot's faults, the game page links its players to theirs.
Bad ids are 4xx pages. Then in headless Chromium, with a screenshot (test-output/screenshots/bot-page.png)."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from store.models import ActionRecord, Game, Seat
from tests.apikit import API, SQLITE_ONLY, new_player
from tests.arenakit import create_tournament, push_bots, random_choice, register, wait_done, wait_pool
from tests.service.web.browser import screenshot, served


def sometimes_broken(request: dict[str, Any]) -> str:
    if request["ply"] % 7 == 3:
        raise RuntimeError("odd ply")  # a status fault, never three in a row
    return random_choice(request)


def played_tournament(client: FlaskClient) -> tuple[dict[str, Any], dict[str, Any], int]:
    owner = new_player(client, "ada")
    with push_bots(sometimes_broken, random_choice) as (flaky_server, steady_server):
        flaky = register(client, owner, "flaky", flaky_server.url)
        steady = register(client, owner, "steady", steady_server.url)
        created = create_tournament(
            client,
            owner,
            [flaky["id"], steady["id"]],
            game="card",
            settings={"players": 2, "pawns": 2},
            rounds=2,
            move_timeout_ms=20_000,  # the steady bot never times out, on a loaded machine too: its page shows no fault
        )
        done = wait_done(client, created["id"], timeout=120)
    wait_pool(client, 4)
    return flaky, steady, done["results"][0]["game_id"]


def faults_stored(app: Flask, player_id: int) -> int:
    with app.extensions["db_sessions"]() as session:
        return session.scalar(
            select(func.count())
            .select_from(ActionRecord)
            .join(Seat, (Seat.game_id == ActionRecord.game_id) & (Seat.seat == ActionRecord.seat))
            .join(Game, Game.id == ActionRecord.game_id)
            .where(Seat.player_id == player_id, ActionRecord.fault == "status", Game.status == "over")
        )


def test_a_bots_page_shows_its_games_ratings_seats_faults_and_latency(app: Flask, client: FlaskClient) -> None:
    flaky, steady, game_id = played_tournament(client)
    response = client.get(f"/bots/{flaky['id']}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "Bot flaky" in page and '<td class="owner">ada</td>' in page
    assert '<td class="num games">4</td>' in page  # 2 rounds, 2 seatings
    assert 'data-game="card" data-variant="standard"' in page and 'class="rating-chart"' in page
    seats = re.findall(r'data-seat="(\d)" data-games="(\d+)" data-wins="(\d+)"', page)
    assert sum(int(games) for _, games, _ in seats) == 4 and {seat for seat, _, _ in seats} == {"0", "1"}
    stored = faults_stored(app, flaky["player_id"])
    assert stored > 0 and f'data-fault="status" data-count="{stored}"' in page
    percentiles = re.findall(r'data-percentile="(\d+)">([\d.,]+)', page)
    assert [p for p, _ in percentiles] == ["50", "95", "99"]
    values = [float(value.replace(",", "")) for _, value in percentiles]
    assert values == sorted(values)
    assert page.count('data-game="') >= 4 + 1  # recent games (and the pool)
    steady_page = client.get(f"/bots/{steady['id']}").get_data(as_text=True)
    assert "No fault in finished games." in steady_page

    standings = client.get("/standings/card/standard").get_data(as_text=True)
    assert f'href="/bots/{flaky["id"]}"' in standings and f'<td class="num faults">{stored}</td>' in standings
    game = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'href="/bots/{flaky["id"]}"' in game and f'href="/bots/{steady["id"]}"' in game

    assert client.get("/bots/999").status_code == 404
    assert client.get("/bots/x").status_code == 404
    assert client.get("/bots/99999999999").status_code == 404
    assert client.get(f"{API}/bots/{flaky['id']}").status_code == 200  # the API's route is not the page's


@SQLITE_ONLY
def test_the_bot_page_in_chromium(app: Flask, client: FlaskClient, browser: Any) -> None:
    flaky, _, _ = played_tournament(client)
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/standings/card/standard")
        page.click(f'a[href="/bots/{flaky["id"]}"]')
        page.wait_for_selector("#faults tr[data-fault=status]")
        assert page.inner_text("h1") == "Bot flaky"
        assert page.locator(".rating-chart").count() == 1
        screenshot(page, "bot-page")
        page.close()
