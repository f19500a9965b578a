"""The play page in headless Chromium: a person makes an account on /play, challenges a push bot and a pull bot (a
thread answering through the API), and plays a whole card game (English) and a board game in the points variant
(French) by clicking the buttons of their legal actions until the game is over, each turn told by the game's event
stream that the page follows with the person's token (no long poll). At every decision the page shows
the seat's own hand as the engine holds it, the legal actions' texts in the page's language, and nothing of the
other seats' hands (their cards as the page would draw them, checked against the engine's state) nor of their
private events; the page asks for no other seat's view, and its stream is its seat's. With its stream refused, the
page plays on through long polls of its actions. Screenshots in test-output/screenshots/."""

from __future__ import annotations

import json
import random
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

import engine
from engine import i18n
from service.web.card_table import cards_html
from store.models import Game
from tests.apikit import API, new_player
from tests.service.challengekit import opponents
from tests.service.test_streams import logged_events
from tests.service.web.browser import screenshot, served

TIMEOUT_MS = 30_000
MAX_CLICKS = 2_000


def stored(app: Flask, game_id: int) -> Game:
    with app.extensions["db_sessions"]() as session:
        game = session.get(Game, game_id)
    assert game is not None
    return game


def other_private_texts(app: Flask, game_id: int, game: str, seat: int, language: str) -> set[str]:
    return {
        i18n.describe_event(game, event, language)
        for to, event in logged_events(app, game_id)
        if to is not None and to != seat
    }


def check_decision(page: Any, app: Flask, game_id: int, seat: int, language: str) -> str:
    """The page at one of the person's decisions shows what the engine's state gives the seat, and nothing of the
    other seats' hands; the page's HTML."""
    ply = int(page.get_attribute("#seat-view .seat-view", "data-ply"))
    game = stored(app, game_id)
    assert game.ply == ply and game.status == "active"  # the game waits on the person
    state = engine.from_json(json.loads(game.state))
    view = engine.view(state, seat)
    html: str = page.content()
    shown_hand = page.eval_on_selector_all("#hand li.card", "cards => cards.map(card => card.dataset.card)")
    assert sorted(shown_hand) == sorted(view.get("hand") or [])
    loose = page.eval_on_selector_all(
        "#play li.card", "cards => cards.filter(c => !c.closest('#hand, .play-pile')).map(c => c.dataset.card)"
    )
    assert loose == []  # no other row of cards anywhere
    for other in range(game.seats):
        hand = engine.view(state, other).get("hand") or []
        # a hand the same as the seat's own (the same cards in the same order: it happens, now and then) looks
        # the same on the page: the check above (the one row of cards is the seat's) covers it
        if other != seat and hand and hand != view.get("hand"):
            assert str(cards_html(game.game, hand, language)) not in html, f"seat {other}'s hand is on the page"
    texts = page.eval_on_selector_all("#actions button.action", "buttons => buttons.map(b => b.textContent)")
    ids = page.eval_on_selector_all("#actions button.action", "buttons => buttons.map(b => b.dataset.action)")
    legal = engine.legal_actions(state, seat)
    assert ids == [action.id for action in legal]
    assert texts == [i18n.describe_action(game.game, action.description, language) for action in legal]
    return html


def play_in_browser(
    app: Flask,
    client: FlaskClient,
    browser: Any,
    game: str,
    settings: dict[str, Any],
    language: str,
    name: str,
    live: str = "stream",
) -> None:
    """Play a whole game on the page; ``live="poll"``: with its event stream refused (a 429), so that it long-polls."""
    owner = new_player(client, "owner")
    with served(app) as base, opponents(client, owner, base) as (push, pull):
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        if live == "poll":
            page.route("**/events/stream*", lambda route: route.fulfill(status=429, json={"message": "too many"}))
        requests: list[Any] = []
        page.on("request", lambda request: requests.append(request))
        page.goto(f"{base}/play?lang={language}")
        page.fill("#account-name", "Ada")
        page.click("#new-account button[type=submit]")
        page.wait_for_selector("#setup:not([hidden])", timeout=TIMEOUT_MS)
        page.select_option("#game", value=game)
        page.wait_for_selector("#play:not([data-loading])", timeout=TIMEOUT_MS)
        slot = 'select.opponent[data-slot="{}"]'
        page.wait_for_selector(
            slot.format(2) + f' option[value="{pull["id"]}"]', state="attached", timeout=TIMEOUT_MS
        )
        page.select_option(slot.format(1), value=str(push["id"]))
        page.select_option(slot.format(2), value=str(pull["id"]))
        page.select_option("#seat", value="1")
        if "variant" in settings:
            page.select_option("#variant", value=settings["variant"])
        if "pawns" in settings:
            page.fill("#pawns", str(settings["pawns"]))
        page.fill("#turn-cap", str(settings["turn_cap"]))
        screenshot(page, f"play-setup-{name}")
        page.click("#start")
        page.wait_for_selector("#play[data-game]", timeout=TIMEOUT_MS)
        game_id = int(page.get_attribute("#play", "data-game"))
        challenge_id = int(page.get_attribute("#play", "data-challenge"))
        challenge = client.get(f"{API}/challenges/{challenge_id}").get_json()
        assert [player["mode"] for player in challenge["players"]] == ["push", "human", "pull"]
        assert challenge["players"][1]["name"] == "Ada"
        rng = random.Random(7)
        pages = []
        clicks = 0
        while True:
            page.wait_for_selector("#actions button.action, #play[data-over]", timeout=TIMEOUT_MS)
            if page.get_attribute("#play", "data-over") is not None:
                break
            pages.append(check_decision(page, app, game_id, 1, language))
            assert page.get_attribute("#play", "data-live") == live  # its turn came through the stream (or a poll)
            if clicks == 3:
                screenshot(page, f"play-{name}")
            ply = int(page.get_attribute("#seat-view .seat-view", "data-ply"))
            buttons = page.query_selector_all("#actions button.action")
            buttons[rng.randrange(len(buttons))].click()
            clicks += 1
            assert clicks < MAX_CLICKS
            page.wait_for_function(
                "ply => document.querySelector('#play').dataset.over !== undefined"
                " || Number(document.querySelector('#seat-view .seat-view').dataset.ply) > ply",
                arg=ply,
                timeout=TIMEOUT_MS,
            )
        assert page.get_attribute("#play", "data-over") == "over"
        page.wait_for_selector("#seat-view .finished", timeout=TIMEOUT_MS)
        screenshot(page, f"play-{name}-over")
        pages.append(page.content())
        done = client.get(f"{API}/challenges/{challenge_id}").get_json()
        token = page.evaluate("window.localStorage.getItem('sorry-arena-token')")
    assert clicks > 0 and done["game_status"] == "over"
    assert page.get_attribute("#seat-view .finished", "data-rank") == str(stored(app, game_id).result["ranks"][1])
    shown = "\n".join(pages)
    secrets = other_private_texts(app, game_id, game, 1, language)
    assert secrets and not any(text in shown for text in secrets)  # no other seat's private event
    asked = [request.url for request in requests]
    seat_urls = [url for url in asked if "/seat" in url or "/games/" in url]
    assert seat_urls and all(f"/games/{game_id}/" in url for url in seat_urls)
    stream = f"{base}{API}/games/{game_id}/events/stream"
    assert not any("/hands/" in url or ("/events" in url and url != stream) for url in asked)  # its own seat only
    streams = [request for request in requests if request.url == stream]
    assert streams and all(request.all_headers()["authorization"] == f"Bearer {token}" for request in streams)
    if live == "stream":
        assert len(streams) == 1 and not any("wait=" in url for url in asked)  # each turn came through the stream
    else:
        assert any("wait=" in url for url in asked)


def test_a_person_plays_a_card_game_in_english(app: Flask, client: FlaskClient, browser: Any) -> None:
    play_in_browser(app, client, browser, "card", {"pawns": 2, "turn_cap": 2000}, "en", "card-en")


def test_a_person_plays_a_board_game_in_french(app: Flask, client: FlaskClient, browser: Any) -> None:
    play_in_browser(app, client, browser, "board", {"variant": "points", "turn_cap": 45}, "fr", "board-fr")


def test_a_person_plays_on_when_the_stream_is_refused(app: Flask, client: FlaskClient, browser: Any) -> None:
    play_in_browser(app, client, browser, "card", {"pawns": 1, "turn_cap": 2000}, "en", "card-polled", live="poll")
