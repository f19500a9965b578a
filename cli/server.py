"""The gunicorn application that ``sorry-arena serve`` runs (``cli/serve.py``): configured from a dict, it loads the
service's app in each worker, after the fork, so that no pool of connections is shared between processes.

A worker told to stop gracefully (SIGTERM: the arbiter's stop, or its reload on SIGHUP, which starts new workers
and then stops the old ones) stops taking connections, as gunicorn does, and also ends its requests' waits at once
(:func:`drain_on_stop`): waiting long polls answer, streams end, and their clients reconnect to a worker that runs
on, so the stop takes seconds instead of gunicorn's graceful timeout.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication

from runtime.settings import Settings


class Server(BaseApplication):  # gunicorn ships no type hints (pyproject: ignore_missing_imports)
    """gunicorn configured from a dict, loading the app in each worker (after the fork: no shared pools)."""

    def __init__(self, settings: Settings, options: dict[str, Any]) -> None:
        self.settings = settings
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Flask:
        from service.app import create_app

        app = create_app(self.settings)
        drain_on_stop(app)
        return app


def drain_on_stop(app: Flask) -> None:
    """On SIGTERM, first gunicorn's own handler (the worker stops taking connections), then drain ``app``'s
    waits (``runtime.wakeups.Notifier.drain``), not in the signal handler (which may not block: in a gevent worker
    it runs in the event loop's callback) but in a greenlet of its own (gevent) or a thread (gthread), as gunicorn
    handles SIGQUIT. Called in the worker, after gunicorn set its handlers."""
    previous = signal.getsignal(signal.SIGTERM)
    notifier = app.extensions["notifier"]

    def stop(signum: int, frame: Any) -> None:
        if callable(previous):
            previous(signum, frame)
        if "gevent" in sys.modules and sys.modules["gevent.monkey"].is_module_patched("threading"):
            sys.modules["gevent"].spawn(notifier.drain)
        else:
            threading.Thread(target=notifier.drain, name="drain", daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
