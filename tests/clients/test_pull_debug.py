"""The pull client sends the debug text ``choose`` sets as ``request["debug"]`` with its move, as the push client
does (its first 1,024 characters; anything but a non-empty string is not sent), and the service keeps it with the
move: the finished game's record carries each one. A real service on loopback, SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from clients.examples import random_bot
from clients.pull import PullClient
from tests.apikit import API, get_game, started_game
from tests.arenakit import Running
from tests.clients.conftest import Service


def explaining(request: dict[str, Any]) -> str:
    action = random_bot.choose(request)
    request["debug"] = f"ply {request['ply']}: {len(request['actions'])} actions, took {action}\n" + "x" * 2000
    return action


def odd_debug(request: dict[str, Any]) -> str:
    request["debug"] = {"not": "a string"} if request["ply"] % 2 else ""
    return random_bot.choose(request)


def test_the_debug_text_of_choose_is_kept_with_each_move(service: Service) -> None:
    game_id, players = started_game(service.client, "board", {"players": 2}, seats=2, seed=11)
    runs = [
        Running(PullClient(choose, service.url, player.token, wait=2), until_idle=True)
        for choose, player in zip((explaining, odd_debug), players, strict=True)
    ]
    stats = [run.join(120) for run in runs]
    assert get_game(service.client, game_id)["status"] == "over"
    assert all(s.skipped == s.conflicts == 0 for s in stats)
    record = service.client.get(f"{API}/games/{game_id}/record").get_json()
    mine = [action for action in record["actions"] if action["seat"] == 0]
    assert mine and all(action["debug"].startswith(f"ply {action['ply']}: ") for action in mine)
    assert all(f"took {action['action']} xxx" in action["debug"] for action in mine)  # the newline a space
    assert {len(action["debug"]) for action in mine} <= {1024}  # the client's first 1,024 characters
    assert all("debug" not in action for action in record["actions"] if action["seat"] == 1)
