"""Matches through the API, played by the embedded queue on SQLite and PostgreSQL against push bots on loopback:
paired deals, the SPRT after each completed pair, the stop, and a gauntlet."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, event, text

from ratings.sprt import Sprt
from tests.apikit import API, Player
from tests.arenakit import assert_idle, greedy_choice, push_bots, random_choice, register


def create(client: FlaskClient, owner: Player, path: str = "matches", **fields: Any) -> dict[str, Any]:
    response = client.post(f"{API}/{path}", json={"game": "card", "seed": 3, **fields}, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    body: dict[str, Any] = response.get_json()
    return body


def wait_decided(client: FlaskClient, match_id: int, timeout: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get(f"{API}/matches/{match_id}").get_json()
        if body["status"] == "done":
            return body
        assert time.monotonic() < deadline, f"match not decided in {timeout} s: {body['pairs']} pairs"
        time.sleep(0.1)


def test_a_stronger_bot_passes_and_the_match_stops_at_its_verdict(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with push_bots(greedy_choice, random_choice) as servers:
        greedy, random_ = (register(client, owner, name, s.url) for name, s in zip("GR", servers, strict=True))
        created = create(
            client,
            owner,
            bot_a=greedy["id"],
            bot_b=random_["id"],
            elo0=0,
            elo1=150,
            model="logistic",
            max_games=400,
            move_timeout_ms=20_000,  # no fault of a loaded machine's making weakens the stronger bot
        )
        assert created["verdict"] == "continue" and created["pairs"] == 0 and created["elo"] is None
        assert created["lower"] < 0 < created["upper"]
        done = wait_decided(client, created["id"])
        # the bots stay up until the queue is idle: a game's job that read its game before the verdict cancelled
        # it checks its bots' health before it finds the game cancelled, and a bot gone by then takes its deadline
        # (20 s a call) to fault
        assert_idle(arena, 120)
    assert done["verdict"] == "H1", done
    assert done["llr"] >= done["upper"]
    assert sum(done["counts"]) == done["pairs"] > 0
    # the verdict is the SPRT of the stored counts, and it was reached at the last pair counted, not before
    test = Sprt(0, 150, model="logistic")
    assert test.llr(done["counts"]) == done["llr"]
    if done["elo"]["elo"] is None:  # every pair won by A: an infinite Elo difference, shown as none
        assert done["counts"][:4] == [0, 0, 0, 0] and done["counts"][4] == done["pairs"]
    else:
        assert done["elo"]["low"] < done["elo"]["elo"] and done["elo"]["low"] > 0
    # the match stopped: far fewer games than max_games, the rest never played
    assert done["games"] < 400
    results = done["results"]
    by_pair: dict[int, list[dict[str, Any]]] = {}
    for result in results:
        by_pair.setdefault(result["pair"], []).append(result)
    for games in by_pair.values():
        if len(games) == 2:  # the two games of a pair: seats swapped, one deal
            assert games[0]["bot_ids"] == games[1]["bot_ids"][::-1]
            first, second = (client.get(f"{API}/games/{g['game_id']}").get_json() for g in games)
            assert first["seed"] == second["seed"] is not None
    tournament = client.get(f"{API}/tournaments/{done['tournament_id']}").get_json()
    assert tournament["status"] == "done" and tournament["rated"] is False


def test_a_match_without_a_verdict_in_max_games_is_inconclusive(client: FlaskClient, owner: Player) -> None:
    with push_bots(random_choice, random_choice) as servers:
        a, b = (register(client, owner, name, s.url) for name, s in zip("AB", servers, strict=True))
        created = create(client, owner, bot_a=a["id"], bot_b=b["id"], elo0=-5, elo1=5, max_games=4)
        done = wait_decided(client, created["id"])
    assert done["verdict"] == "inconclusive" and done["pairs"] == 2 and done["games"] == 4
    assert [r["pair"] for r in done["results"]] == [1, 1, 2, 2]
    assert done["lower"] < done["llr"] < done["upper"]
    # stopped at max_games: the normalized Elo corrected for early stopping, with its interval
    corrected = done["elo_stopped"]
    assert corrected["nelo_low"] < corrected["nelo"] < corrected["nelo_high"]
    assert "no verdict in 4 games (elo0=-5, elo1=5, normalized Elo, at 2 seats)" == done["verdict_text"]


def test_a_four_seat_match_seats_a_and_b_with_the_same_fillers(client: FlaskClient, owner: Player) -> None:
    with push_bots(greedy_choice, random_choice, random_choice, random_choice) as servers:
        bots = [register(client, owner, name, s.url) for name, s in zip("ABFG", servers, strict=True)]
        a, b, f, g = (bot["id"] for bot in bots)
        created = create(
            client,
            owner,
            bot_a=a,
            bot_b=b,
            fillers=[f, g],
            table_size=4,
            max_games=6,
            elo0=0,
            elo1=1000,
            model="logistic",
        )
        done = wait_decided(client, created["id"])
    assert done["table_size"] == 4 and done["fillers"] == [f, g]
    if done["verdict"] == "inconclusive":
        assert done["games"] == 6 and done["pairs"] == 3
    for result in done["results"]:
        assert sorted(result["bot_ids"]) == sorted([a, b, f, g])


def test_a_gauntlet_plays_one_match_per_opponent(client: FlaskClient, owner: Player) -> None:
    with push_bots(greedy_choice, random_choice, random_choice) as servers:
        bots = [register(client, owner, name, s.url) for name, s in zip("GRS", servers, strict=True)]
        created = create(
            client,
            owner,
            "gauntlets",
            bot=bots[0]["id"],
            opponents=[bots[1]["id"], bots[2]["id"]],
            max_games=4,
            elo0=-5,
            elo1=5,
        )
        assert [m["bot_b"] for m in created["matches"]] == [bots[1]["id"], bots[2]["id"]]
        assert {m["gauntlet_id"] for m in created["matches"]} == {created["id"]}
        for match in created["matches"]:
            wait_decided(client, match["id"])
    found = client.get(f"{API}/gauntlets/{created['id']}").get_json()
    assert [m["status"] for m in found["matches"]] == ["done", "done"]
    assert all(m["games"] == 4 for m in found["matches"])
    # Holm: with none accepted, each H1 bound is Wald's at alpha / 2, the H0 bound at alpha / 2 too
    for match in found["matches"]:
        assert match["upper"] == pytest.approx(math.log(0.95 / 0.025))
        assert match["lower"] == pytest.approx(math.log(0.05 / 0.975))
        assert "Holm-corrected over a gauntlet of 2" in match["verdict_text"]
    assert (found["verdict"], found["stronger"]) == ("none", 0)
    assert found["verdict_text"] == (
        "no evidence that A is stronger than any of the 2 (Holm-corrected at elo0=-5, elo1=5, normalized Elo, at 2 "
        "seats)"
    )


def test_a_gauntlet_beaten_whole_says_so_in_one_verdict(arena: Flask, client: FlaskClient, owner: Player) -> None:
    """Greedy against two random bots: both matches pass under Holm's bounds (the first at alpha / 2 or alpha, the
    last at alpha), and the gauntlet's one verdict is "all"."""
    with push_bots(greedy_choice, random_choice, random_choice) as servers:
        bots = [register(client, owner, name, s.url) for name, s in zip("GRS", servers, strict=True)]
        created = create(
            client,
            owner,
            "gauntlets",
            bot=bots[0]["id"],
            opponents=[bots[1]["id"], bots[2]["id"]],
            elo0=0,
            elo1=150,
            model="logistic",
            max_games=400,
            move_timeout_ms=20_000,
        )
        assert [m["upper"] for m in created["matches"]] == [pytest.approx(math.log(0.95 / 0.025))] * 2
        done = [wait_decided(client, match["id"]) for match in created["matches"]]
        assert_idle(arena, 120)
    assert [match["verdict"] for match in done] == ["H1", "H1"], done
    found = client.get(f"{API}/gauntlets/{created['id']}").get_json()
    assert (found["verdict"], found["stronger"]) == ("all", 2)
    assert found["verdict_text"].startswith("evidence that A is stronger than all 2 (Holm-corrected at elo0=0")
    for match in found["matches"]:  # each decided at a bound of alpha / 2 or, after the other passed, alpha
        assert match["llr"] >= math.log(0.95 / 0.05)
        assert match["upper"] == pytest.approx(math.log(0.95 / 0.05))  # the other passed: r = 1 of k = 2
        assert match["verdict_text"].startswith("evidence that G is stronger than ")


def test_the_default_match_is_accepted_and_says_what_it_will_do(client: FlaskClient, owner: Player) -> None:
    """Only the required fields: the service accepts its own default test (2000 games at most, 2 seats) and shows,
    before a game is played, its plan at 0, 15 and 30 normalized Elo and its verdict's words."""
    with push_bots(random_choice, random_choice) as servers:
        a, b = (register(client, owner, name, s.url) for name, s in zip("AB", servers, strict=True))
        response = client.post(
            f"{API}/matches", json={"game": "card", "bot_a": a["id"], "bot_b": b["id"]}, headers=owner.headers
        )
        assert response.status_code == 201, response.get_data(as_text=True)
        created = response.get_json()
        cancelled = client.post(f"{API}/tournaments/{created['tournament_id']}/cancel", headers=owner.headers)
        assert cancelled.status_code == 200, cancelled.get_data(as_text=True)
    assert (created["max_games"], created["table_size"], created["elo0"], created["elo1"]) == (2000, 2, 0, 30)
    assert created["verdict_text"] == "playing: no verdict yet (elo0=0, elo1=30, normalized Elo, at 2 seats)"
    assert created["elo_stopped"] is None  # not over
    plan = created["plan"]
    assert [point["elo"] for point in plan] == [0, 15, 30]
    assert [round(point["p_h1_ever"], 3) for point in plan] == [0.05, 0.5, 0.95]
    assert [round(point["p_h1"], 2) for point in plan] == [0.05, 0.42, 0.92]  # within the 2000 games
    assert all(0 < point["p_none"] < 0.2 and 500 < point["games"] < 1100 for point in plan)
    too_long = client.post(
        f"{API}/matches",
        json={"game": "card", "bot_a": a["id"], "bot_b": b["id"], "max_games": 2002},
        headers=owner.headers,
    )
    assert too_long.status_code == 422 and "SORRY_ARENA_QUOTA_MATCH_GAMES" in too_long.get_json()["message"]


def test_a_match_and_its_tournament_are_read_as_of_one_moment(client: FlaskClient, owner: Player) -> None:
    """A verdict committed while a match is read (between the match's row and its tournament's, were they read
    apart) never shows a done match still to ``continue``: the match, the list and the gauntlet read each match with
    its tournament in one statement (on PostgreSQL each statement of a read sees the commits made before it)."""
    with push_bots(random_choice, random_choice) as servers:
        a, b = (register(client, owner, name, s.url) for name, s in zip("AB", servers, strict=True))
        created = create(
            client, owner, "gauntlets", bot=a["id"], opponents=[b["id"]], elo0=-5, elo1=5, max_games=2
        )
        match_id = created["matches"][0]["id"]
        wait_decided(client, match_id)
    app_engine = client.application.extensions["db_engine"]
    other = create_engine(app_engine.url)
    ids = {"match": match_id, "tournament": created["matches"][0]["tournament_id"]}
    undecided = "UPDATE matches SET verdict = 'continue' WHERE id = :match"
    decided = "UPDATE matches SET verdict = 'H1' WHERE id = :match"

    def commit(*statements: str) -> None:
        with other.begin() as connection:
            for statement in statements:
                connection.execute(text(statement), ids)

    verdict_meanwhile: list[str] = []

    def after_match_read(connection: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "FROM matches" in statement and not verdict_meanwhile:
            verdict_meanwhile.append(statement)
            commit(decided, "UPDATE tournaments SET status = 'done' WHERE id = :tournament")

    try:
        for path in (f"matches/{match_id}", "matches", f"gauntlets/{created['id']}"):
            commit(undecided, "UPDATE tournaments SET status = 'running' WHERE id = :tournament")
            verdict_meanwhile.clear()
            event.listen(app_engine, "after_cursor_execute", after_match_read)
            try:
                body = client.get(f"{API}/{path}").get_json()
            finally:
                event.remove(app_engine, "after_cursor_execute", after_match_read)
            assert verdict_meanwhile, path  # the verdict came while the request read
            (shown,) = [m for m in body.get("matches", [body]) if m["id"] == match_id]
            assert (shown["status"], shown["verdict"]) == ("running", "continue"), path
    finally:
        other.dispose()
