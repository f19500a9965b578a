"""The move path: ``POST /api/v1/games/{id}/actions`` with a plainly well-formed body, answered before Flask's
dispatch.

Every pull move is one such request, and Flask's per-request machinery (the request object and context, the URL
map's match, the response object and its hooks) costs about as much CPU as the move's own work. This WSGI
middleware, inside ``service/inputguard.py`` (so the body limit and the nesting check have run), takes the common
case only: ``POST`` on the route's path with a decimal game id and no query string, a JSON body (``Content-Type``
as the schema parser judges it) that :func:`service.api.games.plain_submission` accepts. It answers it under the
app's context alone with the view's own function (:func:`service.api.games.submit`: the token's player, the move
rate limit, the move), so the body, the errors (``service/errors.py``'s shape and headers, a logged 500 for anything
unexpected) and the teardown (the app context's: the request's database connection given back) are the view's.
Any other request, a malformed body among them, goes to Flask untouched, body included: the route stays there,
documented (``service/api/games.py``), and answers the rest, the schema's 422s among them.

The app has no hook for every request that this path would skip (``before_request``, ``after_request``): the web
pages' hooks are their blueprint's, and ReDoc's applies to its page only.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.exceptions import HTTPException

from service import errors
from service.api import games
from service.bodylimit import WSGIApp
from service.inputguard import is_json
from service.observe import ROUTE

TEMPLATE = "/api/v1/games/<int:game_id>/actions"
"""The route's template, as Flask's URL rule spells it (the metrics' and the access log's label)."""
PATH = re.compile(r"/api/v1/games/([1-9][0-9]{0,9})/actions")
"""The route's path, as Flask's ``<int:game_id>`` matches it, for a plain decimal id (any other goes to Flask)."""


class MovePath:
    """The WSGI middleware: ``app.wsgi_app = MovePath(app, app.wsgi_app)``."""

    def __init__(self, app: Flask, wsgi_app: WSGIApp) -> None:
        self.flask = app
        self.app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "POST" or environ.get("QUERY_STRING"):
            return self.app(environ, start_response)
        matched = PATH.fullmatch(environ.get("PATH_INFO", ""))
        length = environ.get("CONTENT_LENGTH") or ""
        if matched is None or not length.isdigit() or not is_json(environ.get("CONTENT_TYPE", "")):
            return self.app(environ, start_response)
        raw = environ["wsgi.input"].read(int(length))
        plain = games.plain_submission(raw)
        if plain is None:
            environ["wsgi.input"] = io.BytesIO(raw)  # Flask's view reads it as it came
            return self.app(environ, start_response)
        environ[ROUTE] = TEMPLATE
        with self.flask.app_context():
            try:
                body = games.encode(games.submit(int(matched[1]), *plain, environ)).encode()
            except HTTPException as error:
                return errors.http_error(error)(environ, start_response)
            except Exception as error:
                return errors.unexpected_error(error)(environ, start_response)
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]
