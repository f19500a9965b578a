"""Helpers of the long-poll tests (test_longpoll.py, test_decisions.py), which hold on a loaded machine: a test waits
until its long poll really waits (:func:`until_watched`) before it moves, and tells "woken" from "timed out" by a
wide margin (:data:`WAIT_S` against :data:`WOKEN_S`) rather than by a few tenths of a second."""

from __future__ import annotations

import time

from flask import Flask

WAIT_S = 30
"""A long poll's ``wait`` where it should be woken (the longest the service allows): not woken, it lasts this long."""
WOKEN_S = 10.0
"""The most a woken long poll, or one answered at once, may take however loaded the machine: far below WAIT_S."""


def until_watched(app: Flask, channel: str, timeout: float = 60) -> None:
    """Return once a long poll of ``app`` watches ``channel`` (runtime/wakeups.py): a move made after that must wake
    it, while one made before it started would only be found by its first look at the database."""
    hub = app.extensions["notifier"].hub
    deadline = time.monotonic() + timeout
    while channel not in hub._waiters:
        assert time.monotonic() < deadline, f"no long poll watches {channel} after {timeout} s"
        time.sleep(0.005)
