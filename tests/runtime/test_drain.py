"""A stopping process's waits end at once (``runtime/wakeups.py``, ``Notifier.drain``): a long poll waiting for a
move returns with what there is, and a wait begun after the drain does not wait at all."""

from __future__ import annotations

import threading
import time

from runtime.wakeups import Notifier

LONG_S = 60.0
"""A wait that would outlast the test many times over, were it not ended."""


def test_drain_ends_a_wait_under_way_and_every_later_one() -> None:
    notifier = Notifier()
    checks: list[float] = []
    answers: list[bool] = []
    waiting = threading.Event()

    def ready() -> bool:
        checks.append(time.monotonic())
        waiting.set()
        return False  # nothing new: only the drain can end this wait early

    thread = threading.Thread(target=lambda: answers.append(notifier.wait(7, ready, LONG_S)), daemon=True)
    thread.start()
    assert waiting.wait(30)
    notifier.drain()
    thread.join(30)
    assert not thread.is_alive() and answers == [False]
    assert len(checks) == 2  # checked again once woken, then answered: no spinning until the deadline

    started = time.monotonic()
    assert notifier.wait(7, lambda: False, LONG_S) is False
    assert time.monotonic() - started < LONG_S / 2
    with notifier.watch(["game:7"]) as subscription:
        assert subscription.ended


def test_a_notifier_that_is_not_draining_waits() -> None:
    notifier = Notifier()
    with notifier.watch(["game:7"]) as subscription:
        assert not subscription.ended
        assert subscription.wait(0.05) is False  # no publish: the wait ran out
