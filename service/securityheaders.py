"""The security headers of every response, set in one place: a WSGI middleware around the whole app, so that the
answers given before Flask's dispatch (the body limit's 413, the input guard's 422, the move path's and the inbox's
fast answers, ``/metrics``) carry them too.

Every response: ``X-Content-Type-Options: nosniff`` (a browser takes no answer for another type than it says),
``X-Frame-Options: DENY`` and a ``Content-Security-Policy`` with ``frame-ancestors 'none'`` (no page of another
origin, nor of this one, frames any of them: a framed ``/play`` could be clicked through by an invisible overlay),
and ``Referrer-Policy: same-origin`` (a link to elsewhere does not tell it which game or bot page it came from).

The policy of an HTML page is :data:`PAGE_POLICY`: everything from the app's own origin and nothing inline (the
pages' scripts and styles are files of ``service/web/static/``; no page has an inline script, style element, style
attribute or event-handler attribute). The two API references need more, each named by its path in
:data:`PAGE_POLICIES` (``service/redoc.py``, ``service/swagger_ui.py``). Any other answer (JSON, scripts,
stylesheets, images) is no document to run anything: :data:`OTHER_POLICY` lets it load nothing.

The middleware costs some 3 us an answer (a look at the answer's headers, four more).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from service import redoc, swagger_ui
from service.bodylimit import WSGIApp

FRAMING = "frame-ancestors 'none'"
PAGE_POLICY = f"default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; {FRAMING}"
"""An HTML page's Content-Security-Policy: its scripts, styles, images, fonts and fetches from the app alone, nothing
inline."""
OTHER_POLICY = f"default-src 'none'; {FRAMING}"
"""The Content-Security-Policy of every answer that is not an HTML page: it loads nothing."""
PAGE_POLICIES = {redoc.PAGE: redoc.POLICY, swagger_ui.PAGE: swagger_ui.POLICY}
"""The pages whose policy is their own (each still has ``frame-ancestors 'none'``)."""
COMMON = [
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
]
NAMES = frozenset(name.lower() for name, _ in [("Content-Security-Policy", ""), *COMMON])
"""The headers this middleware sets (any a view set itself are replaced: the policy is decided here alone)."""


def policy(path: str, content_type: str) -> str:
    """The Content-Security-Policy of the answer at ``path`` of type ``content_type``."""
    if not content_type.lower().startswith("text/html"):
        return OTHER_POLICY
    return PAGE_POLICIES.get(path, PAGE_POLICY)


class SecurityHeaders:
    """The WSGI middleware: ``app.wsgi_app = SecurityHeaders(app.wsgi_app)``."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")

        def start(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            content_type = next((value for name, value in headers if name.lower() == "content-type"), "")
            headers = [
                *(header for header in headers if header[0].lower() not in NAMES),
                ("Content-Security-Policy", policy(path, content_type)),
                *COMMON,
            ]
            return start_response(status, headers, *exc_info)

        return self.app(environ, start)
