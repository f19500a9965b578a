"""The operator's pages, ``/admin``: accounts with their usage, the bots excluded, failing, stalling or paused, the
queue, the workers and the audit log, with buttons for the admin actions.

Signed in like the owner's view of a game (``service/web/owner.py``): the page itself holds no data and comes to
anyone; its script keeps the operator's token in this tab's ``sessionStorage`` and sends it (``Authorization:
Bearer``) with every fragment it fetches (``/admin/parts/<section>``) and with the admin API's actions
(``/api/v1/admin``). A fragment without a token, or with an unknown one, is a 401 page; with any other account's
token a 403 page. The fragments are private (``Cache-Control: private, no-cache``, ``Vary: Authorization``).
"""

from __future__ import annotations

from typing import Any

from flask import make_response, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from service import adminreports, auth, db
from service.api.admin import workers
from service.web.admin_messages import ADMIN_PAGES
from service.web.errors import PageError
from service.web.messages import PAGES
from service.web.views import blp

PAGES.update(ADMIN_PAGES)

SECTIONS = ("accounts", "bots", "queue", "workers", "audit")
SHOWN = 100
"""The rows a fragment shows (the newest audit rows; the accounts matching the search, oldest first)."""


def signed_in_operator() -> None:
    """A 401 page without a token or with a bad one, a 403 page with another account's."""
    if request.headers.get("Authorization") is None:
        raise PageError(401, "error.token")
    try:
        auth.required_player_id()
    except HTTPException as error:
        raise PageError(error.code or 401, "error.token" if error.code == 401 else "error.not_operator") from None
    if not auth.is_operator():
        raise PageError(403, "error.not_operator")


@blp.get("/admin")
def admin_page() -> ResponseReturnValue:
    return render_template("admin.html", sections=SECTIONS)


def section_data(section: str) -> dict[str, Any]:
    session = db.session()
    if section == "accounts":
        name = request.args.get("name", "")[:64] or None
        players = list(session.scalars(adminreports.accounts_query(name, None).limit(SHOWN)))
        return {"accounts": adminreports.usage(session, players)}
    if section == "bots":
        found = workers()
        stalling = {bot for worker in found["workers"] for bot in worker["stalling"]}
        bots = adminreports.flagged_bots(session, stalling)
        return {"bots": [{**bot, "stalling": bot["id"] in stalling} for bot in bots]}
    if section == "queue":
        return {"queue": adminreports.queue(session)}
    if section == "workers":
        return {"workers": workers()}
    rows = session.scalars(adminreports.audit_query().limit(SHOWN))
    return {"actions": [adminreports.audit_row(row) for row in rows]}


@blp.get("/admin/parts/<section>")
def admin_part(section: str) -> ResponseReturnValue:
    if section not in SECTIONS:
        raise PageError(404, "admin.no_section", section=section[:40])
    signed_in_operator()
    response = make_response(render_template("admin_part.html", section=section, **section_data(section)))
    response.vary.add("Authorization")
    response.headers["Cache-Control"] = "private, no-cache"
    return response
