"""Helpers of the web page tests: finished and live games played through the API, a finished tournament between
push bots, and the engine's state at each step of a stored game (what the pages must show)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

import engine
from tests.apikit import Player, new_player, play_to_end, started_game
from tests.arenakit import create_tournament, greedy_choice, played, push_bots, random_choice, register, wait_done

BOARD_SETTINGS = {"players": 4, "turn_cap": 80}
CARD_SETTINGS = {"players": 3}
SEED = 11


def finished_game(client: FlaskClient, game: str, settings: dict[str, Any], seed: int = SEED) -> int:
    """A game played to its end with random legal moves through the API; its id."""
    game_id, players = started_game(client, game, settings, int(settings["players"]), seed=seed)
    play_to_end(client, game_id, players, random.Random(seed))
    return game_id


def live_game(client: FlaskClient, game: str, settings: dict[str, Any], plies: int) -> tuple[int, list[Player]]:
    """A game in play after ``plies`` random legal moves through the API; its id and players."""
    game_id, players = started_game(client, game, settings, int(settings["players"]), seed=SEED)

    class Stop(Exception):
        pass

    def stop_at(ply: int) -> None:
        if ply == plies:
            raise Stop

    try:
        play_to_end(client, game_id, players, random.Random(SEED), before_each_ply=stop_at)
    except Stop:
        return game_id, players
    raise AssertionError(f"game {game_id} ended before ply {plies}")


def states(app: Flask, game_id: int, game: str, settings: dict[str, Any], seed: int = SEED) -> list[Any]:
    """The engine's state after each number of actions of the stored game (index = step)."""
    state = engine.new_game(game, engine.normalize_settings(game, settings), seed)
    out = [engine.copy(state)]
    for move in played(app, game_id):
        engine.apply(state, move.action, move.seat)
        out.append(engine.copy(state))
    return out


@contextmanager
def tournament(
    app: Flask, client: FlaskClient, game: str = "card", rounds: int = 2, **fields: Any
) -> Iterator[dict[str, Any]]:
    """A tournament between a greedy and a random push bot (and a second random one), run to its end."""
    owner = new_player(client, "owner")
    with push_bots(greedy_choice, random_choice, random_choice) as servers:
        bots = [
            register(client, owner, name, server.url)["id"]
            for name, server in zip(("greedy", "random", "random2"), servers, strict=True)
        ]
        settings = {"players": 2, "pawns": 2} if game == "card" else {"players": 2, "turn_cap": 60}
        created = create_tournament(client, owner, bots, game=game, settings=settings, rounds=rounds, **fields)
        yield wait_done(client, created["id"])


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {name: value or "" for name, value in attrs}))


def elements(html: str, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[dict[str, str]]:
    """The attributes of every element of ``html`` with that tag, class and attribute values (``data_x`` for
    ``data-x``); ``attrs`` given as ``None``-free strings, or ``"*"`` for any value."""
    parser = _Collector()
    parser.feed(html)
    wanted = {name.replace("_", "-"): value for name, value in attrs.items()}
    return [
        found
        for name, found in parser.found
        if (tag is None or name == tag)
        and (cls is None or cls in found.get("class", "").split())
        and all(key in found and (value == "*" or found[key] == value) for key, value in wanted.items())
    ]


def page(client: FlaskClient, path: str, status: int = 200, **headers: str) -> str:
    response = client.get(path, headers=headers)
    assert response.status_code == status, (path, response.status_code, response.get_data(as_text=True)[:500])
    assert response.mimetype == "text/html", (path, response.mimetype)
    return response.get_data(as_text=True)
