"""The inbox path: a plain ``GET /api/v1/decisions`` (no query but ``?wait=`` in plain decimal), answered before
Flask's dispatch.

A pull bot that plays many games reads its inbox between its moves, and Flask's per-request machinery (the request
object and context, the URL map's match, the query's schema, flask-smorest's wrappers) costs about a third of that
read's CPU. This WSGI middleware, beside ``service/api/movepath.py`` and like it inside ``service/inputguard.py``,
takes the plain case only: ``GET`` on the route's path with no query string, or with ``wait=`` and a decimal number
of at most :data:`MAX_WAIT` seconds as its only parameter (what the documented schema reads the same: the other
parameters at their defaults). It answers it under the app's context alone with the view's own function
(:func:`service.api.decisions.inbox`: the token's player, the long poll, the ETag and its 304), so the body, the
headers, the errors (``service/errors.py``'s shape and headers: a 429's ``Retry-After``; a logged 500 for anything
unexpected) and the teardown (the app context's) are the view's. Any other request goes to Flask untouched: the
route stays there, documented (``service/api/decisions.py``), and answers the rest, the schema's 422s among them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from marshmallow import validate
from werkzeug.exceptions import HTTPException

from service import auth, errors
from service.api import decisions
from service.bodylimit import WSGIApp
from service.observe import ACCOUNT, ROUTE
from service.schemas import DecisionsQuerySchema

_QUERY = DecisionsQuerySchema()
LIMIT: int = _QUERY.fields["limit"].load_default
TEXTS: bool = _QUERY.fields["texts"].load_default
MAX_WAIT: float = next(rule.max for rule in _QUERY.fields["wait"].validators if isinstance(rule, validate.Range))
"""The schema's largest ``wait`` (a larger one goes to Flask, for its 422)."""
PLAIN_WAIT = re.compile(r"wait=([0-9]{1,2}(?:\.[0-9]{1,6})?)")


class InboxPath:
    """The WSGI middleware: ``app.wsgi_app = InboxPath(app, app.wsgi_app)``."""

    def __init__(self, app: Flask, wsgi_app: WSGIApp) -> None:
        self.flask = app
        self.app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "GET" or environ.get("PATH_INFO") != decisions.PATH:
            return self.app(environ, start_response)
        query = environ.get("QUERY_STRING") or ""
        wait = 0.0
        if query:
            matched = PLAIN_WAIT.fullmatch(query)
            if matched is None or float(matched[1]) > MAX_WAIT:
                return self.app(environ, start_response)
            wait = float(matched[1])
        environ[ROUTE] = decisions.PATH
        with self.flask.app_context():
            try:
                player_id = auth.player_id_of(environ.get("HTTP_AUTHORIZATION"))
                if player_id is None:
                    errors.fail(401, auth.REQUIRED)
                environ[ACCOUNT] = player_id
                response = decisions.inbox(player_id, wait, LIMIT, TEXTS, environ)
            except HTTPException as error:
                return errors.http_error(error)(environ, start_response)
            except Exception as error:
                return errors.unexpected_error(error)(environ, start_response)
        return response(environ, start_response)
