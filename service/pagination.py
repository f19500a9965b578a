"""The API's ways to page a listing: flask-smorest's ``@blp.paginate`` (``page`` from 1 and ``page_size`` up to
:data:`MAX_PAGE_SIZE`; the ``X-Pagination`` header holds the total, the pages and the next and previous ones), with
an RFC 8288 ``Link`` header besides (``first``, ``prev``, ``next``, ``last``: the same URL with another ``page``);
and for the games, the listing that grows with every game played, a keyset: ``before=<id>``, the ``Link`` header's
``next`` while there are more (:func:`cursor_links`), and no count.

A listing's blueprint is this module's :class:`Blueprint`; its view sets ``pagination_parameters.item_count`` and
reads :func:`window` for its query's offset and limit (an offset past the database's 32-bit ids reads nothing).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import flask_smorest
from flask import request

MAX_PAGE_SIZE = 100
"""The largest page of every paged listing."""
MAX_OFFSET = 2**31 - 1


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's blueprint, whose paged answers also carry a ``Link`` header."""

    def _set_pagination_metadata(self, page_params: Any, result: Any, headers: Any) -> Any:
        result, headers = super()._set_pagination_metadata(page_params, result, headers)
        metadata = json.loads(headers[self.PAGINATION_HEADER_NAME])
        links = [
            f'<{page_url(metadata[key])}>; rel="{rel}"'
            for key, rel in (("first_page", "first"), ("previous_page", "prev"), ("next_page", "next"))
            if key in metadata
        ]
        if "last_page" in metadata:
            links.append(f'<{page_url(metadata["last_page"])}>; rel="last"')
        if links:
            headers["Link"] = ", ".join(links)
        return result, headers


def page_url(page: int) -> str:
    """This request's URL with ``page`` in its query."""
    query = {**request.args.to_dict(), "page": str(page)}
    return f"{request.base_url}?{urlencode(query)}"


def cursor_links(before: int | None, paged: bool) -> str:
    """A keyset listing's ``Link`` header (the games: ``before=<id>`` instead of page numbers, no count): ``next``,
    this request's URL with ``before``, when there are more (``before`` is then the last row's id); ``first``,
    without ``before``, on a page after the first (``paged``). Empty when neither."""
    query = {key: value for key, value in request.args.to_dict().items() if key not in ("before", "page")}
    links = []
    if paged:
        links.append(f'<{request.base_url}{"?" + urlencode(query) if query else ""}>; rel="first"')
    if before is not None:
        links.append(f'<{request.base_url}?{urlencode({**query, "before": str(before)})}>; rel="next"')
    return ", ".join(links)


def window(pagination_parameters: Any) -> tuple[int, int] | None:
    """The page's (offset, limit), or ``None`` when it starts past any row the database can hold."""
    first = int(pagination_parameters.first_item)
    if first > MAX_OFFSET:
        return None
    return first, int(pagination_parameters.page_size)
