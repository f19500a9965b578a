"""The browser tests' setup: a missing chromium skips them on a developer's machine and fails them in CI, so that
CI can never pass without having run them."""

from __future__ import annotations

import pytest

from tests.service.web.browser import chromium_path


def test_a_missing_chromium_fails_in_ci_and_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SORRY_ARENA_CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="make browser"):
        chromium_path()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="make browser"):
        chromium_path()


def test_the_chromium_found_is_the_one_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SORRY_ARENA_CHROMIUM", "/bin/sh")
    assert chromium_path() == "/bin/sh"
