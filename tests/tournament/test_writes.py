"""What a worker does to save time around its games: one SQLite writer at a time in the process
(``tournament/play/writes.py``), one top-up of the queue at a time (``feed.top_up``), and the ``end`` requests sent
without holding the game's slot (``seats.send_ends``). Each is checked by what happened, never by the clock."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from botlink import netguard
from botlink.calls import BotConnection
from tests.botservers import BotServer, Handler, Received
from tests.databases import postgres_database
from tournament.dispatch import feed
from tournament.play import seats
from tournament.play.writes import writing


@pytest.fixture
def sqlite_session(tmp_path: Path) -> Iterator[Session]:
    engine = create_engine(f"sqlite:///{tmp_path / 'writes.db'}")
    with Session(engine) as session:
        yield session
    engine.dispose()


def test_on_sqlite_the_writers_of_a_process_take_turns_and_a_thread_may_nest(sqlite_session: Session) -> None:
    entered = threading.Event()

    def second() -> None:
        with Session(sqlite_session.get_bind()) as other, writing(other):
            entered.set()

    with writing(sqlite_session):
        with writing(sqlite_session):  # the same thread again: no deadlock
            pass
        thread = threading.Thread(target=second)
        thread.start()
        assert not entered.wait(0.3)  # the other thread waits while this one writes
    assert entered.wait(10)  # and goes on once it is done
    thread.join()


def test_on_postgresql_writing_takes_no_lock() -> None:
    databases = postgres_database()  # a generator: closing it drops the database
    engine = create_engine(next(databases))
    entered = threading.Event()

    def second() -> None:
        with Session(engine) as other, writing(other):
            entered.set()

    try:
        with Session(engine) as session, writing(session):
            thread = threading.Thread(target=second)
            thread.start()
            assert entered.wait(10)  # while this thread "writes"
        thread.join()
    finally:
        engine.dispose()
        databases.close()  # type: ignore[attr-defined]


def fake_context() -> Any:
    return SimpleNamespace(feeding=threading.Lock(), feed_wanted=threading.Event())


def test_a_top_up_asked_while_another_runs_is_left_to_it_which_feeds_once_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = fake_context()
    feeding, release = threading.Event(), threading.Event()
    feeds: list[str] = []

    def feed_games(_: Any) -> list[int]:
        feeds.append(threading.current_thread().name)
        if len(feeds) == 1:
            feeding.set()
            assert release.wait(10)
        return []

    monkeypatch.setattr(feed, "feed_games", feed_games)
    first = threading.Thread(target=feed.top_up, args=(ctx,), name="first")
    first.start()
    assert feeding.wait(10)
    feed.top_up(ctx)  # returns at once: the first thread is feeding
    assert feeds == ["first"]
    release.set()
    first.join(10)
    assert feeds == ["first", "first"]  # it fed again for the game that asked meanwhile
    assert not ctx.feed_wanted.is_set() and not ctx.feeding.locked()


def test_a_top_up_that_waits_feeds_after_the_one_running(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = fake_context()
    feeds: list[str] = []

    def feed_games(_: Any) -> list[int]:
        feeds.append(threading.current_thread().name)
        return []

    monkeypatch.setattr(feed, "feed_games", feed_games)
    ctx.feeding.acquire()  # another thread feeds now
    waiter = threading.Thread(target=feed.top_up, args=(ctx,), kwargs={"wait": True}, name="waiter")
    waiter.start()
    waiter.join(0.3)
    assert waiter.is_alive() and feeds == []
    ctx.feeding.release()
    waiter.join(10)
    assert feeds == ["waiter"]


def test_the_end_requests_go_without_holding_the_game() -> None:
    answer_ends = threading.Event()
    answered: list[str] = []

    def behave(handler: Handler, request: Received) -> None:
        if request.path.endswith("/end"):
            answer_ends.wait(10)
        handler.send(200, b"{}")
        answered.append(request.path)

    allow = netguard.parse_allowlist("loopback")
    with BotServer(behave) as one, BotServer(behave) as two:
        held: Any = [SimpleNamespace(connection=BotConnection(bot.url(), "s" * 32, allow)) for bot in (one, two)]
        seats.send_ends(held, lambda seat: {"type": "end", "game_id": 7, "seat": seat})
        assert answered == []  # it returned before any bot answered
        assert [seat.connection for seat in held] == [None, None]  # handed over: the game lets go at once
        answer_ends.set()
        for _ in range(200):
            if len(answered) == 2:
                break
            threading.Event().wait(0.05)
        sent = sorted(json.loads(bot.received[0].body)["seat"] for bot in (one, two))
    assert sorted(answered) == ["/bot/end", "/bot/end"] and sent == [0, 1]
