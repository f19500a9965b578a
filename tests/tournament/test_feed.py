"""Fair dispatch (``tournament/feed.py``): each account's games go to the queue a few at a time, round-robin across
accounts, so a small tournament submitted behind another account's big one is fed long before the big one's end.
Played with the embedded queue and push bots on SQLite and PostgreSQL: the small tournament's games all start
before the big one's 3 * window-th game."""

from __future__ import annotations

from flask import Flask
from sqlalchemy import select

from store.models import TournamentGame
from tests.apikit import new_player
from tests.arenakit import create_tournament, push_bots, random_choice, register, wait_done
from tournament.feed import round_robin


def test_round_robin_takes_in_turn() -> None:
    assert round_robin([[1, 2, 3], [4], [5, 6]], 5) == [1, 4, 5, 2, 6]
    assert round_robin([[1, 2]], 0) == []


def test_a_small_tournament_is_not_starved_by_another_accounts_big_one(arena: Flask) -> None:
    client = arena.test_client()
    big_owner, small_owner = new_player(client, "big"), new_player(client, "small")
    with push_bots(random_choice, random_choice, random_choice, random_choice) as servers:
        big_bots = [
            register(client, big_owner, f"b{n}", s.url, ("card",))["id"] for n, s in enumerate(servers[:2])
        ]
        small_bots = [
            register(client, small_owner, f"s{n}", s.url, ("card",))["id"] for n, s in enumerate(servers[2:])
        ]
        big = create_tournament(client, big_owner, big_bots, game="card", rounds=30)  # 60 games
        small = create_tournament(client, small_owner, small_bots, game="card", rounds=2)  # 4 games
        wait_done(client, small["id"])
        wait_done(client, big["id"], timeout=300)
    with arena.extensions["db_sessions"]() as session:
        started = session.execute(
            select(TournamentGame.tournament_id, TournamentGame.game_id).order_by(TournamentGame.game_id)
        ).all()
    order = [tournament for tournament, _ in started]
    window = arena.extensions["settings"].feed_window
    last_small = max(place for place, tournament in enumerate(order) if tournament == small["id"])
    assert last_small < 3 * window, order
