"""A ladder on a real worker, end to end: twelve push bots of known strengths, from one that plays the worst move it
sees to the example greedy bot, in a 4-seat card ladder with a budget of games per hour, on PostgreSQL and Redis.

The bots' strengths are graded mixtures (``graded``): at strength ``s`` below one half a bot plays the move the
example greedy bot values least with probability ``1 - 2s``, else a random one; above one half the greedy bot's move
with probability ``2s - 1``. Twelve grades spread about 390 Elo apart at 4 seats of the 2-pawn card game, each a
step of about 35, monotone (a fit of 3,000 simulated games). The ladder runs until every bot has played its hourly
budget (``BUDGET``: all but at most three of them, as a table takes four), so it stops by itself; meanwhile:

- one bot joins late, after the others have played a third of their budget, and must settle (its interval within
  +-50 Elo) by its budget;
- one bot is paused by its owner: no game of it is made after the pause's answer (its game in play finishes), and
  it is resumed;
- another account's 24-game tournament is played, and must finish within twice its time alone (measured before the
  ladder opened and again once it stopped, on the same worker of 4 slots: a quarter of them, one, is each account's
  share).

The ladder has at most two games in play (``max_in_play``): eight of its bots play while four wait, so the bot with the
fewest games is the next a game is made for, and the late one catches up.

At the end: no bot began more games than its budget, and every game was rated; the ladder's order matches the grades (Spearman's rho >= 0.9);
every pair of bots met (no pairing starved); every game made was played and rated once.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from clients.examples import greedy_bot
from store.models import Ladder, LadderGame, LadderPair, LadderSeat, Result
from tests.apikit import API, Player, new_player
from tests.arenakit import (
    Choose,
    arena_app,
    create_tournament,
    push_bots,
    random_choice,
    register,
    wait_done,
    wait_for,
    wait_ladder_fit,
)
from tests.conftest import dispose
from tests.databases import Templates
from tests.reliability.harness import record
from tests.tournament.test_account_share import start_worker
from tests.tournament.test_rq import Workers

log = logging.getLogger(__name__)

pytestmark = pytest.mark.slow

GRADES = [k / 11 for k in range(12)]
"""The bots' strengths, weakest first."""
LATE = 6
"""The grade of the bot that joins late."""
PAUSED = 3
"""The grade of the bot its owner pauses."""
BUDGET = 160
"""Games per bot per hour: the ladder stops by itself once every bot has played them (a 4-seat newcomer settles
within +-50 Elo in 120 games, 150 at the 90th percentile: docs/performance.md#ladders)."""
CARD = {"players": 4, "pawns": 2}
SLACK_MS = 20_000
"""The bots' time per move: they answer at once, and a loaded machine must not add a fault."""


def graded(strength: float, seed: int) -> Choose:
    """A bot of ``strength`` in [0, 1]: the worst move (by the example greedy bot's values) with probability
    ``1 - 2 * strength`` below one half, the greedy move with probability ``2 * strength - 1`` above, else random."""
    rng = random.Random(seed)
    greedy = 2 * strength - 1 if strength > 0.5 else 0.0
    worst = 1 - 2 * strength if strength < 0.5 else 0.0

    def choose(request: dict[str, Any]) -> str:
        view, actions = request["view"], request["actions"]
        value = greedy_bot.card_value
        draw = rng.random()
        if draw < greedy:
            return str(max(actions, key=lambda action: value(view, action))["id"])
        if draw < greedy + worst:
            return str(min(actions, key=lambda action: value(view, action))["id"])
        return str(rng.choice(actions)["id"])

    return choose


def spearman(first: list[float], second: list[float]) -> float:
    """Spearman's rank correlation of two lists without ties."""

    def ranks(values: list[float]) -> list[int]:
        order = sorted(range(len(values)), key=values.__getitem__)
        placed = [0] * len(values)
        for place, index in enumerate(order):
            placed[index] = place
        return placed

    a, b = ranks(first), ranks(second)
    n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) / (n * (n * n - 1))


@pytest.fixture
def pg_url(templates: Templates) -> Iterator[str]:
    yield from templates.postgresql("sorry_arena_ladder")


@pytest.fixture
def served(pg_url: str, redis_url: str) -> Iterator[Flask]:
    """The app on the test's PostgreSQL database, its jobs queued in the test's Redis for the worker."""
    app = arena_app(pg_url, redis_url)
    yield app
    dispose(app)


@pytest.fixture
def workers(pg_url: str, redis_url: str, tmp_path: Path) -> Iterator[Workers]:
    running = Workers(pg_url, redis_url, tmp_path, lease_seconds=None)
    yield running
    running.stop()


def ladder(client: FlaskClient, ladder_id: int) -> dict[str, Any]:
    answer = client.get(f"{API}/ladders/{ladder_id}")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body: dict[str, Any] = answer.get_json()
    return body


def join(client: FlaskClient, owner: Player, ladder_id: int, bot_id: int) -> None:
    answer = client.post(f"{API}/ladders/{ladder_id}/bots", json={"bot_id": bot_id}, headers=owner.headers)
    assert answer.status_code in (200, 201), answer.get_data(as_text=True)


def games_of(body: dict[str, Any]) -> dict[int, int]:
    return {row["bot_id"]: row["games"] for row in body["standings"]}


def seats_of(app: Flask, ladder_id: int) -> dict[int, int]:
    """The games made for each bot of the ladder (its seats): what its budget counts."""
    with app.extensions["db_sessions"]() as session:
        return dict(
            session.execute(
                select(LadderSeat.bot_id, func.count())
                .where(LadderSeat.ladder_id == ladder_id)
                .group_by(LadderSeat.bot_id)
            ).all()
        )


def tournament_time(client: FlaskClient, player: Player, bots: list[int]) -> float:
    """The seconds another account's 24-game card tournament (4 bots, 4 seats, 6 rounds) takes, from its creation
    to its end."""
    started = time.monotonic()
    made = create_tournament(
        client, player, bots, game="card", settings=CARD, table_size=4, rounds=6, move_timeout_ms=SLACK_MS
    )
    wait_done(client, made["id"], timeout=600)
    return time.monotonic() - started


def test_a_ladder_of_twelve_graded_bots_ranks_them_within_their_budgets(served: Flask, workers: Workers) -> None:
    client = served.test_client()
    owner, other = new_player(client, "owner"), new_player(client, "other")
    start_worker(workers, 4)  # each account's share: one slot (a quarter); the ladder's two games take turns
    chooses = [graded(strength, seed) for seed, strength in enumerate(GRADES)]
    with push_bots(*chooses, *[random_choice] * 4) as servers:
        bots = [register(client, owner, f"grade{n}", server.url)["id"] for n, server in enumerate(servers[:12])]
        theirs = [register(client, other, f"t{n}", server.url)["id"] for n, server in enumerate(servers[12:])]
        alone = tournament_time(client, other, theirs)

        made = client.post(
            f"{API}/ladders",
            json={
                "name": "graded",
                "game": "card",
                "settings": CARD,
                "table_size": 4,
                "move_timeout_ms": SLACK_MS,
                "budget_per_hour": BUDGET,
                "max_in_play": 2,
            },
            headers=owner.headers,
        )
        assert made.status_code == 201, made.get_data(as_text=True)
        ladder_id = made.get_json()["id"]
        for grade, bot in enumerate(bots):
            if grade != LATE:
                join(client, owner, ladder_id, bot)
        wait_for(
            "the first bots a third into their budget",
            lambda: min(games_of(ladder(client, ladder_id)).values()) >= BUDGET // 3,
            timeout=600,
        )
        join(client, owner, ladder_id, bots[LATE])

        # a pause stops the bot's games within one game: none is made after the pause's answer
        paused = client.post(f"{API}/ladders/{ladder_id}/bots/{bots[PAUSED]}/pause", headers=owner.headers)
        assert paused.status_code == 200, paused.get_data(as_text=True)
        seats_at_pause = seats_of(served, ladder_id).get(bots[PAUSED], 0)
        others_at_pause = sum(games_of(ladder(client, ladder_id)).values())
        during = tournament_time(client, other, theirs)
        wait_for(
            "ten more games of the others",
            lambda: sum(games_of(ladder(client, ladder_id)).values()) >= others_at_pause + 40,
            timeout=600,
        )
        assert seats_of(served, ladder_id).get(bots[PAUSED], 0) == seats_at_pause
        row = next(row for row in ladder(client, ladder_id)["standings"] if row["bot_id"] == bots[PAUSED])
        assert row["paused"] and row["pause_reason"]
        resumed = client.post(f"{API}/ladders/{ladder_id}/bots/{bots[PAUSED]}/resume", headers=owner.headers)
        assert resumed.status_code == 200, resumed.get_data(as_text=True)

        def everyone_done() -> dict[str, Any] | None:
            """The ladder once no table can be made (fewer than 4 bots under budget) and no game is in play."""
            body = ladder(client, ladder_id)
            under = sum(1 for row in body["standings"] if row["budget_left"] > 0)
            return body if body["games_in_play"] == 0 and under < 4 else None

        wait_for("every bot at its budget, or all but three", everyone_done, timeout=900)
        final = wait_ladder_fit(client, ladder_id)  # the standings: the fit of every result (off the game path)
        seats = seats_of(served, ladder_id)
        after = tournament_time(
            client, other, theirs
        )  # alone again: the machine's load may have changed meanwhile

    record("ladder_tournament_alone_s", round(max(alone, after), 2))
    record("ladder_tournament_beside_the_ladder_s", round(during, 2))
    assert during <= 2 * max(alone, after), (alone, during, after)

    rows = {row["bot_id"]: row for row in final["standings"]}
    assert set(rows) == set(bots)
    # within budget: no bot began more games than its budget (all in the same hour), every game was rated
    assert max(seats.values()) <= BUDGET and min(seats.values()) >= 0.9 * BUDGET, seats
    assert all(rows[bot]["games"] == seats[bot] for bot in bots), (rows, seats)
    rho = spearman(GRADES, [rows[bot]["rating"] for bot in bots])
    record("ladder_spearman_rho", round(rho, 3))
    assert rho >= 0.9, [(rows[bot]["name"], round(rows[bot]["rating"], 1)) for bot in bots]
    late = rows[bots[LATE]]
    assert not late["provisional"] and late["high"] - late["low"] < 100, late
    with served.extensions["db_sessions"]() as session:
        pairs = {
            (low, high): games
            for low, high, games in session.execute(
                select(LadderPair.low, LadderPair.high, LadderPair.games).where(LadderPair.ladder_id == ladder_id)
            )
        }
        made_games = session.scalar(
            select(func.count()).select_from(LadderGame).where(LadderGame.ladder_id == ladder_id)
        )
        results = session.scalar(
            select(func.count())
            .select_from(Result)
            .where(
                Result.tournament_id
                == select(Ladder.tournament_id).where(Ladder.id == ladder_id).scalar_subquery()
            )
        )
        unsettled = session.scalar(
            select(func.count())
            .select_from(LadderGame)
            .where(LadderGame.ladder_id == ladder_id, LadderGame.settled.is_(False))
        )
    starved = [(a, b) for a in bots for b in bots if a < b and pairs.get((a, b), 0) == 0]
    assert not starved, starved
    assert made_games == results == sum(seats.values()) // 4 and unsettled == 0
    record("ladder_fewest_games_of_a_pair", min(pairs.values()))
