"""Error pages: a bad id or parameter is a 4xx page that says what was wrong, in the page's language; anything
unexpected is a logged 500 page, and a failure of the database a 503 page with ``Retry-After`` logged in one line,
told and logged as the API's 503 is (``service/errors.py``'s ``database_failure``; the API's errors keep their JSON
shape)."""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, g, render_template
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from service.errors import DATABASE_RETRY_AFTER, database_failure
from service.web.messages import PAGES, text

log = logging.getLogger(__name__)


class PageError(Exception):
    """A page that cannot be shown: its status code and a message id of ``messages.PAGES`` with its fields."""

    def __init__(self, code: int, key: str, **fields: Any) -> None:
        super().__init__(f"{code} {key} {fields}")
        self.code = code
        self.key = key
        self.fields = fields


def whole(value: str, what: str, code: int = 404) -> int:
    """``value`` as an int of at most 10 digits, else a ``code`` page naming ``what`` (``what.*`` of PAGES)."""
    if not (value.isascii() and value.isdigit() and len(value) <= 10):
        raise PageError(code, "error.not_a_number", what=what, value=value[:40])
    return int(value)


def error_page(code: int, message: str, headers: dict[str, str] | None = None) -> ResponseReturnValue:
    language = getattr(g, "web_language", "en")
    title_key = f"error.{code}"
    title = text(title_key, language) if title_key in PAGES else text("error.other", language, code=code)
    return render_template("error.html", code=code, title=title, message=message), code, headers or {}


def init_blueprint(blp: Blueprint) -> None:
    def page_error(error: PageError) -> ResponseReturnValue:
        language = getattr(g, "web_language", "en")
        fields = dict(error.fields)
        if "what" in fields:
            fields["what"] = text(f"what.{fields['what']}", language)
        return error_page(error.code, text(error.key, language, **fields))

    def http_error(error: HTTPException) -> ResponseReturnValue:
        return error_page(error.code or 500, error.description or "")

    def unexpected(error: Exception) -> ResponseReturnValue:
        if database_failure(error, "pages failed on the database") is not None:  # the API's 503, as a page
            return error_page(503, text("error.database", getattr(g, "web_language", "en")), DATABASE_RETRY_AFTER)
        log.exception("unexpected error on a page")
        return error_page(500, text("error.internal", getattr(g, "web_language", "en")))

    blp.register_error_handler(PageError, page_error)
    blp.register_error_handler(HTTPException, http_error)
    blp.register_error_handler(Exception, unexpected)
