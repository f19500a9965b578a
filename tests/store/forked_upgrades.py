"""What tests/store/test_interrupted_upgrade.py runs to kill many upgrades cheaply: a process that loads the command
line's modules once, then, for each database URL read from its standard input, forks a child that runs
``sorry-arena db upgrade --database-url URL`` (``cli.main.main``, as the installed command does), its output and
errors written to the database's file name + ``.log`` (SQLite only). It prints ``pid N`` once the child runs, waits
for a line saying the test has sent its kill (a child that ended first stays a zombie meanwhile, so its pid is not
reused), then prints ``exit S`` (its wait status) once it is gone: the test kills the child with SIGKILL and sees it
dead. A fork costs milliseconds where a new interpreter costs a second of imports. It ends at the end of its input,
or with its parent (its input closed).

``python -m tests.store.forked_upgrades``; not a test module.
"""

from __future__ import annotations

import os
import sys
import traceback

import alembic.command  # noqa: F401 (loaded once, before the forks)
import sqlalchemy  # noqa: F401

import cli.db  # noqa: F401
from cli.main import main
from store import migrate


def serve() -> None:
    migrate.head()  # read once here, so that the children skip it (they read the scripts again to migrate)
    for line in sys.stdin:
        url = line.strip()
        path = migrate.sqlite_file(url)
        assert path is not None, "SQLite databases only"
        child = os.fork()
        if child == 0:  # the child: the command, its standard error to the log; it never returns to the loop
            code = 1
            try:
                with open(f"{path}.log", "w") as written:  # its output too: this process's speaks to the test
                    os.dup2(written.fileno(), 1)
                    os.dup2(written.fileno(), 2)
                sys.stdout = os.fdopen(1, "w", buffering=1)
                sys.stderr = os.fdopen(2, "w", buffering=1)
                code = main(["db", "upgrade", "--database-url", url])
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stderr.flush()
                os._exit(code)
        print(f"pid {child}", flush=True)
        sys.stdin.readline()  # the test has sent its kill: a child that ended first stays a zombie until then
        _, status = os.waitpid(child, 0)
        print(f"exit {status}", flush=True)


if __name__ == "__main__":
    serve()
