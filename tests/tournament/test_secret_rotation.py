"""A push bot's secret rotated while its tournament plays, as docs/bots.md tells the owner to ("Rotating the
secret"): the bot (the reference client, ``clients.push.serve``) starts accepting the old and the new secret, the
owner sends the new one (``PATCH /bots/{id}``, proved with it), the games begun before end signed with the old one
and the later ones are signed with the new one; the old one is then dropped. No move faults, every game ends. A
move of the rotating bot is held (well within its deadline) while the rotation happens, so that a game is sure to
straddle it, whatever the machine's speed. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.apikit import API, Player
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

NEW = "rotated-" + "n" * 40
CARD = {"players": 2, "pawns": 2, "turn_cap": 60}
MOVE_TIMEOUT_MS = 30_000
"""Generous: the held move waits for the rotation only, never for a deadline."""


def held_until(gate: threading.Event, held: threading.Event) -> Any:
    def choose(request: dict[str, Any]) -> str:
        if not gate.is_set():
            held.set()
            gate.wait(60)
        return greedy_choice(request)

    return choose


def no_faults(arena: Flask, done: dict[str, Any]) -> None:
    assert done["status"] == "done" and done["progress"]["done"] == done["progress"]["total"]
    assert done["results_total"] == done["progress"]["total"]
    for result in done["results"]:
        assert result["faults"] == [0, 0] and result["forfeited"] == [], result
        assert all(move.fault is None for move in played(arena, result["game_id"]))


def test_a_secret_rotated_mid_tournament_loses_no_game(arena: Flask, client: FlaskClient, owner: Player) -> None:
    gate, held = threading.Event(), threading.Event()
    with push_bots(held_until(gate, held), random_choice, random_choice) as servers:
        rotating, *others = servers
        bots = [register(client, owner, f"bot{n}", server.url) for n, server in enumerate(servers)]
        ids = [bot["id"] for bot in bots]
        first = create_tournament(
            client, owner, ids, game="card", settings=CARD, rounds=3, move_timeout_ms=MOVE_TIMEOUT_MS
        )
        try:
            assert held.wait(120), "the rotating bot was never asked to move"
            # 1. the bot restarts accepting both secrets (here: the running server is told so)
            rotating.secret, rotating.previous_secrets = NEW, [SECRET]
            # 2. the owner registers the new secret: proved with it, the service signs with it from now on
            answer = client.patch(f"{API}/bots/{ids[0]}", json={"secret": NEW}, headers=owner.headers)
            assert answer.status_code == 200, answer.get_data(as_text=True)
            status = client.get(f"{API}/tournaments/{first['id']}").get_json()
            assert status["status"] == "running" and status["progress"]["done"] < status["progress"]["total"]
        finally:
            gate.set()
        no_faults(arena, wait_done(client, first["id"]))
        # 3. the games begun with the old secret are over: the bot drops it, and the next games are signed anew
        rotating.previous_secrets = []
        assert [server.previous_secrets for server in others] == [(), ()]
        second = create_tournament(
            client, owner, ids, game="card", settings=CARD, rounds=1, move_timeout_ms=MOVE_TIMEOUT_MS, seed=8
        )
        no_faults(arena, wait_done(client, second["id"]))
        assert rotating.secret == NEW
