"""The load run of ``benchmarks/load.py``, small: the real service (``sorry-arena serve``) on SQLite and on
PostgreSQL, 4 pull-client processes playing 2-4 seat board and card games through the decisions inbox for 5 s.
No 5xx, no lost or duplicated move (every stored log replays to its stored state; the moves the clients saw
accepted are exactly the stored ones), and the latency figures are there. Speed is measured, never asserted.

The check itself is tested too: a move dropped from, or repeated in, what the clients saw, and a stored state
that its log does not give, are each found.
"""

from __future__ import annotations

import random

from sqlalchemy import create_engine, update

from benchmarks import load
from store.models import Game
from tests.apikit import SQLITE_ONLY, get_actions, started_game, submit


def test_many_clients_lose_and_duplicate_no_move(database_url: str) -> None:
    args = load.parse_args(["--clients", "4", "--seconds", "5", "--games", "3"])
    figures = load.play_and_check(args, database_url)
    assert figures["failures"] == [], figures
    assert figures["5xx"] == 0 and figures["failed"] == 0 and figures["other"] == 0
    check = figures["check"]
    assert check["accepted_seen"] == check["stored_actions"] > 0
    assert check["stored_not_seen"] == check["seen_twice"] == check["seen_not_stored"] == 0
    assert check["games"] >= 4 * 3
    for kind in ("move", "poll"):
        latency = figures["latency_ms"][kind]
        assert latency["count"] > 0
        assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"] <= latency["max"]
    assert figures["moves_per_s"] > 0


@SQLITE_ONLY
def test_the_check_finds_a_lost_a_duplicated_and_a_wrongly_stored_move(client, database_url: str) -> None:
    game_id, players = started_game(client, "card", {"pawns": 2}, seats=2, seed=5)
    rng, accepted = random.Random(5), []
    for ply in range(6):
        for seat, player in enumerate(players):
            offered = get_actions(client, game_id, player)
            if offered["your_decision"]:
                action = rng.choice(offered["actions"])["id"]
                assert submit(client, game_id, player, action, ply).status_code == 200
                accepted.append((game_id, ply, seat, action))
                break
    assert len(accepted) == 6
    assert load.check_database(database_url, accepted)["problems"] == []

    lost = load.check_database(database_url, accepted[:-1])
    assert lost["stored_not_seen"] == 1 and lost["problems"]
    twice = load.check_database(database_url, [*accepted, accepted[2]])
    assert twice["seen_twice"] == 1 and twice["seen_not_stored"] == 1 and twice["problems"]
    ghost = load.check_database(database_url, [*accepted, (game_id + 1, 0, 0, "pass")])
    assert ghost["seen_not_stored"] == 1 and ghost["problems"]

    engine = create_engine(database_url)
    with engine.begin() as connection:  # a ply saved without its action
        connection.execute(update(Game).where(Game.id == game_id).values(ply=7))
    engine.dispose()
    problems = load.check_database(database_url, accepted)["problems"]
    assert any("ply 7 but 6 stored actions" in problem for problem in problems), problems
