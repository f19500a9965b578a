"""Request bodies over ``MAX_BODY_BYTES`` (64 KiB) are refused with a 413 before the app sees them (hostile
input).

Flask's ``MAX_CONTENT_LENGTH`` refuses a body only when a view reads it through the request: a view that ignores
its body lets any size through (which gunicorn then reads, to find the next request), and the move path reads its
body itself (``service/api/games.py``). This WSGI middleware, around the whole app, answers a declared
``Content-Length`` over the cap at once, without reading the body, and reads a body sent without one
(``Transfer-Encoding: chunked``, which the server decodes) up to one byte over the cap: over it, a 413; else the
app gets it as an ordinary body with its ``Content-Length`` (so the move path's fast reader takes it too). Any
other request costs one dict lookup. The 413 is the service's one error shape (``service/errors.py``), its message
naming the limit.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def too_large_message(limit: int) -> str:
    return f"request body too large: the limit is {limit} bytes ({limit / 1024:g} KiB)"


class BodyLimit:
    """The WSGI middleware: ``app.wsgi_app = BodyLimit(app.wsgi_app, limit)``."""

    def __init__(self, app: WSGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit
        code = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
        self.refusal = json.dumps(
            {"code": code.value, "status": code.phrase, "message": too_large_message(limit)}
        ).encode()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        length = environ.get("CONTENT_LENGTH")
        if length:
            if length.isdigit() and int(length) > self.limit:  # a malformed length is the server's to refuse
                return self.refuse(start_response)
        elif (
            environ.get("wsgi.input_terminated") and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        ):
            body = read_at_most(environ["wsgi.input"], self.limit + 1)
            if len(body) > self.limit:
                return self.refuse(start_response)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            del environ["HTTP_TRANSFER_ENCODING"]
        return self.app(environ, start_response)

    def refuse(self, start_response: Callable[..., Any]) -> list[bytes]:
        start_response(
            "413 Request Entity Too Large",
            [("Content-Type", "application/json"), ("Content-Length", str(len(self.refusal)))],
        )
        return [self.refusal]


def read_at_most(stream: Any, size: int) -> bytes:
    """Up to ``size`` bytes of ``stream``, fewer only at its end (a raw stream may return less per read)."""
    parts: list[bytes] = []
    left = size
    while left > 0:
        part = stream.read(left)
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
