"""The language of a page: ``?lang=`` (which the page's switch links carry, and a cookie then remembers), else the
cookie, else the browser's ``Accept-Language`` (``engine.i18n.pick_language``), else English."""

from __future__ import annotations

from engine import i18n

COOKIE = "lang"
COOKIE_MAX_AGE = 365 * 86400
LANGUAGES = i18n.LANGUAGES
NAMES = {"en": "English", "fr": "Français"}


class UnknownLanguage(ValueError):
    def __init__(self, asked: str) -> None:
        super().__init__(asked)
        self.asked = asked


def choose(asked: str | None, cookie: str | None, accept_language: str | None) -> str:
    """The page's language. An unknown ``?lang=`` raises :class:`UnknownLanguage`; an unknown cookie is ignored."""
    if asked is not None:
        if asked not in LANGUAGES:
            raise UnknownLanguage(asked)
        return asked
    if cookie in LANGUAGES:
        return cookie
    return i18n.pick_language(accept_language)
