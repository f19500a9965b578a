"""A game's event stream without a token (what the game viewer's spectators follow), on SQLite and PostgreSQL: it
carries exactly the public events, as ``GET .../events`` shows them without a token (no private event, so no hand;
nothing of a running game's fault details or debug texts, which no event holds), then ``end``; a client address may
hold ``SORRY_ARENA_MAX_STREAMS_PER_ADDRESS`` of them at once and the service ``SORRY_ARENA_MAX_ANONYMOUS_STREAMS``,
one more a 429 that says which cap (another address, or a token, still streams), counted in Redis across API
processes, and a closed stream gives its slots back; an unknown token is a 401, never a public stream. A live
game's page names the last event of the moves it draws, after which its script's stream goes on."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.exceptions import HTTPException

from runtime.settings import Settings
from service import waiting
from tests.apikit import API, Player, asked_seat, get_actions, new_player, play_to_end, started_game, submit
from tests.arenakit import arena_app
from tests.conftest import dispose
from tests.liveserver import serving
from tests.service.test_bot_faults import DEBUG, DETAIL, running_game
from tests.service.test_streams import api_events, logged_events, stream


@pytest.fixture
def capped(database_url: str) -> Iterator[Flask]:
    """An app whose addresses may hold 2 streams without a token, and the service 3."""
    app = arena_app(database_url, max_streams_per_address=2, max_anonymous_streams=3)
    yield app
    dispose(app)


def move(client: FlaskClient, game_id: int, players: list[Player], rng: random.Random) -> None:
    """A random legal move of the seat asked."""
    seat = asked_seat(client, game_id)
    assert seat is not None
    offered = get_actions(client, game_id, players[seat])
    response = submit(client, game_id, players[seat], rng.choice(offered["actions"])["id"], offered["ply"])
    assert response.status_code == 200, response.get_data(as_text=True)


def test_a_stream_without_a_token_carries_exactly_the_public_events(app: Flask, client: FlaskClient) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    players = [ada, bob]
    game_id = running_game(app, [ada.id, bob.id])  # seat 0's first move a fault with a detail and a debug text
    with serving(app) as base, stream(base, f"{API}/games/{game_id}/events/stream", None) as public:
        assert public.status == 200
        first = public.next()
        assert first is not None and first[0] == "event"
        rng = random.Random(9)
        for _ in range(4):  # moves made while it streams
            move(client, game_id, players, rng)
        expected = api_events(client, game_id, None)
        got = [first, *(public.next() for _ in expected[1:])]
        assert [item[1] for item in got if item] == expected  # what GET .../events shows without a token
        assert not any(data["private"] for data in expected)
        assert any(data["private"] for data in api_events(client, game_id, ada))  # the seats had private events
        while asked_seat(client, game_id) is not None:
            move(client, game_id, players, rng)
        rest = public.until_end()
    assert rest[-1] == ("end", {"game_id": game_id, "status": "over"}, None)
    assert [data for _, data, _ in rest[:-1]] == api_events(client, game_id, None, expected[-1]["seq"])
    body = "\n".join(public.raw)
    for secret in (DETAIL[:30], "searched 812", DEBUG[:20], '"private":true', '"fault'):
        assert secret not in body, secret


def test_streams_without_a_token_are_capped_per_address_and_in_all(capped: Flask) -> None:
    client = capped.test_client()
    game_id, players = started_game(client, "card", {"pawns": 1}, 2, seed=3)
    path = f"{API}/games/{game_id}/events/stream"
    with serving(capped) as base:
        with stream(base, path, None, "127.0.0.1") as one, stream(base, path, None, "127.0.0.1") as two:
            assert one.status == two.status == 200
            with stream(base, path, None, "127.0.0.1") as three:
                assert three.status == 429 and three.response.getheader("Retry-After") == "5"
                message = json.loads(three.response.read())["message"]
                assert "at most 2 streams without a token" in message and waiting.PER_ADDRESS_VARIABLE in message
            with stream(base, path, players[0], "127.0.0.1") as owned:
                assert owned.status == 200  # a token's streams count against its account's slots
            with stream(base, path, None, "127.0.0.2") as elsewhere:
                assert elsewhere.status == 200  # another address has slots of its own
                with stream(base, path, None, "127.0.0.3") as fourth:
                    assert fourth.status == 429 and fourth.response.getheader("Retry-After") == "5"
                    message = json.loads(fourth.response.read())["message"]
                    assert "at most 3 streams without a token" in message and waiting.ANONYMOUS_VARIABLE in message
        play_to_end(client, game_id, players, random.Random(3))  # the streams left end with the game
        given_back(capped)
        for source in ("127.0.0.1", "127.0.0.1", "127.0.0.3"):  # each stream again, till its end
            with stream(base, path, None, source) as again:
                assert again.status == 200
                assert again.until_end()[-1][0] == "end"
        given_back(capped)


def given_back(app: Flask, timeout: float = 60) -> None:
    """Wait until every slot of a stream without a token is given back (a stream gives its slots back once its
    response is closed, just after its last byte is sent)."""
    slots = app.extensions["waiting"].slots
    deadline = time.monotonic() + timeout
    while slots.taken(waiting.ANONYMOUS) or any(
        slots.taken(waiting.address_key(f"127.0.0.{number}")) for number in (1, 2, 3)
    ):
        assert time.monotonic() < deadline, "the slots of ended streams were never given back"
        time.sleep(0.05)


def test_an_unknown_token_is_refused_not_streamed_in_public(app: Flask, client: FlaskClient) -> None:
    game_id, _ = started_game(client, "card", {"pawns": 1}, 2, seed=2)
    stranger = Player(0, "nobody", "sa_not-a-token")
    with serving(app) as base, stream(base, f"{API}/games/{game_id}/events/stream", stranger) as refused:
        assert refused.status == 401 and "unknown token" in json.loads(refused.response.read())["message"]


def test_the_caps_of_streams_without_a_token_are_counted_across_apps_through_redis(
    database_url: str, redis_url: str
) -> None:
    apps = [arena_app(database_url, redis_url, max_streams_per_address=2, max_anonymous_streams=3) for _ in "ab"]
    try:
        with ExitStack() as held:

            def take(app: Flask, address: str) -> int:
                """Hold one more stream slot of ``address`` in ``app`` (200), or the status refusing it."""
                with app.test_request_context():
                    try:
                        held.enter_context(waiting.cap().anonymous_stream(address, 30))
                    except HTTPException as refused:
                        assert refused.code is not None
                        return refused.code
                return 200

            assert [take(apps[0], "10.0.0.1"), take(apps[1], "10.0.0.1"), take(apps[1], "10.0.0.1")] == [
                200,
                200,
                429,
            ]
            assert [take(apps[1], "10.0.0.2"), take(apps[0], "10.0.0.3")] == [200, 429]  # 3 in all, either app
            slots = waiting.RedisSlots(redis_url)
            assert slots.taken(waiting.address_key("10.0.0.1")) == 2 and slots.taken(waiting.ANONYMOUS) == 3
        assert slots.taken(waiting.address_key("10.0.0.1")) == slots.taken(waiting.ANONYMOUS) == 0  # given back
    finally:
        for app in apps:
            dispose(app)


def test_the_caps_are_settings() -> None:
    assert (Settings.from_env({}).max_streams_per_address, Settings.from_env({}).max_anonymous_streams) == (8, 200)
    given = Settings.from_env({waiting.PER_ADDRESS_VARIABLE: "3", waiting.ANONYMOUS_VARIABLE: "50"})
    assert (given.max_streams_per_address, given.max_anonymous_streams) == (3, 50)
    for variable in (waiting.PER_ADDRESS_VARIABLE, waiting.ANONYMOUS_VARIABLE):
        for bad in ("0", "-1", "many"):
            with pytest.raises(ValueError, match=variable):
                Settings.from_env({variable: bad})


def test_a_live_games_page_names_the_event_its_stream_goes_on_after(app: Flask, client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {"pawns": 1}, 2, seed=4)
    rng = random.Random(4)
    for _ in range(3):
        move(client, game_id, players, rng)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    since = int(re.search(r'data-since="(-?\d+)"', page).group(1))  # type: ignore[union-attr]
    public = [seq for seq, (to, _) in enumerate(logged_events(app, game_id)) if to is None]
    assert since == public[-1]  # the last public event of the 3 moves drawn
    with serving(app) as base, stream(base, f"{API}/games/{game_id}/events/stream?since={since}", None) as public:
        move(client, game_id, players, rng)
        first = public.next()
    assert first is not None and first[1]["ply"] == 4  # the next move's, nothing drawn already
    assert first[1] == next(event for event in api_events(client, game_id, None) if event["seq"] > since)
