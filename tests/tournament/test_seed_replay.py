"""A tournament's games replay exactly from their published seeds, and no seed is shown while they are played: a
small tournament between two push bots, played through the API on the embedded queue, on SQLite and PostgreSQL.

While a game is being played (one bot holds its first move), neither its seed nor the tournament's seed and salt
appear in any answer of the tournaments or games API. Once the tournament is done, its published seed and salt
give each game's published seed (``tournament.plans.schedule``), and each game rebuilt by ``engine.replay`` from that
seed and the action ids of its record is the stored final state, with the stored result.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

import engine
from engine.records import final_result
from store.models import Game, Tournament, TournamentGame
from tests.apikit import API, Player
from tests.arenakit import create_tournament, push_bots, random_choice, register, saved_game, wait_done
from tournament.plans.schedule import schedule

SEED = 3_141_592_653_589_793_238
"""The creator's tournament seed: long enough that finding its digits in an answer is no accident."""
ROUNDS = 2


def secrets_of(arena: Flask, tournament_id: int) -> tuple[str, dict[int, int]]:
    """The tournament's salt and the seeds of its games begun and not over (game id: seed), from the database."""
    with arena.extensions["db_sessions"]() as session:
        tournament = session.get(Tournament, tournament_id)
        assert tournament is not None
        rows = session.execute(
            select(Game.id, Game.seed)
            .join(TournamentGame, TournamentGame.game_id == Game.id)
            .where(TournamentGame.tournament_id == tournament_id, Game.status != "over")
        ).all()
    return tournament.seed_salt, {game_id: seed for game_id, seed in rows}


def answers(
    client: FlaskClient, owner: Player, bot_tokens: list[str], tournament_id: int, game_ids: list[int]
) -> Iterator[tuple[str, Any]]:
    """Every answer of the tournaments and games API about the tournament and its games, to anyone who asks: a
    stranger, the tournament's owner and the bots (each holds a seat)."""
    askers: list[dict[str, str]] = [{}, owner.headers, *({"Authorization": f"Bearer {t}"} for t in bot_tokens)]
    paths = [
        f"{API}/tournaments",
        f"{API}/tournaments/{tournament_id}",
        f"{API}/tournaments/{tournament_id}/results",
        f"{API}/tournaments/{tournament_id}/games.jsonl",
        f"{API}/games",
        f"{API}/games?status=active",
    ]
    for game_id in game_ids:
        paths += [f"{API}/games/{game_id}", f"{API}/games/{game_id}/events", f"{API}/games/{game_id}/record"]
        paths += [f"{API}/games/{game_id}/actions", *(f"{API}/games/{game_id}/hands/{seat}" for seat in (0, 1))]
    for headers in askers:
        for path in paths:
            response = client.get(path, headers=headers)
            assert response.status_code < 500, (path, response.get_data(as_text=True))
            yield path, response


@pytest.mark.parametrize("game", ["board", "card"])
def test_games_replay_from_their_published_seeds_which_are_hidden_while_they_run(
    arena: Flask, client: FlaskClient, owner: Player, game: str
) -> None:
    asked, go_on = threading.Event(), threading.Event()

    def held(request: dict[str, Any]) -> str:  # holds every move until the API has been searched
        asked.set()
        assert go_on.wait(60), "the test never let the bot move"
        return random_choice(request)

    with push_bots(held, random_choice) as servers:
        bots = [register(client, owner, f"bot{n}", server.url, (game,)) for n, server in enumerate(servers)]
        bot_ids = [bot["id"] for bot in bots]
        created = create_tournament(
            client, owner, bot_ids, game=game, rounds=ROUNDS, seed=SEED, move_timeout_ms=60_000
        )
        tournament_id = created["id"]
        try:
            assert asked.wait(60), "no game asked the held bot to move"
            salt, running = secrets_of(arena, tournament_id)
            assert running, "no game is being played"
            hidden = [str(SEED), salt, *map(str, running.values())]
            for path, response in answers(client, owner, [b["token"] for b in bots], tournament_id, [*running]):
                text = response.get_data(as_text=True)
                leaked = [secret for secret in hidden if secret in text]
                assert not leaked, f"{path} shows {leaked} while the tournament runs: {text[:300]}"
            shown = client.get(f"{API}/tournaments/{tournament_id}").get_json()
            assert shown["status"] == "running" and shown["seed"] is None and shown["seed_salt"] is None
            for game_id in running:
                assert client.get(f"{API}/games/{game_id}").get_json()["seed"] is None
                assert client.get(f"{API}/games/{game_id}/record").status_code == 409
        finally:
            go_on.set()
        done = wait_done(client, tournament_id)

    # published: the tournament's seed and salt give every game's seed and seating, in play order
    assert done["seed"] == SEED and done["seed_salt"] == salt
    records = [
        json.loads(line) for line in client.get(f"{API}/tournaments/{tournament_id}/games.jsonl").text.splitlines()
    ]
    planned = schedule(bot_ids, 2, ROUNDS, done["seed"], done["seed_salt"])
    assert len(records) == len(planned) == len(done["results"]) == 2 * ROUNDS
    assert [record["seed"] for record in records] == [pairing.seed for pairing in planned]
    assert [[seat["bot_id"] for seat in record["seats"]] for record in records] == [list(p.seats) for p in planned]

    for record in records:
        game_id = record["game_id"]
        shown_game = client.get(f"{API}/games/{game_id}").get_json()
        published = client.get(f"{API}/games/{game_id}/record").get_json()
        assert shown_game["seed"] == published["seed"] == record["seed"]
        actions = [action["action"] for action in published["actions"]]
        assert [action["ply"] for action in published["actions"]] == list(range(len(actions)))
        assert all(action["fault"] is None for action in published["actions"])

        replayed = engine.replay(published["game"], published["settings"], published["seed"], actions)
        stored = saved_game(arena, game_id)
        assert engine.is_over(replayed)
        assert engine.to_json(replayed) == json.loads(stored.state)
        assert engine.view(replayed, None) == shown_game["view"]
        result = final_result(engine.result(replayed), 2, forfeited=[])
        assert result == published["result"] == stored.result
        assert next(r for r in done["results"] if r["game_id"] == game_id)["ranks"] == result["ranks"]
