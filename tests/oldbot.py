"""A push bot as the clients before 0.2 served it, in a process of its own: it checks only the deprecated protocol
v1 signature (``v1=<hex HMAC-SHA256(secret, b"<timestamp>." + body)>``, no request id, method or path), answers
401 "bad or missing signature" to anything else, and its ``info`` lists no protocol versions. Written apart from
``botlink`` and ``clients``, as the old client was, so that the tests see what such a bot really accepts.

``python -m tests.oldbot SECRET`` serves on a free loopback port and prints it; it exits when its standard input
closes, so a test run that is killed leaves it behind no longer than its own end. :func:`old_bot` runs one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MAX_CLOCK_SKEW_S = 300


def verify_v1(secret: str, timestamp: str | None, signature: str | None, body: bytes) -> bool:
    """The previous release's ``clients.signature.verify``."""
    if not timestamp or not signature or not signature.isascii():
        return False
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 12):
        return False
    if abs(time.time() - int(timestamp)) > MAX_CLOCK_SKEW_S:
        return False
    expected = "v1=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), signature.encode())


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _OldBot

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        timestamp = self.headers.get("X-Sorry-Arena-Timestamp")
        signature = self.headers.get("X-Sorry-Arena-Signature")
        if not verify_v1(self.server.secret, timestamp, signature, body):
            self._answer(401, {"error": "bad or missing signature"})
            return
        request = json.loads(body)
        route = self.path.rstrip("/").rsplit("/", 1)[-1]
        if route == "info":
            self._answer(200, {"nonce": request.get("nonce"), "name": "old", "games": ["board", "card"]})
        elif route == "move":
            with self.server.lock:
                action = self.server.random.choice(request["actions"])["id"]
            self._answer(200, {"action": action})
        else:
            self._answer(200, {})

    def _answer(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _OldBot(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, secret: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.secret = secret
        self.random = random.Random(7)
        self.lock = threading.Lock()


def main() -> None:
    server = _OldBot(sys.argv[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # until the test closes it, or dies


@contextmanager
def old_bot(secret: str) -> Iterator[str]:
    """An old-client bot in a process of its own, checking ``secret``; its URL (``http://127.0.0.1:<port>/bot``)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.oldbot", secret],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}/bot"
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


if __name__ == "__main__":
    main()
