"""Fixtures of the web page tests: the app (which may call loopback push bots and runs tournaments on its own
threads) on a fresh database, its test client, and a headless Chromium (tests/service/web/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.arenakit import arena_app
from tests.conftest import dispose
from tests.service.web.browser import launched


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url)
    yield app
    app.extensions["queue"].wait(timeout=60)
    dispose(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the browser tests of a module."""
    with launched() as launched_browser:
        yield launched_browser
