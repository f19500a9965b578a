"""The pull client answers the decisions of several games at once (clients/pull.py's thread pool): against a fake
inbox, every decision listed is in ``choose`` at the same moment and each is posted once; against a real service,
a bot that thinks 3.5 s a move in 8 games at once, with a 5 s move limit, has no timeout."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

import engine
from clients.pull import PullClient
from tests.apikit import API, new_player
from tests.arenakit import Running, create_tournament, push_bots, random_choice, register, wait_done
from tests.clients.conftest import Service, served

GAMES = 8
THINK_S = 3.5


class FakeConnection:
    """A move's POST: accepted, and the game waits for the opponent."""

    def __init__(self, inbox: FakeInbox) -> None:
        self.inbox = inbox

    def call(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> tuple[int, Any]:
        assert method == "POST"
        game_id = int(path.split("/")[-2])
        self.inbox.posted(game_id, body["expected_ply"])
        return 200, {"status": "active", "ply": body["expected_ply"] + 1, "your_decision": False, "actions": []}

    def close(self) -> None:
        pass


class FakeInbox(PullClient):
    """A PullClient whose inbox lists one decision in each of ``games`` games until it is posted."""

    def __init__(self, games: int, **options: Any) -> None:
        super().__init__(self.choose_together, "http://127.0.0.1:9", "sa_x", wait=1, **options)
        state = engine.new_game("card", {"players": 2, "pawns": 1}, 1)
        asked = engine.decision(state)
        assert asked is not None
        self.listed = {
            game_id: {
                "game_id": game_id,
                "game": "card",
                "ply": 0,
                "seat": asked.seat,
                "decision": {"seat": asked.seat, "kind": asked.kind},
                "deadline": None,
                "view": engine.view(state, asked.seat),
                "actions": [action.to_json() for action in engine.legal_actions(state, asked.seat)],
            }
            for game_id in range(1, games + 1)
        }
        self.posts: Counter[tuple[int, int]] = Counter()
        self.together = threading.Barrier(games, timeout=60)
        self.fake_lock = threading.Lock()

    def choose_together(self, request: dict[str, Any]) -> str:
        self.together.wait()  # breaks (and fails the test) unless every decision is in choose() at once
        return str(request["actions"][0]["id"])

    def poll(self) -> dict[str, Any]:
        time.sleep(0.01)
        with self.fake_lock:
            decisions = list(self.listed.values())
        return {"decisions": decisions, "more": False, "games": len(decisions)}

    def connection(self) -> Any:
        return FakeConnection(self)

    def posted(self, game_id: int, ply: int) -> None:
        with self.fake_lock:
            self.posts[game_id, ply] += 1
            self.listed.pop(game_id, None)


def test_the_pool_answers_every_decision_at_once_and_each_once() -> None:
    client = FakeInbox(GAMES, threads=GAMES)
    stats = Running(client, until_idle=True).join(120)
    assert not client.together.broken
    assert client.posts == Counter({(game_id, 0): 1 for game_id in range(1, GAMES + 1)})
    assert stats.moves == GAMES and stats.late == stats.skipped == stats.conflicts == 0


def test_the_threads_flag_is_checked() -> None:
    with pytest.raises(ValueError, match="threads must be from 1 to 256, not 0"):
        PullClient(random_choice, "http://127.0.0.1:9", "sa_x", threads=0)


@pytest.fixture
def roomy(database_url: str) -> Iterator[Service]:
    """A service whose embedded worker plays the 8 games at once (one account may hold every slot)."""
    yield from served(database_url, games_per_worker=GAMES + 2, account_share_percent=100)


def test_a_bot_thinking_3_5_s_in_8_games_at_once_meets_a_5_s_limit(roomy: Service) -> None:
    owner = new_player(roomy.client, "owner")
    thinking = Counter[int]()
    lock = threading.Lock()
    most = [0]

    def slow(request: dict[str, Any]) -> str:
        with lock:
            thinking[request["game_id"]] += 1
            most[0] = max(most[0], sum(1 for count in thinking.values() if count))
        time.sleep(THINK_S)
        with lock:
            thinking[request["game_id"]] -= 1
        return random_choice(request)

    with push_bots(random_choice) as servers:
        pusher = register(roomy.client, owner, "quick", servers[0].url)
        puller = register(roomy.client, owner, "thinker", None)
        running = Running(PullClient(slow, roomy.url, puller["token"], wait=30), max_games=GAMES)
        created = create_tournament(
            roomy.client,
            owner,
            [pusher["id"], puller["id"]],
            game="card",
            settings={"pawns": 1},
            rounds=GAMES // 2,
            move_timeout_ms=5000,
        )
        done = wait_done(roomy.client, created["id"], timeout=300)
        stats = running.join(120)
    assert done["progress"] == {"done": GAMES, "total": GAMES}
    assert most[0] >= 4  # the games' decisions were thought about side by side (8 at once when they line up)
    faults = roomy.client.get(f"{API}/bots/{puller['id']}/faults", headers=owner.headers).get_json()
    assert faults["faults"] == [], faults
    for result in done["results"]:
        assert result["forfeited"] == [] and result["faults"] == [0, 0], result
    assert stats.games == GAMES and stats.late == stats.conflicts == 0
