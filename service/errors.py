"""One JSON shape for every error: ``{"code": 409, "status": "Conflict", "message": "..."}``, plus ``errors``
(each invalid field's messages) on a 422. flask-smorest's ``ErrorSchema`` documents it; this module renders it
for every HTTP error of the app, writes a 422's message from its field errors, and turns any unexpected
exception into the same shape (a logged 500, never a traceback): :func:`http_error` and :func:`unexpected_error`,
Flask's error handlers, which the move path outside Flask's dispatch (``service/api/movepath.py``) calls too.

A failure of the database rather than of the request (it restarts or is stopped, or gave the request's transaction
up to another's: a deadlock; :func:`store.database.failed_not_faulty`) is a 503 with ``Retry-After``, logged in one
line: the request may be sent again as it was."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any, NoReturn

from flask import Flask, Response, jsonify
from flask_smorest import abort
from flask_smorest.error_handler import ErrorSchema
from werkzeug.exceptions import HTTPException

from store.database import failed_not_faulty, first_line

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
DATABASE_FAILED = (
    "the database could not complete this request just now (it is restarting, or the request collided with "
    f"another's): send it again in {DATABASE_RETRY_AFTER_S} s"
)


def log_database_failure(what: str, error: BaseException) -> None:
    """A failure of the database, logged as a warning in one line: ``what``, then the first line of the error."""
    log.warning("%s: %s", what, first_line(error))


def unexpected_error(error: Exception) -> Response:
    """The response of any other exception: a failure of the database is a 503 with ``Retry-After``, logged in one
    line; anything else is logged with its traceback and answered as a 500 that tells nothing."""
    if failed_not_faulty(error):
        log_database_failure("a request failed on the database", error)
        response = jsonify({"code": 503, "status": "Service Unavailable", "message": DATABASE_FAILED})
        response.status_code = 503
        response.headers["Retry-After"] = str(DATABASE_RETRY_AFTER_S)
        return response
    log.exception("unexpected error", exc_info=error)
    response = jsonify({"code": 500, "status": "Internal Server Error", "message": "internal error"})
    response.status_code = 500
    return response


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(Exception, unexpected_error)
