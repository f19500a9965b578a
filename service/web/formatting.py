"""How the pages write numbers, times, latencies, seats and statuses in the page's language."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from engine import i18n
from service.web.messages import PAGES, text


def number(value: float | None, digits: int, language: str) -> str:
    """``1523.4`` / ``1523,4``; a missing or infinite value is a dash."""
    if value is None or not math.isfinite(value):
        return "—"
    written = f"{value:.{digits}f}"
    return written.replace(".", ",") if language == "fr" else written


def when(moment: datetime | None) -> str:
    if moment is None:
        return "—"
    if moment.tzinfo is None:  # SQLite gives back naive datetimes: they were written in UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def latency(milliseconds: float | None, language: str) -> str:
    if milliseconds is None:
        return ""
    return text("game.ms", language, ms=number(milliseconds, 0 if milliseconds >= 10 else 1, language))


def fault(name: str | None, language: str) -> str:
    if not name:
        return ""
    return text(f"fault.{name}", language) if f"fault.{name}" in PAGES else name


def status(name: str, language: str) -> str:
    return text(f"status.{name}", language) if f"status.{name}" in PAGES else name


def seat(number_: int, name: str | None, language: str) -> str:
    """``Player 2 (greedy)``: the engine's seat name and the account's."""
    label = i18n.message("seat", language, number=number_ + 1)
    return f"{label} ({name})" if name else label
