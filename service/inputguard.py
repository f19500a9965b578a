"""Hostile input refused before any view sees it, in one WSGI middleware around the whole app: a JSON body that
nests deeper than :data:`MAX_DEPTH` levels or holds an integer of more than :data:`MAX_DIGITS` digits, and a query
string with a NUL character. Each is a 422 in the one error shape (``service/errors.py``), the message saying what
was wrong.

Deep nesting: Python's JSON decoder recurses once per level, so a 30,000-deep array (60 KB, under the body limit)
exhausts the stack in every parser of the app (webargs', Flask's, the move path's own); no request of the API
nests more than a few levels. The check runs on every body sent as JSON (``application/json`` or
``application/*+json``, the bodies the parsers read), before any of them: it costs two ``bytes.count`` calls
unless the body holds more than :data:`MAX_DEPTH` brackets, and only then is it scanned (strings left out).

NUL: PostgreSQL stores no NUL in a text value, and no query parameter of the API or of the web pages needs one, so
a query string holding one (``%00`` or raw) is refused whatever the parameter. Strings in bodies are the schemas'
to check (``service.schemas.Text``: NUL and lone surrogates).

Long numbers: Python refuses to turn a decimal integer of more than 4,300 digits into an ``int`` (a ``ValueError``
out of every JSON parser of the app, which no parser expects: it was a 500), and one just under that costs
quadratic time to parse. No integer of the API has more than 19 digits (a seed, at most ``2**63 - 1``; the request
schemas bound every number: ``service/schemas.py`` and its siblings), so a JSON body holding an integer of more than
:data:`MAX_DIGITS` digits is refused, the 422 naming each field that holds one (``json.seed: ...``, in the shape of
the schemas' own 422s). The check is a search for a run of more digits than that (a quarter of a microsecond for a
move's body); only a body that has one is parsed (with every long integer kept as a marker, to find its field): a
run inside a string, or the digits of a float (which parses to a float whatever its length, and the schemas judge),
is let through.

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
from service.errors import flatten

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a JSON body may have."""

TOO_DEEP = f"request body nests deeper than {MAX_DEPTH} levels"
NUL_IN_QUERY = "query string: must not contain NUL characters (%00)"

MAX_DIGITS = 100
"""The most digits an integer of a JSON body may have (the API's largest, a seed, has 19)."""

TOO_LONG = f"number too long: an integer has at most {MAX_DIGITS} digits"
NUMBER_IN_BAD_JSON = f"request body: {TOO_LONG} (and the body is not valid JSON)"

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_DIGITS_AS_ZEROS = bytes.maketrans(b"0123456789", b"0" * 10)
_LONG_RUN = b"0" * (MAX_DIGITS + 1)
"""A run of more than :data:`MAX_DIGITS` digits, once every digit is a zero: one ``bytes.translate`` and one
substring search find it (some 30 us for 64 KiB of 100-digit numbers, where a regular expression takes 1.5 ms)."""


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


class _LongInteger:
    """Stands for an integer of more than :data:`MAX_DIGITS` digits in a parsed body."""


_LONG = _LongInteger()


def long_integers(body: bytes) -> dict[str, Any] | str | None:
    """Where the JSON text ``body`` holds integers of more than :data:`MAX_DIGITS` digits: the field errors of a 422
    (``{"json": {"seed": [TOO_LONG]}}``, a list's items by index), or :data:`NUMBER_IN_BAD_JSON` when the body holds
    one but is no valid JSON; ``None`` when it holds none (or is no valid JSON without one: its parser says so)."""
    if _LONG_RUN not in body.translate(_DIGITS_AS_ZEROS):
        return None
    found: list[bool] = []

    def integer(text: str) -> int | _LongInteger:
        if len(text) - text.startswith("-") <= MAX_DIGITS:
            return int(text)
        found.append(True)
        return _LONG

    try:
        data = json.loads(body, parse_int=integer)
    except ValueError:  # malformed JSON or text (UnicodeDecodeError is one)
        return NUMBER_IN_BAD_JSON if found else None
    errors = _errors_at(data)
    return None if errors is None else {"json": errors}


def _errors_at(data: Any) -> Any:
    """The field errors of the long integers in ``data`` (nested as the data is), or ``None`` without any."""
    if data is _LONG:
        return [TOO_LONG]
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    errors = {key: error for key, value in items if (error := _errors_at(value)) is not None}
    return errors or None


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
            errors = long_integers(body)
            if errors is not None:
                return refuse(start_response, errors)
            environ["wsgi.input"] = io.BytesIO(body)  # the app reads the body as it came
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)


def refuse(start_response: Callable[..., Any], problem: str | dict[str, Any]) -> list[bytes]:
    """A 422 in the one error shape: ``problem`` is its message, or its field errors (then the message lists
    them, as the schemas' 422s do)."""
    code = HTTPStatus.UNPROCESSABLE_ENTITY
    answer: dict[str, Any] = {"code": code.value, "status": code.phrase}
    if isinstance(problem, dict):
        answer["errors"] = problem
        answer["message"] = "invalid request: " + "; ".join(flatten(problem))
    else:
        answer["message"] = problem
    body = json.dumps(answer).encode()
    start_response(
        f"{code.value} {code.phrase}",
        [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
    )
    return [body]
