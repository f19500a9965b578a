"""Each starter's self-test checks its signature code against the test vector of docs/bot-protocol.md, and the
vector the starters carry is the documented one; a bad command line is refused with a message that names what is
wrong, no traceback."""

from __future__ import annotations

import re

import pytest

from tests.starters.starterkit import NAMES, ROOT, STARTERS, run

SOURCES = {"js": [STARTERS / "js" / "bot.js"], "go": sorted((STARTERS / "go").glob("*.go"))}


def documented_vector() -> str:
    """The v2 signature of the test vector in docs/bot-protocol.md."""
    text = (ROOT / "docs" / "bot-protocol.md").read_text()
    found = re.search(r"Test vector: secret `s3cret`.*?`(v2=[0-9a-f]{64})`", text, re.S)
    assert found, "docs/bot-protocol.md has no v2 test vector"
    return found.group(1)


@pytest.mark.parametrize("name", NAMES)
def test_the_self_test_passes_on_the_documented_vector(name: str, starter: list[str]) -> None:
    done = run(starter, "selftest")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("selftest passed")
    carried = "".join(path.read_text() for path in SOURCES[name])
    assert documented_vector() in carried  # the vector checked is the documented one


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([], "--push, --pull or selftest"),
        (["--push", "--pull"], "--push, --pull or selftest"),
        (["--pull"], "token"),
        (["--pull", "--token", "t", "--url", "ftp://host"], "--url"),
        (["--push", "--port", "no-port"], "port"),
        (["--bogus", "1"], "bogus"),
    ],
)
def test_a_bad_command_line_is_refused_with_a_clear_message(
    name: str, starter: list[str], args: list[str], says: str
) -> None:
    done = run(starter, *args)
    assert done.returncode != 0
    message = (done.stdout + done.stderr).strip()
    assert says in message.splitlines()[0], message  # first, whatever follows (Go's flag package lists the flags)
    assert "Traceback" not in message and "goroutine" not in message and "    at " not in message
