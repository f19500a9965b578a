"""Health checks of push bots: ``tournament.play.seats.check_health`` against a real database (3 failed checks in a
row exclude a bot, 2 passed in a row include it again, a pass resets the failures: counted in one statement,
``tournament.play.scheduled.note_check``), and an excluded bot in a
tournament: it forfeits its games at their start without being asked a move, the others play on, and the games are
void (the service's side: ``tournament/play/voids.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

import engine
from botlink.calls import BotConnection
from botlink.netguard import parse_allowlist
from store.models import Bot, now
from tests.apikit import API, SQLITE_ONLY, Player
from tests.arenakit import (
    bot_server,
    create_tournament,
    played,
    push_bots,
    random_choice,
    register,
    replays_to_saved_state,
    saved_game,
    wait_done,
)
from tests.botservers import BotServer, Handler, Received, reply, status
from tournament.play import scheduled
from tournament.play.seats import check_health


class Switchable:
    """An info route that passes, fails (HTTP 503) or answers the wrong nonce, as the test sets ``mode``."""

    def __init__(self) -> None:
        self.mode = "pass"
        self.checks = 0

    def __call__(self, handler: Handler, request: Received) -> None:
        self.checks += 1
        if self.mode == "pass":
            reply()(handler, request)
        elif self.mode == "wrong nonce":
            reply({"nonce": "0" * 32, "name": "test", "games": ["board"]})(handler, request)
        else:
            status(503)(handler, request)


@pytest.fixture
def health(client: FlaskClient, owner: Player) -> Iterator[tuple[Switchable, BotServer, int]]:
    info = Switchable()
    with bot_server(reply(), info=info) as server:
        bot = register(client, owner, "checked", server.url())
        info.checks = 0  # registration's own proof is no health check
        yield info, server, bot["id"]


def check(arena: Flask, bot_id: int, server_url: str, interval: float = 0) -> dict[str, Any]:
    """One health check of the bot in a session of its own; the bot's counters after it, as stored."""
    sessions = arena.extensions["db_sessions"]
    with sessions() as session:
        bot = scheduled.seat_bots(session, [bot_id])[bot_id]  # as a game's runner reads it
        with BotConnection(server_url, bot.secret, allow=parse_allowlist("loopback"), timeout=1.0) as connection:
            excluded = check_health(session, bot, connection, interval)
    with sessions() as session:
        stored = session.get(Bot, bot_id)
        assert stored is not None
        assert stored.excluded == excluded, "the check tells what it stored"
        return {"failed": stored.failed_checks, "passed": stored.passed_checks, "excluded": stored.excluded}


def test_three_failed_checks_in_a_row_exclude_and_two_passes_include_again(
    arena: Flask, health: tuple[Switchable, BotServer, int]
) -> None:
    info, server, bot_id = health
    info.mode = "down"
    assert check(arena, bot_id, server.url()) == {"failed": 1, "passed": 0, "excluded": False}
    info.mode = "wrong nonce"  # an answer without the nonce sent fails as much as no answer
    assert check(arena, bot_id, server.url()) == {"failed": 2, "passed": 0, "excluded": False}
    info.mode = "down"
    assert check(arena, bot_id, server.url()) == {"failed": 3, "passed": 0, "excluded": True}
    assert check(arena, bot_id, server.url()) == {"failed": 4, "passed": 0, "excluded": True}
    info.mode = "pass"
    assert check(arena, bot_id, server.url()) == {"failed": 0, "passed": 1, "excluded": True}  # one is not enough
    info.mode = "down"
    assert check(arena, bot_id, server.url()) == {"failed": 1, "passed": 0, "excluded": True}  # nor two apart
    info.mode = "pass"
    assert check(arena, bot_id, server.url()) == {"failed": 0, "passed": 1, "excluded": True}
    assert check(arena, bot_id, server.url()) == {"failed": 0, "passed": 2, "excluded": False}
    assert check(arena, bot_id, server.url()) == {"failed": 0, "passed": 3, "excluded": False}
    assert info.checks == 9  # every check asked the info route (interval 0)


def test_a_pass_resets_the_failures(arena: Flask, health: tuple[Switchable, BotServer, int]) -> None:
    info, server, bot_id = health
    for mode in ("down", "down", "pass", "down", "down"):
        info.mode = mode
        result = check(arena, bot_id, server.url())
    assert result == {"failed": 2, "passed": 0, "excluded": False}


def test_a_bot_whose_server_is_gone_fails_its_checks(arena: Flask, client: FlaskClient, owner: Player) -> None:
    with push_bots(random_choice) as servers:
        bot = register(client, owner, "gone", servers[0].url)
    for failed in (1, 2, 3):
        assert check(arena, bot["id"], servers[0].url) == {"failed": failed, "passed": 0, "excluded": failed == 3}


def test_a_recent_check_is_not_repeated_within_the_interval(
    arena: Flask, health: tuple[Switchable, BotServer, int]
) -> None:
    info, server, bot_id = health
    info.mode = "down"
    assert check(arena, bot_id, server.url(), interval=3600) == {"failed": 1, "passed": 0, "excluded": False}
    # the bot is loaded afresh: its checked_at comes back from the database (naive on SQLite)
    assert check(arena, bot_id, server.url(), interval=3600) == {"failed": 1, "passed": 0, "excluded": False}
    assert info.checks == 1
    with arena.extensions["db_sessions"]() as session:
        session.execute(update(Bot).where(Bot.id == bot_id).values(checked_at=now() - timedelta(hours=2)))
        session.commit()
    assert check(arena, bot_id, server.url(), interval=3600) == {"failed": 2, "passed": 0, "excluded": False}
    assert info.checks == 2


def exclude(arena: Flask, bot_id: int, **values: Any) -> None:
    with arena.extensions["db_sessions"]() as session:
        session.execute(
            update(Bot)
            .where(Bot.id == bot_id)
            .values(**{"excluded": True, "failed_checks": 3, "passed_checks": 0, **values})
        )
        session.commit()


@SQLITE_ONLY
def test_an_excluded_bot_forfeits_at_the_start_without_being_asked_and_the_others_play_on(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    info = Switchable()
    with bot_server(reply(), info=info) as failing, push_bots(random_choice, random_choice) as servers:
        excluded = register(client, owner, "excluded", failing.url(), games=("card",))
        info.mode = "down"  # from now on its checks fail: it stays excluded
        failing.received.clear()
        others = [register(client, owner, f"bot{n}", server.url) for n, server in enumerate(servers)]
        exclude(arena, excluded["id"])
        ids = [excluded["id"], *(bot["id"] for bot in others)]
        done = wait_done(
            client, create_tournament(client, owner, ids, game="card", table_size=3)["id"], timeout=60
        )
    routes = [request.path.rsplit("/", 1)[-1] for request in failing.received]
    assert "move" not in routes and "info" in routes
    assert len(done["results"]) == 3
    for result in done["results"]:
        seat = result["bot_ids"].index(excluded["id"])
        assert result["reason"] == "forfeit" and result["forfeited"] == [seat]
        assert result["ranks"][seat] == 3 and all(rank < 3 for n, rank in enumerate(result["ranks"]) if n != seat)
        assert result["faults"] == [0, 0, 0]  # a forfeit at the start is no fault
        moves = played(arena, result["game_id"])
        assert result["moves"] == len(moves)
        assert [move.fault for move in moves if move.seat == seat] == ["forfeit"] * sum(
            move.seat == seat for move in moves
        )
        assert all(move.latency_ms is None for move in moves if move.seat == seat)
        assert all(move.fault is None and move.latency_ms is not None for move in moves if move.seat != seat)
        assert sum(move.seat != seat for move in moves) > 10  # the others played the game through
        game = saved_game(arena, result["game_id"])
        assert game.status == "over" and engine.is_over(engine.from_json(json.loads(game.state)))
        assert replays_to_saved_state(arena, result["game_id"])
    shown = client.get(f"{API}/bots/{excluded['id']}").get_json()
    assert shown["excluded"] is True and shown["failed_checks"] >= 4 and shown["passed_checks"] == 0
    # the service's side: every game is void, and the tournament's table counts none of them
    assert all(result["void"] and result["void_reason"] == "excluded" for result in done["results"])
    assert done["standings"] == []


@SQLITE_ONLY
def test_an_excluded_bot_whose_server_is_down_forfeits_a_two_seat_game_unplayed(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with push_bots(random_choice, random_choice) as servers:
        down, up = (register(client, owner, name, server.url) for name, server in zip("DU", servers, strict=True))
        servers[0].shutdown()
        exclude(arena, down["id"])
        done = wait_done(client, create_tournament(client, owner, [down["id"], up["id"]], game="card")["id"])
    for result in done["results"]:
        seat = result["bot_ids"].index(down["id"])
        assert result["forfeited"] == [seat] and result["reason"] == "forfeit"
        assert result["ranks"][seat] == 2 and result["ranks"][1 - seat] == 1
        assert result["moves"] == 0 and played(arena, result["game_id"]) == []  # nobody left to play against
        assert (result["void"], result["void_reason"]) == (True, "excluded")
        game = client.get(f"{API}/games/{result['game_id']}").get_json()
        assert (game["status"], game["void"], game["void_reason"]) == ("over", True, "excluded")
    shown = client.get(f"{API}/bots/{down['id']}").get_json()
    assert shown["excluded"] is True and shown["failed_checks"] >= 4


@SQLITE_ONLY
def test_an_excluded_bot_that_passes_its_checks_again_plays(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    with push_bots(random_choice, random_choice) as servers:
        back, other = (
            register(client, owner, name, server.url) for name, server in zip("BO", servers, strict=True)
        )
        exclude(arena, back["id"], failed_checks=0, passed_checks=1)  # one pass already: the next one includes it
        done = wait_done(client, create_tournament(client, owner, [back["id"], other["id"]], game="card")["id"])
    for result in done["results"]:
        assert result["forfeited"] == [] and result["faults"] == [0, 0] and result["void"] is False
    shown = client.get(f"{API}/bots/{back['id']}").get_json()
    assert shown["excluded"] is False and shown["passed_checks"] >= 2
