"""Connections kept from one game to the next (``botlink/keepalive.py``), against real bot servers on loopback: a
bot's next game goes on on the connection its last game left, one game at a time; a connection is kept for its
maximum age only, never when its URL was refused, and never past the most kept per bot; a bot that closed a kept
connection still answers the next game; the aged connections of a bot that plays no more are closed by another's."""

from __future__ import annotations

import time

from botlink.keepalive import Kept
from botlink.netguard import parse_allowlist
from tests.botservers import BotServer, Handler, Received, reply

LOOPBACK = parse_allowlist("loopback")
SECRET = "s" * 32


def test_a_bots_next_game_goes_on_on_the_connection_its_last_game_left() -> None:
    kept = Kept()
    with BotServer(reply({"action": "a"})) as server:
        first = kept.take(server.url(), SECRET, LOOPBACK, 1.0)
        assert first.move({"type": "move"}).ok
        kept.give_back(first)
        again = kept.take(server.url(), SECRET, LOOPBACK, 1.0)
        other = kept.take(server.url(), SECRET, LOOPBACK, 1.0)  # a second seat at once: a connection of its own
        assert again is first and other is not first
        assert again.move({"type": "move"}).ok and other.move({"type": "move"}).ok
        ports = [request.client_port for request in server.received]
        assert ports[0] == ports[1] != ports[2], "the second game's call went over the first game's connection"
        kept.give_back(again)
        kept.give_back(other)
        assert kept.take(server.url(), "another secret", LOOPBACK, 1.0) not in (first, other)
        assert kept.take(server.url(), SECRET, LOOPBACK, 2.0) not in (first, other), "another timeout"
        kept.close()


def test_a_connection_is_kept_no_longer_than_its_age_nor_beyond_the_most_per_bot() -> None:
    with BotServer(reply({"action": "a"})) as server:
        young = Kept(max_age=3600.0, max_idle=1)
        connections = [young.take(server.url(), SECRET, LOOPBACK) for _ in range(2)]
        for connection in connections:
            young.give_back(connection)
        assert young.take(server.url(), SECRET, LOOPBACK) is connections[0]
        assert young.take(server.url(), SECRET, LOOPBACK) not in connections, "one kept per bot here"
        aged = Kept(max_age=0.0)
        connection = aged.take(server.url(), SECRET, LOOPBACK)
        aged.give_back(connection)
        assert aged.take(server.url(), SECRET, LOOPBACK) is not connection, "resolved and checked again"


def test_a_refused_url_is_never_kept() -> None:
    kept = Kept()
    refused = kept.take("http://10.0.0.1:8001/bot", SECRET)  # a private address, not allowed
    assert refused.refusal is not None
    kept.give_back(refused)
    assert kept.take("http://10.0.0.1:8001/bot", SECRET) is not refused


def test_a_bot_that_closed_its_kept_connection_still_answers_the_next_game() -> None:
    """A bot whose server drops idle connections (each closed after its answer here): the kept connection is seen
    closed before the next request, and a new one made."""

    def answer_and_close(handler: Handler, request: Received) -> None:
        reply({"action": "a"})(handler, request)
        handler.close_connection = True

    kept = Kept()
    with BotServer(answer_and_close) as server:
        connection = kept.take(server.url(), SECRET, LOOPBACK)
        assert connection.move({"type": "move"}).ok
        kept.give_back(connection)
        again = kept.take(server.url(), SECRET, LOOPBACK)
        assert again is connection
        answer = again.move({"type": "move"})
        assert answer.ok and answer.body == {"action": "a"}
        assert len({request.client_port for request in server.received}) == 2


def test_the_connections_of_a_bot_that_plays_no_more_are_closed_once_aged() -> None:
    """Another bot's game, starting or ending, closes them: a bot gone from the arena keeps no connection (nor, at
    a bot served by a thread per connection, a thread) open to this worker."""
    later = [0.0]
    kept = Kept(max_age=60.0, clock=lambda: time.monotonic() + later[0])
    closed: list[str] = []
    with BotServer(reply({"action": "a"})) as gone, BotServer(reply({"action": "a"})) as playing:
        left = kept.take(gone.url(), SECRET, LOOPBACK)
        young = kept.take(playing.url(), SECRET, LOOPBACK)
        for name, connection in (("left", left), ("young", young)):
            closing = connection.close
            connection.close = lambda name=name, closing=closing: (closed.append(name), closing())  # type: ignore[method-assign]
        assert left.move({"type": "move"}).ok
        kept.give_back(left)
        kept.give_back(young)
        assert closed == []
        later[0] = 61.0  # a minute on: no game of the gone bot since
        fresh = kept.take(playing.url(), SECRET, LOOPBACK)
        assert sorted(closed) == ["left", "young"], "every aged connection closed, not only the bot's being taken"
        assert fresh is not young and fresh.move({"type": "move"}).ok
        fresh.close()
