"""A tournament whose bots did not all meet (a cancelled run's may not have) has its table fitted group by group, as
a pool's is (tournament/standings/tables.py): each row's ``group``, the larger group first, a mean of 1500 within
each, in the API and on its page with the words that ratings compare within a group only. On SQLite and
PostgreSQL."""

from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy import select

from store.models import BotVersion
from tests.apikit import API, new_player
from tests.arenakit import arena_app, register, tournament_row, write_result
from tests.conftest import dispose
from tests.tournament.test_cancelled_standings import played_game, result
from tournament.standings import tables

PAIRS = (("ann", "bob"), ("bob", "cid"), ("dan", "eve"))
"""The games played: ann, bob and cid met; dan and eve only each other."""


def test_a_tournament_of_bots_that_never_all_met_is_shown_group_by_group(database_url: str) -> None:
    app = arena_app(database_url)
    try:
        client = app.test_client()
        owner = new_player(client, "owner")
        bots = {
            name: register(client, owner, name, None, games=("card",))["id"]
            for name in ["ann", "bob", "cid", "dan", "eve"]
        }
        sessions = app.extensions["db_sessions"]
        rng = random.Random(3)
        with sessions() as session:
            versions = dict(session.execute(select(BotVersion.bot_id, BotVersion.id)).all())
            tournament_id = tournament_row(
                session, owner.id, bot_ids=list(bots.values()), games_total=40, rounds=8, rated=True
            ).id
            session.commit()
            for number in range(20):  # a refit at 20 of 40 games (every 10)
                seats = [bots[name] for name in PAIRS[number % 3]]
                game_id, scheduled_id = played_game(session, owner.id, tournament_id, number, number // 3, seats)
                ranks = [0, 1] if rng.random() < 0.6 else [1, 0]
                write_result(session, result(tournament_id, scheduled_id, game_id, seats, versions, ranks))
                session.commit()
            table = tables.tournament_table(session, tournament_id, list(bots.values()))
            assert tables.refresh_tournament(session, tournament_id) is False
        assert table["groups"] == 2
        group = {row["name"]: row["group"] for row in table["standings"]}
        assert group == {"ann": 1, "bob": 1, "cid": 1, "dan": 2, "eve": 2}
        assert [row["group"] for row in table["standings"]] == [1, 1, 1, 2, 2]  # the larger group first
        for number in (1, 2):
            ratings = [row["elo"] for row in table["standings"] if row["group"] == number]
            assert sum(ratings) / len(ratings) == pytest.approx(1500.0, abs=1e-6)
        body: dict[str, Any] = client.get(f"{API}/tournaments/{tournament_id}").get_json()
        assert [(row["bot_id"], row["group"]) for row in body["standings"]] == [
            (row["bot_id"], row["group"]) for row in table["standings"]
        ]
        page = client.get(f"/tournaments/{tournament_id}").get_data(as_text=True)
        assert "ratings are not comparable across groups" in page
        assert page.count('data-group="2"') == 2
    finally:
        dispose(app)
