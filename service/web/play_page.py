"""The play page: a person plays against bots from the browser (``/play``), through the challenges and games API.

``/play`` makes an account (``POST /api/v1/players``, its token kept in the browser's ``localStorage``) or takes a
token, lists the bots the person may seat (``GET /api/v1/challenges/opponents``) and starts a challenge
(``POST /api/v1/challenges``); ``/play/<id>`` plays it: its script (``static/play.js``) follows the game's event
stream with the person's token (``GET /api/v1/games/{id}/events/stream``: the seat's events and the public ones;
long polls of ``GET .../actions?wait=`` if the stream is refused), asks for the person's legal actions in the
page's language on each event (``GET .../actions``), shows them as buttons and sends the one clicked
(``POST .../actions``). The board or card table comes from ``/play/games/<id>/seat``, a fragment
drawn by the viewer's own code (``board_svg``, ``card_table``, ``steps``) from the engine's view of the caller's
seat, found by the token the script sends: the page never asks for, so never holds, another seat's view or hand.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, render_template
from flask.typing import ResponseReturnValue
from markupsafe import Markup

import engine
from engine import i18n
from service import auth, db, gameplay
from service.web import board_svg, card_table, formatting, listings, steps
from service.web.errors import PageError, whole
from service.web.messages import PAGES
from service.web.play_messages import PLAY_PAGES
from service.web.views import MAX_ID, blp, lang
from store.challenges import is_challenge
from store.models import Game, Tournament

PAGES.update(PLAY_PAGES)

RECENT_MOVES = 8
"""The moves the seat's fragment lists, the latest last."""


@blp.get("/play")
def play() -> ResponseReturnValue:
    most = (
        current_app.extensions["settings"].challenge_move_timeout_ms // 1000
    )  # SORRY_ARENA_CHALLENGE_MOVE_TIMEOUT_MS
    return render_template("play.html", most_move_seconds=most)


@blp.get("/play/<challenge_id>")
def play_challenge(challenge_id: str) -> ResponseReturnValue:
    number = whole(challenge_id, "challenge")
    tournament = db.session().get(Tournament, number) if 0 < number <= MAX_ID else None
    if tournament is None or not is_challenge(tournament.bot_ids):
        raise PageError(404, "error.no_challenge", id=number)
    return render_template("play_challenge.html", challenge=tournament)


@blp.get("/play/games/<game_id>/seat")
def play_seat(game_id: str) -> ResponseReturnValue:
    """The caller's seat of a game as a fragment: the board or the card table from its view, its hand, who is
    asked, the last moves (public texts); the caller is found by its bearer token (``Authorization``)."""
    number = whole(game_id, "game")
    if not 0 < number <= MAX_ID:
        raise PageError(404, "error.no_game", id=number)
    player_id = auth.required_player_id()
    moves = gameplay.moves()
    _, seat, _ = moves.seat_in(number, player_id)
    if seat is None:
        raise PageError(403, "error.not_seated", id=number)
    snapshot, status = moves.current(number)
    moves.lane.rollback()
    session = db.session()
    game = session.get(Game, number)
    assert game is not None
    view = engine.view(snapshot.state, seat)
    names = listings.seat_names(session, [number])[number]
    labels = [formatting.seat(other, names.get(other), lang()) for other in range(game.seats)]
    return render_template(
        "play_seat.html",
        game=game,
        seat=seat,
        ply=snapshot.ply,
        status=status,
        view=view,
        picture=picture(game.game, view, labels),
        labels=labels,
        hand=card_table.cards_html(game.game, view["hand"], lang()) if "hand" in view else None,
        asked=asked(view),
        recent=steps.steps(session, game, False, lang(), max(0, snapshot.ply - RECENT_MOVES)),
        card_name=lambda card: i18n.card_name(game.game, card, lang()),
    )


def picture(game: str, view: dict[str, Any], labels: list[str]) -> Markup:
    """The board or the card table of a seat's ``view``: the hands of other seats are never in a seat's view."""
    if game == "board":
        return board_svg.board_svg(view, lang())
    return card_table.card_table(view, labels, lang())


def asked(view: dict[str, Any]) -> str | None:
    decision = view.get("decision")
    return i18n.describe_decision(decision["kind"], decision["seat"], lang()) if decision else None
