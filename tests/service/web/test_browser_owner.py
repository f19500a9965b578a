"""The owner's sign-in of the game viewer in headless Chromium: a game in play shows no fault detail or debug text
until its bot's owner signs in with the account's token; then the moves list and the step shown carry those of the
owner's seats (and not the other owner's), the page says which seats and follows the game's event stream with the
token from then on, a reload keeps the sign-in (the tab's sessionStorage), signing out forgets it, and a wrong token
is refused with the server's message. A screenshot goes to test-output/screenshots/."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.apikit import SQLITE_ONLY
from tests.service.web.browser import screenshot, served
from tests.service.web.test_owner_view import game_with_bots

pytestmark = SQLITE_ONLY

TIMEOUT_MS = 10_000


def owners_stream(request: Any, token: str) -> bool:
    return "/events/stream" in request.url and request.all_headers().get("authorization") == f"Bearer {token}"


def moves_text(page: Any) -> str:
    return str(page.inner_text("#steps"))


def test_the_owner_signs_in_and_sees_its_seats_details(app: Flask, client: FlaskClient, browser: Any) -> None:
    game_id, mine, _, _, pulled = game_with_bots(app, client)
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{base}/games/{game_id}")
        page.wait_for_selector("#owner-sign-in:not([hidden])", timeout=TIMEOUT_MS)
        assert "searched 812" not in moves_text(page) and "mine" not in moves_text(page)

        page.fill("#owner-token", "sa_not-a-token")
        page.click("#owner-sign-in button.sign-in")
        page.wait_for_selector("#owner-sign-in .owner-status.error", timeout=TIMEOUT_MS)
        assert "The token was refused" in page.inner_text("#owner-sign-in .owner-status")
        assert "searched 812" not in moves_text(page)

        page.wait_for_selector('#viewer[data-live="stream"]', timeout=TIMEOUT_MS)
        page.fill("#owner-token", mine.token)
        with page.expect_request(lambda request: owners_stream(request, mine.token), timeout=TIMEOUT_MS):
            page.click("#owner-sign-in button.sign-in")  # the stream is opened again, with the owner's token
        page.wait_for_selector("#steps pre.debug", timeout=TIMEOUT_MS)
        text = moves_text(page)
        assert "searched 812 nodes" in text and "status 500: Traceback" in text
        assert "mine" not in text  # the other owner's seat
        assert ("pulled by seat 0" in text) == (pulled == 0)
        status = page.inner_text("#owner-sign-in .owner-status")
        assert "Signed in" in status and "faulty" in status, status
        assert page.is_visible("#owner-sign-in button.sign-out")
        page.click('#steps tr[data-ply="1"]')
        page.wait_for_selector('#stage .step[data-ply="1"] pre.debug', timeout=TIMEOUT_MS)
        screenshot(page, "game-owner-signed-in")

        page.reload()
        page.wait_for_selector("#steps pre.debug", timeout=TIMEOUT_MS)  # still signed in, in this tab
        assert "searched 812 nodes" in moves_text(page)

        page.click("#owner-sign-in button.sign-out")
        page.wait_for_selector("#owner-sign-in button.sign-in:not([hidden])", timeout=TIMEOUT_MS)
        page.wait_for_load_state()
        assert "searched 812" not in moves_text(page)
        assert page.evaluate("window.sessionStorage.length") == 0
        page.close()
