"""The statements a worker sends the database for one tournament game between two push bots, besides its batches
of moves: each costs the worker CPU (and PostgreSQL its own) on every game, so a statement added here is a choice,
not an accident. On SQLite and PostgreSQL, through the embedded queue, against real push bots on loopback."""

from __future__ import annotations

import collections
import dataclasses
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import event, select

from store.models import Result
from tests.apikit import new_player
from tests.arenakit import arena_app, create_tournament, push_bots, random_choice, register, wait_done
from tests.conftest import dispose
from tournament.dispatch import context
from tournament.play import runner
from tournament.play.game import RunnerSettings

EXPECTED = collections.Counter(
    {
        "UPDATE tournament_games": 3,  # the lease; the game's id (in the lease's transaction); done
        "SELECT tournament_games": 1,  # the scheduled game and its tournament, in one statement, before the lease
        "SELECT bots": 1,  # the seats' bots, in one statement
        "INSERT games": 1,
        "INSERT seats": 1,  # every seat in one statement
        "UPDATE games": 1,  # the last moves and the result, in one statement
        "INSERT actions": 1,
        "SELECT bot_versions": 1,
        "INSERT results": 1,
        "SELECT results": 1,  # the standings: the results counted (with the tournament's games and bots)
        "SELECT matches": 1,
    }
)
"""The statements of one game of a 2-game round robin that is neither rated nor a match, its moves saved in one
batch at its end, each by its verb and first table; besides these, a game that checks its bots' health first (the
first game of each bot, here) stores each check (``UPDATE bots``). On PostgreSQL the last moves' UPDATE and their
action rows are one statement (:data:`ONE_STATEMENT_SAVE`)."""
ONE_STATEMENT_SAVE = collections.Counter(
    {"UPDATE games": -1, "INSERT actions": -1, "UPDATE games, INSERT actions": 1}
)
"""How PostgreSQL's statements differ: the batch's UPDATE and its rows in one (``store.gamelog.save``)."""

REFIT = collections.Counter({"SELECT results": 1, "SELECT bots": 1, "UPDATE tournaments": 1})
"""What a game that refits the tournament's table adds (here, the last: ``standings.REFIT_EVERY``): its results,
its bots' names, the table stored."""
COMPLETING = collections.Counter({"SELECT results": 1, "UPDATE tournaments": 1})
"""What the game that ends the tournament adds: the results counted again, and the tournament marked done."""


def kind(statement: str) -> str:
    """A statement's verb and table (``SELECT bots``), from its text; a data-modifying CTE's, its UPDATE's and its
    INSERT's (``UPDATE games, INSERT actions``)."""
    moved = re.match(r"\s*WITH\s+\w+\s+AS\s*\((.*?)\)\s*(INSERT\b.*)", statement, re.I | re.S)
    if moved is not None:
        return f"{kind(moved.group(1))}, {kind(moved.group(2))}"
    verb = statement.split(None, 1)[0].upper()
    if verb == "SELECT":
        table = re.search(r"\bFROM\s+([a-z_]+)", statement, re.I)
    else:
        table = re.search(r"^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)", statement, re.I)
    assert table is not None, statement
    return f"{verb} {table.group(1)}"


@pytest.fixture
def counted(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Flask, list[collections.Counter[str]]]]:
    """An app (the embedded queue) and the statements of each game it plays (``runner.play_scheduled``), one Counter
    per game, with every move of a game saved in one batch at its end (no batch by count or time)."""
    games: list[collections.Counter[str]] = []
    local = threading.local()
    play_scheduled = runner.play_scheduled
    runner_settings = context.runner_settings

    def counting(*args: Any, **kwargs: Any) -> str:
        local.statements = collections.Counter()
        try:
            return play_scheduled(*args, **kwargs)
        finally:
            games.append(local.statements)
            local.statements = None

    def one_batch(*args: Any, **kwargs: Any) -> RunnerSettings:
        return dataclasses.replace(runner_settings(*args, **kwargs), batch_moves=10**9, batch_seconds=float("inf"))

    def before(connection: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements = getattr(local, "statements", None)
        if statements is not None:
            statements[kind(statement)] += 1

    monkeypatch.setattr(runner, "play_scheduled", counting)
    monkeypatch.setattr(context, "runner_settings", one_batch)
    app = arena_app(database_url)
    engine = app.extensions["db_engine"]
    event.listen(engine, "before_cursor_execute", before)
    try:
        yield app, games
    finally:
        app.extensions["queue"].wait(timeout=60)
        event.remove(engine, "before_cursor_execute", before)
        dispose(app)


def play_round_robin(app: Flask, rated: bool) -> dict[str, Any]:
    """A 2-game round robin of two random push bots, played to its end: the tournament as the API shows it."""
    client = app.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice) as servers:
        bots = [register(client, owner, name, server.url) for name, server in zip("AB", servers, strict=True)]
        created = create_tournament(client, owner, [bot["id"] for bot in bots], rounds=1, rated=rated)
        return wait_done(client, created["id"])


def test_a_game_between_push_bots_sends_the_statements_it_needs_and_no_more(
    counted: tuple[Flask, list[collections.Counter[str]]],
) -> None:
    app, games = counted
    done = play_round_robin(app, rated=False)
    assert done["progress"] == {"done": 2, "total": 2}
    assert len(games) == 2
    for statements in games:
        assert statements.pop("UPDATE bots", 0) <= 2  # a check per bot, by whichever game found it due
    one_game = EXPECTED.copy()
    if app.extensions["db_engine"].dialect.name == "postgresql":
        one_game.update(ONE_STATEMENT_SAVE)
    for statements in games:  # the game that ended the tournament refits and completes it (both, if at once)
        expected = one_game + REFIT + COMPLETING if statements["UPDATE tournaments"] else one_game
        extra, missing = sorted((statements - expected).items()), sorted((expected - statements).items())
        assert statements == expected, f"more than expected: {extra}; fewer: {missing}"
    assert any(statements["UPDATE tournaments"] for statements in games)


def test_a_rated_result_is_written_once_with_its_place_in_the_pool(
    counted: tuple[Flask, list[collections.Counter[str]]],
) -> None:
    app, games = counted
    done = play_round_robin(app, rated=True)
    assert len(games) == 2
    for statements in games:
        assert statements["INSERT results"] == 1 and statements["UPDATE results"] == 0
        assert statements["SELECT matches"] == 0  # a match is never rated
    with app.extensions["db_sessions"]() as session:
        places = session.scalars(select(Result.counted).where(Result.tournament_id == done["id"])).all()
    assert sorted(places) == [1, 2]


def test_statements_are_told_by_verb_and_table() -> None:
    assert kind("SELECT bots.id, bots.name FROM bots WHERE bots.id IN (?, ?)") == "SELECT bots"
    assert kind("SELECT count(results.id) AS count_1 \nFROM results WHERE x") == "SELECT results"
    assert kind("INSERT INTO seats (game_id, seat) VALUES (?, ?)") == "INSERT seats"
    assert kind("UPDATE games SET ply=? WHERE games.id = ?") == "UPDATE games"
