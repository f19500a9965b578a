"""A cancelled tournament's own standings count every result it has (tournament/standings/tables.py,
tournament/jobs.py): its table is refit at every 5% of its games and at its last result, which a cancelled tournament
never reaches, so its table stayed at its last 5% step (here 50 of its 54 results); the job after the cancellation
refits it on all of them, as the API and its page then show; one cancelled under an older release is refit by the
upgrade's upkeep (tournament/standings/upkeep.py). On SQLite and PostgreSQL, through the API, with the embedded queue
running the job."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update

from store.models import BotVersion, Game, Tournament, TournamentGame
from tests.apikit import API, new_player
from tests.arenakit import arena_app, register, tournament_row, wait_for, write_result
from tests.conftest import dispose
from tournament.standings import tables, upkeep

GAMES = 100
PLAYED = 54
"""Results written before the cancellation: past the table's refit at 50 (every 5 of 100 games, at least 10)."""


def test_a_cancelled_tournaments_own_table_counts_every_result_it_has(database_url: str) -> None:
    app = arena_app(database_url)
    try:
        client = app.test_client()
        owner = new_player(client, "owner")
        bots = [register(client, owner, name, None, games=("card",))["id"] for name in ("ann", "bob")]
        sessions = app.extensions["db_sessions"]
        rng = random.Random(5)
        with sessions() as session:
            versions = dict(session.execute(select(BotVersion.bot_id, BotVersion.id)).all())
            tournament_id = tournament_row(
                session, owner.id, bot_ids=bots, games_total=GAMES, rounds=GAMES // 2, rated=True
            ).id
            session.commit()
            for number in range(PLAYED):
                seats = bots if number % 2 == 0 else bots[::-1]
                game_id, scheduled_id = played_game(session, owner.id, tournament_id, number, number // 2, seats)
                ranks = [0, 1] if rng.random() < (0.8 if seats[0] == bots[0] else 0.3) else [1, 0]
                write_result(session, result(tournament_id, scheduled_id, game_id, seats, versions, ranks))
                session.commit()
                tables.refresh_tournament(session, tournament_id)  # as the worker that wrote it does

        def counted() -> int:
            body: dict[str, Any] = client.get(f"{API}/tournaments/{tournament_id}").get_json()
            return int(sum(row["games"] for row in body["standings"])) // 2

        assert counted() == 50, "the table as of its last 5% step"
        answer = client.post(f"{API}/tournaments/{tournament_id}/cancel", headers=owner.headers)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        wait_for("the cancelled tournament's table refit on all its results", lambda: counted() == PLAYED)
        body = client.get(f"{API}/tournaments/{tournament_id}").get_json()
        assert body["status"] == "cancelled"
        with sessions() as session:
            expected = tables.tournament_table(session, tournament_id, bots)
        keys = ("bot_id", "games", "wins", "elo", "low", "high")
        assert [{key: row[key] for key in keys} for row in body["standings"]] == [
            {key: row[key] for key in keys} for row in expected["standings"]
        ]
        page = client.get(f"/tournaments/{tournament_id}").get_data(as_text=True)
        assert sorted(re.findall(r'data-bot-id="\d+" data-games="(\d+)"', page)) == [str(PLAYED)] * 2
        app.extensions["queue"].wait(timeout=60)
        # cancelled under an older release, which left its table behind: the upgrade's upkeep refits it
        with sessions() as session:
            session.execute(
                update(Tournament)
                .where(Tournament.id == tournament_id)
                .values(standings=None, standings_through=0)
            )
            session.commit()
        assert counted() == 0
        assert upkeep.refit_behind(sessions) == [
            f"cancelled tournament {tournament_id}'s table refit on every result it has"
        ]
        assert counted() == PLAYED
        assert upkeep.refit_behind(sessions) == [], "nothing behind any more"
    finally:
        dispose(app)


def played_game(
    session: Any, owner_id: int, tournament_id: int, number: int, round_number: int, seats: list[int]
) -> tuple[int, int]:
    """A finished 2-seat card game of the tournament and its schedule row, written as a worker leaves them (the
    result aside): their ids."""
    game = Game(game="card", settings={}, seed=number, seats=2, status="over", state="{}")
    game.created_by = owner_id
    session.add(game)
    session.flush()
    scheduled = TournamentGame(
        tournament_id=tournament_id,
        number=number,
        round=round_number,
        bot_ids=seats,
        seed=number,
        game_id=game.id,
        status="done",
    )
    session.add(scheduled)
    session.flush()
    return game.id, scheduled.id


def result(
    tournament_id: int,
    scheduled_id: int,
    game_id: int,
    seats: list[int],
    versions: dict[int, int],
    ranks: list[int],
) -> dict[str, Any]:
    return {
        "tournament_game_id": scheduled_id,
        "tournament_id": tournament_id,
        "game_id": game_id,
        "game": "card",
        "variant": "standard",
        "rated": True,
        "bot_ids": seats,
        "version_ids": [versions[bot] for bot in seats],
        "ranks": ranks,
        "reason": "win",
        "forfeited": [],
        "faults": [0, 0],
        "moves": 10,
        "finished_at": datetime.now(UTC),
    }
