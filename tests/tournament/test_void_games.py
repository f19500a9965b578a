"""Void games (``tournament/play/voids.py``): a game a seat forfeited for a reason on the service's side is kept,
marked void with its reason, and counted nowhere. Embedded queue on SQLite and PostgreSQL, push bots on loopback: a
bot whose secret the service has wrong (the real push client answers 401 to every call) voids its games, which
leave the pool's table, the tournament's table and the bots' results tallies as they were, and the tournament's page
lists them with the reason; a match's SPRT counts no void game. A bot that errs on every move still forfeits rated
(``tests/tournament/test_faults.py`` asserts it of every kind); an excluded bot's games are void
(``tests/tournament/test_bot_health.py``). The production path (PostgreSQL, Redis, RQ workers):
:func:`test_void_games_on_rq_workers`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from engine import records
from store import bottallies
from store.models import Bot, Result
from tests.apikit import API, Player, new_player
from tests.arenakit import (
    arena_app,
    bot_server,
    create_tournament,
    played,
    push_bots,
    random_choice,
    register,
    wait_done,
    wait_pool,
)
from tests.botservers import BotServer, Handler, Received, garbage, reply, status
from tests.conftest import dispose
from tests.databases import Templates
from tests.tournament.test_bot_health import exclude
from tests.tournament.test_rq import Workers

WRONG_SECRET = "w" * 40


def wrong_secret(arena: Flask, bot_id: int) -> None:
    """The service's copy of the bot's secret made wrong: the bot refuses every signed call (HTTP 401)."""
    with arena.extensions["db_sessions"]() as session:
        session.execute(update(Bot).where(Bot.id == bot_id).values(secret=WRONG_SECRET))
        session.commit()


def pool(client: FlaskClient) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"{API}/standings?game=card&variant=standard").get_json()
    return body


def stored_results(arena: Flask, tournament_id: int) -> list[Result]:
    with arena.extensions["db_sessions"]() as session:
        return list(session.scalars(select(Result).where(Result.tournament_id == tournament_id)))


def test_a_bot_that_refuses_the_signature_voids_its_games_and_nothing_counts_them(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with push_bots(random_choice, random_choice, random_choice) as servers:
        good, other, bad = (
            register(client, owner, name, server.url)
            for name, server in zip(("good", "other", "bad"), servers, strict=True)
        )
        rated = wait_done(client, create_tournament(client, owner, [good["id"], other["id"]], game="card")["id"])
        assert all(result["void"] is False for result in rated["results"])
        before = wait_pool(client, 2)
        assert before["games"] == 2 and {row["bot_id"] for row in before["standings"]} == {good["id"], other["id"]}
        wrong_secret(arena, bad["id"])
        created = create_tournament(client, owner, [bad["id"], good["id"]], game="card", rounds=2)
        done = wait_done(client, created["id"])
    assert done["progress"] == {"done": 4, "total": 4}  # the tournament is complete: its games ended, void
    # Its first game's start found its health check due, failed by the wrong secret; the refusals of each game are
    # confirmed by one more check: from its third failed check on, the bot is excluded, and a game that begins then
    # is void as excluded.
    reasons = []
    for result in done["results"]:
        seat = result["bot_ids"].index(bad["id"])
        assert result["void"] is True and result["forfeited"] == [seat], result
        reasons.append(result["void_reason"])
        moves = [move.fault for move in played(arena, result["game_id"]) if move.seat == seat]
        if result["void_reason"] == "rejected":
            assert result["faults"][seat] == 3 and moves[:3] == ["rejected"] * 3
        else:
            assert result["void_reason"] == "excluded" and result["faults"] == [0, 0] and set(moves) <= {"forfeit"}
        game = client.get(f"{API}/games/{result['game_id']}").get_json()
        assert (game["status"], game["void"], game["void_reason"]) == ("over", True, result["void_reason"])
        assert game["result"]["void_reason"] == result["void_reason"]
    assert "rejected" in reasons
    paged = client.get(f"{API}/tournaments/{created['id']}/results").get_json()
    assert [(r["void"], r["void_reason"]) for r in paged] == [(True, reason) for reason in reasons]
    assert all(not row.rated and row.counted is None for row in stored_results(arena, created["id"]))
    # the pool, the tournament's table and the bots' tallies of results are as if the games were not played
    assert pool(client) == before
    assert done["standings"] == [] and done["head_to_head"] == []
    with arena.extensions["db_sessions"]() as session:
        for bot, games in ((bad, 4), (good, 6)):
            tallies = bottallies.read(session, bot["player_id"])
            assert tallies.games == games  # it sat in them
            assert sum(tallies.seat_games.values()) == games - 4  # but they have no result to count
        # its owner sees why
        assert bottallies.read(session, bad["player_id"]).faults == {"rejected": 3 * reasons.count("rejected")}
    assert client.get(f"{API}/bots/{bad['id']}").get_json()["excluded"] is True
    # the tournament's page lists them with the reason
    page = client.get(f"/tournaments/{created['id']}").get_data(as_text=True)
    assert 'id="void-games" data-count="4"' in page
    assert page.count('data-void-reason="') == 4
    assert page.count('data-void-reason="rejected"') == reasons.count("rejected")
    assert "a bot refused the service&#39;s signature on every call" in page
    # its records keep the reason, and check against the engine
    lines = client.get(f"{API}/tournaments/{created['id']}/games.jsonl").get_data(as_text=True).splitlines()
    exported = [json.loads(line) for line in lines]
    assert sorted(record["result"]["void_reason"] for record in exported) == sorted(reasons)
    assert all(records.check(record) == [] for record in exported)
    # as do the game's page and the bot's list of its recent games
    first = done["results"][0]
    viewer = client.get(f"/games/{first['game_id']}").get_data(as_text=True)
    assert f'data-void-reason="{first["void_reason"]}"' in viewer
    assert client.get(f"/bots/{bad['id']}").get_data(as_text=True).count('data-void-reason="') == 4
    french = client.get(f"/tournaments/{created['id']}?lang=fr").get_data(as_text=True)
    assert "un robot a refusé la signature du service à chaque appel" in french


def test_a_mixed_tournament_counts_only_its_games_not_void(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with push_bots(random_choice, random_choice, random_choice) as servers:
        good, other, bad = (
            register(client, owner, name, server.url)
            for name, server in zip(("good", "other", "bad"), servers, strict=True)
        )
        wrong_secret(arena, bad["id"])
        done = wait_done(
            client, create_tournament(client, owner, [good["id"], other["id"], bad["id"]], game="card")["id"]
        )
    void = [result for result in done["results"] if result["void"]]
    assert len(done["results"]) == 6 and len(void) == 4
    assert all(bad["id"] in result["bot_ids"] for result in void)
    assert {row["bot_id"]: row["games"] for row in done["standings"]} == {good["id"]: 2, other["id"]: 2}
    fitted = wait_pool(client, 2)  # the refit is a job off the game path: it may come after the tournament is done
    assert bad["id"] not in {row["bot_id"] for row in fitted["standings"]}


def test_a_bot_that_refuses_a_game_but_takes_the_signature_of_its_health_check_forfeits_rated(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    """A bot that answers 401 to the game's ``start`` and moves (it would rather not play these opponents) while its
    info route takes the same signature: the refusals are its own doing, and rated."""
    refused = status(401, b'{"error": "bad, missing, stale or replayed signature"}')

    def choosy(handler: Handler, request: Received) -> None:
        route = request.path.rstrip("/").rsplit("/", 1)[-1]
        (reply() if route in ("info", "end") else refused)(handler, request)

    with push_bots(random_choice) as servers, BotServer(choosy) as server:
        good = register(client, owner, "good", servers[0].url)
        bad = register(client, owner, "choosy", server.url())
        done = wait_done(client, create_tournament(client, owner, [bad["id"], good["id"]], game="card")["id"])
    for result in done["results"]:
        seat = result["bot_ids"].index(bad["id"])
        assert (result["void"], result["forfeited"], result["faults"][seat]) == (False, [seat], 3)
    assert wait_pool(client, 2)["games"] == 2
    assert client.get(f"{API}/bots/{bad['id']}").get_json()["excluded"] is False


def test_a_bot_that_answers_junk_still_forfeits_rated(arena: Flask, client: FlaskClient, owner: Player) -> None:
    with push_bots(random_choice) as servers, bot_server(garbage()) as junk:
        good = register(client, owner, "good", servers[0].url)
        bad = register(client, owner, "junk", junk.url())
        done = wait_done(client, create_tournament(client, owner, [bad["id"], good["id"]], game="card")["id"])
    for result in done["results"]:
        assert result["void"] is False and result["void_reason"] is None
        assert result["forfeited"] == [result["bot_ids"].index(bad["id"])]
    assert all(row.rated and row.counted is not None for row in stored_results(arena, done["id"]))
    assert wait_pool(client, 2)["games"] == 2
    assert {row["bot_id"]: row["forfeits"] for row in done["standings"]}[bad["id"]] == 2


def test_a_match_counts_no_void_game_in_its_test(client: FlaskClient, owner: Player, arena: Flask) -> None:
    with push_bots(random_choice, random_choice) as servers:
        a, b = (register(client, owner, name, s.url) for name, s in zip("AB", servers, strict=True))
        wrong_secret(arena, a["id"])
        response = client.post(
            f"{API}/matches",
            json={"game": "card", "seed": 3, "bot_a": a["id"], "bot_b": b["id"], "max_games": 4},
            headers=owner.headers,
        )
        assert response.status_code == 201, response.get_data(as_text=True)
        match_id = response.get_json()["id"]
        tournament_id = response.get_json()["tournament_id"]
        wait_done(client, tournament_id)
    done = client.get(f"{API}/matches/{match_id}").get_json()
    reasons = [r["void_reason"] for r in done["results"]]
    assert done["games"] == 4 and "rejected" in reasons and set(reasons) <= {"rejected", "excluded"}
    assert done["pairs"] == 0 and sum(done["counts"]) == 0 and done["llr"] in (0, None)
    assert done["verdict"] == "inconclusive"  # every game in, none to count
    assert all(r["score"] is None for r in done["results"])
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert page.count('data-void-reason="') == 4


# --- the production path: PostgreSQL, Redis, RQ workers in their own processes ------------------------------------


@pytest.fixture
def rq_url(templates: Templates) -> Iterator[str]:
    yield from templates.postgresql("sorry_arena_void")


@pytest.fixture
def rq_arena(rq_url: str, redis_url: str, tmp_path: Path) -> Iterator[tuple[Flask, Workers]]:
    app = arena_app(rq_url, redis_url)
    workers = Workers(rq_url, redis_url, tmp_path)
    try:
        yield app, workers
    finally:
        workers.stop()
        dispose(app)


def test_void_games_on_rq_workers(rq_arena: tuple[Flask, Workers]) -> None:
    arena, workers = rq_arena
    client = arena.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice, random_choice) as servers:
        good, bad, gone = (
            register(client, owner, name, server.url)
            for name, server in zip(("good", "bad", "gone"), servers, strict=True)
        )
        wrong_secret(arena, bad["id"])
        servers[2].shutdown()
        exclude(arena, gone["id"])
        created = create_tournament(client, owner, [good["id"], bad["id"], gone["id"]], game="card")
        workers.start("--burst")
        done = wait_done(client, created["id"], timeout=120)
    reasons = {}
    for result in done["results"]:
        assert result["void"] is True
        reasons[frozenset(result["bot_ids"])] = result["void_reason"]
    assert reasons[frozenset((good["id"], gone["id"]))] == "excluded"
    assert {reasons[frozenset((good["id"], bad["id"]))], reasons[frozenset((bad["id"], gone["id"]))]} <= {
        "rejected",
        "excluded",
    }
    assert "rejected" in reasons.values()
    assert done["standings"] == [] and pool(client)["games"] == 0
    page = client.get(f"/tournaments/{created['id']}").get_data(as_text=True)
    assert 'id="void-games" data-count="6"' in page and page.count('data-void-reason="') == 6
