"""How a command that runs until it is stopped stops on a signal: the signal is raised as an exception in the main
thread, where the command is, so that its ``finally`` blocks and context managers run as they do for Ctrl-C (child
processes stopped, temporary folders removed).

SIGINT raises ``KeyboardInterrupt``, also where it was ignored (a command started in the background); SIGTERM (a
supervisor's stop, ``kill``) raises :class:`Terminated`, a ``KeyboardInterrupt`` too, so that whatever ends cleanly
on Ctrl-C ends the same way on SIGTERM. ``cli/main.py`` turns what is left of it into the exit status
:data:`TERMINATED_EXIT` (``128 + 15``, as a shell reports a process that SIGTERM ended).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

TERMINATED_EXIT = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the command stops and cleans up as on Ctrl-C."""


def _raise(number: int, frame: Any) -> None:
    if number == signal.SIGTERM:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: another SIGTERM must not cut the clean-up short
        raise Terminated
    raise KeyboardInterrupt


@contextmanager
def stopping_on(*signals: signal.Signals) -> Iterator[None]:
    """While inside, each of ``signals`` raises its exception (SIGINT ``KeyboardInterrupt``, SIGTERM
    :class:`Terminated`); on the way out the handlers before are back (a command run in-process, as the tests run
    them, leaves its caller's). Outside the main thread, where Python sets no handler, it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, _raise) for number in signals}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)  # None: not set from Python
