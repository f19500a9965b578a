"""A worker's game slots (``tournament/dispatch/slots.py``): up to ``count`` games at once, each on its own thread; a job
is taken only with a slot free; a game already played here is not started twice; a failing game frees its slot."""

from __future__ import annotations

import threading

import pytest

from tournament.dispatch.slots import Slots


def blocking(started: list[int], release: threading.Event, number: int) -> object:
    def play() -> None:
        started.append(number)
        release.wait(30)

    return play


def test_count_games_play_at_once_and_the_next_waits_for_a_free_slot() -> None:
    slots = Slots(3)
    release = threading.Event()
    started: list[int] = []
    for number in range(3):
        assert slots.reserve(timeout=1)
        assert slots.play(number, blocking(started, release, number))  # type: ignore[arg-type]
    assert not slots.reserve(timeout=0.2)  # every slot plays a game
    assert slots.playing() == [0, 1, 2]
    release.set()
    assert slots.join(timeout=30)
    assert sorted(started) == [0, 1, 2] and slots.playing() == []
    assert slots.reserve(timeout=1)
    slots.cancel()  # a job that was no game gives its slot back
    for _ in range(3):
        assert slots.reserve(timeout=1)


def test_a_game_already_played_here_is_not_started_twice() -> None:
    slots = Slots(2)
    release = threading.Event()
    started: list[int] = []
    assert slots.play(7, blocking(started, release, 7))  # type: ignore[arg-type]
    assert slots.reserve(timeout=1)
    assert not slots.play(7, blocking(started, release, 70))  # type: ignore[arg-type]
    assert slots.reserve(timeout=1), "the refused game gave its reserved slot back"
    slots.cancel()
    release.set()
    assert slots.join(timeout=30)
    assert started == [7]


def test_a_failing_game_frees_its_slot() -> None:
    slots = Slots(1)

    def fail() -> None:
        raise RuntimeError("the database is gone")

    assert slots.play(1, fail)
    assert slots.join(timeout=30)
    assert slots.reserve(timeout=1)


def test_a_worker_needs_a_slot() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Slots(0)


def test_then_runs_once_the_games_slot_is_free() -> None:
    slots = Slots(1)
    seen: list[object] = []
    done = threading.Event()

    def then() -> None:
        seen.append(slots.reserve(timeout=0))  # the game's slot is free already
        seen.append(slots.playing())
        done.set()

    assert slots.play(1, lambda: seen.append("played"), then=then)
    assert done.wait(10)
    assert seen == ["played", True, []]
