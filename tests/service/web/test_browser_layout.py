"""The game viewer's layout at a common laptop width (1280 px), in headless Chromium: the moves panel of a
4-player game, in English and in French (longer words), shows every column: nothing is cut off or hidden past the
panel's edge. Screenshots go to test-output/screenshots/."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.apikit import SQLITE_ONLY
from tests.service.web.browser import screenshot, served
from tests.service.web.webkit import CARD_SETTINGS, finished_game

pytestmark = SQLITE_ONLY

TIMEOUT_MS = 10_000


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize(
    ("game", "settings"), [("board", {"players": 4, "turn_cap": 80}), ("card", CARD_SETTINGS)]
)
def test_the_moves_panel_fits_at_1280_pixels(
    app: Flask, client: FlaskClient, browser: Any, language: str, game: str, settings: dict[str, Any]
) -> None:
    game_id = finished_game(client, game, {**settings, "players": 4})
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/games/{game_id}?lang={language}")
        page.wait_for_selector("#steps tr[data-ply]", timeout=TIMEOUT_MS)
        fit = page.eval_on_selector(
            ".moves",
            """panel => {
                const box = panel.getBoundingClientRect();
                const cells = [...panel.querySelectorAll('#steps thead th')].map(th => th.getBoundingClientRect());
                return {
                    panelRight: box.right,
                    viewport: document.documentElement.clientWidth,
                    pageScrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth,
                    lastCellRight: Math.max(...cells.map(cell => cell.right)),
                    tableWidth: panel.querySelector('#steps').scrollWidth,
                    scrollerWidth: panel.querySelector('.moves-scroll').clientWidth,
                };
            }""",
        )
        screenshot(page, f"layout-{game}-{language}-1280")
        page.close()
    assert not fit["pageScrolls"], fit
    assert fit["panelRight"] <= fit["viewport"], fit
    assert fit["tableWidth"] <= fit["scrollerWidth"] + 1, fit
    assert fit["lastCellRight"] <= fit["panelRight"] + 1, fit
