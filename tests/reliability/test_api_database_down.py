"""The API while PostgreSQL is stopped: each request that needs the database is a 503 in the one error shape, with
``Retry-After``, logged in one line for the outage without a traceback (a page: a 503 page); nothing is lost, and
the same requests are answered once the database is back (the pool replaces the connections the stop cut). An open
event stream ends, logged in one line, for its client to reconnect."""

from __future__ import annotations

import logging

import pytest

from service.errors import DATABASE_RETRY_AFTER_S
from tests.apikit import API, SHORT_CARD, asked_seat, get_actions, get_game, new_player, started_game, submit
from tests.conftest import dispose, make_app
from tests.liveserver import serving
from tests.reliability.servers import PrivatePostgres
from tests.service.test_errors import assert_error
from tests.service.test_streams import api_events, stream


def test_while_postgres_is_stopped_requests_are_503s_and_are_answered_once_it_is_back(
    private_postgres: PrivatePostgres, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(private_postgres.new_database())  # no maintenance thread: the requests alone meet the stop
    client = app.test_client()
    try:
        game_id, players = started_game(client, *SHORT_CARD, seed=21)
        seat = asked_seat(client, game_id)
        assert seat is not None
        action = get_actions(client, game_id, players[seat])["actions"][0]["id"]
        private_postgres.stop()
        try:
            with caplog.at_level(logging.WARNING):
                down = {
                    "a move (the move path)": submit(client, game_id, players[seat], action, 0),
                    "a game": client.get(f"{API}/games/{game_id}"),
                    "a new player": client.post(f"{API}/players", json={"name": "grace"}),
                }
                page = client.get("/")
        finally:
            private_postgres.start()
        for what, response in down.items():
            body = assert_error(response, 503, "the database could not complete this request")
            assert response.headers["Retry-After"] == str(DATABASE_RETRY_AFTER_S), what
            assert "Traceback" not in response.get_data(as_text=True) and "psycopg" not in body["message"], what
        assert page.status_code == 503 and page.headers["Retry-After"] == str(DATABASE_RETRY_AFTER_S)
        assert page.mimetype == "text/html" and "Reload the page in a moment" in page.get_data(as_text=True)
        failures = [record for record in caplog.records if record.name == "service.errors"]  # one per outage
        assert [record.getMessage().split(":")[0] for record in failures] == [
            "requests failed on the database",
            "pages failed on the database",
        ]
        assert all(record.exc_info is None and record.levelno == logging.WARNING for record in failures)
        assert all(record.getMessage().endswith("(unavailable)") for record in failures)
        assert "Traceback" not in caplog.text

        moved = submit(client, game_id, players[seat], action, 0)
        assert moved.status_code == 200, moved.get_data(as_text=True)
        assert moved.get_json()["ply"] == 1 and get_game(client, game_id)["ply"] == 1
        assert new_player(client, "grace").name == "grace"
    finally:
        dispose(app)


def test_a_stream_whose_database_stops_ends_in_one_logged_line(
    private_postgres: PrivatePostgres, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(private_postgres.new_database())
    client = app.test_client()
    try:
        game_id, players = started_game(client, *SHORT_CARD, seed=21)
        since = api_events(client, game_id, players[0])[-1]["seq"]  # nothing to send: the stream reads, then waits
        with (
            caplog.at_level(logging.WARNING),
            serving(app) as base,
            stream(base, f"{API}/games/{game_id}/events/stream?since={since}", players[0]) as sse,
        ):
            assert sse.status == 200
            private_postgres.stop()
            try:
                # wakes the stream if it is waiting already (else its first read meets the stop): it reads again
                app.extensions["notifier"].publish(game_id, 0)
                assert sse.until_end() == []  # the server closed the stream
            finally:
                private_postgres.start()
        (ended,) = [record for record in caplog.records if record.name == "service.errors"]
        assert ended.getMessage().startswith("a stream ended as the database failed: ") and ended.exc_info is None
        assert "Traceback" not in caplog.text
    finally:
        dispose(app)
