"""Game records of stored games (store/gamerecords.py) and their downloads, on SQLite and PostgreSQL: a real
tournament (push bots on loopback: a good one, a sloppy one, one that forfeits) downloaded as JSON lines, streamed,
every line passing ``engine.records.check``, its results the stored ones, the games still played (and their seeds)
left out; one game's record; the errors."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

import engine
from engine import records
from store import gamelog, gamerecords
from store.models import Bot, Tournament, TournamentGame
from tests.apikit import API, Player, new_player, play_to_end, started_game
from tests.arenakit import (
    arena_app,
    create_tournament,
    greedy_choice,
    illegal_choice,
    push_bots,
    register,
    sometimes_illegal,
    wait_done,
)
from tests.conftest import dispose


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url)
    yield app
    app.extensions["queue"].wait(timeout=60)
    dispose(app)


@pytest.fixture
def client(arena: Flask) -> FlaskClient:
    return arena.test_client()


@pytest.fixture
def owner(client: FlaskClient) -> Player:
    return new_player(client, "owner")


@pytest.fixture
def played(arena: Flask, client: FlaskClient, owner: Player) -> dict[str, Any]:
    """A finished card-game round robin between a greedy bot, a bot whose moves are illegal one time in five
    (faults) and a bot whose every move is illegal (it forfeits each game), plus a game of the same tournament
    still being played (created as the worker creates it, with no worker to play it): the tournament's detail,
    with ``bots`` (id -> name) and ``running`` (the running game's id and seed)."""
    with push_bots(greedy_choice, sometimes_illegal(0.2, seed=3), illegal_choice) as servers:
        bots = [
            register(client, owner, name, server.url)
            for name, server in zip(("greedy", "sloppy", "broken"), servers, strict=True)
        ]
        created = create_tournament(
            client, owner, [bot["id"] for bot in bots], game="card", settings={"pawns": 2}, seed=11
        )
        done = wait_done(client, created["id"])
    with arena.extensions["db_sessions"]() as session:
        tournament = session.get(Tournament, done["id"])
        assert tournament is not None
        seated = [session.get(Bot, bot["id"]) for bot in bots[:2]]
        seed = 987_654_321_987_654_321
        scheduled = TournamentGame(
            tournament_id=tournament.id, number=99, round=9, bot_ids=[bots[0]["id"], bots[1]["id"]], seed=seed
        )
        scheduled.status = "running"
        session.add(scheduled)
        session.flush()
        game = gamelog.create(
            session, "card", tournament.settings, seed, 2, owner.id, [bot.player_id for bot in seated if bot]
        )
        scheduled.game_id = game.id
        session.commit()
        running = {"id": game.id, "seed": seed}
    return {**done, "bots": {bot["id"]: bot["name"] for bot in bots}, "running": running}


def download(client: FlaskClient, tournament_id: int) -> tuple[Any, list[dict[str, Any]]]:
    response = client.get(f"{API}/tournaments/{tournament_id}/games.jsonl")
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.is_streamed  # a generator, not a body built in memory
    text = response.get_data(as_text=True)
    assert text.endswith("\n")
    return response, list(records.read_jsonl(text.splitlines()))


def three_faults_in_a_row(record: dict[str, Any]) -> list[int]:
    """The seats of a game record that had three faults in a row (which forfeit a seat), in seat order."""
    in_a_row = [0] * len(record["seats"])
    reached = set()
    for action in record["actions"]:
        seat, fault = action["seat"], action["fault"]
        in_a_row[seat] = 0 if fault is None else in_a_row[seat] + (fault != "forfeit")
        if in_a_row[seat] >= 3:
            reached.add(seat)
    return sorted(reached)


def test_a_tournaments_finished_games_download_as_records_that_check(
    client: FlaskClient, played: dict[str, Any]
) -> None:
    tournament_id = played["id"]
    response, lines = download(client, tournament_id)
    assert response.mimetype == "application/x-ndjson"
    assert (
        response.headers["Content-Disposition"] == f'attachment; filename="tournament-{tournament_id}-games.jsonl"'
    )
    results = {result["game_id"]: result for result in played["results"]}
    assert len(lines) == len(results) == 6
    assert {record["game_id"] for record in lines} == set(results)
    forfeits = 0
    for record in lines:
        assert records.check(record) == [], record["game_id"]
        result = results[record["game_id"]]
        assert record["tournament_id"] == tournament_id and record["game"] == "card"
        assert record["settings"] == engine.normalize_settings("card", {"pawns": 2, "players": 2})
        assert [seat["bot_id"] for seat in record["seats"]] == result["bot_ids"]
        assert [seat["name"] for seat in record["seats"]] == [played["bots"][bot] for bot in result["bot_ids"]]
        assert record["result"] == {
            "ranks": result["ranks"],
            "reason": result["reason"],
            "forfeited": result["forfeited"],
        }
        assert len(record["actions"]) == result["moves"]
        faults = [0, 0]
        for action in record["actions"]:
            assert action["latency_ms"] is not None or action["fault"] == "forfeit"
            if action["fault"] not in (None, "forfeit"):
                faults[action["seat"]] += 1
        assert faults == result["faults"]
        assert record["result"]["forfeited"] == three_faults_in_a_row(record)
        broken = [seat for seat, bot in enumerate(result["bot_ids"]) if played["bots"][bot] == "broken"]
        assert all(a["fault"] in ("illegal", "forfeit") for a in record["actions"] if a["seat"] in broken)
        forfeits += bool(broken and broken[0] in record["result"]["forfeited"])
        assert record["started_at"] <= record["finished_at"]
    # The broken bot forfeits each game in which it is asked three times; about one game in 200 ends before that
    # (its opponent lucky with the cards), so of its four games at least two forfeit in all but one run in millions.
    assert forfeits >= 2
    assert any(sum(1 for a in record["actions"] if a["fault"] == "illegal") for record in lines)


def test_games_still_played_and_their_seeds_are_never_downloaded(
    client: FlaskClient, played: dict[str, Any]
) -> None:
    response, lines = download(client, played["id"])
    body = response.get_data(as_text=True)
    assert played["running"]["id"] not in {record["game_id"] for record in lines}
    assert str(played["running"]["seed"]) not in body
    assert client.get(f"{API}/games/{played['running']['id']}/record").status_code == 409


def test_the_download_reads_the_games_in_batches(
    arena: Flask, client: FlaskClient, played: dict[str, Any]
) -> None:
    _, lines = download(client, played["id"])
    with arena.extensions["db_sessions"]() as session:
        batched = list(gamerecords.tournament_records(session, played["id"], batch=2))
        numbers = session.scalars(
            select(TournamentGame.game_id)
            .where(TournamentGame.tournament_id == played["id"], TournamentGame.status == "done")
            .order_by(TournamentGame.number)
        ).all()
    assert batched == lines
    assert [record["game_id"] for record in lines] == list(numbers)  # in play order


def test_one_games_record_is_its_line_of_the_download(client: FlaskClient, played: dict[str, Any]) -> None:
    _, lines = download(client, played["id"])
    response = client.get(f"{API}/games/{lines[0]['game_id']}/record")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.get_data(as_text=True) == records.dumps(lines[0])
    running = client.get(f"{API}/games/{played['running']['id']}/record")
    assert running.status_code == 409
    assert "still being played" in running.get_json()["message"]


def test_a_games_api_game_is_recorded_with_its_players_names(client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {"pawns": 1}, seats=2, seed=4)
    assert client.get(f"{API}/games/{game_id}/record").status_code == 409
    actions = play_to_end(client, game_id, players, random.Random(4))
    response = client.get(f"{API}/games/{game_id}/record")
    assert response.status_code == 200
    record = response.get_json()
    assert records.check(record) == []
    assert [seat["name"] for seat in record["seats"]] == [player.name for player in players]
    assert [seat["player_id"] for seat in record["seats"]] == [player.id for player in players]
    assert [action["action"] for action in record["actions"]] == actions
    assert all(action["fault"] is None for action in record["actions"])
    assert record["seed"] == 4 and "tournament_id" not in record


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (f"{API}/tournaments/999/games.jsonl", "no tournament 999"),
        (f"{API}/tournaments/0/games.jsonl", "no tournament 0"),
        (f"{API}/tournaments/99999999999/games.jsonl", "no tournament 99999999999"),
        (f"{API}/games/999/record", "no game 999"),
        (f"{API}/games/99999999999/record", "no game 99999999999"),
    ],
)
def test_unknown_ids_are_a_404_that_says_so(client: FlaskClient, path: str, message: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.get_json()["message"] == message
