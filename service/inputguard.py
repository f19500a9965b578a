"""Hostile input refused before any view sees it, in one WSGI middleware around the whole app: a JSON body that
nests deeper than :data:`MAX_DEPTH` levels, and a query string with a NUL character. Both are a 422 in the one
error shape (``service/errors.py``), the message saying what was wrong.

Deep nesting: Python's JSON decoder recurses once per level, so a 30,000-deep array (60 KB, under the body limit)
exhausts the stack in every parser of the app (webargs', Flask's, the move path's own); no request of the API
nests more than a few levels. The check runs on every body sent as JSON (``application/json`` or
``application/*+json``, the bodies the parsers read), before any of them: it costs two ``bytes.count`` calls
unless the body holds more than :data:`MAX_DEPTH` brackets, and only then is it scanned (strings left out).

NUL: PostgreSQL stores no NUL in a text value, and no query parameter of the API or of the web pages needs one, so
a query string holding one (``%00`` or raw) is refused whatever the parameter. Strings in bodies are the schemas'
to check (``service.schemas.Text``: NUL and lone surrogates).

It sits inside :class:`service.bodylimit.BodyLimit`: the body it reads is at most the body limit.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any

from service.bodylimit import WSGIApp, read_at_most

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a JSON body may have."""

TOO_DEEP = f"request body nests deeper than {MAX_DEPTH} levels"
NUL_IN_QUERY = "query string: must not contain NUL characters (%00)"

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")


def nests_deeper(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON text ``body`` nests arrays and objects deeper than ``limit`` (brackets inside strings do
    not count; a malformed body is judged by its brackets, and its parser refuses it anyway)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth = 0
    for bracket in _NOT_BRACKET.sub(b"", _STRING.sub(b"", body)):
        if bracket in b"[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def is_json(content_type: str) -> bool:
    """Whether a ``Content-Type`` is one the parsers read as JSON (as webargs judges it)."""
    mimetype = content_type.partition(";")[0].strip().lower()
    return mimetype == "application/json" or (mimetype.startswith("application/") and mimetype.endswith("+json"))


class InputGuard:
    """The WSGI middleware: ``app.wsgi_app = BodyLimit(InputGuard(app.wsgi_app), limit)``."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        query = environ.get("QUERY_STRING", "")
        if query and ("%00" in query or "\x00" in query):
            return refuse(start_response, NUL_IN_QUERY)
        length = environ.get("CONTENT_LENGTH") or ""
        if length.isdigit() and int(length) > 0 and is_json(environ.get("CONTENT_TYPE", "")):
            body = read_at_most(environ["wsgi.input"], int(length))
            if nests_deeper(body):
                return refuse(start_response, TOO_DEEP)
            environ["wsgi.input"] = io.BytesIO(body)  # the app reads the body as it came
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)


def refuse(start_response: Callable[..., Any], message: str) -> list[bytes]:
    code = HTTPStatus.UNPROCESSABLE_ENTITY
    body = json.dumps({"code": code.value, "status": code.phrase, "message": message}).encode()
    start_response(
        f"{code.value} {code.phrase}",
        [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
    )
    return [body]
