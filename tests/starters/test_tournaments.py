"""Each starter plays a short real tournament against the greedy and random example bots, once serving in push mode
(board games) and once polling in pull mode (card games), through the service served over HTTP on loopback
(SQLite, embedded queue): every game ends, and none of the starter's moves is a fault.

The tournament allows far more than a move needs (``MOVE_TIMEOUT_MS``), so that a loaded machine's pause makes no
answer late: what is tested is the wiring of both protocols, not the machine's speed."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.apikit import API, SQLITE_ONLY, Player
from tests.arenakit import (
    SECRET,
    create_tournament,
    greedy_choice,
    played,
    push_bots,
    random_choice,
    register,
    wait_done,
)
from tests.liveserver import serving
from tests.starters.starterkit import NAMES, started

MOVE_TIMEOUT_MS = 30_000
GAMES = {"board": {"players": 2, "turn_cap": 40}, "card": {"players": 2, "pawns": 2, "turn_cap": 40}}
"""Short games: the turn cap ends them (ranked by progress) whatever the bots' speed."""


@SQLITE_ONLY
@pytest.mark.parametrize("mode", ["push", "pull"])
@pytest.mark.parametrize("name", NAMES)
def test_a_starter_plays_a_tournament_without_faults(
    arena: Flask, client: FlaskClient, owner: Player, name: str, starter: list[str], mode: str, tmp_path: Path
) -> None:
    game = "board" if mode == "push" else "card"
    with ExitStack() as stack:
        url = stack.enter_context(serving(arena))
        greedy, randomly = stack.enter_context(push_bots(greedy_choice, random_choice))
        opponents = [
            register(client, owner, "greedy", greedy.url),
            register(client, owner, "random", randomly.url),
        ]
        if mode == "push":
            serving_bot = stack.enter_context(
                started(starter, tmp_path, "--push", "--port", "0", ready="serving at", SORRY_ARENA_SECRET=SECRET)
            )
            bot = register(client, owner, f"{name}-starter", f"{serving_bot.url}/bot")
        else:
            bot = register(client, owner, f"{name}-starter", None)
            stack.enter_context(
                started(
                    starter, tmp_path, "--pull", "--url", url, ready="pull mode", SORRY_ARENA_TOKEN=bot["token"]
                )
            )
        assert bot["mode"] == mode
        created = create_tournament(
            client,
            owner,
            [bot["id"], *(opponent["id"] for opponent in opponents)],
            game=game,
            settings=GAMES[game],
            move_timeout_ms=MOVE_TIMEOUT_MS,
        )
        done = wait_done(client, created["id"], timeout=240)
    assert done["status"] == "done" and done["progress"]["done"] == done["progress"]["total"] == 6
    starter_games = [result for result in done["results"] if bot["id"] in result["bot_ids"]]
    assert len(starter_games) == 4  # two opponents, both seat orders
    for result in starter_games:
        assert client.get(f"{API}/games/{result['game_id']}").get_json()["status"] == "over"
        assert result["forfeited"] == [] and result["reason"] != "forfeit"
        seat = result["bot_ids"].index(bot["id"])
        moves = [move for move in played(arena, result["game_id"]) if move.seat == seat]
        assert moves, "the starter never moved"
        assert [move.fault for move in moves] == [None] * len(moves), f"{name} faulted in {mode} mode"
