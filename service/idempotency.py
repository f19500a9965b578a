"""The ``Idempotency-Key`` header of the create requests: the same request sent again with the same key is answered
as it was the first time, and creates nothing new.

A view that creates something is marked with :func:`keyed` (which also puts the header in the OpenAPI document).
Before such a view runs, a request with the header (1 to 255 printable ASCII characters, else a 400) and a valid
token claims its key for its account (``store/idempotency.py``): the first request with the key goes on; a later one
with the same method, path and body (its JSON compared in a canonical form) is given the first one's response again,
with ``Idempotent-Replayed: true``; with a different request it is a 422, and while the first is still in progress a
409 with ``Retry-After``, so that two requests with one key never both create. A success (2xx) is kept with the key
for 24 hours, sealed (``service/sealing.py``) with a key derived from the request's bearer token and the key: a
new bot's token and secret, shown once, are never readable from the database alone, and only a request with the
same token gets the response again. A failure (4xx, 5xx) gives the key back, so the request may be sent again with
it. A request without a token is left to the view (its 401).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, Response, current_app, g, request
from flask_smorest import Blueprint, abort
from sqlalchemy.exc import SQLAlchemyError

from service import auth, db, sealing
from service.errors import ErrorSchema, fail
from store import idempotency

log = logging.getLogger(__name__)
HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
RETRY_AFTER_S = 1
_VALID = re.compile(r"[!-~](?:[ -~]{0,253}[!-~])?")
"""1 to 255 printable ASCII characters, the first and last not a space (HTTP would strip those)."""
PARAMETER = {
    "name": HEADER,
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]([ -~]*[!-~])?$"},
    "description": "Makes the create safe to retry: the same request sent again with the same key (per account, "
    "remembered for 24 hours) is answered with the first response, with Idempotent-Replayed: true, and creates "
    "nothing new; the key with a different request is a 422, while the first request is in progress a 409. "
    "1 to 255 printable ASCII characters.",
}
View = TypeVar("View", bound=Callable[..., Any])


def keyed(blp: Blueprint) -> Callable[[View], View]:
    """Mark a create view as taking the ``Idempotency-Key`` header, and document the header on its operation."""

    def mark(view: View) -> View:
        view.idempotent = True  # type: ignore[attr-defined]
        documented: View = blp.doc(parameters=[PARAMETER])(view)
        answered: View = blp.alt_response(400, schema=ErrorSchema, description=f"a malformed {HEADER} header")(
            documented
        )
        return answered

    return mark


def _marked() -> bool:
    """Whether the request's view is a create marked :func:`keyed`."""
    function = current_app.view_functions.get(request.endpoint or "")
    view_class = getattr(function, "view_class", None)
    method = getattr(view_class, request.method.lower(), None) if view_class is not None else function
    return bool(getattr(method, "idempotent", False))


def request_hash() -> str:
    """SHA-256 of the request's method, path and body (its JSON with sorted keys and no spaces, when it is JSON)."""
    parsed = request.get_json(silent=True) if request.is_json else None
    body = (
        json.dumps(parsed, sort_keys=True, separators=(",", ":")).encode()
        if parsed is not None
        else request.get_data()
    )
    digest = hashlib.sha256(f"{request.method} {request.path}\n".encode())
    digest.update(body)
    return digest.hexdigest()


def before() -> Response | None:
    """Claim the request's key, or answer for the request that claimed it first."""
    key = request.headers.get(HEADER)
    if key is None or not _marked():
        return None
    if not _VALID.fullmatch(key):
        fail(
            400,
            f"the {HEADER} header must be 1 to 255 printable ASCII characters, without spaces at either end",
        )
    player_id = auth.optional_player_id()
    if player_id is None:
        return None  # the view answers its 401
    digest = request_hash()
    sealing_key = sealing.derive(auth.bearer_token(request.headers["Authorization"]), key)
    found = idempotency.claim(db.session(), player_id, key, digest)
    if found is None:
        g.idempotency = (player_id, key, sealing_key)
        return None
    if not hmac.compare_digest(found.request_hash, digest):
        fail(
            422,
            f"this {HEADER} was used with a different request (another method, path or body) in the last 24 "
            "hours: use a new key for a new request",
        )
    if found.status is None:
        abort(
            409,
            message=f"a request with this {HEADER} is in progress: send it again in {RETRY_AFTER_S} s to get its "
            "response",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    body = sealing.unseal(sealing_key, found.body or "")
    if body is None:
        fail(
            409,
            f"this {HEADER}'s answer was kept for the account's previous token, which was revoked since: use a new "
            "key",
        )
    replayed = Response(body, status=found.status, mimetype="application/json")
    replayed.headers[REPLAYED] = "true"
    return replayed


def after(response: Response) -> Response:
    """Keep a success's response with the request's key, or give the key back after a failure."""
    claimed = g.pop("idempotency", None)
    if claimed is None:
        return response
    player_id, key, sealing_key = claimed
    session = db.session()
    try:
        session.rollback()  # what the view left open (it commits what it creates)
        if 200 <= response.status_code < 300:
            sealed = sealing.seal(sealing_key, response.get_data(as_text=True))
            idempotency.answer(session, player_id, key, response.status_code, sealed)
        else:
            idempotency.release(session, player_id, key)
    except SQLAlchemyError as error:  # the answer stands; the key stays in progress until it expires
        log.warning("idempotency key of player %s not updated: %s", player_id, " ".join(str(error).split())[:200])
    return response


def teardown(error: BaseException | None) -> None:
    """A request that ended in an exception no handler answered gives its key back."""
    claimed = g.pop("idempotency", None)
    if claimed is None:
        return
    session = db.session()
    try:
        session.rollback()
        idempotency.release(session, claimed[0], claimed[1])
    except SQLAlchemyError:
        log.warning("idempotency key of player %s not given back", claimed[0])


def init_app(app: Flask) -> None:
    app.before_request(before)
    app.after_request(after)
    app.teardown_request(teardown)
