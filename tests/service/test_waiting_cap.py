"""The cap on one account's concurrent long polls (``SORRY_ARENA_MAX_WAITING_PER_ACCOUNT``, ``service/waiting.py``):
beyond it a 429 that says so, with ``Retry-After``; answered polls give their slots back; other accounts and polls
answered at once are not held to it; counted across apps through Redis, where a slot of a killed process lapses on
its own. The real server under attack is tests/reliability/test_waiting_attacks.py."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from flask import Flask

import engine
from runtime.wakeups import game_channel, player_channel
from service import waiting
from tests.apikit import API, asked_seat, create_game, new_player, submit, take_seat
from tests.conftest import dispose, make_app
from tests.service.longpolls import WAIT_S

CAP = 3


def capped(app: Flask, cap: int = CAP) -> Flask:
    app.extensions["settings"].max_waiting_per_account = cap
    return app


def until_waiting(app: Flask, channel: str, count: int, timeout: float = 60) -> None:
    """Return once ``count`` long polls of ``app`` watch ``channel``."""
    hub = app.extensions["notifier"].hub
    deadline = time.monotonic() + timeout
    while len(hub._waiters.get(channel, ())) < count:
        assert time.monotonic() < deadline, f"{count} long polls do not watch {channel} after {timeout} s"
        time.sleep(0.005)


def poll(app: Flask, path: str, headers: dict[str, str]) -> tuple[threading.Thread, dict[str, Any]]:
    """A request in a thread of its own; its response (or error) lands in the returned dict."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["response"] = app.test_client().get(path, headers=headers)
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def first_seat_decides(seed: int) -> bool:
    return engine.decision(engine.new_game("board", {"players": 2}, seed)).seat == 0


def assert_refused(response: Any, cap: int) -> None:
    assert response.status_code == 429, response.get_data(as_text=True)
    body = response.get_json()
    assert body["code"] == 429
    assert f"at most {cap} long polls" in body["message"] and waiting.VARIABLE in body["message"]
    assert response.headers["Retry-After"] == str(waiting.RETRY_AFTER_SECONDS)


def test_long_polls_beyond_the_cap_are_refused_and_answered_ones_give_their_slots_back(database_url):
    app = capped(make_app(database_url))
    try:
        client = app.test_client()
        ada, bob, eve = new_player(client, "ada"), new_player(client, "bob"), new_player(client, "eve")
        seed = next(s for s in range(100) if not first_seat_decides(s))  # seat 1 (bob) decides first
        game_id = create_game(client, ada, "board", {}, seats=2, seed=seed)["id"]
        take_seat(client, game_id, ada, 0)
        take_seat(client, game_id, bob, 1)
        polls = [poll(app, f"{API}/decisions?wait={WAIT_S}", ada.headers) for _ in range(CAP - 1)]
        polls.append(poll(app, f"{API}/games/{game_id}/actions?wait={WAIT_S}", ada.headers))
        until_waiting(app, player_channel(ada.id), CAP - 1)
        until_waiting(app, game_channel(game_id), CAP)  # the inbox polls watch ada's game too

        # ada waits in CAP long polls: one more is refused, on either route
        assert_refused(client.get(f"{API}/decisions?wait=5", headers=ada.headers), CAP)
        assert_refused(client.get(f"{API}/games/{game_id}/actions?wait=5", headers=ada.headers), CAP)
        # what is answered at once takes no slot: wait=0, and bob, who decides now
        assert client.get(f"{API}/decisions?wait=0", headers=ada.headers).status_code == 200
        assert client.get(f"{API}/games/{game_id}/actions?wait=5", headers=bob.headers).status_code == 200
        # another account is not held to ada's cap
        other = poll(app, f"{API}/decisions?wait={WAIT_S}", eve.headers)
        until_waiting(app, player_channel(eve.id), 1)
        assert app.extensions["waiting"].slots.taken(eve.id) == 1

        # bob moves until ada decides: her polls answer, and give their slots back
        while asked_seat(client, game_id) == 1:
            actions = client.get(f"{API}/games/{game_id}/actions", headers=bob.headers).get_json()
            assert submit(client, game_id, bob, actions["actions"][0]["id"], actions["ply"]).status_code == 200
        for thread, outcome in polls:
            thread.join(WAIT_S + 30)
            assert "error" not in outcome, outcome
            assert outcome["response"].status_code == 200, outcome["response"].get_data(as_text=True)
        assert app.extensions["waiting"].slots.taken(ada.id) == 0
        # a new game for eve starts: her poll answers too
        seed = next(s for s in range(100) if first_seat_decides(s))  # seat 0 (eve) decides first
        game = create_game(client, eve, "board", {}, seats=2, seed=seed)
        take_seat(client, game["id"], bob, 1)
        take_seat(client, game["id"], eve, 0)
        other[0].join(WAIT_S + 30)
        assert other[1]["response"].status_code == 200
        assert app.extensions["waiting"].slots.taken(eve.id) == 0
    finally:
        dispose(app)


def test_the_cap_is_counted_across_apps_through_redis(database_url, redis_url):
    app_a, app_b = capped(make_app(database_url, redis_url)), capped(make_app(database_url, redis_url))
    try:
        client = app_a.test_client()
        ada = new_player(client, "ada")
        polls = [poll(app_a, f"{API}/decisions?wait={WAIT_S}", ada.headers) for _ in range(CAP - 1)]
        polls.append(poll(app_b, f"{API}/decisions?wait={WAIT_S}", ada.headers))
        until_waiting(app_a, player_channel(ada.id), CAP - 1)
        until_waiting(app_b, player_channel(ada.id), 1)
        for app in (app_a, app_b):  # each app refuses the next, the others' polls counted
            assert_refused(app.test_client().get(f"{API}/decisions?wait=5", headers=ada.headers), CAP)
        assert waiting.RedisSlots(redis_url).taken(ada.id) == CAP

        bob = new_player(client, "bob")
        seed = next(s for s in range(100) if first_seat_decides(s))  # seat 0 (ada) decides first
        game_id = create_game(client, ada, "board", {}, seats=2, seed=seed)["id"]
        take_seat(client, game_id, bob, 1)
        take_seat(app_b.test_client(), game_id, ada, 0)  # the game starts: every poll of ada's answers
        for thread, outcome in polls:
            thread.join(WAIT_S + 30)
            assert "error" not in outcome, outcome
            assert outcome["response"].status_code == 200, outcome["response"].get_data(as_text=True)
        assert waiting.RedisSlots(redis_url).taken(ada.id) == 0
    finally:
        dispose(app_a)
        dispose(app_b)


def test_slots_of_a_killed_process_lapse_in_redis(redis_url, monkeypatch):
    monkeypatch.setattr(waiting, "SLACK_SECONDS", 0.0)
    slots = waiting.RedisSlots(redis_url)
    taken = [slots.take(7, 2, 0.5) for _ in range(2)]  # a process takes two slots, and is killed: none given back
    assert all(taken) and slots.take(7, 2, 0.5) is None
    assert 0 < slots.client.pttl(waiting.key(7)) <= 500  # the key itself expires with its last slot
    time.sleep(0.6)  # both slots were taken over 0.5 s ago: both lapsed (on a loaded machine the second may lapse
    # later than the first, and a take between the two would leave the second behind)
    deadline = time.monotonic() + 60
    while (token := slots.take(7, 2, 30)) is None:
        assert time.monotonic() < deadline, "the slots of a killed process never lapsed"
        time.sleep(0.05)
    slots.give_back(7, token)
    assert slots.client.exists(waiting.key(7)) == 0  # nothing left behind


def test_the_cap_setting_is_checked():
    from runtime.settings import Settings

    assert Settings.from_env({}).max_waiting_per_account == 8
    assert Settings.from_env({waiting.VARIABLE: "40"}).max_waiting_per_account == 40
    for bad in ("0", "many", "-1"):
        with pytest.raises(ValueError, match=waiting.VARIABLE):
            Settings.from_env({waiting.VARIABLE: bad})
