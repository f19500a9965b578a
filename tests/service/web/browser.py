"""Headless Chromium for the page tests: Debian's ``chromium`` (``make browser`` installs it) driven by Playwright's
Python package, which launches that executable, so no browser is downloaded. Missing, a browser test is skipped
locally and fails in CI (``tests.databases.unavailable``). The app is served by werkzeug on loopback; screenshots go
to ``test-output/screenshots/`` for review."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.databases import unavailable
from tests.liveserver import serving as served  # noqa: F401 (the page tests' server)

ROOT = Path(__file__).resolve().parents[3]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
# A screenshot on a loaded machine (two cores shared by the whole suite) can take tens of seconds.
SCREENSHOT_TIMEOUT_MS = 90_000


def chromium_path() -> str:
    """``SORRY_ARENA_CHROMIUM`` if set, else the ``chromium`` on the PATH, else Debian's path."""
    path = os.environ.get("SORRY_ARENA_CHROMIUM") or shutil.which("chromium") or CHROMIUM
    if not os.access(path, os.X_OK):
        unavailable(f"no chromium at {path}: run `make browser` (Debian's package: apt-get install chromium)")
    return path


@contextmanager
def launched() -> Iterator[Any]:
    """A headless Chromium (a Playwright ``Browser``), closed afterwards."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright is not installed: pip install -e '.[test]'")
    path = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path)
        try:
            yield browser
        finally:
            browser.close()


def screenshot(page: Any, name: str, full_page: bool = True) -> Path:
    """The page as a PNG in the screenshots folder: the whole page, or (``full_page=False``, for the API
    reference pages, tens of thousands of pixels tall) what the viewport shows."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page, timeout=SCREENSHOT_TIMEOUT_MS)
    assert path.stat().st_size > 10_000, f"{path} looks empty"
    return path
