"""Swagger UI's assets served by the app itself at ``/swagger-ui/``, so ``/docs`` loads nothing from a CDN.

flask-smorest's ``/docs`` page links ``OPENAPI_SWAGGER_UI_URL`` + ``swagger-ui.css``, ``swagger-ui-bundle.js`` and
``swagger-ui-standalone-preset.js``; the files come from the ``flask-swagger-ui`` package (a PyPI wheel that
tracks swagger-ui-dist's releases: its ``dist/VERSION`` names the version, ``dist/LICENSE`` its Apache-2.0 terms).
Only those files and the favicons are served, with a day of client caching.

The page itself is flask-smorest's, but its template is the app's own (``service/templates/swagger_ui.html``, which
Flask finds before the package's): flask-smorest's starts Swagger UI with an inline script, which the page's
Content-Security-Policy (:data:`POLICY`, set by ``service/securityheaders.py``) allows no more than any other page's.
Ours loads :data:`INIT` (``service/static/swagger-ui/``, served beside the assets), which reads the spec's URL and
the options from the page.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from flask import Blueprint, Flask, abort, send_from_directory
from flask.typing import ResponseReturnValue

PAGE = "/docs"
URL = "/swagger-ui/"
INIT = "swagger-init.js"
OWN = Path(__file__).with_name("static") / "swagger-ui"
POLICY = (
    "default-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; object-src 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The ``/docs`` page's Content-Security-Policy, the strictest it works with (tried in Chromium): everything from
the app's own origin, nothing inline, and beside that only Swagger UI's icons (``data:`` images)."""
ASSETS = frozenset(
    {
        "swagger-ui.css",
        "swagger-ui-bundle.js",
        "swagger-ui-standalone-preset.js",
        "favicon-16x16.png",
        "favicon-32x32.png",
        "LICENSE",
        "VERSION",
    }
)


def dist_dir() -> Path:
    return Path(str(files("flask_swagger_ui") / "dist"))


def version() -> str:
    return (dist_dir() / "VERSION").read_text().strip().lstrip("v")


blp = Blueprint("swagger_ui_assets", __name__, url_prefix=URL.rstrip("/"))


@blp.get("/<filename>")
def asset(filename: str) -> ResponseReturnValue:
    if filename == INIT:
        return send_from_directory(OWN, filename, max_age=86400)
    if filename not in ASSETS:
        abort(404)
    mimetype = "text/plain" if filename in ("LICENSE", "VERSION") else None
    return send_from_directory(dist_dir(), filename, max_age=86400, mimetype=mimetype)


def init_app(app: Flask) -> None:
    app.register_blueprint(blp)
