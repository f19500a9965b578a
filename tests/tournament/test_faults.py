"""A bot's faults in tournament games (embedded queue, SQLite): every kind of misbehaviour is recorded on the
move with its latency and answered by the seeded fallback; the third fault in a row forfeits the game for that bot
alone (ranked last, result reason ``forfeit``), while occasional faults are only counted. At a table of three, the
others play on to the game's normal end."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

import engine
from store.models import Tournament
from tests.apikit import API, SQLITE_ONLY, Player
from tests.arenakit import (
    Played,
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
from tests.botservers import garbage, slow
from tournament.play import results
from tournament.standings import tables

pytestmark = SQLITE_ONLY


def raising_choice(request: dict[str, Any]) -> str:
    raise RuntimeError("this bot is broken")  # clients/push.py answers 500


def bad_bot_url(kind: str, stack: ExitStack) -> str:
    """The URL of a bot that answers its info route (registration) but faults with ``kind`` on every move."""
    if kind == "status":
        return stack.enter_context(push_bots(raising_choice))[0].url
    if kind == "timeout":
        return stack.enter_context(bot_server(slow(60.0))).url()  # stopped with the test, never answering in time
    if kind == "unparsable":
        return stack.enter_context(bot_server(garbage())).url()
    raise ValueError(kind)


def own_moves(moves: list[Played], seat: int) -> list[Played]:
    return [move for move in moves if move.seat == seat]

# A move deadline that a loaded machine cannot make a prompt bot miss: a test that counts faults other than
# timeouts must not see one that the machine's load made.
SLACK_MS = 20_000

# Deadlines that a loaded machine cannot make the good bot, or the bad bot's prompt answers, miss: a fault of the
# wrong kind would fail the test. Only a timeout, and a refused connection (asked again until the deadline), wait
# out their deadline: theirs are shorter, and the good bot has it too.
@pytest.mark.parametrize(
    ("kind", "timeout_ms"), [("status", SLACK_MS), ("timeout", 1500), ("unparsable", SLACK_MS), ("connection", 1500)]
)
def test_a_bot_that_faults_on_every_move_forfeits_and_its_opponent_wins(
    arena: Flask, client: FlaskClient, owner: Player, kind: str, timeout_ms: int
) -> None:
    with ExitStack() as stack:
        good_server = stack.enter_context(push_bots(random_choice))[0]
        if kind == "connection":
            gone = stack.enter_context(push_bots(random_choice))[0]
            bad = register(client, owner, "bad", gone.url)
            gone.shutdown()  # registered, then its server is gone: every call is refused
        else:
            bad = register(client, owner, "bad", bad_bot_url(kind, stack))
        good = register(client, owner, "good", good_server.url)
        created = create_tournament(client, owner, [bad["id"], good["id"]], move_timeout_ms=timeout_ms)
        done = wait_done(client, created["id"], timeout=180)
    assert len(done["results"]) == 2  # both seatings
    for result in done["results"]:
        seat = result["bot_ids"].index(bad["id"])
        other = 1 - seat
        assert result["reason"] == "forfeit" and result["forfeited"] == [seat]
        assert result["void"] is False and result["void_reason"] is None  # the bot's doing: rated
        assert result["ranks"][seat] == 2 and result["ranks"][other] == 1
        assert result["faults"][seat] == 3 and result["faults"][other] == 0
        moves = played(arena, result["game_id"])
        assert result["moves"] == len(moves)
        bad_moves = own_moves(moves, seat)
        if kind == "connection":  # refused calls are tried again until the deadline, which may then cut one short
            assert {move.fault for move in bad_moves} <= {"connection", "timeout"} and len(bad_moves) == 3
        else:
            assert [move.fault for move in bad_moves] == [kind] * 3
        assert all(move.latency_ms is not None for move in bad_moves)
        if kind == "timeout":  # cut at the deadline (1.5 s, late on a loaded machine), not at the bot's 60 s
            assert all(1400 <= move.latency_ms < 20_000 for move in bad_moves if move.latency_ms is not None)
        good_moves = own_moves(moves, other)
        assert all(move.fault is None and move.latency_ms is not None for move in good_moves)
        assert client.get(f"{API}/games/{result['game_id']}").get_json()["status"] == "over"
        assert replays_to_saved_state(arena, result["game_id"])  # the fallbacks are what was played
    standings = {row["bot_id"]: row for row in done["standings"]}
    assert standings[bad["id"]]["forfeits"] == 2 and standings[good["id"]]["wins"] == 2
    shown = client.get(f"{API}/bots/{bad['id']}").get_json()
    assert shown["excluded"] is False  # failed moves are no failed health check; one failed check excludes nobody


class EveryTenthIllegal:
    """A bot whose every tenth move in a game is illegal (never two in a row): it faults, it never forfeits."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.asked: Counter[int] = Counter()
        self.illegal: Counter[int] = Counter()

    def __call__(self, request: dict[str, Any]) -> str:
        game_id = request["game_id"]
        with self.lock:
            self.asked[game_id] += 1
            wrong = self.asked[game_id] % 10 == 0
            if wrong:
                self.illegal[game_id] += 1
        return "no-such-action" if wrong else random_choice(request)


def test_a_bot_that_faults_now_and_then_plays_on_with_its_faults_counted(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    sloppy = EveryTenthIllegal()
    with push_bots(sloppy, random_choice) as servers:
        bad, good = (register(client, owner, name, server.url) for name, server in zip("SG", servers, strict=True))
        created = create_tournament(client, owner, [bad["id"], good["id"]], move_timeout_ms=SLACK_MS)
        done = wait_done(client, created["id"], timeout=180)
    for result in done["results"]:
        seat = result["bot_ids"].index(bad["id"])
        assert result["forfeited"] == [] and result["reason"] != "forfeit"
        assert sorted(result["ranks"]) in ([1, 2], [1, 1])
        assert result["faults"][1 - seat] == 0
        assert result["faults"][seat] == sloppy.illegal[result["game_id"]] >= 2
        moves = own_moves(played(arena, result["game_id"]), seat)
        assert len(moves) == sloppy.asked[result["game_id"]]
        assert [move.fault for move in moves] == [
            "illegal" if number % 10 == 0 else None for number in range(1, len(moves) + 1)
        ]
        assert all(move.latency_ms is not None for move in moves)
        game = saved_game(arena, result["game_id"])
        assert engine.is_over(engine.from_json(json.loads(game.state)))
    assert {row["bot_id"]: row["forfeits"] for row in done["standings"]} == {bad["id"]: 0, good["id"]: 0}


class CountingChoice:
    """A choose that counts the moves it was asked, per game."""

    def __init__(self, choose: Callable[[dict[str, Any]], str]) -> None:
        self.choose = choose
        self.lock = threading.Lock()
        self.asked: Counter[int] = Counter()

    def __call__(self, request: dict[str, Any]) -> str:
        with self.lock:
            self.asked[request["game_id"]] += 1
        return self.choose(request)


@pytest.mark.parametrize(("game", "table_size"), [("board", 3), ("card", 4)])
def test_at_a_bigger_table_the_others_play_on_to_the_end(
    arena: Flask, client: FlaskClient, owner: Player, game: str, table_size: int
) -> None:
    broken = CountingChoice(raising_choice)
    chooses = [broken] + [random_choice] * (table_size - 1)
    started = time.monotonic()
    with push_bots(*chooses) as servers:
        bots = [register(client, owner, f"bot{n}", server.url) for n, server in enumerate(servers)]
        bad = bots[0]
        created = create_tournament(
            client, owner, [bot["id"] for bot in bots], game=game, table_size=table_size, move_timeout_ms=SLACK_MS
        )
        done = wait_done(client, created["id"], timeout=180)
    assert time.monotonic() - started < 60
    assert len(done["results"]) == table_size  # one table, each bot in each seat once
    for result in done["results"]:
        seat = result["bot_ids"].index(bad["id"])
        others = [other for other in range(table_size) if other != seat]
        assert result["reason"] == "forfeit" and result["forfeited"] == [seat] and result["void"] is False
        assert result["ranks"][seat] == table_size
        assert sorted(result["ranks"][other] for other in others) != [table_size] * len(others)
        assert all(1 <= result["ranks"][other] < table_size for other in others)
        assert result["faults"][seat] == 3 and all(result["faults"][other] == 0 for other in others)
        assert broken.asked[result["game_id"]] == 3  # never asked again after its third fault
        moves = played(arena, result["game_id"])
        bad_moves = own_moves(moves, seat)
        assert [move.fault for move in bad_moves[:3]] == ["status"] * 3
        assert len(bad_moves) > 3, "the game ended before the forfeiting seat's turn came again"
        assert all(move.fault == "forfeit" and move.latency_ms is None for move in bad_moves[3:])
        forfeited_at = bad_moves[2].ply
        later = [move for move in moves if move.ply > forfeited_at and move.seat != seat]
        assert later and all(move.fault is None and move.latency_ms is not None for move in later)
        saved = saved_game(arena, result["game_id"])
        assert saved.status == "over"
        assert engine.is_over(engine.from_json(json.loads(saved.state)))  # a normal end
        assert replays_to_saved_state(arena, result["game_id"])
    standings = {row["bot_id"]: row for row in done["standings"]}
    assert standings[bad["id"]]["forfeits"] == table_size
    assert standings[bad["id"]]["mean_rank"] == table_size


def test_a_tournament_is_done_only_once_its_standings_count_every_result(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    """Two workers finishing the last games at once: the one whose refit saw fewer results completes first."""
    with push_bots(random_choice, random_choice) as servers:
        ids = [register(client, owner, name, server.url)["id"] for name, server in zip("AB", servers, strict=True)]
        created = create_tournament(client, owner, ids, game="card", move_timeout_ms=SLACK_MS)
        wait_done(client, created["id"], timeout=180)
    sessions = arena.extensions["db_sessions"]
    with sessions() as session:  # as the first worker left it: every result written, its refit counted one
        session.execute(
            update(Tournament)
            .where(Tournament.id == created["id"])
            .values(status="running", finished_at=None, standings_through=1)
        )
        session.commit()
        tournament = session.get(Tournament, created["id"])
        assert tournament is not None
        results.complete(session, tournament.id, tournament.games_total)
    assert client.get(f"{API}/tournaments/{created['id']}").get_json()["status"] == "running"
    with sessions() as session:  # the second worker refits with both results, then completes
        tables.refresh_tournament(session, created["id"])
        tournament = session.get(Tournament, created["id"])
        assert tournament is not None
        results.complete(session, tournament.id, tournament.games_total)
    done = client.get(f"{API}/tournaments/{created['id']}").get_json()
    assert done["status"] == "done" and sum(row["games"] for row in done["standings"]) == 4
