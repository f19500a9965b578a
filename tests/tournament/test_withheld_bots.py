"""A bot the operator paused, or whose own account the operator disabled, in a tournament's games (through the
embedded queue, on SQLite and PostgreSQL): it forfeits each new game at its start without being called at all (no
health check, no move), the others play on; unpaused, it plays again."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import update

from store.models import Bot, Player
from tests.apikit import new_player
from tests.arenakit import (
    arena_app,
    bot_server,
    create_tournament,
    played,
    push_bots,
    random_choice,
    register,
    wait_done,
)
from tests.botservers import Handler, Received, reply
from tests.conftest import dispose


def legal(handler: Handler, request: Received) -> None:
    reply({"action": random_choice(json.loads(request.body))})(handler, request)


START_S = 8
"""How far ahead the tournament starts: time enough to withhold its bot on a loaded machine."""


def withhold(arena: Flask, bot: dict[str, Any], how: str, value: bool = True) -> None:
    """Pause the bot, or disable its own account, as the admin routes do (tests/service/test_admin.py)."""
    with arena.extensions["db_sessions"]() as session:
        if how == "paused":
            session.execute(update(Bot).where(Bot.id == bot["id"]).values(paused=value))
        else:
            session.execute(update(Player).where(Player.id == bot["player_id"]).values(disabled=value))
        session.commit()


@pytest.mark.parametrize("how", ["paused", "account disabled"])
def test_a_withheld_bot_forfeits_every_new_game_uncalled(database_url: str, how: str) -> None:
    arena = arena_app(database_url, maintenance_seconds=0.2)  # the maintenance starts the runs due
    try:
        play(arena, how)
    finally:
        assert arena.extensions["queue"].wait(timeout=60)
        dispose(arena)


def play(arena: Flask, how: str) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    with bot_server(legal) as server, push_bots(random_choice) as servers:
        held = register(client, owner, "held", server.url())
        free = register(client, owner, "free", servers[0].url)
        server.received.clear()
        # a paused bot enters no new tournament: it is paused once entered, before the run starts
        start_at = (datetime.now(UTC) + timedelta(seconds=START_S)).isoformat()
        made = create_tournament(client, owner, [held["id"], free["id"]], game="card", start_at=start_at)
        withhold(arena, held, how)
        done = wait_done(client, made["id"])
        assert server.received == [], "a withheld bot is not called: no health check, no start, no move"
        for result in done["results"]:
            seat = result["bot_ids"].index(held["id"])
            assert result["forfeited"] == [seat] and result["reason"] == "forfeit"
            assert result["moves"] == 0 and played(arena, result["game_id"]) == []
        withhold(arena, held, how, False)
        again = wait_done(client, create_tournament(client, owner, [held["id"], free["id"]], game="card")["id"])
        assert all(result["forfeited"] == [] for result in again["results"]), again["results"]
        assert any(request.path.endswith("/move") for request in server.received)
