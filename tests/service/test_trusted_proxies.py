"""The client's address behind a reverse proxy (``service/clientaddress.py``), through ``sorry-arena serve`` as it
runs: with ``SORRY_ARENA_TRUSTED_PROXIES`` (a hop count, or the proxies' networks) the per-address sign-up limit
(20 a minute) counts each ``X-Forwarded-For`` client apart; without it the header is ignored, so a client cannot
dodge the limit by writing it. The networks form believes only a peer in them, and takes the rightmost address
outside them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import requests
from flask import Flask

from service.clientaddress import TrustedNetworks, client_address
from tests.service.test_waiting_attacks import Server, server

LIMIT = 20
"""``SORRY_ARENA_LIMIT_ACCOUNTS``'s default: sign-ups per client address per minute."""


def sign_up(found: Server, name: str, forwarded: str | None) -> int:
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    response = requests.post(found.url("/api/v1/players"), json={"name": name}, headers=headers, timeout=30)
    assert response.status_code in (201, 429), response.text
    return response.status_code


@pytest.mark.parametrize("trusted", ["1", "127.0.0.0/8"])
def test_a_trusted_proxy_s_clients_are_limited_each_on_its_own(trusted: str, tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "cli.main", "serve"]
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}", "SORRY_ARENA_TRUSTED_PROXIES": trusted}
    with server(argv, env, tmp_path / "serve.log") as found:
        spread = [sign_up(found, f"many{number}", f"203.0.113.{number}") for number in range(LIMIT + 2)]
        assert spread == [201] * (LIMIT + 2)
        # one client behind the proxy, whatever it wrote itself to the left of what the proxy appended
        one = [sign_up(found, f"one{number}", f"10.9.{number}.1, 198.51.100.7") for number in range(LIMIT + 1)]
        assert one == [201] * LIMIT + [429]


def test_without_trusted_proxies_the_header_is_ignored(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "cli.main", "serve"]
    with server(argv, {"DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}"}, tmp_path / "serve.log") as found:
        answers = [sign_up(found, f"p{number}", f"203.0.113.{number}") for number in range(LIMIT + 1)]
    assert answers == [201] * LIMIT + [429]


def seen(networks: str, peer: str, forwarded: str | None) -> str:
    """The client address the app sees behind :class:`TrustedNetworks` of ``networks``."""
    from runtime.settingvalues import parse_proxies

    app = Flask(__name__)
    app.add_url_rule("/", view_func=client_address)
    parsed = parse_proxies(networks)
    assert isinstance(parsed, tuple)
    app.wsgi_app = TrustedNetworks(app.wsgi_app, parsed)  # type: ignore[method-assign]
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else {}
    return app.test_client().get("/", headers=headers, environ_base={"REMOTE_ADDR": peer}).get_data(as_text=True)


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        ("10.0.0.5", "198.51.100.7", "198.51.100.7"),  # one trusted proxy
        ("10.0.0.5", "1.2.3.4, 198.51.100.7, 10.0.0.9", "198.51.100.7"),  # two proxies; the client's own ignored
        ("203.0.113.9", "198.51.100.7", "203.0.113.9"),  # an untrusted peer: its header is not believed
        ("10.0.0.5", None, "10.0.0.5"),  # a trusted peer without the header: itself
        ("10.0.0.5", "10.0.0.7, 10.0.0.8", "10.0.0.7"),  # only proxies: the leftmost
        ("10.0.0.5", "198.51.100.7, garbage", "10.0.0.5"),  # not an address: the hop that passed it on
        ("::1", "2001:db8::1", "2001:db8::1"),
    ],
)
def test_the_rightmost_address_outside_the_trusted_networks(
    peer: str, forwarded: str | None, expected: str
) -> None:
    assert seen("10.0.0.0/8, ::1", peer, forwarded) == expected
