"""The owner's view of a game in play: the viewer's pages and fragments take a token (``Authorization: Bearer``,
which the viewer's script sends once its owner signed in) and show the fault details and debug text of the seats
that token owns: a seat its account holds itself, or one held by a bot its account registered. Every other seat
shows what a spectator sees until the game is over (the rule of ``GET /api/v1/bots/{id}/faults``); the pages never
show a seat's hand or an action id while the game runs, to anyone.

A response of a game still in play depends on the token: it says so (``Vary: Authorization``) and is kept by no
shared cache (``Cache-Control: private, no-cache``).
"""

from __future__ import annotations

from flask import Response, request
from sqlalchemy import or_, select
from sqlalchemy.orm import Session
from werkzeug.exceptions import HTTPException

from service import auth, db
from service.web.errors import PageError
from service.web.messages import PAGES
from service.web.owner_messages import OWNER_PAGES
from store import deals
from store.models import Bot, Game, Seat

PAGES.update(OWNER_PAGES)

NOBODY: frozenset[int] = frozenset()


def owned_seats(session: Session, game: Game) -> frozenset[int]:
    """The seats of ``game`` whose details the request's token may read while it runs: none without a token, or
    once the game is over (everyone reads everything then; a paired match's game once its twin on the deal is over too:
    ``store/deals.py``). A bad token is a 401 page that says so."""
    if request.headers.get("Authorization") is None:
        return NOBODY
    try:
        player_id = auth.optional_player_id()
    except HTTPException:
        raise PageError(401, "error.token") from None
    if player_id is None or deals.public(session, game):
        return NOBODY
    bots = select(Bot.player_id).where(Bot.owner_id == player_id)
    rows = session.scalars(
        select(Seat.seat).where(
            Seat.game_id == game.id, or_(Seat.player_id == player_id, Seat.player_id.in_(bots))
        )
    )
    return frozenset(rows)


def personal(response: Response, game: Game, owned: frozenset[int]) -> Response:
    """Mark a response of ``game``'s pages: it varies with the token, is private while the game runs, and names
    the seats shown as their owner's (``X-Owner-Seats``, comma-separated; empty: none)."""
    response.vary.add("Authorization")
    if not deals.public(db.session(), game) or request.headers.get("Authorization") is not None:
        response.headers["Cache-Control"] = "private, no-cache"
    response.headers["X-Owner-Seats"] = ",".join(str(seat) for seat in sorted(owned))
    return response
