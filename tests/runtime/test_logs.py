"""The one log format (``runtime/logs.py``) as a process started with it writes it: text and JSON lines that parse,
each with its time, level, process and logger; RQ's per-job lines held back; a bad setting a one-line error."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import datetime

import pytest

from runtime.settings import Settings

PROGRAM = """
import logging
from runtime import logs
logs.configure({kind!r}, "INFO", process="probe")
logging.getLogger("sorry_arena.test").info("hello %s", "there", extra={{"fields": {{"route": "/x/<int:id>"}}}})
logging.getLogger("rq.worker").info("Job OK (sorry-arena-game-1)")
logging.getLogger("rq.worker").warning("a warning of RQ's")
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("sorry_arena.test").exception("it broke")
"""
TEXT = re.compile(r"(\S+) (INFO|WARNING|ERROR) probe\[(\d+)\] (\S+): (.*)")


def run(kind: str) -> list[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SORRY_ARENA_")}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(kind=kind)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.splitlines()


def test_text_lines_carry_time_level_process_and_logger() -> None:
    lines = run("text")
    first = TEXT.fullmatch(lines[0])
    assert first is not None, lines
    moment, level, _, logger, message = first.groups()
    assert moment.endswith("Z") and datetime.fromisoformat(moment.replace("Z", "+00:00"))
    assert (level, logger, message) == ("INFO", "sorry_arena.test", "hello there")
    assert not any("Job OK" in line for line in lines), "RQ's line per job is held back"
    assert any(TEXT.fullmatch(line) and "a warning of RQ's" in line for line in lines)
    assert any(line.startswith("ZeroDivisionError") for line in lines), "a traceback follows its line"


def test_json_lines_parse_with_time_level_process_logger_and_fields() -> None:
    lines = [json.loads(line) for line in run("json")]  # every line is one object, a traceback included
    assert lines[0]["message"] == "hello there" and lines[0]["route"] == "/x/<int:id>"
    for line in lines:
        assert {"time", "level", "process", "pid", "logger", "message"} <= set(line)
        assert line["process"] == "probe"
    assert [line["level"] for line in lines] == ["INFO", "WARNING", "ERROR"]
    assert "ZeroDivisionError" in lines[2]["exception"]


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SORRY_ARENA_LOG_FORMAT", "xml"),
        ("SORRY_ARENA_LOG_LEVEL", "loud"),
        ("SORRY_ARENA_ACCESS_LOG", "maybe"),
        ("SORRY_ARENA_METRICS", "70000"),
        ("SORRY_ARENA_METRICS_ALLOW", "10.0.0.0/8, nowhere"),
        ("SORRY_ARENA_WORKER_METRICS_PORT", "0"),
    ],
)
def test_a_bad_setting_is_an_error_naming_it(variable: str, value: str) -> None:
    with pytest.raises(ValueError, match=variable):
        Settings.from_env({variable: value})


def test_the_settings_read_their_values() -> None:
    settings = Settings.from_env(
        {
            "SORRY_ARENA_LOG_FORMAT": "JSON",
            "SORRY_ARENA_LOG_LEVEL": "warning",
            "SORRY_ARENA_ACCESS_LOG": "off",
            "SORRY_ARENA_METRICS": "9464",
            "SORRY_ARENA_METRICS_ALLOW": "10.0.0.0/8",
            "SORRY_ARENA_WORKER_METRICS_PORT": "9465",
        }
    )
    assert (settings.log_format, settings.log_level, settings.access_log) == ("json", "WARNING", False)
    assert (settings.metrics, settings.metrics_allow, settings.worker_metrics_port) == ("9464", "10.0.0.0/8", 9465)
    assert Settings.from_env({}).metrics == "off" and Settings.from_env({}).access_log
