"""The servers a benchmark runs on its own: a free loopback port, and a Redis nobody else uses.

A benchmark killed with SIGTERM (:func:`end_on_sigterm`) stops the servers and processes it started, as it does
when it ends (and kills them, if that has not ended it 30 s later). A benchmark never empties a Redis database it
did not fill: by default it starts a private ``redis-server`` (a child process on a free port, nothing kept on
disk) and stops it at the end; given a database (``--redis-url``), it takes it only if it is empty, and empties it
again when done, so that what it removes is its own.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def private_redis() -> Iterator[str]:
    """A ``redis-server`` of the caller's own, on a free loopback port: its URL (database 0)."""
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("this benchmark starts a private Redis: it needs redis-server on the PATH")
    port = free_port()
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def own_redis(redis_url: str | None) -> Iterator[str]:
    """A Redis database for the benchmark alone: a private server's (``None``), or ``redis_url``'s if it is empty
    (``SystemExit`` with what to do otherwise), emptied again at the end."""
    if redis_url is None:
        with private_redis() as url:
            yield url
        return
    connection = redis.Redis.from_url(redis_url)
    try:
        if connection.dbsize():
            raise SystemExit(
                f"{redis_url} holds keys: give an empty Redis database, or leave --redis-url out for a private one"
            )
        try:
            yield redis_url
        finally:
            connection.flushdb()  # empty when it was taken: everything in it is the benchmark's
    finally:
        connection.close()


END_GRACE_SECONDS = 30.0
"""How long a benchmark ended by SIGTERM may take to stop what it started before it is ended anyway."""


def end_on_sigterm(grace: float = END_GRACE_SECONDS) -> None:
    """Make SIGTERM end the benchmark as an error does (``SystemExit``), through its context managers: its bots,
    workers and servers are stopped and its databases dropped, none left behind.

    The exception lands wherever the main thread is, which may be a place it cannot unwind from (a thread it then
    waits for that never ends). So if the process still runs ``grace`` seconds later, its child processes are killed
    and it exits anyway, with the same status (and says so: a database it created may then be left)."""

    def ended(signum: int, frame: Any) -> None:
        threading.Thread(target=end_anyway, args=(grace, 128 + signum), daemon=True).start()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, ended)


def end_anyway(grace: float, status: int) -> None:
    """After ``grace`` seconds: kill this process's children and exit with ``status`` (:func:`end_on_sigterm`)."""
    time.sleep(grace)
    for pid in child_processes(os.getpid()):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    print(
        f"the benchmark did not stop within {grace:g} s of SIGTERM: its processes were killed, and a database it "
        "created may be left",
        file=sys.stderr,
        flush=True,
    )
    os._exit(status)


def child_processes(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found
