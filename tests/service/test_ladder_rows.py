"""What the ladders API shows of rows the workers write, on SQLite and PostgreSQL (the rows written straight here):
each standings row's rating and interval on the Elo scale, provisional and inactive marks, games today (UTC) and
budget left in the last hour; the games in play and finished; the chart, thinned to about 200 points a bot."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from ratings import wenglin
from service.ladderrows import CHART_POINTS, start_of_day
from store.models import LadderEntry, LadderGame, LadderPoint, LadderSeat, Result, TournamentGame, now
from tests import ladderkit
from tests.apikit import API, create_game, new_player
from tests.service.ladderkit import arena, client, database, join, open_ladder, pull_bot

__all__ = ["arena", "client"]  # the fixtures


def test_standings_rows_say_rating_interval_budget_and_activity(arena: Flask, client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    made = open_ladder(client, ada.headers, budget_per_hour=3)
    ladder = made["id"]
    settled, stale, fresh = (pull_bot(client, ada, name)["id"] for name in ("settled", "stale", "fresh"))
    for bot_id in (settled, stale, fresh):
        assert join(client, ada.headers, ladder, bot_id).status_code == 201
    moment = now()
    long_ago = moment - timedelta(days=31)
    seat_times = {
        settled: [moment - timedelta(minutes=minutes) for minutes in (1, 30, 59)],  # its whole budget this hour
        stale: [moment - timedelta(minutes=61), moment - timedelta(hours=23), moment - timedelta(days=2)],
        fresh: [],
    }
    with database(arena) as session:
        session.execute(
            update(LadderEntry)
            .where(LadderEntry.ladder_id == ladder, LadderEntry.bot_id == settled)
            .values(
                mu=27.0,
                sigma=0.5,
                games=120,
                last_game_at=moment,
                version_id=5,
                prior_version_id=4,
                fitted_rating=1560.0,
                fitted_low=1540.0,
                fitted_high=1580.0,
            )
        )
        session.execute(
            update(LadderEntry)
            .where(LadderEntry.ladder_id == ladder, LadderEntry.bot_id == stale)
            .values(
                mu=26.0, sigma=3.0, games=9, last_game_at=long_ago, paused=True, pause_reason="paused by its owner"
            )
        )
        session.execute(  # joined long ago and never played: inactive too
            update(LadderEntry)
            .where(LadderEntry.ladder_id == ladder, LadderEntry.bot_id == fresh)
            .values(joined_at=long_ago)
        )
        number = 0
        for bot_id, times in seat_times.items():
            for made_at in times:
                scheduled = TournamentGame(
                    tournament_id=made["tournament_id"],
                    number=number,
                    round=0,
                    bot_ids=[bot_id],
                    seed=number,
                    status="done",
                )
                session.add(scheduled)
                session.flush()
                session.add(
                    LadderSeat(
                        tournament_game_id=scheduled.id, seat=0, ladder_id=ladder, bot_id=bot_id, made_at=made_at
                    )
                )
                number += 1
    rows = client.get(f"{API}/ladders/{ladder}").get_json()["standings"]
    assert [row["bot_id"] for row in rows] == [settled, stale, fresh]  # best rating first
    by_bot = {row["bot_id"]: row for row in rows}
    top = by_bot[settled]
    # the ladder's fit of its version is shown, settled (+-20); the others, not fitted, their Weng-Lin ratings
    assert (top["rating"], top["low"], top["high"], top["fitted"]) == (1560.0, 1540.0, 1580.0, True)
    assert (top["mu"], top["sigma"]) == (27.0, 0.5)
    assert (top["provisional"], top["inactive"], top["games"]) == (False, False, 120)
    assert (top["version_id"], top["prior_version_id"]) == (5, 4)
    assert (top["games_today"], top["budget_left"]) == (
        sum(t >= start_of_day(moment) for t in seat_times[settled]),
        0,
    )
    middle = by_bot[stale]
    assert (middle["provisional"], middle["inactive"], middle["paused"], middle["fitted"]) == (
        True,
        True,
        True,
        False,
    )
    assert middle["rating"] == pytest.approx(wenglin.elo(26.0))
    assert (middle["low"], middle["high"]) == (
        pytest.approx(middle["rating"] - wenglin.half_width(3.0)),
        pytest.approx(middle["rating"] + wenglin.half_width(3.0)),
    )
    assert middle["pause_reason"] == "paused by its owner"
    assert middle["budget_left"] == 3  # its seats are all older than the hour
    assert middle["games_today"] == sum(t >= start_of_day(moment) for t in seat_times[stale])
    assert middle["last_game_at"] is not None
    last = by_bot[fresh]
    assert (last["rating"], last["inactive"], last["last_game_at"], last["games_today"], last["budget_left"]) == (
        1500.0,
        True,
        None,
        0,
        3,
    )
    assert set(last) == {
        "bot_id", "name", "version_id", "prior_version_id", "rating", "low", "high", "fitted", "mu", "sigma", "games",
        "provisional", "inactive", "last_game_at", "games_today", "budget_left", "paused", "pause_reason", "left",
        "busy",
    }  # fmt: skip


def test_games_in_play_and_recent(arena: Flask, client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    made = open_ladder(client, ada.headers)
    ladder = made["id"]
    first, second = (pull_bot(client, ada, name)["id"] for name in ("first", "second"))
    played = [create_game(client, ada)["id"] for _ in range(3)]
    with database(arena) as session:
        for number in range(5):
            state = "done" if number < 3 else ("running" if number == 3 else "pending")
            scheduled = TournamentGame(
                tournament_id=made["tournament_id"],
                number=number,
                round=0,
                bot_ids=[first, second],
                seed=number,
                status=state,
                game_id=played[number] if number < 3 else None,
            )
            session.add(scheduled)
            session.flush()
            session.add(
                LadderGame(
                    tournament_game_id=scheduled.id,
                    ladder_id=ladder,
                    made_at=now() - timedelta(minutes=10 - number),
                    bot_ids=[first, second],
                    settled=number < 3,
                )
            )
            if number < 3:
                session.add(
                    Result(
                        tournament_game_id=scheduled.id,
                        tournament_id=made["tournament_id"],
                        game_id=played[number],
                        game="card",
                        variant="standard",
                        rated=True,
                        bot_ids=[first, second],
                        version_ids=[1, 2],
                        ranks=[1 + number % 2, 2 - number % 2],
                        reason="finished",
                        forfeited=[],
                        faults=[0, number],
                        moves=40,
                        void_reason="excluded" if number == 2 else None,
                    )
                )
                session.flush()
    in_play = client.get(f"{API}/ladders/{ladder}/games")
    assert in_play.status_code == 200
    listed = in_play.get_json()
    assert [(game["status"], game["game_id"]) for game in listed] == [("running", None), ("pending", None)]
    assert listed[0]["names"] == ["first", "second"] and "ranks" not in listed[0]
    recent = client.get(f"{API}/ladders/{ladder}/games", query_string={"state": "recent", "page_size": 2})
    shown = recent.get_json()
    assert [game["game_id"] for game in shown] == [played[2], played[1]]  # latest first
    assert shown[0]["void"] is True and shown[0]["void_reason"] == "excluded" and shown[1]["ranks"] == [2, 1]
    assert shown[1]["faults"] == [0, 1] and shown[1]["status"] == "done"
    assert '"total": 3' in recent.headers["X-Pagination"]
    page_two = client.get(
        f"{API}/ladders/{ladder}/games", query_string={"state": "recent", "page_size": 2, "page": 2}
    )
    assert [game["game_id"] for game in page_two.get_json()] == [played[0]]
    refused = client.get(f"{API}/ladders/{ladder}/games", query_string={"state": "all"})
    assert refused.status_code == 422 and "state" in refused.get_data(as_text=True)
    assert client.get(f"{API}/ladders/{ladder}").get_json()["games_in_play"] == 2


def test_the_chart_is_thinned_to_about_200_points_a_bot(arena: Flask, client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    ladder = open_ladder(client, ada.headers)["id"]
    busy, few = (pull_bot(client, ada, name)["id"] for name in ("busy", "few"))
    for bot_id in (busy, few):
        assert join(client, ada.headers, ladder, bot_id).status_code == 201
    start = now() - timedelta(days=1)
    with database(arena) as session:
        for bot_id, games in ((busy, 1001), (few, 5)):
            session.add_all(
                LadderPoint(
                    ladder_id=ladder,
                    bot_id=bot_id,
                    number=number,
                    version_id=1,
                    mu=25.0 + number / 1000,
                    sigma=8.0 - number / 200,
                    at=start + timedelta(minutes=number),
                )
                for number in range(1, games + 1)
            )
    chart = client.get(f"{API}/ladders/{ladder}/chart").get_json()
    assert chart["ladder_id"] == ladder
    lines = {line["name"]: line for line in chart["lines"]}
    assert set(lines) == {"busy", "few"} and lines["busy"]["bot_id"] == busy
    numbers = [point[0] for point in lines["busy"]["points"]]
    assert len(numbers) <= CHART_POINTS + 2 and len(numbers) >= CHART_POINTS * 0.8
    assert numbers == sorted(numbers) and numbers[-1] == 1001  # the latest point always
    assert [point[0] for point in lines["few"]["points"]] == [1, 2, 3, 4, 5]
    _, rating, low, high, at = lines["few"]["points"][-1]
    assert rating == pytest.approx(wenglin.elo(25.005))
    assert (low, high) == (
        pytest.approx(rating - wenglin.half_width(7.975)),
        pytest.approx(rating + wenglin.half_width(7.975)),
    )
    assert at.startswith(str((start + timedelta(minutes=5)).date()))
    chosen = client.get(f"{API}/ladders/{ladder}/chart", query_string={"bot_id": [few]}).get_json()["lines"]
    assert [line["bot_id"] for line in chosen] == [few]
    too_many = client.get(f"{API}/ladders/{ladder}/chart", query_string={"bot_id": list(range(1, 22))})
    assert too_many.status_code == 422 and "bot_id" in too_many.get_data(as_text=True)
    left = client.delete(f"{API}/ladders/{ladder}/bots/{busy}", headers=ada.headers)
    assert left.status_code == 200
    leaders = client.get(f"{API}/ladders/{ladder}/chart").get_json()["lines"]
    assert [line["bot_id"] for line in leaders] == [few]  # by default, the best rated of the bots in the ladder


def test_the_detail_holds_the_first_100_rows_and_the_standings_page_the_rest(
    arena: Flask, client: FlaskClient
) -> None:
    ada = new_player(client, "ada")
    ladder = open_ladder(client, ada.headers)["id"]
    with database(arena) as session:
        bot_ids = ladderkit.bulk_bots(session, ada.id, 130)
        ladderkit.join(session, ladder, 2, bot_ids)
        for rank, bot_id in enumerate(bot_ids):  # the last registered best
            session.execute(update(LadderEntry).where(LadderEntry.bot_id == bot_id).values(mu=10.0 + rank / 10))
    shown = client.get(f"{API}/ladders/{ladder}").get_json()
    assert len(shown["standings"]) == 100 and shown["standings_total"] == 130
    assert [row["bot_id"] for row in shown["standings"]] == bot_ids[::-1][:100]
    rest = client.get(f"{API}/ladders/{ladder}/standings", query_string={"page": 2}).get_json()
    assert [row["bot_id"] for row in rest] == bot_ids[::-1][100:]
