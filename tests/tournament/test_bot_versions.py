"""Bot versions through real tournaments (tournament/play/results.py, tournament/standings/tables.py, service/versions.py): a
result records the version each bot played, the one current when its game began (a version made while a game runs
plays from the next game on: a move of the bot is held while its owner declares the new version, so that a game
surely straddles it); the pool rates each version on its own; the standings show each bot's latest version, the
bot (``GET /bots/{id}`` and its page) every version with its rating. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from store.models import BotVersion, Game, RatingPool, Result
from tests.apikit import API, Player
from tests.arenakit import (
    create_tournament,
    greedy_choice,
    push_bots,
    random_choice,
    register,
    wait_done,
    wait_pool,
)

CARD = {"players": 2, "pawns": 2, "turn_cap": 60}
MOVE_TIMEOUT_MS = 30_000
"""Generous: the held move waits for the new version only, never for a deadline."""


def test_each_version_is_rated_on_its_own_from_the_games_begun_after_it(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    gate, held = threading.Event(), threading.Event()
    held_games: list[int] = []

    def choose(request: dict[str, Any]) -> str:
        if not gate.is_set():
            held_games.append(int(request["game_id"]))
            held.set()
            gate.wait(60)
        return greedy_choice(request)

    with push_bots(choose, random_choice, random_choice) as servers:
        ids = [
            register(client, owner, name, server.url)["id"] for name, server in zip("abc", servers, strict=True)
        ]
        evolving = ids[0]
        first = create_tournament(
            client, owner, ids, game="card", settings=CARD, rounds=2, move_timeout_ms=MOVE_TIMEOUT_MS
        )
        try:
            assert held.wait(120), "the bot was never asked to move"
            answer = client.patch(
                f"{API}/bots/{evolving}", json={"new_version": True, "version_note": "v2"}, headers=owner.headers
            )
            assert answer.status_code == 200 and answer.get_json()["version"] == 2
        finally:
            gate.set()
        wait_done(client, first["id"])
        second = create_tournament(
            client, owner, ids, game="card", settings=CARD, rounds=1, move_timeout_ms=MOVE_TIMEOUT_MS, seed=8
        )
        done = [wait_done(client, first["id"]), wait_done(client, second["id"])]
    wait_pool(client, sum(tournament["progress"]["total"] for tournament in done))

    with arena.extensions["db_sessions"]() as session:
        versions = {(v.bot_id, v.number): v for v in session.scalars(select(BotVersion))}
        v1, v2 = versions[(evolving, 1)], versions[(evolving, 2)]
        results = list(session.scalars(select(Result).order_by(Result.id)))
        began = {game.id: game.created_at for game in session.scalars(select(Game))}
        pool = session.scalars(select(RatingPool).where(RatingPool.game == "card")).one()
        stored = pool.table
    played_by: dict[int, int] = {}  # games of the evolving bot per version id
    for result in results:
        assert result.version_ids == [
            versions[(bot, 1)].id
            if bot != evolving
            else (v2.id if began[result.game_id] >= v2.created_at else v1.id)
            for bot in result.bot_ids
        ]
        if evolving in result.bot_ids:
            version_id = result.version_ids[result.bot_ids.index(evolving)]
            played_by[version_id] = played_by.get(version_id, 0) + 1
        if result.tournament_id == second["id"] and evolving in result.bot_ids:
            assert v2.id in result.version_ids
    held_result = next(result for result in results if result.game_id == held_games[0])
    assert v1.id in held_result.version_ids  # begun before the new version: played by the first
    assert played_by[v1.id] >= 1 and played_by[v2.id] >= 2

    # the pool: a row per version; the standings: the latest version of each bot
    assert sorted((row["bot_id"], row["version"]) for row in stored) == sorted(
        [(evolving, 1), (evolving, 2), (ids[1], 1), (ids[2], 1)]
    )
    assert {row["version_id"]: row["games"] for row in stored if row["bot_id"] == evolving} == played_by
    standings = client.get(f"{API}/standings", query_string={"game": "card"}).get_json()["standings"]
    assert sorted((row["bot_id"], row["version"]) for row in standings) == sorted(
        [(evolving, 2), (ids[1], 1), (ids[2], 1)]
    )

    # the bot: every version with its own rating
    shown = client.get(f"{API}/bots/{evolving}").get_json()
    by_number = {version["number"]: version for version in shown["versions"]}
    assert by_number[2]["note"] == "v2" and by_number[1]["note"] is None
    for number, version_id in ((1, v1.id), (2, v2.id)):
        (rating,) = by_number[number]["ratings"]
        row = next(row for row in stored if row.get("version_id") == version_id)
        assert (rating["game"], rating["variant"], rating["games"]) == ("card", "standard", played_by[version_id])
        assert rating["rating"] == row["rating"] and rating["low"] < rating["rating"] < rating["high"]

    # the pages: the standings name the latest version; the bot's page lists both, newest first
    page = client.get("/standings/card/standard").get_data(as_text=True)
    assert (
        page.count(f'data-bot-id="{evolving}"') == 1
        and f'/bots/{evolving}#versions" title="Versions">v2</a>' in page
    )
    bot_page = client.get(f"/bots/{evolving}").get_data(as_text=True)
    assert bot_page.index('data-version="2"') < bot_page.index('data-version="1"')
    assert bot_page.count('class="pool-rating"') == 2 and "a v1" in bot_page and "a v2" in bot_page
