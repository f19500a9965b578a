"""Servers the tests start themselves, so that they never touch the machine's own: a private ``redis-server``.

:class:`PrivateRedis` is a ``redis-server`` child process on a free loopback port, without persistence (a restart
comes back empty), its files in a folder of its own in the test run's scratch folder (tests/runs.py: a killed
run's server is stopped by the next run; the kernel kills it first if the process that started it dies). The suite's Redis databases come from one of them
(tests/databases.py); the reliability tests start their own to stop and restart it (tests/reliability/servers.py,
which also starts a private PostgreSQL).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from tests import runs


class ServerError(RuntimeError):
    """A private server could not start (its log's tail is in the message)."""


def free_port() -> int:
    """A loopback port nothing listens on (free a moment ago: the server that takes it binds it at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class PrivateRedis:
    """A ``redis-server`` child process on 127.0.0.1:``port``, without persistence (a restart comes back empty),
    with ``databases`` numbered databases."""

    PORT_ATTEMPTS = 5
    """A free port may be taken by another process before the server binds it: the first start then tries
    another (a restart keeps its port: its clients know it)."""

    def __init__(self, databases: int = 16) -> None:
        self.port = free_port()
        self.databases = databases
        self.root = Path(tempfile.mkdtemp(prefix="redis-", dir=runs.scratch()))
        self.log = self.root / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.started = False

    @property
    def url(self) -> str:
        return self.url_of(0)

    def url_of(self, database: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{database}"

    def start(self, timeout: float = 30) -> PrivateRedis:
        executable = shutil.which("redis-server")
        if executable is None:
            raise ServerError("no redis-server on this machine")
        for attempt in range(1, self.PORT_ATTEMPTS + 1):
            if self._start(executable, timeout):
                self.started = True
                return self
            if self.started or attempt == self.PORT_ATTEMPTS:
                break
            self.port = free_port()
        raise ServerError(f"redis-server did not start on port {self.port}\n{tail(self.log)}")

    def _start(self, executable: str, timeout: float) -> bool:
        """Start the process and wait until it answers; False if it exited (its port was taken, say)."""
        process = self.process = subprocess.Popen(
            [
                executable,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--databases",
                str(self.databases),
                "--daemonize",
                "no",
                "--dir",
                str(self.root),
                "--logfile",
                str(self.log),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=runs.die_with_parent,  # started and stopped by a test process's main thread
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    # the server answering must be this process, not another one that took the port first
                    if int(client.info("server")["process_id"]) == process.pid:
                        return True
                except redis.RedisError:  # not listening yet (or still loading)
                    pass
                if process.poll() is not None:
                    self.process = None
                    return False
                if time.monotonic() > deadline:
                    self.stop()
                    raise ServerError(f"redis-server did not answer on port {self.port} in {timeout:g} s")
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None

    def restart(self, down_seconds: float = 1.5) -> None:
        """Stop the server, stay down ``down_seconds``, start it again: empty (no persistence)."""
        self.stop()
        time.sleep(down_seconds)
        self.start()

    def flush(self) -> None:
        """Empty every database of this server (the tests' own)."""
        client = redis.Redis(port=self.port)
        try:
            client.flushall()
        finally:
            client.close()

    def close(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
