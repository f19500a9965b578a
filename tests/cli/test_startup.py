"""A command's start-up pays for its own dependencies only: ``sorry-arena simulate`` loads no Flask, SQLAlchemy,
Alembic, RQ or Redis, neither to build its parser nor to play games between engine bots; and ``--help``, a command's
``--help`` and every usage error (a mistyped command, a bad flag, a missing argument, a bad value) load none of the
service's libraries: each command's parser is built from a light module of ``cli/parsers/``, and the module that
does the command's work is imported only when it runs (cli/main.py)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.main import COMMANDS, build_parser, main
from tests.cli.usagekit import usage_error

ROOT = Path(__file__).resolve().parents[2]
HEAVY = (
    "flask",
    "flask_smorest",
    "werkzeug",
    "marshmallow",
    "sqlalchemy",
    "alembic",
    "psycopg",
    "rq",
    "redis",
    "gunicorn",
    "gevent",
)
"""Packages of the service and the workers that ``simulate``, ``--help`` and a usage error must not import."""

PROBE = """
import contextlib, io, json, sys
import cli.main
heavy = {heavy!r}
loaded = lambda: sorted(name for name in heavy if name in sys.modules)
found = {{"import": loaded()}}
cli.main.build_parser(cli.main.chosen_command(["simulate", "--games", "1"]))
found["parser"] = loaded()
with contextlib.redirect_stdout(io.StringIO()):
    code = cli.main.main({argv!r})
found["run"] = loaded()
found["code"] = code
print(json.dumps(found))
"""

USAGE_PROBE = """
import contextlib, io, json, sys
import cli.main
heavy = {heavy!r}
found = []
for argv in {argvs!r}:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main.main(argv)
        except SystemExit as stop:
            code = stop.code
    found.append([argv, code, out.getvalue() + err.getvalue(), sorted(name for name in heavy if name in sys.modules)])
print(json.dumps(found))
"""


def fresh(script: str, cwd: Path) -> str:
    """The standard output of ``script`` run in a fresh interpreter, in ``cwd``, without the user's settings."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def probe(tmp_path: Path, argv: list[str]) -> dict[str, object]:
    """Run ``argv`` through ``cli.main.main`` in a fresh interpreter; the heavy packages loaded at each step."""
    found: dict[str, object] = json.loads(fresh(PROBE.format(heavy=HEAVY, argv=argv), tmp_path).splitlines()[-1])
    return found


def test_the_probe_sees_a_heavy_import(tmp_path: Path) -> None:
    """The probe would notice: a command that needs SQLAlchemy loads it (``db current`` on a scratch file)."""
    found = probe(tmp_path, ["db", "current", "--database-url", f"sqlite:///{tmp_path / 'probe.db'}"])
    assert "sqlalchemy" in found["run"]  # type: ignore[operator]


def test_simulate_loads_no_service_package(tmp_path: Path) -> None:
    for game in ("board", "card"):
        argv = ["simulate", "--game", game, "--games", "2", "--bots", "random,greedy", "--no-replays", "--json"]
        found = probe(tmp_path, argv)
        assert found == {"import": [], "parser": [], "run": [], "code": 0}, game


def test_simulate_with_a_replay_file_loads_no_service_package(tmp_path: Path) -> None:
    found = probe(tmp_path, ["simulate", "--games", "1", "--replays", "games.jsonl", "--json"])
    assert found["run"] == [] and found["code"] == 0
    assert (tmp_path / "games.jsonl").read_text().count("\n") == 1


def command_lines(parser: argparse.ArgumentParser, line: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command line that reaches a parser: ``()``, ``("db",)``, ``("db", "upgrade")``..."""
    yield line
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from command_lines(sub, (*line, name))


USAGE_ERRORS = [
    [],
    ["simulat"],
    ["--token", "t", "tournament", "status", "1"],
    ["simulate", "--games", "zero"],
    ["simulate", "--game", "card", "--variant", "team"],
    ["serve", "--port", "0"],
    ["serve", "--host", ""],
    ["serve", "--workers", "2"],
    ["serve", "--redis-url", "http://cache:6379"],
    ["serve", "--database-url", "nonsense"],
    ["db"],
    ["db", "revision"],
    ["db", "upgrade", "--database-url", "nonsense"],
    ["openapi", "--output", "."],
    ["worker"],
    ["worker", "--redis-url", "http://cache:6379"],
    ["worker", "--games", "0"],
    ["tournament"],
    ["tournament", "create", "--game", "card"],
    ["tournament", "create", "--game", "card", "--bots", "1"],
    ["tournament", "status"],
    ["tournament", "standings"],
    ["tournament", "--api", "not a url", "status", "1"],
    ["demo", "--bots", "greedy,nobody"],
    ["demo", "--table-size", "4"],
    ["demo", "--port", "8000"],
    ["export"],
    ["export", "--tournament", "0"],
    ["export", "--tournament", "1", "--api", "ftp://x"],
    ["export", "--tournament", "1", "--database-url", "nonsense"],
    ["replay"],
    ["replay", "-", "-"],
    ["view"],
    ["view", "games.jsonl", "--port", "-1"],
    ["match", "1"],
    ["match", "1", "2", "--game", "card", "--alpha", "2"],
    ["match", "1", "greedy", "--game", "card"],
    ["match", "greedy", "random", "--game", "card", "--no-watch"],
    ["ladder"],
    ["ladder", "show"],
    ["ladder", "create", "--game", "card", "--budget-per-hour", "0"],
    ["ladder", "join", "1"],
    ["ladder", "watch", "1", "--every", "0"],
    ["ladder", "--api", "not a url", "list"],
]
"""A usage error of each kind for each command: a missing argument, a bad value, flags that do not go together."""


def test_help_and_every_usage_error_load_no_service_package(tmp_path: Path) -> None:
    """``--help`` of ``sorry-arena`` and of every sub-command, a bad flag of each, and :data:`USAGE_ERRORS`, one
    after the other in one fresh interpreter: none loads a package of the service or the workers."""
    lines = [list(line) for line in command_lines(build_parser())]
    assert ["db", "upgrade"] in lines and ["tournament", "create"] in lines, "the sub-commands' actions too"
    argvs = [[*line, "--help"] for line in lines] + [[*line, "--no-such-flag"] for line in lines] + USAGE_ERRORS
    found = json.loads(fresh(USAGE_PROBE.format(heavy=HEAVY, argvs=argvs), tmp_path))
    assert [(argv, code) for argv, code, _, _ in found] == [(argv, 0 if "--help" in argv else 2) for argv in argvs]
    for argv, _, said, _ in found:  # the help, or the usage line and the error: never a traceback
        assert said.startswith("usage: sorry-arena") and ("--help" in argv or "error: " in said), (argv, said)
        assert "Traceback" not in said, said
    assert [(argv, loaded) for argv, _, _, loaded in found if loaded] == []


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("    ") and line.split()]
    assert [name for name in listed if name in COMMANDS] == list(COMMANDS)


def test_a_command_s_help_and_a_mistyped_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["simulate", "--help"])
    assert done.value.code == 0 and "--bots" in capsys.readouterr().out
    err = usage_error(capsys, "simulat")
    assert "invalid choice" in err and "simulate" in err
    assert "--games" in usage_error(capsys, "simulate", "--games", "zero")
