"""The metrics of ``runtime/metrics.py`` in Prometheus's text format, behind their guard, and a small server for
them on a port of their own.

Guard: a client reads the metrics if its address is in ``SORRY_ARENA_METRICS_ALLOW`` (CIDRs; the address the
connection came from) or if it sends the operator's token (``Authorization: Bearer``, compared in constant time);
anyone else gets a 403. The same WSGI app (:class:`MetricsApp`) answers ``/metrics`` on the API (``on``), on
``sorry-arena serve``'s port of its own (a port number: its master process serves every worker's values) and on a
worker's ``--metrics-port``.

With ``PROMETHEUS_MULTIPROC_DIR`` set (``sorry-arena serve``) the values are read from that directory, every
process's added up as each metric says (:func:`registry`); else from this process's own.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest, multiprocess

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def registry() -> CollectorRegistry:
    """The registry to read: every process's values (multiprocess mode), or this process's."""
    if os.environ.get(MULTIPROC_DIR):
        collected = CollectorRegistry()
        multiprocess.MultiProcessCollector(collected)
        return collected
    return REGISTRY


def parse_networks(text: str) -> list[Network]:
    """``SORRY_ARENA_METRICS_ALLOW``'s networks (checked by the settings)."""
    return [ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip()]


class Guard:
    """Who may read the metrics: the allowed networks, or whoever sends the operator's token."""

    def __init__(self, operator_token: str | None, allow: Sequence[Network]) -> None:
        self.expected = f"Bearer {operator_token}".encode() if operator_token else None
        self.allow = list(allow)

    def admits(self, environ: dict[str, Any]) -> bool:
        sent = environ.get("HTTP_AUTHORIZATION", "")
        if self.expected is not None and sent and hmac.compare_digest(sent.encode(), self.expected):
            return True
        try:
            address = ipaddress.ip_address(environ.get("REMOTE_ADDR", ""))
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.allow)


def refusal(status: str, message: str) -> tuple[str, list[tuple[str, str]], bytes]:
    body = f'{{"error": "{message}"}}'.encode()
    return status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))], body


FORBIDDEN = refusal(
    "403 FORBIDDEN",
    "the metrics are for the operator: send its token or connect from SORRY_ARENA_METRICS_ALLOW",
)


class MetricsApp:
    """A WSGI app answering every request with the metrics (403 to a client the guard refuses)."""

    def __init__(self, guard: Guard) -> None:
        self.guard = guard

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not self.guard.admits(environ):
            status, headers, body = FORBIDDEN
        else:
            body = generate_latest(registry())
            status, headers = "200 OK", [("Content-Type", CONTENT_TYPE_LATEST), ("Content-Length", str(len(body)))]
        start_response(status, headers)
        return [body]


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No line per scrape on stderr."""


def serve(app: MetricsApp, port: int, host: str = "0.0.0.0") -> WSGIServer:
    """Serve ``app`` on ``host:port`` on a daemon thread; the server (``shutdown()`` stops it)."""
    server = make_server(host, port, app, server_class=_Server, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="sorry-arena-metrics", daemon=True).start()
    return server
