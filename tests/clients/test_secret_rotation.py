"""A secret rotated without a lost request (clients/signature.py, clients/push.py, clients/__main__.py): the
verifier accepts the new secret and the previous ones, each request id once whichever secret signed it, and
nothing else; the push server's secrets change while it serves; ``--old-secret`` on the command line, as a bot
author runs it, and its usage errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from botlink import signing
from botlink.calls import BotConnection
from botlink.netguard import parse_allowlist
from clients.__main__ import main
from clients.push import serve
from clients.signature import Verifier
from tests.clients.test_push import MOVE, first_action, post

ROOT = Path(__file__).resolve().parents[2]
OLD, NEW, OTHER = "o" * 40, "n" * 40, "x" * 40
BODY = json.dumps(MOVE).encode()


def signed(secret: str, path: str = "/bot/move") -> dict[str, str]:
    return signing.headers(secret, "POST", path, BODY)


def test_the_verifier_accepts_the_new_and_the_previous_secrets_and_nothing_else() -> None:
    verifier = Verifier(NEW, previous=[OLD])
    assert verifier.secrets == (NEW, OLD)
    assert verifier.check("POST", "/bot/move", signed(NEW), BODY)
    assert verifier.check("POST", "/bot/move", signed(OLD), BODY)
    assert not verifier.check("POST", "/bot/move", signed(OTHER), BODY)
    assert not verifier.check("POST", "/bot/move", signed(OLD, "/bot/start"), BODY)  # another route's signature


def test_a_request_id_is_good_once_whichever_secret_signed_it() -> None:
    verifier = Verifier(NEW, previous=[OLD])
    request_id = "ab" * 16
    first = signing.headers(OLD, "POST", "/bot/move", BODY, request_id=request_id)
    again = signing.headers(NEW, "POST", "/bot/move", BODY, request_id=request_id)
    assert verifier.check("POST", "/bot/move", first, BODY)
    assert not verifier.check("POST", "/bot/move", again, BODY)
    assert not verifier.check("POST", "/bot/move", first, BODY)


def test_dropping_the_old_secret_refuses_it_and_keeps_the_ids_seen() -> None:
    verifier = Verifier(NEW, previous=[OLD])
    headers = signed(NEW)
    assert verifier.check("POST", "/bot/move", headers, BODY)
    verifier.previous = ()
    assert not verifier.check("POST", "/bot/move", signed(OLD), BODY)
    assert not verifier.check("POST", "/bot/move", headers, BODY)  # still a replay
    assert verifier.check("POST", "/bot/move", signed(NEW), BODY)


def test_the_push_server_rotates_while_it_serves() -> None:
    with serve(first_action, secret=OLD, name="rotating").start_background() as server:
        assert post(server, "/bot/move", MOVE, secret=OLD).status_code == 200
        assert post(server, "/bot/move", MOVE, secret=NEW).status_code == 401
        server.secret, server.previous_secrets = NEW, [OLD]  # a rotation begins: both are good
        assert server.previous_secrets == (OLD,)
        assert [post(server, "/bot/move", MOVE, secret=key).status_code for key in (NEW, OLD, OTHER)] == [
            200,
            200,
            401,
        ]
        server.previous_secrets = []  # it ends: the old one is refused
        assert [post(server, "/bot/move", MOVE, secret=key).status_code for key in (NEW, OLD)] == [200, 401]


def test_previous_secrets_need_a_secret() -> None:
    with pytest.raises(ValueError, match="beside a secret"):
        serve(first_action, previous_secrets=[OLD])
    with serve(first_action) as server, pytest.raises(ValueError, match="beside a secret"):
        server.previous_secrets = [OLD]


def test_the_command_line_accepts_the_old_secret_beside_the_new_one() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "clients", "--bot", "random", "--push", "--port", "0", "--secret", NEW]
        + ["--old-secret", OLD],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert banner.startswith("random (board, card) serving at http://127.0.0.1:"), banner
        assert "accepting the old secret beside the new one" in process.stdout.readline()
        url = banner.split()[5] + "/bot"
        allow = parse_allowlist("loopback")
        for secret in (NEW, OLD):
            with BotConnection(url, secret, allow, timeout=5) as connection:
                assert connection.call("info", {"type": "info", "nonce": "n1"}).body["nonce"] == "n1"
        with BotConnection(url, OTHER, allow, timeout=5) as connection:
            refused = connection.call("info", {"type": "info", "nonce": "n2"})
            assert refused.fault == "rejected" and "401" in refused.detail
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "stopped" in out


def test_the_old_secret_may_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SORRY_ARENA_SECRET", NEW)
    monkeypatch.setenv("SORRY_ARENA_OLD_SECRET", OLD)
    process = subprocess.Popen(
        [sys.executable, "-m", "clients", "--bot", "random", "--push", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[5] + "/bot"
        with BotConnection(url, OLD, parse_allowlist("loopback"), timeout=5) as connection:
            assert connection.call("info", {"type": "info", "nonce": "n3"}).body["nonce"] == "n3"
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bot", "random", "--push", "--old-secret", OLD], "--old-secret is accepted beside the new secret"),
        (["--bot", "random", "--push", "--secret", NEW, "--old-secret", ""], "--old-secret must not be empty"),
        (["--bot", "random", "--pull", "--old-secret", OLD], "--old-secret is for --push, not --pull"),
    ],
)
def test_old_secret_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SORRY_ARENA_SECRET", raising=False)
    monkeypatch.delenv("SORRY_ARENA_OLD_SECRET", raising=False)
    result = subprocess.run(
        [sys.executable, "-m", "clients", *argv], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and message in result.stderr, result.stderr
    with pytest.raises(SystemExit) as exited:  # the same from Python
        main(argv)
    assert exited.value.code == 2 and message in capsys.readouterr().err
