"""Fair dispatch (``tournament/dispatch/feed.py``): each account's games go to the queue a few at a time, round-robin across
accounts, so a small tournament submitted behind another account's big one is fed long before the big one's end.
Played with the embedded queue and push bots on SQLite and PostgreSQL: the small tournament's games all start
before the big one's 3 * window-th game."""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import select, update

from store.database import make_engine, sessions
from store.models import Player, TournamentGame
from tests.apikit import new_player
from tests.arenakit import create_tournament, push_bots, random_choice, register, tournament_row, wait_done
from tests.databases import index_plan
from tournament.dispatch import feed
from tournament.dispatch.feed import round_robin, take


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


def test_an_account_less_busy_than_another_goes_ahead_of_its_waiting_games(database_url: str) -> None:
    """Account A plays 10 games, has 4 waiting and 20 more to play; account B has 6 to play: B's games are fed first
    and go to the front of the queue, A's only up to its window, behind."""
    engine = make_engine(database_url)
    session = sessions(engine)()
    try:
        owners = []
        for name in ("a", "b"):
            player = Player(name=name, token_hash=name * 32)
            session.add(player)
            session.flush()
            owners.append(player.id)

        def tournament_of(owner: int, games: list[tuple[str, bool]]) -> list[int]:
            made = tournament_row(session, owner, games_total=len(games))
            rows = [
                TournamentGame(
                    tournament_id=made.id, number=n, round=0, bot_ids=[1, 2], seed=n, status=status, fed=fed
                )
                for n, (status, fed) in enumerate(games)
            ]
            session.add_all(rows)
            session.flush()
            return [row.id for row in rows]

        tournament_of(owners[0], [("running", True)] * 10 + [("pending", True)] * 4 + [("pending", False)] * 20)
        small = tournament_of(owners[1], [("pending", False)] * 6)
        session.commit()
        fed = take(session, window=8)
        assert fed[0].scheduled_id == small[0], "the least busy account first"
        assert {game.ahead for game in fed if game.scheduled_id in small} == {True}
        assert {game.ahead for game in fed if game.scheduled_id not in small} == {False}
        assert sum(game.scheduled_id in small for game in fed) == 6
        assert all(game.bot_ids == [1, 2] for game in fed), "each with its bots, for its job"
        assert sum(game.scheduled_id not in small for game in fed) == 4, "A topped up to its window only"
        assert take(session, window=8) == [], "every window full"
        session.execute(update(TournamentGame).where(TournamentGame.id.in_(small)).values(status="done"))
        session.execute(
            update(TournamentGame)
            .where(TournamentGame.fed.is_(True), TournamentGame.status == "pending")
            .values(status="running")
        )
        session.commit()
        fed = take(session, window=8)
        assert len(fed) == 8 and not any(game.ahead for game in fed), "alone, A goes ahead of no one"
    finally:
        session.close()
        engine.dispose()


def test_the_next_games_are_read_along_the_index_of_the_games_not_fed(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``candidates`` reads each running tournament's first games along ``ix_tournament_games_unfed`` (both
    planners), in play order, skipping the games fed and those done, over several statements when there are more
    running tournaments than :data:`feed.PARTS`."""
    monkeypatch.setattr(feed, "PARTS", 3)
    engine = make_engine(database_url)
    session = sessions(engine)()
    try:
        owner = Player(name="owner", token_hash="o" * 32)
        session.add(owner)
        session.flush()
        expected = []
        for number in range(7):
            made = tournament_row(session, owner.id, name=f"t{number}", games_total=5)
            games = [("done", True), ("pending", True), ("pending", False), ("pending", False), ("pending", False)]
            rows = [
                TournamentGame(
                    tournament_id=made.id, number=n, round=0, bot_ids=[1, 2], seed=n, status=status, fed=fed
                )
                for n, (status, fed) in reversed(list(enumerate(games)))  # ids against play order
            ]
            session.add_all(rows)
            session.flush()
            expected.append([row.id for row in reversed(rows)][2:4])
        session.commit()
        tournaments, queued, left = feed.running(session)
        assert feed.candidates(session, tournaments, 2) == {owner.id: expected}
        assert (queued, left) == ({owner.id: 7}, {owner.id: 28})
        part = (
            select(TournamentGame.id)
            .where(TournamentGame.tournament_id == tournaments[0][0], feed.UNFED)
            .order_by(TournamentGame.number)
            .limit(2)
        )
        plan = index_plan(session, part)
        assert "ix_tournament_games_unfed" in plan, plan
        session.rollback()
    finally:
        session.close()
        engine.dispose()
