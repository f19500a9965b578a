"""The pages: the index, standings per pool, tournaments and the game viewer, server-rendered from the database.

Routes take their ids as strings and check them here, so that a bad id is this blueprint's 4xx page rather than
the API's JSON 404. Three routes are fragments that the pages' scripts fetch: a tournament's live part (ETag: a
304 while nothing changed), one step of a game, and a game's moves after a step (a live game's page appends them
when its event stream, ``GET /api/v1/games/{id}/events/stream``, tells of a new move).
"""

from __future__ import annotations

import hashlib
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    make_response,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from flask.typing import ResponseReturnValue
from markupsafe import Markup
from sqlalchemy.orm import Session

import engine
from engine import i18n
from ratings.pool import PoolRow
from service import db
from service.web import (
    board_svg,
    bot_stats,
    card_table,
    charts,
    formatting,
    language,
    listings,
    owner,
    pools,
    steps,
)
from service.web.errors import PageError, whole
from service.web.messages import counted, text
from store import deals, eventlog
from store.models import Game, Tournament

blp = Blueprint("web", __name__, template_folder="templates", static_folder="static", static_url_path="/assets")

MAX_ID = 2**31 - 1
RECENT = 10
"""Tournaments and games listed on the index."""


@blp.before_request
def pick_language() -> None:
    try:
        g.web_language = language.choose(
            request.args.get("lang"), request.cookies.get(language.COOKIE), request.headers.get("Accept-Language")
        )
    except language.UnknownLanguage as error:
        g.web_language = language.choose(
            None, request.cookies.get(language.COOKIE), request.headers.get("Accept-Language")
        )
        raise PageError(400, "error.language", lang=error.asked[:20]) from None


@blp.after_request
def remember_language(response: Response) -> Response:
    asked = request.args.get("lang")
    if asked in language.LANGUAGES:
        response.set_cookie(language.COOKIE, asked, max_age=language.COOKIE_MAX_AGE, samesite="Lax")
    response.vary.update(("Accept-Language", "Cookie"))
    return response


def lang() -> str:
    return str(g.web_language)


def switch_url(target: str) -> str:
    """This page in another language."""
    values: dict[str, Any] = {**request.args.to_dict(), **(request.view_args or {}), "lang": target}
    return url_for(request.endpoint or "web.index", **values)


@blp.context_processor
def helpers() -> dict[str, Any]:
    current = lang()
    return {
        "lang": current,
        "languages": language.NAMES,
        "switch_url": switch_url,
        "t": lambda key, **fields: text(key, current, **fields),
        "counted": lambda key, count: counted(key, count, current),
        "msg": lambda key, **fields: i18n.message(key, current, **fields),
        "game_name": lambda game: pools.game_name(game, current),
        "variant_name": lambda variant: pools.variant_name(variant, current),
        "number": lambda value, digits=0: formatting.number(value, digits, current),
        "when": formatting.when,
        "latency": lambda ms: formatting.latency(ms, current),
        "fault_name": lambda fault: formatting.fault(fault, current),
        "status_name": lambda status: formatting.status(status, current),
    }


def page_number() -> int:
    value = request.args.get("page", "1")
    page = whole(value, "page", 400)
    if page < 1:
        raise PageError(400, "error.page", page=page, pages=1)
    return page


def check_page(page: int, count: int) -> None:
    if page > count:
        raise PageError(404, "error.page", page=page, pages=count)


def get_game(game_id: str) -> Game:
    number = whole(game_id, "game")
    game = db.session().get(Game, number) if 0 < number <= MAX_ID else None
    if game is None:
        raise PageError(404, "error.no_game", id=number)
    return game


def get_tournament(tournament_id: str) -> Tournament:
    number = whole(tournament_id, "tournament")
    tournament = db.session().get(Tournament, number) if 0 < number <= MAX_ID else None
    if tournament is None:
        raise PageError(404, "error.no_tournament", id=number)
    return tournament


@blp.get("/favicon.ico")
def favicon() -> ResponseReturnValue:
    """The site's icon where browsers and tools look for it without reading the pages' ``<link rel="icon">``."""
    assert blp.static_folder is not None
    return send_from_directory(blp.static_folder, "favicon.svg", mimetype="image/svg+xml", max_age=86400)


@blp.get("/")
def index() -> ResponseReturnValue:
    session = db.session()
    tournaments, _ = listings.tournaments_page(session, 1, RECENT)
    games, _ = listings.games_page(session, None, RECENT)
    return render_template("index.html", pools=pools.summaries(session), tournaments=tournaments, games=games)


@blp.get("/standings/<game>/<variant>")
def standings(game: str, variant: str) -> ResponseReturnValue:
    if game not in pools.VARIANTS:
        raise PageError(404, "error.no_game_kind", game=game[:40])
    if variant not in pools.VARIANTS[game]:
        known = ", ".join(pools.VARIANTS[game])
        raise PageError(404, "error.no_variant", game=game, variant=variant[:40], variants=known)
    session = db.session()
    sizes = []
    for size in pools.sizes_played(session, game, variant) or [2]:  # one table per table size with games
        found = pools.pool_standings(session, game, variant, size)
        history = found.history
        rows = [(row, found.names.get(row.player, "?")) for row in history.rows]
        lines = [charts.Line(name, history.series.get(row.player, [])) for row, name in rows[: charts.MAX_LINES]]
        sections: dict[int, list[tuple[PoolRow, str]]] = {}
        for row, name in rows:  # the stored order: group by group, best first
            sections.setdefault(row.group, []).append((row, name))
        sizes.append(
            {
                "size": size,
                "rows": rows,
                "games": found.games,
                "chart": charts.rating_chart(lines, history.games, lang()),
                "shown": len(lines),
                "first": found.first,
                "last": found.last,
                "versions": found.versions,
                "sections": sections,
                "groups": found.groups,
                "forfeits_rated": found.forfeits_rated,
                "fault_rates": found.fault_rates,
            }
        )
    return render_template("standings.html", game=game, variant=variant, sizes=sizes)


@blp.get("/tournaments")
def tournaments() -> ResponseReturnValue:
    page = page_number()
    lines, count = listings.tournaments_page(db.session(), page)
    check_page(page, count)
    return render_template("tournaments.html", lines=lines, page=page, pages=count)


def tournament_context(tournament: Tournament, page: int) -> dict[str, Any]:
    session = db.session()
    lines, count = listings.tournament_games(session, tournament, page)
    check_page(page, count)
    names = listings.bot_names(session, list(tournament.bot_ids))
    stored = tournament.standings or {}
    table = list(stored.get("standings") or [])
    order = list(dict.fromkeys([row["bot_id"] for row in table] + list(tournament.bot_ids)))  # rated first
    cells = {(row["bot_id"], row["opponent_id"]): row for row in stored.get("head_to_head") or []}
    faults = bot_stats.tournament_faults(session, tournament.id)
    voids, void_count = listings.void_games(session, tournament.id)
    return {
        "tournament": tournament,
        "voids": voids,
        "void_count": void_count,
        "done": listings.done_counts(session, [tournament.id]).get(tournament.id, 0),
        "names": names,
        "table": table,
        "order": order,
        "cells": cells,
        "faults": faults,
        "fault_kinds": sorted({kind for kinds in faults.values() for kind in kinds}),
        "lines": lines,
        "page": page,
        "pages": count,
    }


def live_tag(tournament: Tournament, done: int, page: int) -> str:
    """The ETag of a tournament's live part: it changes with its status, results, standings, page and language."""
    key = f"{tournament.id}|{tournament.status}|{done}|{tournament.standings_through}|{page}|{lang()}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


@blp.get("/tournaments/<tournament_id>")
def tournament(tournament_id: str) -> ResponseReturnValue:
    found = get_tournament(tournament_id)
    page = page_number()
    context = tournament_context(found, page)
    return render_template("tournament.html", etag=live_tag(found, context["done"], page), **context)


@blp.get("/tournaments/<tournament_id>/live")
def tournament_live(tournament_id: str) -> ResponseReturnValue:
    """The part of the tournament page that changes while it runs; a 304 while nothing did."""
    found = get_tournament(tournament_id)
    page = page_number()
    done = listings.done_counts(db.session(), [found.id]).get(found.id, 0)
    tag = live_tag(found, done, page)
    if tag in request.if_none_match:
        response = Response(status=304)
    else:
        response = make_response(render_template("tournament_live.html", **tournament_context(found, page)))
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-cache"
    return response


@blp.get("/games")
def games() -> ResponseReturnValue:
    """The games, newest first, a page at a time: ``?before=<game id>`` the games before that one (no count of the
    table: "older" links the next page while there is one)."""
    value = request.args.get("before")
    before = None if value is None else whole(value, "game", 400)
    if before is not None and before > MAX_ID:
        before = None  # past any game the database's integers hold: the newest
    lines, older = listings.games_page(db.session(), before, listings.PAGE_SIZE)
    return render_template("games.html", lines=lines, before=before, older=older)


def seat_labels(game: Game) -> list[str]:
    names = listings.seat_names(db.session(), [game.id])[game.id]
    return [formatting.seat(seat, names.get(seat), lang()) for seat in range(game.seats)]


def step_number(game: Game, value: str, code: int = 404) -> int:
    ply = whole(value, "step", code)
    if ply > game.ply:
        raise PageError(404, "error.no_step", id=game.id, ply=ply, plies=game.ply)
    return ply


def render_step(game: Game, ply: int, labels: list[str], owned: frozenset[int] = owner.NOBODY) -> Markup:
    """One step of the viewer: the board or the table after ``ply`` actions, what happened, who is asked (with the
    move's fault detail and debug text if the game is over or the move's seat is ``owned``)."""
    session = db.session()
    finished = deals.public(session, game)
    state = current_app.extensions["web_positions"].at(session, game, ply)
    view = engine.view(state, None)
    hands = None
    if finished and "hand_sizes" in view:
        hands = {seat: engine.view(state, seat).get("hand") or [] for seat in range(game.seats)}
    happened = steps.step_events(session, game, ply, finished, lang())
    move = steps.steps(session, game, finished, lang(), ply - 1, ply, owned) if ply > 0 else []
    if game.game == "board":
        picture = board_svg.board_svg(view, lang(), happened.moved)
    else:
        picture = card_table.card_table(view, labels, lang(), hands)
    decision = view.get("decision")
    asked = i18n.describe_decision(decision["kind"], decision["seat"], lang()) if decision else None
    return Markup(
        render_template(
            "game_step.html",
            game=game,
            ply=ply,
            view=view,
            picture=picture,
            hands=hands,
            labels=labels,
            events=happened.texts,
            move=move[0] if move else None,
            asked=asked,
            cards_html=lambda cards: card_table.cards_html(game.game, cards, lang()),
            card_name=lambda card: i18n.card_name(game.game, card, lang()),
        )
    )


@blp.get("/games/<game_id>")
def game(game_id: str) -> ResponseReturnValue:
    found = get_game(game_id)
    session = db.session()
    finished = deals.public(session, found)
    step = request.args.get("step")
    ply = step_number(found, step, 400) if step is not None else (0 if finished else found.ply)
    labels = seat_labels(found)
    owned = owner.owned_seats(session, found)
    page = render_template(
        "game.html",
        game=found,
        finished=finished,
        labels=labels,
        colours=engine.view(engine.new_game(found.game, found.settings, found.seed), None)["colours"],
        steps=steps.steps(session, found, finished, lang(), owned=owned),
        ply=ply,
        stage=render_step(found, ply, labels, owned),
        tournament_id=listings.tournament_of_game(session, found.id),
        taken=len(listings.seat_names(session, [found.id])[found.id]),
        since=last_event_drawn(session, found),
    )
    return owner.personal(make_response(page), found, owned)


def last_event_drawn(session: Session, game: Game) -> int:
    """The seq of the last public event of the steps a game's page draws (-1: none): its script's event stream
    sends the events after it, those of the moves made since (a public seq: the page tells no more than the events
    API tells a spectator)."""
    drawn = [
        event.seq for event in eventlog.events(session, game) if event.ply <= game.ply and event.to_seat is None
    ]
    return drawn[-1] if drawn else -1


@blp.get("/games/<game_id>/at/<ply>")
def game_step(game_id: str, ply: str) -> ResponseReturnValue:
    found = get_game(game_id)
    number = step_number(found, ply)
    owned = owner.owned_seats(db.session(), found)
    return owner.personal(make_response(render_step(found, number, seat_labels(found), owned)), found, owned)


@blp.get("/games/<game_id>/steps")
def game_steps(game_id: str) -> ResponseReturnValue:
    """The move rows after ``?after=`` (a live game's page appends them, and all of them again once its owner
    signed in); the game's ply and status in headers."""
    found = get_game(game_id)
    after = step_number(found, request.args.get("after", "0"), 400)
    owned = owner.owned_seats(db.session(), found)
    rows = steps.steps(db.session(), found, deals.public(db.session(), found), lang(), after, owned=owned)
    response = make_response(render_template("game_rows.html", steps=rows, labels=seat_labels(found)))
    response.headers["X-Game-Ply"] = str(found.ply)
    response.headers["X-Game-Status"] = found.status
    response.headers["Cache-Control"] = "no-cache"
    return owner.personal(response, found, owned)
