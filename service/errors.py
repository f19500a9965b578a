"""One JSON shape for every error: ``{"code": 409, "status": "Conflict", "message": "..."}``, plus ``errors``
(each invalid field's messages) on a 422. flask-smorest's ``ErrorSchema`` documents it; this module renders it
for every HTTP error of the app, writes a 422's message from its field errors, and turns any unexpected
exception into the same shape (a logged 500, never a traceback): :func:`http_error` and :func:`unexpected_error`,
Flask's error handlers, which the move path outside Flask's dispatch (``service/api/movepath.py``) calls too.

A failure of the database rather than of the request (it restarts or is stopped, refuses connections or writes or
has a full disk, or gave the request's transaction up to another's: a deadlock; :func:`store.database.outage`) is a
503 with ``Retry-After`` whose message says which, logged in one line per kind and minute (never a traceback): the
request may be sent again as it was. :func:`database_failure` tells such a failure and logs it, for the API here and
for the pages (``service/web/errors.py``: a 503 page with the same ``Retry-After``)."""

from __future__ import annotations

import logging
import threading
import time
from http import HTTPStatus
from typing import Any, NoReturn

from flask import Flask, Response, current_app, has_app_context, jsonify
from flask_smorest import abort
from flask_smorest.error_handler import ErrorSchema
from werkzeug.exceptions import HTTPException

from store.database import first_line, outage

__all__ = ["ErrorSchema", "fail", "init_app"]

log = logging.getLogger(__name__)


def fail(code: int, message: str) -> NoReturn:
    abort(code, message=message)
    raise AssertionError("unreachable")  # abort raises


def flatten(errors: Any, path: str = "") -> list[str]:
    """A 422's field errors as lines ``json.seed: message`` (a list's items by index: ``json.bot_ids.1``)."""
    if isinstance(errors, dict):
        return [
            line for key, value in errors.items() for line in flatten(value, f"{path}.{key}" if path else str(key))
        ]
    if isinstance(errors, list) and all(isinstance(item, str) for item in errors):
        return [f"{path}: {' '.join(errors)}"]
    if isinstance(errors, list):
        return [line for i, item in enumerate(errors) for line in flatten(item, f"{path}[{i}]")]
    return [f"{path}: {errors}"]


def _body(error: HTTPException) -> tuple[dict[str, Any], dict[str, str]]:
    code = error.code or 500
    data = getattr(error, "data", None) or {}
    if code == 400 and data.get("messages"):
        code = 422  # a body that is not JSON is malformed input like any other: one status for all of it
    body: dict[str, Any] = {"code": code, "status": HTTPStatus(code).phrase}
    errors = data.get("errors", data.get("messages"))
    if errors:
        body["errors"] = errors
    message = data.get("message")
    if not message and errors:
        message = "invalid request: " + "; ".join(flatten(errors))
    body["message"] = message or error.description or HTTPStatus(code).phrase
    return body, dict(data.get("headers") or {})


def http_error(error: HTTPException) -> Response:
    """The response of an HTTP error: the one shape, with the error's headers (a 429's ``Retry-After``...)."""
    body, headers = _body(error)
    response = jsonify(body)
    response.status_code = body["code"]
    response.headers.update(headers)
    if body["code"] == 405 and error.get_response().headers.get("Allow"):
        response.headers["Allow"] = error.get_response().headers["Allow"]
    return response


DATABASE_RETRY_AFTER_S = 1
DATABASE_RETRY_AFTER = {"Retry-After": str(DATABASE_RETRY_AFTER_S)}
"""The headers of a 503 of a failure of the database, the API's and the pages'."""
WHY = {
    "read-only": "the database is read-only just now and refuses writes",
    "full": "the database's disk is full just now",
    "busy": "the request collided with another's",
    "unavailable": "the database cannot be reached just now, or it is restarting",
}
"""What a 503 tells of each kind of failure of the database (``store.database.outage``), never its own words."""
DATABASE_FAILED = "the database could not complete this request ({why}): send it again in {seconds} s"
LOG_EVERY_S = 60.0
"""A failure of the database is logged once per kind and ``what`` in this many seconds, with the count of those
not logged since: an outage is a line, not a line per request."""


class OutageLog:
    """The failures of the database one process logs: the first of each kind (and ``what``), then one line per
    :data:`LOG_EVERY_S` with the number that failed meanwhile."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: dict[tuple[str, str], tuple[float, int]] = {}

    def log(self, what: str, error: BaseException) -> None:
        kind = outage(error) or "unavailable"
        moment = time.monotonic()
        with self._lock:
            last, unlogged = self._last.get((what, kind), (None, 0))
            if last is not None and moment - last < LOG_EVERY_S:
                self._last[what, kind] = (last, unlogged + 1)
                return
            self._last[what, kind] = (moment, 0)
        more = f" ({unlogged} more since the last line)" if unlogged else ""
        log.warning("%s: %s (%s)%s", what, first_line(error), kind, more)


_OUTAGES = OutageLog()
"""Outside an app (a unit of the error handler): the process's own."""


def log_database_failure(what: str, error: BaseException) -> None:
    """A failure of the database, logged as a warning in one line: ``what``, its kind, then the first line of the
    error; once per kind per :data:`LOG_EVERY_S` in an app."""
    outages = current_app.extensions.get("database_outages", _OUTAGES) if has_app_context() else _OUTAGES
    outages.log(what, error)


def database_failure(error: BaseException, what: str) -> str | None:
    """The kind of the database's failure that ``error`` is (``store.database.outage``), logged in one line as
    ``what``: a request that met it is answered 503 with :data:`DATABASE_RETRY_AFTER`. ``None`` (and nothing
    logged) for any other error: a bug, a 500."""
    kind = outage(error)
    if kind is not None:
        log_database_failure(what, error)
    return kind


def database_failed(kind: str) -> Response:
    """The API's 503 of a failure of the database of ``kind``: the kind said in the message, ``Retry-After``."""
    message = DATABASE_FAILED.format(why=WHY[kind], seconds=DATABASE_RETRY_AFTER_S)
    response = jsonify({"code": 503, "status": "Service Unavailable", "message": message})
    response.status_code = 503
    response.headers.update(DATABASE_RETRY_AFTER)
    return response


def unexpected_error(error: Exception) -> Response:
    """The response of any other exception: a failure of the database is a 503 with ``Retry-After``
    (:func:`database_failure`, :func:`database_failed`); anything else is logged with its traceback and answered
    as a 500 that tells nothing."""
    kind = database_failure(error, "requests failed on the database")
    if kind is not None:
        return database_failed(kind)
    log.exception("unexpected error", exc_info=error)
    response = jsonify({"code": 500, "status": "Internal Server Error", "message": "internal error"})
    response.status_code = 500
    return response


def init_app(app: Flask) -> None:
    app.extensions["database_outages"] = OutageLog()
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(Exception, unexpected_error)
