"""The client's address, which the per-address limits count (sign-ups, streams without a token): every use goes
through :func:`client_address`.

Behind a reverse proxy every request comes from the proxy's address, so ``SORRY_ARENA_TRUSTED_PROXIES`` says which
peers' ``X-Forwarded-For`` to believe (:func:`init_app` puts the matching middleware in front of the app):

- a number of hops, N: werkzeug's ``ProxyFix(x_for=N)`` takes the Nth address from the right of
  ``X-Forwarded-For`` (each proxy appends the address it was called from);
- networks of the proxies: only a peer in one of them is believed, and the client is the rightmost address of
  ``X-Forwarded-For`` that is not in them (what a trusted proxy appended; what the client wrote itself is to the
  left of it, never reached).

Unset (the default), the header is ignored: anyone could write it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, request
from werkzeug.middleware.proxy_fix import ProxyFix

from runtime.settings import Settings
from runtime.settingvalues import parse_proxies

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
WsgiApp = Callable[[dict[str, Any], Any], Iterable[bytes]]


def client_address() -> str:
    """The address the request came from: the peer's, or what a trusted proxy says it was called from."""
    return request.remote_addr or "unknown"


def init_app(app: Flask, settings: Settings) -> None:
    """Believe ``X-Forwarded-For`` from the proxies ``settings.trusted_proxies`` names (call last: the middleware
    must come before every other, which may read the address)."""
    proxies = parse_proxies(settings.trusted_proxies)
    if isinstance(proxies, int):
        if proxies:
            app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]
    else:
        app.wsgi_app = TrustedNetworks(app.wsgi_app, proxies)  # type: ignore[method-assign]


class TrustedNetworks:
    """WSGI middleware: for a peer in ``networks``, ``REMOTE_ADDR`` becomes the rightmost address of
    ``X-Forwarded-For`` outside them (the peer's own is kept as ``werkzeug.proxy_fix.orig``, as ProxyFix does)."""

    def __init__(self, app: WsgiApp, networks: tuple[Network, ...]) -> None:
        self.app = app
        self.networks = networks

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        peer = environ.get("REMOTE_ADDR")
        forwarded = environ.get("HTTP_X_FORWARDED_FOR")
        if peer and forwarded and self.trusted(peer):
            environ["werkzeug.proxy_fix.orig"] = {"REMOTE_ADDR": peer}
            environ["REMOTE_ADDR"] = self.client(peer, forwarded)
        return self.app(environ, start_response)

    def trusted(self, address: str) -> bool:
        try:
            parsed = ipaddress.ip_address(address.strip())
        except ValueError:
            return False
        return any(parsed in network for network in self.networks)

    def client(self, peer: str, forwarded: str) -> str:
        """The rightmost hop outside the trusted networks; an entry that is no address ends the walk at the
        trusted hop that passed it on (as does a chain of trusted proxies only)."""
        last = peer
        for hop in reversed([entry.strip() for entry in forwarded.split(",")]):
            try:
                ipaddress.ip_address(hop)
            except ValueError:
                return last
            if not self.trusted(hop):
                return hop
            last = hop
        return last
