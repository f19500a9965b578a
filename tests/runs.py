"""A test run's mark on what it starts, and the sweep of what a killed run left behind.

A run is one ``pytest`` command. Its first process (xdist's controller, or the only process) names it
``<pid>-<start>``, its pid and its start time (clock ticks since boot, from /proc: a pid the system hands out again
later names another run). :func:`begin` puts the name in the environment as ``ARENA_TEST_RUN``, so that every
process the run starts carries it, and everything those start in turn: the xdist workers, the private servers,
bots, workers and commands of the tests, the benchmarks' children. The run keeps its files in a scratch folder
named after it (:func:`scratch`: the private servers' folders, the template SQLite database) and names the
PostgreSQL databases it creates after it (:func:`database_name`).

Interrupted (Ctrl-C, or SIGTERM: :func:`stop_on_sigterm` makes it interrupt the run as Ctrl-C does), the run
unwinds its fixtures, which stop and drop what they started. Killed (SIGKILL), it cannot: the next run's
:func:`sweep` looks for runs whose first process is gone and ends what they left: their private PostgreSQL
servers (PostgreSQL's immediate shutdown), every process whose environment carries their name, their databases on
the shared server and their scratch folders. Nothing else is touched: a process of a run still going (another
checkout's, say) or of no test run carries no dead run's name. As a second line, a child started with
:func:`die_with_parent` is killed by the kernel as soon as the thread that started it ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

VARIABLE = "ARENA_TEST_RUN"
"""The run's name in the environment (not ``SORRY_ARENA_*``: tests clear those from their commands' environment)."""
DATABASE_PREFIX = "sorry_arena_test_"
RUN_NAME = re.compile(r"(\d+)-(\d+)")
DATABASE_NAME = re.compile(r"sorry_arena_test_(\d+)_(\d+)_[a-z0-9_]+")
SHUTDOWN_SECONDS = 10.0
"""How long the sweep waits for a killed run's private PostgreSQL to shut down before it kills what is left."""


def started(pid: int) -> int | None:
    """The start time of process ``pid`` (clock ticks since boot); ``None`` if there is no such process or it has
    exited (a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces and parentheses
    return None if fields[0] == "Z" else int(fields[19])


def parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def name() -> str:
    """This run's name (:func:`begin` set it)."""
    return os.environ[VARIABLE]


def begin(worker: bool) -> str:
    """Name the run after this process, in the environment its children inherit; an xdist ``worker`` keeps the
    name of the run that started it."""
    if not (worker and RUN_NAME.fullmatch(os.environ.get(VARIABLE, ""))):
        os.environ[VARIABLE] = f"{os.getpid()}-{started(os.getpid()) or 0}"
    return name()


def running(run: str) -> bool:
    """Whether the first process of ``run`` is still there (the same process: same pid, same start time)."""
    found = RUN_NAME.fullmatch(run)
    return found is not None and started(int(found[1])) == int(found[2])


def base() -> Path:
    """Where the runs of this user keep their scratch folders."""
    return Path(tempfile.gettempdir()) / f"sorry-arena-tests-{os.getuid()}"


def scratch() -> Path:
    """This run's scratch folder, made on first use; readable by other users (a private PostgreSQL runs as the
    ``postgres`` user when the tests run as root)."""
    folder = base() / name()
    folder.mkdir(parents=True, exist_ok=True)
    for made in (base(), folder):
        made.chmod(0o755)
    return folder


def run_database_name(what: str) -> str:
    """The one database name of this run for ``what`` (``sorry_arena_test_<pid>_<start>_<what>``), the same in every
    process of the run (its xdist workers): a database the run's processes share, such as its templates."""
    pid, start = name().split("-")
    return f"{DATABASE_PREFIX}{pid}_{start}_{what}"


def database_name(what: str) -> str:
    """A new database name of this run's: ``sorry_arena_test_<pid>_<start>_<what>_<random>``."""
    pid, start = name().split("-")
    return f"{DATABASE_PREFIX}{pid}_{start}_{what}_{uuid.uuid4().hex[:8]}"


def database_run(database: str) -> str | None:
    """The run that created ``database`` (``None``: not a test run's)."""
    found = DATABASE_NAME.fullmatch(database)
    return None if found is None else f"{found[1]}-{found[2]}"


_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """A ``preexec_fn``: the child is killed (SIGKILL) when the thread that started it ends, the process with it.
    Only for children started on a thread that outlives them (the main thread of a test process)."""
    if _libc is not None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    return [found for found in all_pids() if parent(found) == pid]


def all_pids() -> Iterator[int]:
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            yield int(entry.name)


def catch_sigint() -> None:
    """Interrupt on Ctrl-C even where the run was started with SIGINT ignored (a non-interactive shell's background
    job inherits it ignored, and so would every process a test starts: a bot, ``sorry-arena simulate``), so that the
    processes the tests start, and the tests of what Ctrl-C does to them, meet SIGINT's default action as a user's
    would."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def stop_on_sigterm(has_workers: Callable[[], bool]) -> None:
    """Make SIGTERM interrupt this process as Ctrl-C does (``KeyboardInterrupt``): the fixtures unwind, stopping
    what the tests started. xdist's controller (``has_workers()``) passes it on to its workers, which are its only
    children, and goes on: each worker unwinds and reports the interruption, and the controller then stops the run
    as after Ctrl-C (interrupted at once, it would give its workers 10 s to unwind, then kill them). A second
    SIGTERM kills."""

    def interrupt(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if has_workers():
            for worker in children(os.getpid()):
                with contextlib.suppress(OSError):
                    os.kill(worker, signal.SIGTERM)
            return
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)


def marked_processes() -> dict[str, list[tuple[int, int]]]:
    """The processes carrying a run's name in their environment (as they were started), by run: (pid, start)."""
    found: dict[str, list[tuple[int, int]]] = {}
    prefix = f"{VARIABLE}=".encode()
    for pid in all_pids():
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:  # gone, or another user's
            continue
        for entry in environ.split(b"\0"):
            if entry.startswith(prefix):
                start = started(pid)
                if start is not None:
                    found.setdefault(entry[len(prefix) :].decode(errors="replace"), []).append((pid, start))
                break
    return found


def ancestors() -> set[int]:
    """This process and its ancestors: never killed, whatever their environment says."""
    chain, pid = set(), os.getpid()
    while pid and pid not in chain:
        chain.add(pid)
        pid = parent(pid) or 0
    return chain


def finish() -> None:
    """At the end of the run (its first process): remove its scratch folder."""
    shutil.rmtree(base() / name(), ignore_errors=True)


def sweep(admin_url: str | None) -> list[str]:
    """End what killed runs left behind (see the module's docstring); what was ended, one line each. Quick when
    there is nothing: a look at /proc, the scratch folders and the database names."""
    if not Path("/proc/self/stat").exists():  # not Linux: no way to tell a run's processes
        return []
    own = os.environ.get(VARIABLE)
    marked = marked_processes()
    folders = {entry.name: entry for entry in base().glob("*-*") if RUN_NAME.fullmatch(entry.name)}
    dead = {run for run in {*marked, *folders} if run != own and RUN_NAME.fullmatch(run) and not running(run)}
    ended: list[str] = []
    for run in sorted(dead & set(folders)):
        ended += stop_postgres(folders[run])
    spared = ancestors()
    for run in sorted(dead & set(marked)):
        for pid, start in marked[run]:
            if pid not in spared and started(pid) == start:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    ended.append(f"process {pid} of run {run}: {command_line(pid)}")
    if admin_url is not None:
        ended += drop_databases(admin_url, own)
    for run in sorted(dead & set(folders)):
        shutil.rmtree(folders[run], ignore_errors=True)
        ended.append(f"scratch folder {folders[run]}")
    return ended


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def stop_postgres(folder: Path) -> list[str]:
    """Shut down the private PostgreSQL servers whose data is in ``folder`` (SIGQUIT: the immediate shutdown, which
    also frees their shared memory), waiting for each to exit."""
    ended = []
    for pidfile in folder.glob("*/data/postmaster.pid"):
        try:
            pid = int(pidfile.read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            continue
        try:
            running_in = Path(os.readlink(f"/proc/{pid}/cwd")).resolve()
        except OSError:
            continue  # not running
        if running_in != pidfile.parent.resolve():
            continue  # the pid is another process's now
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGQUIT)
        deadline = time.monotonic() + SHUTDOWN_SECONDS
        while started(pid) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        ended.append(f"private PostgreSQL {pid} in {pidfile.parent}")
    return ended


def drop_databases(admin_url: str, own: str | None) -> list[str]:
    """Drop the databases on the server of ``admin_url`` that runs no longer running created."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import SQLAlchemyError

    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5})
    ended = []
    try:
        with engine.connect() as connection:
            names = connection.execute(
                text("SELECT datname FROM pg_database WHERE datname LIKE :prefix"),
                {"prefix": DATABASE_PREFIX.replace("_", r"\_") + "%"},
            ).scalars()
            for database in list(names):
                run = database_run(database)
                if run is not None and run != own and not running(run):
                    connection.execute(text(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
                    ended.append(f"database {database}")
    except SQLAlchemyError:
        pass  # no server: nothing of ours on it to drop now
    finally:
        engine.dispose()
    return ended
