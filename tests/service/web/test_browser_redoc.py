"""ReDoc in headless Chromium: ``/redoc`` renders the API reference (the spec's title and an operation of it) from
the app's own files: every answer the page gets comes from the app (no CDN, no fonts or scripts from elsewhere),
and the one thing the bundle asks of elsewhere (the Redocly logo) the page's Content-Security-Policy blocks before
it leaves the browser. A screenshot goes to test-output/screenshots/."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Flask

from tests.apikit import SQLITE_ONLY
from tests.service.web.browser import screenshot, served

pytestmark = SQLITE_ONLY

TIMEOUT_MS = 30_000


def test_redoc_renders_the_api_reference_from_local_files(app: Flask, browser: Any) -> None:
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        answered: list[str] = []
        page.on("response", lambda response: answered.append(response.url))
        failed: dict[str, str] = {}
        page.on("requestfailed", lambda request: failed.update({request.url: str(request.failure)}))
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/redoc")
        title = page.wait_for_selector(".api-info h1", timeout=TIMEOUT_MS)
        assert title is not None and title.inner_text().startswith("sorry-arena")
        page.get_by_text("/api/v1/games", exact=False).first.wait_for(timeout=TIMEOUT_MS)
        screenshot(page, "redoc", full_page=False)
        page.close()
    assert errors == []
    ours = urlsplit(base).netloc

    def from_elsewhere(url: str) -> bool:  # blob: and data: URLs are the page's own making
        return urlsplit(url).scheme in ("http", "https") and urlsplit(url).netloc != ours

    assert [url for url in answered if from_elsewhere(url)] == [], "an answer from elsewhere"
    elsewhere = [url for url in requested if from_elsewhere(url)]
    assert elsewhere, "the bundle's logo was asked for: the check sees what it must stop"
    assert all("csp" in failed.get(url, "").lower() for url in elsewhere), (
        elsewhere,
        failed,
    )  # blocked by the CSP
    assert f"{base}/redoc-ui/redoc.standalone.js" in answered and f"{base}/openapi.json" in answered
