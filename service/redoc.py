"""ReDoc, the API reference beside Swagger UI: flask-smorest's ``/redoc`` page loads ``OPENAPI_REDOC_URL``, which
points at the ReDoc bundle the app serves itself at ``/redoc-ui/``, so the page loads nothing from a CDN.

No PyPI package ships ReDoc's standalone bundle on its own: those that carry it bring a web framework along
(``drf-spectacular-sidecar`` needs Django, ``flask-openapi3-redoc`` needs flask-openapi3). So the bundle is
vendored, unchanged, in ``service/static/redoc/``: ``redoc.standalone.js`` of ReDoc 2.5.4 (the npm registry's
``redoc`` package, ``bundles/``; ``VERSION`` names the release), its MIT ``LICENSE``, and the notices of what it
bundles (``redoc.standalone.js.LICENSE.txt``, which the script's first line names). To update it: ``npm pack
redoc@2``, copy those three files, and write the new version in ``VERSION``. Only those files are served, with a
day of client caching.

One thing in the bundle reaches out: the "API docs by Redocly" link at the foot of the menu shows a logo from the
Redocly CDN. The page's Content-Security-Policy (:data:`POLICY`, set by ``service/securityheaders.py``) keeps
everything to the app's own origin, so the browser never asks for it (ReDoc then shows the link without its logo).
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, abort, send_from_directory
from flask.typing import ResponseReturnValue

PAGE = "/redoc"
URL = "/redoc-ui/"
SCRIPT = "redoc.standalone.js"
ASSETS = frozenset({SCRIPT, "redoc.standalone.js.LICENSE.txt", "LICENSE", "VERSION"})
DIST = Path(__file__).with_name("static") / "redoc"
POLICY = (
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src blob:; "
    "base-uri 'none'; object-src 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The ``/redoc`` page's Content-Security-Policy, the strictest it works with (tried in Chromium): everything from
the app's own origin (the page's one script is :data:`SCRIPT`), and beside that only what ReDoc makes in the page:
its styles (styled-components writes them into style elements: ``'unsafe-inline'``, for styles alone), its icons
(``data:`` images) and its search's worker (from a ``blob:``)."""


def version() -> str:
    return (DIST / "VERSION").read_text().strip()


blp = Blueprint("redoc_assets", __name__, url_prefix=URL.rstrip("/"))


@blp.get("/<filename>")
def asset(filename: str) -> ResponseReturnValue:
    if filename not in ASSETS:
        abort(404)
    mimetype = None if filename == SCRIPT else "text/plain"
    return send_from_directory(DIST, filename, max_age=86400, mimetype=mimetype)


def init_app(app: Flask) -> None:
    app.register_blueprint(blp)
