"""Slots shared fairly, whoever holds them: a ``sorry-arena worker`` gives one account's games at most its share of
the slots (``SORRY_ARENA_ACCOUNT_SHARE_PERCENT``, a quarter: ``tournament/play/stalls.py``), and an account has one
challenge not over at a time, so accounts whose games wait out long deadlines leave the other slots to the others.

Two attacks, each on SQLite and PostgreSQL with a real worker and Redis, at a small size: the hogs' games start and
fill what they may of the worker's slots, then a victim's 4-game tournament of push bots is played. Each hog game
waits out several deadlines before it can end (far longer than the victim's games take), so the victim must be done
while every hog game is still being played: before, the hogs took every slot and the victim waited for the first of
their games to end. The victim's time alone and under attack are recorded (``record``) and logged.

- three accounts, each a tournament of two pull bots that never move (8 s a move: a game waits 40 s for its five
  timeouts); a worker of 4 slots, so each account holds 1 and the victim the fourth;
- four accounts flooding challenges they never play (20 s a move: the person forfeits at the second timeout, 40 s);
  each gets one challenge, the rest are 429s; a worker of 8 slots, so the challenges hold 4 and the victim its 2;
- the first attack on the embedded service (no Redis: its own 4 threads play the games, ``runtime.jobqueue``'s
  ``LocalQueue`` asking ``tournament.jobs.admit_embedded`` before each job), as on SQLite embedded.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from store.models import Result, TournamentGame
from tests.apikit import API, Player, new_player
from tests.arenakit import arena_app, create_tournament, push_bots, random_choice, register, wait_done, wait_for
from tests.conftest import dispose
from tests.reliability.harness import record
from tests.service.challengekit import open_bot
from tests.tournament.test_rq import Workers

log = logging.getLogger(__name__)

HOG_MOVE_TIMEOUT_MS = 8000
"""A hog pull bot's time per move: its game ends at its fifth timeout (the first seat's third), 40 s."""
PERSON_MOVE_TIMEOUT_MS = 20_000
"""A flooding person's time per move: the challenge ends at the person's second timeout, 40 s."""


@pytest.fixture
def served(database_url: str, redis_url: str) -> Iterator[Flask]:
    """The app on the test's database, its jobs queued in the test's Redis for the workers."""
    app = arena_app(database_url, redis_url)
    yield app
    dispose(app)


@pytest.fixture
def workers(database_url: str, redis_url: str, tmp_path: Path) -> Iterator[Workers]:
    running = Workers(database_url, redis_url, tmp_path, lease_seconds=None)
    yield running
    running.stop()


def start_worker(workers: Workers, slots: int) -> None:
    """Start a worker of ``slots`` slots and wait until it listens (the victim's time alone is not its start's)."""
    workers.start("--games", str(slots))
    log_file = workers.logs / "worker0.log"
    wait_for("the worker listening", lambda: "listening on queue" in log_file.read_text(errors="replace"))


def kind_of(database_url: str) -> str:
    return "sqlite" if database_url.startswith("sqlite") else "postgresql"


def running_games(app: Flask, tournaments: list[int]) -> int:
    with app.extensions["db_sessions"]() as session:
        return int(
            session.scalar(
                select(func.count(TournamentGame.id)).where(
                    TournamentGame.tournament_id.in_(tournaments), TournamentGame.status == "running"
                )
            )
            or 0
        )


def results_of(app: Flask, tournaments: list[int]) -> int:
    with app.extensions["db_sessions"]() as session:
        return int(session.scalar(select(func.count(Result.id)).where(Result.tournament_id.in_(tournaments))) or 0)


def victim_plays(client: FlaskClient, victim: Player, bots: list[int]) -> float:
    """The seconds the victim's 4-game tournament takes, from its creation to its end."""
    started = time.monotonic()
    made = create_tournament(client, victim, bots, game="card", rounds=2)
    wait_done(client, made["id"], timeout=180)
    return time.monotonic() - started


def test_never_moving_pull_bots_of_three_accounts_leave_the_victim_a_slot(
    served: Flask, workers: Workers, database_url: str
) -> None:
    client = served.test_client()
    victim = new_player(client, "victim")
    start_worker(workers, 4)
    with push_bots(random_choice, random_choice) as servers:
        bots = [register(client, victim, f"v{n}", server.url)["id"] for n, server in enumerate(servers)]
        alone = victim_plays(client, victim, bots)
        hog_tournaments = []
        for number in range(3):
            hog = new_player(client, f"hog{number}")
            pulls = [register(client, hog, f"h{number}{seat}", None)["id"] for seat in range(2)]
            made = create_tournament(
                client, hog, pulls, game="card", rounds=3, move_timeout_ms=HOG_MOVE_TIMEOUT_MS
            )
            hog_tournaments.append(made["id"])
        wait_for("3 hog games playing", lambda: running_games(served, hog_tournaments) >= 3)
        attacked = victim_plays(client, victim, bots)
        ended = results_of(served, hog_tournaments)
        playing = running_games(served, hog_tournaments)
    kind = kind_of(database_url)
    record(f"account_share_pull_hogs_{kind}_alone_s", round(alone, 2))
    record(f"account_share_pull_hogs_{kind}_attacked_s", round(attacked, 2))
    log.info("victim alone %.2f s, beside 3 accounts' never-moving pull bots %.2f s", alone, attacked)
    assert ended == 0, f"a hog game ended ({ended}) before the victim's tournament: {attacked:.1f} s"
    assert playing <= 3, f"{playing} hog games at once on 4 slots: an account's share is 1"


def test_a_challenge_flood_by_four_accounts_leaves_the_victim_its_share(
    served: Flask, workers: Workers, database_url: str
) -> None:
    client = served.test_client()
    victim = new_player(client, "victim")
    start_worker(workers, 8)
    with push_bots(random_choice, random_choice, random_choice) as servers:
        bots = [register(client, victim, f"v{n}", server.url)["id"] for n, server in enumerate(servers[:2])]
        alone = victim_plays(client, victim, bots)
        house = open_bot(client, new_player(client, "house"), "house", servers[2].url)
        challenges, refused = [], 0
        for number in range(4):
            person = new_player(client, f"person{number}")
            for _ in range(3):
                response = client.post(
                    f"{API}/challenges",
                    json={"game": "card", "bot_ids": [house["id"]], "move_timeout_ms": PERSON_MOVE_TIMEOUT_MS},
                    headers=person.headers,
                )
                assert response.status_code in (201, 429), response.get_data(as_text=True)
                if response.status_code == 201:
                    challenges.append(response.get_json()["id"])
                else:
                    refused += 1
        wait_for("the challenges' games playing", lambda: running_games(served, challenges) >= 4)
        attacked = victim_plays(client, victim, bots)
        ended = results_of(served, challenges)
    kind = kind_of(database_url)
    record(f"account_share_challenges_{kind}_alone_s", round(alone, 2))
    record(f"account_share_challenges_{kind}_attacked_s", round(attacked, 2))
    log.info("victim alone %.2f s, beside 4 accounts' challenges %.2f s", alone, attacked)
    assert ended == 0, f"a challenge ended ({ended}) before the victim's tournament: {attacked:.1f} s"
    assert (len(challenges), refused) == (4, 8), "one challenge not over per account"


def test_the_embedded_queue_leaves_the_victim_a_thread_beside_never_moving_pull_bots(database_url: str) -> None:
    app = arena_app(database_url, games_per_worker=4)
    client = app.test_client()
    hog_tournaments: list[int] = []
    hogs: list[Player] = []
    try:
        victim = new_player(client, "victim")
        with push_bots(random_choice, random_choice) as servers:
            bots = [register(client, victim, f"v{n}", server.url)["id"] for n, server in enumerate(servers)]
            alone = victim_plays(client, victim, bots)
            for number in range(3):
                hogs.append(new_player(client, f"hog{number}"))
                pulls = [register(client, hogs[-1], f"h{number}{seat}", None)["id"] for seat in range(2)]
                made = create_tournament(
                    client, hogs[-1], pulls, game="card", rounds=3, move_timeout_ms=HOG_MOVE_TIMEOUT_MS
                )
                hog_tournaments.append(made["id"])
            wait_for("3 hog games playing", lambda: running_games(app, hog_tournaments) >= 3)
            attacked = victim_plays(client, victim, bots)
            ended = results_of(app, hog_tournaments)
            playing = running_games(app, hog_tournaments)
    finally:
        for hog, tournament in zip(hogs, hog_tournaments, strict=True):  # their games stop at once
            client.post(f"{API}/tournaments/{tournament}/cancel", headers=hog.headers)
        app.extensions["queue"].wait(timeout=120)
        dispose(app)
    kind = kind_of(database_url)
    record(f"account_share_embedded_pull_hogs_{kind}_alone_s", round(alone, 2))
    record(f"account_share_embedded_pull_hogs_{kind}_attacked_s", round(attacked, 2))
    log.info("embedded: victim alone %.2f s, beside 3 accounts' never-moving pull bots %.2f s", alone, attacked)
    assert ended == 0, f"a hog game ended ({ended}) before the victim's tournament: {attacked:.1f} s"
    assert playing <= 3, f"{playing} hog games at once on 4 threads: an account's share is 1"
