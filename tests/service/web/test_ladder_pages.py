"""The ladders' pages on rows written here (a ladder, its tournament, entries, seats, points and games: the rows the
workers write), on SQLite and PostgreSQL: ``/ladders`` lists it; ``/ladders/<id>`` shows each bot's rating and
interval, the provisional mark, a bot that left and one without a game for long greyed with the date of its last
game, a paused bot's reason, games today and the budget left of the hour, the chart, the games in play linking to
their live game pages and the finished ones, in English and French, and no hidden information of the game in play;
its live part answers a 304 while nothing changed; a bot's page lists its ladders; bad ids are 4xx pages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import insert

from service.ladderrows import start_of_day
from store.models import Ladder, LadderEntry, LadderGame, LadderPoint, LadderSeat, Result, TournamentGame
from tests.apikit import API, new_player
from tests.arenakit import push_bots, random_choice, register, tournament_row, wait_for
from tests.service.web.test_hidden import assert_public_only, private_texts
from tests.service.web.webkit import CARD_SETTINGS, elements, finished_game, live_game, page

BUDGET = 10


@dataclass
class Made:
    ladder_id: int
    bots: dict[str, int]
    """Bot ids by name: ace (fitted and settled, 40 games), newbie (not fitted yet: provisional; paused), gone (left), sleepy
    (inactive)."""
    live_game_id: int
    finished_game_id: int
    ace_seats_hour: int
    ace_seats_today: int


def made_ladder(app: Flask, client: FlaskClient) -> Made:
    """A ladder of four bots as the workers leave it: ace's 40 rated games (a point each), 4 seats of ace (3 in the
    last hour), a game in play (started: a live card game), one waiting for a worker and one finished (the two
    unfinished leased a day long, so that the app's own maintenance leaves them alone)."""
    owner = new_player(client, "ladder-owner")
    bots = {}
    for name in ("ace", "newbie", "gone", "sleepy"):
        made = client.post(f"{API}/bots", json={"name": name, "games": ["card"]}, headers=owner.headers)
        assert made.status_code == 201, made.get_json()
        bots[name] = made.get_json()["id"]
    live_id, _ = live_game(client, "card", CARD_SETTINGS, plies=12)
    done_id = finished_game(client, "card", CARD_SETTINGS)
    now = datetime.now(UTC)
    seat_times = [now - timedelta(minutes=minutes) for minutes in (1, 2, 3, 120)]
    with app.extensions["db_sessions"]() as session:
        tournament = tournament_row(
            session, owner.id, name="nightly", bot_ids=[], rounds=0, games_total=3, settings={"players": 2}
        )
        ladder = Ladder(tournament_id=tournament.id, budget_per_hour=BUDGET, max_in_play=4, status="open")
        session.add(ladder)
        session.flush()
        old = now - timedelta(days=45)
        entries = {
            "ace": dict(
                mu=30.0,
                sigma=0.8,
                games=40,
                version_id=7,
                prior_version_id=5,
                last_game_at=now,
                busy=1,
                **FITTED,
            ),
            "newbie": dict(
                mu=24.0,
                sigma=6.0,
                games=2,
                last_game_at=now,
                paused=True,
                paused_at=now,
                pause_reason="paused automatically: faults in 3 games in a row (the last: timeout)",
            ),
            "gone": dict(
                mu=26.0,
                sigma=0.7,
                games=12,
                last_game_at=old,
                left_at=now - timedelta(days=2),
                fitted_rating=1540.0,
                fitted_low=1500.0,
                fitted_high=1580.0,
            ),
            "sleepy": dict(
                mu=22.0,
                sigma=0.7,
                games=9,
                last_game_at=old,
                joined_at=old,
                fitted_rating=1420.0,
                fitted_low=1380.0,
                fitted_high=1460.0,
            ),
        }
        for name, fields in entries.items():
            session.add(
                LadderEntry(ladder_id=ladder.id, bot_id=bots[name], seat_counts=[0, 0], free_at=now, **fields)
            )
        session.add_all(
            LadderPoint(
                ladder_id=ladder.id,
                bot_id=bots["ace"],
                number=number,
                version_id=7,
                mu=25.0 + number / 8,
                sigma=8.0 - number / 6,
                at=now,
            )
            for number in range(1, 41)
        )
        pair = [bots["ace"], bots["newbie"]]
        scheduled = []
        for number, (game_id, status) in enumerate([(live_id, "running"), (None, "pending"), (done_id, "done")]):
            row = TournamentGame(
                tournament_id=tournament.id,
                number=number,
                round=0,
                bot_ids=pair,
                seed=number,
                game_id=game_id,
                status=status,
                fed=True,  # held by a worker that is not there, a day long: no one plays them here
                worker="elsewhere",
                lease_until=now + timedelta(days=1),
            )
            session.add(row)
            session.flush()
            scheduled.append(row.id)
            session.add(
                LadderGame(tournament_game_id=row.id, ladder_id=ladder.id, bot_ids=pair, settled=number == 2)
            )
        for index, made_at in enumerate(seat_times):
            session.add(
                LadderSeat(
                    tournament_game_id=scheduled[min(index, 2)],
                    seat=index,
                    ladder_id=ladder.id,
                    bot_id=bots["ace"],
                    made_at=made_at,
                )
            )
        session.execute(
            insert(Result).values(
                tournament_game_id=scheduled[2],
                tournament_id=tournament.id,
                game_id=done_id,
                game="card",
                variant="standard",
                rated=True,
                bot_ids=pair,
                version_ids=[7, 8],
                ranks=[1, 2],
                reason="finished",
                forfeited=[],
                faults=[0, 0],
                moves=30,
                finished_at=now,
            )
        )
        session.commit()
        ladder_id = ladder.id
    hour = sum(moment >= now - timedelta(hours=1) for moment in seat_times)
    today = sum(moment >= start_of_day(now) for moment in seat_times)
    return Made(ladder_id, bots, live_id, done_id, hour, today)


FITTED = {"fitted_rating": 1650.0, "fitted_low": 1630.0, "fitted_high": 1670.0}
"""The ladder's fit of ace's current version (settled: +-20)."""


def rows_by_name(html: str) -> dict[str, dict[str, str]]:
    return {row["data-bot"]: row for row in elements(html, "tr", data_bot="*", data_budget_left="*")}


def test_the_ladder_page_shows_the_standings_with_their_uncertainty(app: Flask, client: FlaskClient) -> None:
    made = made_ladder(app, client)
    html = page(client, f"/ladders/{made.ladder_id}")
    rows = rows_by_name(html)
    # the fitted best first, then the versions not fitted yet (newbie); the bot that left last
    assert list(rows) == ["ace", "sleepy", "newbie", "gone"]
    ace = rows["ace"]  # its fitted rating shown, not its Weng-Lin one
    rating, half = FITTED["fitted_rating"], 20.0
    assert float(ace["data-rating"]) == pytest.approx(rating, abs=0.05)
    assert float(ace["data-low"]) == pytest.approx(rating - half, abs=0.05)
    assert float(ace["data-high"]) == pytest.approx(rating + half, abs=0.05)
    assert ace["data-provisional"] == "false" and rows["newbie"]["data-provisional"] == "true"
    assert f"{rating:.0f}" in html and f"{rating - half:.0f} – {rating + half:.0f}" in html
    assert ace["data-budget-left"] == str(BUDGET - made.ace_seats_hour)
    assert ace["data-games-today"] == str(made.ace_seats_today)
    assert rows["newbie"]["data-budget-left"] == str(BUDGET) and rows["newbie"]["data-games-today"] == "0"
    assert "paused automatically: faults in 3 games in a row (the last: timeout)" in html
    assert rows["newbie"]["data-paused"] == "true" and "paused" in rows["newbie"]["class"].split()
    assert len(elements(html, "abbr", "provisional")) == 1  # newbie's alone: the others' intervals are settled

    # greyed: the bot that left (listed after the others whatever its rating) and the one idle for 45 days
    assert rows["gone"]["data-left"] == "true" and "greyed" in rows["gone"]["class"].split()
    assert rows["sleepy"]["data-inactive"] == "true" and "greyed" in rows["sleepy"]["class"].split()
    assert "greyed" not in rows["ace"]["class"].split() and "greyed" not in rows["newbie"]["class"].split()
    old = (datetime.now(UTC) - timedelta(days=45)).strftime("%Y-%m-%d")
    assert html.count(f"last game {old}") == 2

    assert elements(html, "polyline", "rating-line", data_bot="ace")  # the chart: ace's line
    assert not elements(html, "polyline", "rating-line", data_bot="newbie")  # no point of its own yet
    assert "the bot&#39;s rated games in this ladder" in html  # the chart's own axis


def test_the_ladder_page_links_its_games_and_hides_what_is_hidden(app: Flask, client: FlaskClient) -> None:
    made = made_ladder(app, client)
    html = page(client, f"/ladders/{made.ladder_id}")
    in_play = elements(html, "tr", data_status="*", data_number="*")
    assert [(row["data-status"], row.get("data-game-id")) for row in in_play] == [
        ("running", str(made.live_game_id)),
        ("pending", None),
    ]
    assert elements(html, "a", href=f"/games/{made.live_game_id}")
    assert "waiting for a worker" in html
    assert elements(html, "tr", data_game_id=str(made.finished_game_id))
    assert elements(html, "a", href=f"/games/{made.finished_game_id}")
    live = page(client, f"/games/{made.live_game_id}")  # the link leads to the game's live page
    assert "Game in play" in live
    private = private_texts(app, made.live_game_id, "card")
    for language in ("en", "fr"):
        assert_public_only(page(client, f"/ladders/{made.ladder_id}", **{"Accept-Language": language}), private)


def test_the_ladder_page_in_french_and_its_live_part(app: Flask, client: FlaskClient) -> None:
    made = made_ladder(app, client)
    html = page(client, f"/ladders/{made.ladder_id}?lang=fr")
    assert "Échelle 1 : nightly" in html and "provisoire" in html and "Quota restant" in html
    live = client.get(f"/ladders/{made.ladder_id}/live?lang=fr")
    assert live.status_code == 200 and live.headers["ETag"]
    assert "Classement" in live.get_data(as_text=True)
    again = client.get(f"/ladders/{made.ladder_id}/live?lang=fr", headers={"If-None-Match": live.headers["ETag"]})
    assert again.status_code in (200, 304)  # 200 only if the minute turned between the two
    if again.status_code == 200:
        again = client.get(
            f"/ladders/{made.ladder_id}/live?lang=fr", headers={"If-None-Match": again.headers["ETag"]}
        )
    assert again.status_code == 304
    with app.extensions["db_sessions"]() as session:
        entry = session.get(LadderEntry, (made.ladder_id, made.bots["newbie"]))
        assert entry is not None
        entry.paused, entry.pause_reason = False, None
        session.commit()
    changed = client.get(
        f"/ladders/{made.ladder_id}/live?lang=fr", headers={"If-None-Match": again.headers["ETag"]}
    )
    assert changed.status_code == 200 and "paused automatically" not in changed.get_data(as_text=True)


def test_the_ladders_list_the_nav_link_and_a_bots_page(app: Flask, client: FlaskClient) -> None:
    made = made_ladder(app, client)
    html = page(client, "/ladders")
    [line] = elements(html, "tr", data_ladder=str(made.ladder_id))
    assert line["data-status"] == "open" and line["data-bots"] == "3" and line["data-games"] == "3"  # gone left
    assert elements(html, "a", href=f"/ladders/{made.ladder_id}")
    assert elements(page(client, "/"), "a", href="/ladders")  # the nav link, on every page

    bot = page(client, f"/bots/{made.bots['newbie']}")
    [entry] = elements(bot, "tr", data_ladder=str(made.ladder_id))
    assert entry["data-paused"] == "true" and entry["data-provisional"] == "true"
    assert "paused automatically: faults in 3 games in a row" in bot
    [left] = elements(page(client, f"/bots/{made.bots['gone']}"), "tr", data_ladder=str(made.ladder_id))
    assert left["data-left"] == "true" and "greyed" in left["class"].split()
    owner = new_player(client, "loner")
    lone = client.post(f"{API}/bots", json={"name": "lone", "games": ["card"]}, headers=owner.headers).get_json()
    assert "In no ladder." in page(client, f"/bots/{lone['id']}")


@pytest.mark.parametrize(
    ("path", "status", "said"),
    [
        ("/ladders/9", 404, "There is no ladder 9."),
        ("/ladders/x", 404, "A ladder number must be a whole number"),
        ("/ladders/99999999999", 404, "A ladder number must be a whole number, not 99999999999."),
        ("/ladders/9/live", 404, "There is no ladder 9."),
        ("/ladders?page=0", 400, "There is no page 0"),
        ("/ladders?page=2", 404, "There is no page 2"),
    ],
)
def test_bad_ladder_addresses_are_4xx_pages(client: FlaskClient, path: str, status: int, said: str) -> None:
    assert said in page(client, path, status).replace("“", "").replace("”", "")
    assert "No ladder yet." in page(client, "/ladders")


def test_a_ladder_played_by_the_workers_shows_its_games_ratings_and_chart(app: Flask, client: FlaskClient) -> None:
    """The pages on the rows the matchmaking and the results wrote: two random push bots join through the API, the
    app's own queue plays their games; the page lists finished games linking to their pages, rates both bots and
    draws both lines."""
    owner = new_player(client, "ladder-owner")
    with push_bots(random_choice, random_choice) as servers:
        bots = [
            register(client, owner, name, server.url)["id"] for name, server in zip("AB", servers, strict=True)
        ]
        body = {"name": "played", "game": "card", "settings": {"pawns": 2}, "move_timeout_ms": 20_000}
        created = client.post(f"{API}/ladders", json=body, headers=owner.headers)
        assert created.status_code == 201, created.get_json()
        ladder_id = created.get_json()["id"]
        for bot_id in bots:
            joined = client.post(f"{API}/ladders/{ladder_id}/bots", json={"bot_id": bot_id}, headers=owner.headers)
            assert joined.status_code == 201, joined.get_json()

        def played() -> str:
            html = page(client, f"/ladders/{ladder_id}")
            rows = rows_by_name(html)
            return html if len(rows) == 2 and all(int(row["data-games"]) >= 2 for row in rows.values()) else ""

        html = wait_for("two rated games each", played, timeout=180)
        closed = client.post(f"{API}/ladders/{ladder_id}/close", headers=owner.headers)
        assert closed.status_code == 200, closed.get_json()
    finished = elements(html, "tr", data_game_id="*")
    assert finished and all(elements(html, "a", href=f"/games/{row['data-game-id']}") for row in finished)
    assert {line["data-bot"] for line in elements(html, "polyline", "rating-line")} == {"A", "B"}
    rows = rows_by_name(html)
    assert all(int(row["data-games-today"]) >= 2 and int(row["data-budget-left"]) <= 28 for row in rows.values())
    assert all(row["data-provisional"] == "true" for row in rows.values())  # a few games settle nothing
