"""Paired deals only where nobody can cheat, played by real ``sorry-arena worker`` processes (RQ on the tests' Redis)
against push bots on loopback, on SQLite and PostgreSQL.

A match with another account's bot plays independent deals: no bot is ever dealt, in one game, the hands its
opponent held in another (the attack: a bot remembers a deal it held). A match of one account's own bots is paired:
its twin games (one deal, seats swapped) are played one after the other, never at once, and nothing shows the deal
(the seed, the replay, the record, the tournament's export, the game's page) while the twin is still to be played.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

import engine
from ratings.sprt import Sprt
from store.models import Game, Result, TournamentGame
from tests.apikit import API, Player, new_player
from tests.arenakit import SECRET, arena_app, push_bots, random_choice, wait_for
from tests.conftest import dispose
from tests.tournament.test_rq import Workers


@pytest.fixture
def served(database_url: str, redis_url: str) -> Iterator[Flask]:
    """The API on the test's database (SQLite or PostgreSQL) with the RQ queue on the test's Redis: its games are
    played by the worker processes of :func:`workers`, not by threads of the app."""
    app = arena_app(database_url, redis_url)
    yield app
    dispose(app)


@pytest.fixture
def workers(database_url: str, redis_url: str, tmp_path: Path) -> Iterator[Workers]:
    running = Workers(database_url, redis_url, tmp_path)
    yield running
    running.stop()


def register(client: FlaskClient, owner: Player, name: str, url: str, open_to_others: bool = False) -> int:
    body = {"name": name, "url": url, "games": ["card"], "secret": SECRET, "open_to_others": open_to_others}
    response = client.post(f"{API}/bots", json=body, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    bot_id: int = response.get_json()["id"]
    return bot_id


def start_match(client: FlaskClient, owner: Player, **fields: Any) -> dict[str, Any]:
    body = {"game": "card", "seed": 11, "elo0": -5, "elo1": 5, "move_timeout_ms": 60_000, **fields}
    response = client.post(f"{API}/matches", json=body, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    created: dict[str, Any] = response.get_json()
    return created


def match_done(client: FlaskClient, match_id: int) -> dict[str, Any] | None:
    body: dict[str, Any] = client.get(f"{API}/matches/{match_id}").get_json()
    return body if body["status"] == "done" else None


def opening_hands(settings: dict[str, Any], seed: int, bot_ids: list[int]) -> dict[int, tuple[str, ...]]:
    """Each bot's opening hand in the card game dealt by ``seed``, its seats as ``bot_ids``."""
    state = engine.new_game("card", settings, seed)
    return {bot: tuple(engine.view(state, seat)["hand"]) for seat, bot in enumerate(bot_ids)}


def test_a_match_against_another_accounts_bot_plays_independent_deals(served: Flask, workers: Workers) -> None:
    client = served.test_client()
    owner, other = new_player(client, "owner"), new_player(client, "rival")
    with push_bots(random_choice, random_choice) as servers:
        mine = register(client, owner, "mine", servers[0].url)
        theirs = register(client, other, "theirs", servers[1].url, open_to_others=True)
        # paired deals with another account's bot are refused when asked for, and never chosen by default
        asked = client.post(
            f"{API}/matches",
            json={"game": "card", "bot_a": mine, "bot_b": theirs, "paired": True},
            headers=owner.headers,
        )
        assert asked.status_code == 422 and f"bot {theirs} is another account's" in asked.get_json()["message"]
        # a gauntlet decides match by match: paired against the caller's own bot only
        mine_too = register(client, owner, "mine too", servers[0].url)
        field = client.post(
            f"{API}/gauntlets",
            json={"game": "card", "bot": mine, "opponents": [mine_too, theirs], "max_games": 2},
            headers=owner.headers,
        ).get_json()
        assert [(m["bot_b"], m["paired"], len(m["counts"])) for m in field["matches"]] == [
            (mine_too, True, 5),
            (theirs, False, 3),
        ]
        for match in field["matches"]:  # cancelled before any worker runs: nothing of it is played
            cancel = client.post(f"{API}/tournaments/{match['tournament_id']}/cancel", headers=owner.headers)
            assert cancel.status_code == 200, cancel.get_data(as_text=True)
        created = start_match(client, owner, bot_a=mine, bot_b=theirs, max_games=6)
        assert created["paired"] is False and created["counts"] == [0, 0, 0]
        workers.start("--burst")
        done = wait_for("the match played", lambda: match_done(client, created["id"]))
    assert done["paired"] is False and done["verdict"] == "inconclusive", done
    # the test counted single games (trinomial: A's losses, ties, wins), not pairs
    assert done["games"] == 6 and sum(done["counts"]) == 6 and len(done["counts"]) == 3 and done["pairs"] == 0
    assert done["llr"] == pytest.approx(Sprt(-5, 5).llr(done["counts"]))
    assert done["elo"] is not None and done["elo"]["pairs"] == 6
    games = {r["game_id"]: r for r in done["results"]}
    details = {game_id: client.get(f"{API}/games/{game_id}").get_json() for game_id in games}
    seeds = {game_id: detail["seed"] for game_id, detail in details.items()}
    assert None not in seeds.values() and len(set(seeds.values())) == 6  # a deal per game
    hands = {
        game_id: opening_hands(details[game_id]["settings"], seed, games[game_id]["bot_ids"])
        for game_id, seed in seeds.items()
    }
    # the leak: a bot dealt, in one game, the hand its opponent held in another, and its opponent its own (one
    # deal with the seats swapped: a paired match's twin games, 2 per pair); by chance ~1e-9 a comparison
    leaks = [
        (one, two)
        for one in hands
        for two in hands
        if one != two and hands[one][mine] == hands[two][theirs] and hands[one][theirs] == hands[two][mine]
    ]
    assert leaks == []
    by_pair: dict[int, list[list[int]]] = {}
    for result in done["results"]:
        by_pair.setdefault(result["pair"], []).append(result["bot_ids"])
    assert all(seats == [[mine, theirs], [theirs, mine]] for seats in by_pair.values())  # seats still swapped


class Gate:
    """A bot that holds its first move of the second game it sees until the test opens the gate."""

    def __init__(self) -> None:
        self.games: list[int] = []
        self.lock = threading.Lock()
        self.reached = threading.Event()
        self.open = threading.Event()

    def __call__(self, request: dict[str, Any]) -> str:
        with self.lock:
            if request["game_id"] not in self.games:
                self.games.append(request["game_id"])
            second = len(self.games) > 1 and request["game_id"] == self.games[1]
        if second and not self.open.is_set():
            self.reached.set()
            self.open.wait(50)
            self.open.set()  # held once
        return random_choice(request)


def test_a_match_of_ones_own_bots_is_paired_its_twins_never_overlap_and_the_deal_stays_hidden_meanwhile(
    served: Flask, workers: Workers
) -> None:
    client = served.test_client()
    owner = new_player(client, "owner")
    sessions = served.extensions["db_sessions"]
    gate = Gate()
    with push_bots(gate, random_choice) as servers:
        a, b = register(client, owner, "v2", servers[0].url), register(client, owner, "v1", servers[1].url)
        created = start_match(client, owner, bot_a=a, bot_b=b, max_games=2)
        assert created["paired"] is True and created["counts"] == [0, 0, 0, 0, 0]
        workers.start()  # 8 games at once: nothing but the dispatch keeps the twins apart
        try:
            assert gate.reached.wait(180), "the second game never reached bot A"

            def first_over() -> tuple[int, int, int] | None:
                """The game over, the one held (bot A's second game), and their deal's seed."""
                with sessions() as session:
                    rows = session.execute(
                        select(TournamentGame.game_id, TournamentGame.seed, Result.id)
                        .outerjoin(Result, Result.tournament_game_id == TournamentGame.id)
                        .where(TournamentGame.tournament_id == created["tournament_id"])
                    ).all()
                over = [(game_id, seed) for game_id, seed, result in rows if result is not None]
                held = gate.games[1]
                return (over[0][0], held, over[0][1]) if over and over[0][0] != held else None

            first, second, seed = wait_for("the first game over", first_over)
            # the twin is being played (bot A holds its move): nothing shows the first game's deal
            hidden = client.get(f"{API}/games/{first}")
            shown = hidden.get_json()
            assert shown["status"] == "over" and shown["seed"] is None
            assert client.get(f"{API}/games/{first}/events").get_json()["replay"] is None
            record = client.get(f"{API}/games/{first}/record")
            assert record.status_code == 409 and "shares its deal" in record.get_json()["message"]
            export = client.get(f"{API}/tournaments/{created['tournament_id']}/games.jsonl")
            assert export.status_code == 200 and export.get_data(as_text=True) == ""
            page = client.get(f"/games/{first}").get_data(as_text=True)
            assert str(seed) not in page
        finally:
            gate.open.set()
        done = wait_for("the match played", lambda: match_done(client, created["id"]))
    assert done["paired"] is True and done["verdict"] == "inconclusive" and done["pairs"] == 1, done
    assert sum(done["counts"]) == 1 and len(done["counts"]) == 5
    with sessions() as session:
        played = session.execute(
            select(TournamentGame.number, Game.created_at, Result.finished_at)
            .join(Game, Game.id == TournamentGame.game_id)
            .join(Result, Result.tournament_game_id == TournamentGame.id)
            .where(TournamentGame.tournament_id == created["tournament_id"])
            .order_by(TournamentGame.number)
        ).all()
    (_, _, first_end), (_, second_start, _) = played
    assert second_start >= first_end  # one after the other, never at once
    # both over: the deal is everyone's, one seed for the two games
    seeds = [client.get(f"{API}/games/{game_id}").get_json()["seed"] for game_id in (first, second)]
    assert seeds == [seed, seed]
    # a client that cached the hidden body is not told it still holds (no new ply, but a seed now)
    again = client.get(f"{API}/games/{first}", headers={"If-None-Match": hidden.headers["ETag"]})
    assert again.status_code == 200 and again.get_json()["seed"] == seed
    assert client.get(f"{API}/games/{first}/record").status_code == 200
    lines = client.get(f"{API}/tournaments/{created['tournament_id']}/games.jsonl").get_data(as_text=True)
    assert len(lines.splitlines()) == 2
