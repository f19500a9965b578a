"""A game in play shows only public information: no hand, no private event, no action id, no seed, on its page, on
any of its steps and in the moves it appends; once over, everything (the control that the checks can fail)."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from engine import i18n
from store import eventlog
from store.models import Game
from tests.apikit import create_game, new_player
from tests.service.web.webkit import SEED, elements, finished_game, live_game, page

CARD = {"players": 3}
POINTS = {"players": 3, "variant": "points"}


def private_texts(app: Flask, game_id: int, game: str) -> set[str]:
    """The sentences of every event only one seat may see, in English and French."""
    with app.extensions["db_sessions"]() as session:
        found = session.get(Game, game_id)
        assert found is not None
        payloads = [event.payload for event in eventlog.events(session, found) if event.to_seat is not None]
    assert payloads
    return {i18n.describe_event(game, payload, language) for payload in payloads for language in ("en", "fr")}


def everything_shown(client: FlaskClient, game_id: int, plies: int, **headers: str) -> str:
    parts = [
        page(client, f"/games/{game_id}", **headers),
        page(client, f"/games/{game_id}/steps?after=0", **headers),
    ]
    parts += [page(client, f"/games/{game_id}/at/{ply}", **headers) for ply in range(plies + 1)]
    return "\n".join(parts)


def assert_public_only(html: str, private: set[str]) -> None:
    assert not elements(html, "td", "hand"), "a hand is shown"
    assert "<code>" not in html, "an action id is shown"
    assert "Seed" not in html and "Graine" not in html
    shown = [text for text in private if f">{escape(text)}<" in html]  # a whole line, as the page writes it
    assert not shown, f"private events shown: {shown[:3]}"


def test_a_live_card_game_shows_no_hand_and_no_private_event(app: Flask, client: FlaskClient) -> None:
    game_id, _ = live_game(client, "card", CARD, plies=25)
    private = private_texts(app, game_id, "card")
    for language in ("en", "fr"):
        html = everything_shown(client, game_id, 25, **{"Accept-Language": language})
        assert_public_only(html, private)
    html = page(client, f"/games/{game_id}/at/25")
    assert elements(html, "tr", "seat", data_hand_size="*"), "hand sizes are public"
    assert re.search(r"draws 1 card|draws 2 cards", everything_shown(client, game_id, 25)), "public twins stay"


def test_a_live_points_board_game_shows_hand_sizes_but_no_hand(app: Flask, client: FlaskClient) -> None:
    game_id, _ = live_game(client, "board", POINTS, plies=20)
    html = everything_shown(client, game_id, 20)
    assert_public_only(html, private_texts(app, game_id, "board"))
    assert len(elements(page(client, f"/games/{game_id}/at/20"), "tr", data_hand_size="*")) == 3


def test_once_over_the_same_checks_see_everything(app: Flask, client: FlaskClient) -> None:
    game_id = finished_game(client, "card", CARD, seed=SEED)
    html = page(client, f"/games/{game_id}/at/3") + page(client, f"/games/{game_id}")
    assert elements(html, "td", "hand") and "<code>" in html and "Seed" in html
    opening = page(client, f"/games/{game_id}/at/0")
    assert any(f">{escape(text)}<" in opening for text in private_texts(app, game_id, "card")), "the deal is shown"


def test_a_game_waiting_for_players_renders(client: FlaskClient) -> None:
    creator = new_player(client, "creator")
    game_id = create_game(client, creator, "card", {}, seats=2, seed=3)["id"]
    html = page(client, f"/games/{game_id}")
    assert "Waiting for players: 0 of 2 seats taken." in html
    assert elements(html, "div", "step", data_ply="0")
    assert not elements(html, "td", "hand")
