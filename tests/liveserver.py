"""Real HTTP servers on loopback for tests: a server run from a thread for the length of a ``with`` block."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask
from werkzeug.serving import make_server


@contextmanager
def running(server: Any) -> Iterator[str]:
    """Serve ``server`` (a ``socketserver``-style server bound to 127.0.0.1) from a thread; its base URL."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


def serving(app: Flask) -> Any:
    """``app`` served over real HTTP on loopback (werkzeug, a thread per request); its base URL."""
    return running(make_server("127.0.0.1", 0, app, threaded=True))
