"""``/api/v1/decisions``: the caller's decisions inbox, for bots that play many games at once.

One request answers "where must I decide now?" for every active game the caller sits in: each pending decision
comes with its game, the ply to answer, the seat's view and its legal actions (ids and structured descriptions, as
the push protocol sends them; ``?texts=true`` adds each action in words, in the Accept-Language), so a bot moves
in all of them with one ``POST /games/{id}/actions`` each and no other request. With ``?wait=`` it long-polls
until there is at least one; it wakes when a game it sits in moves (or starts), through Redis across processes
when ``REDIS_URL`` is set.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

import engine
from engine import i18n
from runtime.wakeups import game_channel, player_channel
from service import auth, gameplay, waiting
from service.api.games import UNAUTHORIZED, etag, json_response, not_modified
from service.schemas import DecisionsQuerySchema, DecisionsSchema

PATH = "/api/v1/decisions"
blp = Blueprint("decisions", __name__, url_prefix=PATH, description="Your pending decisions in all your games")

RECHECK_SECONDS = 5.0
"""A waiting inbox also looks again this often: a writer that publishes only on a game channel (a game it did
not watch yet, started elsewhere) is noticed within this time."""


@blp.route("")
class Decisions(MethodView):
    @blp.arguments(DecisionsQuerySchema(), location="query")
    @blp.response(200, DecisionsSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(429, **waiting.TOO_MANY_WAITING)
    def get(self, query: dict[str, Any]) -> Any:
        """Every game where you must decide now, with its ply, your view and legal actions; long-polls (ETag)"""
        # a plain read (no query but ?wait=) is answered before Flask's dispatch (service/api/inboxpath.py)
        player_id = auth.required_player_id()
        return inbox(player_id, query["wait"], query["limit"], query["texts"], request.environ)


def inbox(player_id: int, wait: float, limit: int, texts: bool, environ: dict[str, Any]) -> Response:
    """The inbox's answer to ``player_id`` (its query read), a 304 when the ``If-None-Match`` of the request's
    ``environ`` still matches. Needs the app's context only (``service/api/inboxpath.py`` calls it outside a
    request's)."""
    wait = min(wait, current_app.extensions["settings"].max_wait)
    pending, games = wait_for_decisions(gameplay.moves(), player_id, wait)
    lang = i18n.pick_language(environ.get("HTTP_ACCEPT_LANGUAGE"))
    shown = pending[:limit]
    tag = etag(
        PATH,
        player_id,
        lang if texts else "",
        limit,
        len(games),
        *(f"{p.game_id}:{p.snapshot.ply}" for p in shown),
    )
    return not_modified(tag, environ) or json_response(
        {
            "decisions": [decision_of(p, lang, texts) for p in shown],
            "more": len(pending) > limit,
            "games": len(games),
        },
        tag,
    )


def decision_of(p: gameplay.Pending, lang: str, texts: bool) -> dict[str, Any]:
    """A pending decision as the inbox (and its stream, ``service/api/streams.py``) shows it."""
    return {
        "game_id": p.game_id,
        "game": p.game,
        "ply": p.snapshot.ply,
        "seat": p.seat,
        "decision": {"seat": p.seat, "kind": p.kind},
        "deadline": p.deadline,
        "view": engine.view(p.snapshot.state, p.seat),
        "actions": gameplay.localized_actions(p.snapshot.state, p.seat, p.game, lang)
        if texts
        else [action.to_json() for action in engine.legal_actions(p.snapshot.state, p.seat)],
    }


def wait_for_decisions(
    moves: gameplay.Moves, player_id: int, wait: float
) -> tuple[list[gameplay.Pending], list[int]]:
    """The caller's pending decisions, waiting up to ``wait`` seconds for one; and its active games. A wait takes
    one of the account's long-poll slots (``service/waiting.py``): a 429 when none is free."""
    pending, games = moves.pending(player_id)
    if pending or wait <= 0:
        return pending, games
    moves.lane.release()  # hold no pooled connection while waiting for a slot (Redis)
    deadline = time.monotonic() + wait
    with waiting.slot(player_id, wait), moves.notifier.watch([player_channel(player_id)]) as subscription:
        while True:
            subscription.arm()
            pending, games = moves.pending(player_id)
            moves.lane.release()  # hold no pooled connection while waiting
            if pending:
                return pending, games
            if subscription.add(game_channel(game_id) for game_id in games):
                continue  # games seen for the first time: look again, now that their moves wake this request
            remaining = deadline - time.monotonic()
            if remaining <= 0 or subscription.ended:
                return pending, games
            subscription.wait(min(remaining, RECHECK_SECONDS))
