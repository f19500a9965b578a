"""The security headers in headless Chromium (``service/securityheaders.py``):

- a page of another origin that frames ``/play`` (to lay an invisible overlay over its buttons) gets nothing: the
  browser refuses the frame (``frame-ancestors 'none'``), while a frame of the other origin's own loads;
- the main pages work under their Content-Security-Policy, and the browser reports no violation of it on any of
  them: home, the tournaments (their progress bars and the head-to-head's colours, which were style attributes),
  a tournament, a ladder (its live part polled by its script), a game's replay (its moves drawn by its script), a
  bot's page, the play page (an account made
  through its form), the admin page (the operator signed in, its sections fetched), ReDoc and Swagger UI (each
  rendering the API reference; in Swagger UI a request tried out and answered). On ReDoc, the one violation is the Redocly logo the bundle asks of its CDN, which
  the policy is there to block.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from tests.apikit import API, SQLITE_ONLY, new_player
from tests.arenakit import arena_app
from tests.conftest import dispose
from tests.liveserver import running
from tests.service.web.browser import screenshot, served
from tests.service.web.test_ladder_pages import made_ladder
from tests.service.web.webkit import CARD_SETTINGS, finished_game, tournament

pytestmark = SQLITE_ONLY

TIMEOUT_MS = 60_000
OPERATOR_TOKEN = "op-" + "h" * 40


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url, operator_token=OPERATOR_TOKEN)
    yield app
    app.extensions["queue"].wait(timeout=60)
    dispose(app)


def other_origin(base: str) -> Any:
    """A server on another port (another origin) whose page frames ``base``'s ``/play`` and a page of its own."""

    @Request.application
    def site(request: Request) -> Response:
        if request.path == "/own":
            return Response("<p id='own'>the other origin's own page</p>", mimetype="text/html")
        page = f"<iframe id='victim' src='{base}/play'></iframe><iframe id='control' src='/own'></iframe>"
        return Response(page, mimetype="text/html")

    return running(make_server("127.0.0.1", 0, site, threaded=True))


def test_another_origin_cannot_frame_the_play_page(app: Flask, browser: Any) -> None:
    with served(app) as base, other_origin(base) as attacker:
        page = browser.new_page()
        console: list[str] = []
        page.on("console", lambda message: console.append(message.text))
        page.goto(attacker)
        page.frame_locator("#control").locator("#own").wait_for(timeout=TIMEOUT_MS)  # frames load here

        def shown() -> list[str]:  # the frames showing the play page (its account form)
            framed = [frame for frame in page.frames if frame.url.startswith(base)]
            return [frame.url for frame in framed if frame.query_selector("#account-name") is not None]

        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while not refused(console) and not shown() and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        framed = shown()
        page.close()
    assert framed == [], "the play page was shown in another origin's frame"
    assert refused(console), console


def refused(console: list[str]) -> bool:
    return any("frame-ancestors 'none'" in line and "blocked" in line for line in console)


def wait_replay(page: Any) -> None:
    page.wait_for_selector("#steps tr[data-ply]", timeout=TIMEOUT_MS)


def wait_tournament(page: Any) -> None:
    page.wait_for_selector("#live progress.progress", timeout=TIMEOUT_MS)
    bar = page.eval_on_selector("#live progress.progress", "bar => [bar.value, bar.max]")
    assert bar[0] == bar[1] > 0, bar  # done: the bar is full
    colours = page.eval_on_selector_all(
        "#head-to-head td[data-score]", "cells => cells.map(cell => getComputedStyle(cell).backgroundColor)"
    )
    assert colours and all(colour not in ("rgba(0, 0, 0, 0)", "transparent") for colour in colours), colours


def wait_tournaments(page: Any) -> None:
    width = page.eval_on_selector("progress.mini-progress", "bar => bar.getBoundingClientRect().width")
    assert width > 20, width  # drawn as a bar


def wait_ladder(page: Any) -> None:
    page.wait_for_selector("#live #standings tr[data-bot]", timeout=TIMEOUT_MS)
    with page.expect_response(lambda response: "/live" in response.url, timeout=TIMEOUT_MS) as polled:
        pass  # its script polls the live part while the ladder is open
    assert polled.value.status in (200, 304)


def wait_play(page: Any) -> None:
    page.fill("#account-name", "Ada")
    page.click("#new-account button[type=submit]")
    page.wait_for_selector("#setup:not([hidden])", timeout=TIMEOUT_MS)


def wait_admin(page: Any) -> None:
    page.fill("#admin-token", OPERATOR_TOKEN)
    page.click("#admin-sign-in .sign-in")
    page.wait_for_selector("#admin-accounts .admin-part table", timeout=TIMEOUT_MS)


def wait_redoc(page: Any) -> None:
    title = page.wait_for_selector(".api-info h1", timeout=TIMEOUT_MS)
    assert title is not None and title.inner_text().startswith("sorry-arena")
    page.get_by_text("/api/v1/games", exact=False).first.wait_for(timeout=TIMEOUT_MS)


def wait_swagger(page: Any) -> None:
    title = page.wait_for_selector(".swagger-ui .info .title", timeout=TIMEOUT_MS)
    assert title is not None and title.inner_text().startswith("sorry-arena")
    page.click('.opblock-summary-path[data-path="/api/v1/health"]', timeout=TIMEOUT_MS)
    page.click("button.try-out__btn", timeout=TIMEOUT_MS)
    page.click("button.execute", timeout=TIMEOUT_MS)  # the request goes out from the page: connect-src
    status = page.wait_for_selector(".live-responses-table tbody .response-col_status", timeout=TIMEOUT_MS)
    assert status is not None and status.inner_text().strip().startswith("200")


def test_the_pages_work_under_their_policy_without_a_violation(
    app: Flask, client: FlaskClient, browser: Any
) -> None:
    game_id = finished_game(client, "card", CARD_SETTINGS)
    owner = new_player(client, "owner")
    bot = client.post(f"{API}/bots", json={"name": "pully", "games": ["card"]}, headers=owner.headers).get_json()
    ladder = made_ladder(app, client)
    with tournament(app, client, rounds=1) as done:
        pages: list[tuple[str, Callable[[Any], None]]] = [
            ("/", lambda page: None),
            ("/tournaments", wait_tournaments),
            (f"/tournaments/{done['id']}", wait_tournament),
            ("/ladders", lambda page: None),
            (f"/ladders/{ladder.ladder_id}", wait_ladder),
            (f"/games/{game_id}", wait_replay),
            (f"/bots/{bot['id']}", lambda page: None),
            ("/play", wait_play),
            ("/admin", wait_admin),
            ("/redoc", wait_redoc),
            ("/docs", wait_swagger),
        ]
        violations: dict[str, list[str]] = {}
        with served(app) as base:
            for path, ready in pages:
                page = browser.new_page(viewport={"width": 1300, "height": 1000})
                errors: list[str] = []
                page.on("console", lambda message, errors=errors: errors.append(message.text))
                page.on("pageerror", lambda error, errors=errors: errors.append(f"page error: {error}"))
                response = page.goto(f"{base}{path}")
                assert response is not None and response.status == 200, path
                assert "frame-ancestors 'none'" in response.headers["content-security-policy"], path
                ready(page)
                page.wait_for_load_state("networkidle", timeout=TIMEOUT_MS)
                name = "csp" + (path.replace("/", "-") if path != "/" else "-home")
                screenshot(page, name, full_page=path not in ("/redoc", "/docs"))
                page.close()
                found = [
                    line
                    for line in errors
                    if "Content Security Policy" in line or line.startswith("page error")
                    if not (path == "/redoc" and "cdn.redoc.ly" in line and "img-src" in line)
                ]
                if found:
                    violations[path] = found
    assert violations == {}
