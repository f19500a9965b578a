"""Each example bot (every entry of ``clients.__main__.BUILT_IN``, so a new one is tested as soon as it is listed)
plays a short real tournament (2 games of at most 40 turns) against a random push bot, once served in push mode
and once playing in pull mode through the API (the app served over HTTP on loopback, embedded queue): every game
ends, and none of the example bot's moves is a fault.

The bot paces itself as in a tournament of the default move timeout (every request it sees says ``deadline_ms``
1000: the search bot spends a fifth of it), while the tournament allows far more, so that a loaded machine's pause
makes no answer late: what is tested is that the bots play legal moves through both protocols, not the machine's
speed."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from clients.__main__ import BUILT_IN, load_bot
from clients.pull import PullClient
from tests.apikit import API, SQLITE_ONLY, Player
from tests.arenakit import Running, create_tournament, played, push_bots, random_choice, register, wait_done
from tests.liveserver import serving

PACE_MS = 1000
"""The ``deadline_ms`` the bot sees: the tournaments' default move timeout, by which the search bot paces itself."""
MOVE_TIMEOUT_MS = 30_000
"""The tournament's move timeout: no pause of a loaded machine turns an answer into a timeout."""
GAMES = {"board": {"players": 2, "turn_cap": 40}, "card": {"players": 2, "pawns": 2, "turn_cap": 40}}
"""Short games: the turn cap ends them (ranked by progress) whatever the bots' speed."""


@SQLITE_ONLY
@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("mode", ["push", "pull"])
@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_an_example_bot_plays_a_tournament_without_faults(
    arena: Flask, client: FlaskClient, owner: Player, name: str, mode: str, game: str
) -> None:
    _, bot_choose = load_bot(name)

    def choose(request: dict[str, Any]) -> str:
        return bot_choose({**request, "deadline_ms": PACE_MS})

    with ExitStack() as stack:
        url = stack.enter_context(serving(arena))
        opponent_server, *mine = stack.enter_context(
            push_bots(random_choice, *([choose] if mode == "push" else []))
        )
        opponent = register(client, owner, "opponent", opponent_server.url)
        bot = register(client, owner, name, mine[0].url if mine else None)
        assert bot["mode"] == mode
        running = None
        if mode == "pull":
            # it stops once it has seen both games end, not when the test sees the tournament done (a race)
            running = Running(PullClient(choose, url, bot["token"], wait=1, name=name), max_games=2)
        created = create_tournament(
            client,
            owner,
            [bot["id"], opponent["id"]],
            game=game,
            settings=GAMES[game],
            move_timeout_ms=MOVE_TIMEOUT_MS,
        )
        done = wait_done(client, created["id"])
        if running is not None:
            stats = running.join()
            assert stats.games == 2 and stats.skipped == stats.conflicts == 0
    assert done["status"] == "done" and done["progress"] == {"done": 2, "total": 2}
    for result in done["results"]:
        assert client.get(f"{API}/games/{result['game_id']}").get_json()["status"] == "over"
        assert result["forfeited"] == [] and result["reason"] != "forfeit"
        seat = result["bot_ids"].index(bot["id"])
        moves = [move for move in played(arena, result["game_id"]) if move.seat == seat]
        assert moves, "the example bot never moved"
        assert [move.fault for move in moves] == [None] * len(moves), f"{name} faulted in {mode} mode"
