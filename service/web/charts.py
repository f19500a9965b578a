"""The rating chart of the standings, bot and ladder pages: each bot's rating over its rated games, as an SVG line
chart drawn here.

One ``<polyline class="rating-line" data-bot="..." data-rating="...">`` per bot (``data-rating``: its last
rating), axes with round ticks, the initial 1500 dashed, and a legend in the order given (best first).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from service.web.messages import text

WIDTH, HEIGHT = 780, 380
LEFT, RIGHT, TOP, BOTTOM = 64, 200, 16, 52
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c6d1f")
"""Okabe and Ito's colours, told apart by colour-blind readers too (their yellow darkened to show on white)."""
DASHES = ("", "7 4", "2 3")
"""Each colour solid, then dashed, then dotted: every line has a style of its own, drawn the same in the legend."""
MAX_LINES = len(PALETTE) * len(DASHES)


def line_style(index: int) -> tuple[str, str]:
    """The colour and dash pattern of the ``index``-th line (no two lines of a chart share both)."""
    return PALETTE[index % len(PALETTE)], DASHES[index // len(PALETTE) % len(DASHES)]


LEGEND_CHARS = 20
"""Longer bot names are cut in the legend (the line's tooltip and the table keep them whole)."""
INITIAL_RATING = 1500.0


@dataclass(frozen=True)
class Line:
    name: str
    points: Sequence[tuple[int, float]]
    """(games counted, rating), in increasing games."""


def nice_step(span: float, most: int = 8) -> float:
    """The smallest 1, 2, 2.5 or 5 times a power of ten that cuts ``span`` into at most ``most`` steps."""
    if span <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(span / most))
    for factor in (1.0, 2.0, 2.5, 5.0, 10.0):
        if span / (factor * power) <= most:
            return factor * power
    return 10.0 * power


def _ticks(low: float, high: float, step: float) -> list[float]:
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [index * step for index in range(first, last + 1)]


def _f(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def rating_chart(lines: Sequence[Line], games: int, language: str, x_axis: str = "chart.x") -> Markup:
    """The chart of ``lines`` (at most ``MAX_LINES``) over ``games`` rated games, the x axis named by the page
    string ``x_axis`` (a pool's games, or a ladder's bot's own); empty: a short message."""
    if not lines or games <= 0:
        return Markup(f'<p class="chart-empty">{escape(text("chart.empty", language))}</p>')
    lines = list(lines)[:MAX_LINES]
    ratings = [rating for line in lines for _, rating in line.points] + [INITIAL_RATING]
    y_step = nice_step(max(ratings) - min(ratings) or 50.0, 6)
    y_low = math.floor(min(ratings) / y_step) * y_step
    y_high = math.ceil(max(ratings) / y_step) * y_step
    if y_high == y_low:
        y_low, y_high = y_low - y_step, y_high + y_step
    x_step = max(1.0, nice_step(games, 8))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_of(value: float) -> float:
        return LEFT + plot_w * value / games

    def y_of(value: float) -> float:
        return TOP + plot_h * (y_high - value) / (y_high - y_low)

    label = escape(text("chart.label", language))
    parts = [
        f'<svg class="rating-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{label}"><title>{label}</title>',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fff" stroke="#999"/>',
    ]
    for tick in _ticks(y_low, y_high, y_step):
        y = y_of(tick)
        parts.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{_f(y)}" y2="{_f(y)}" stroke="#e3e3e3"/>'
            f'<text x="{LEFT - 6}" y="{_f(y + 4)}" text-anchor="end" font-size="11">{tick:.0f}</text>'
        )
    for tick in _ticks(0, games, x_step):
        x = x_of(tick)
        parts.append(
            f'<line x1="{_f(x)}" x2="{_f(x)}" y1="{TOP + plot_h}" y2="{TOP + plot_h + 5}" stroke="#666"/>'
            f'<text x="{_f(x)}" y="{TOP + plot_h + 18}" text-anchor="middle" font-size="11">{tick:.0f}</text>'
        )
    if y_low <= INITIAL_RATING <= y_high:
        y = y_of(INITIAL_RATING)
        parts.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{_f(y)}" y2="{_f(y)}" stroke="#888" '
            f'stroke-dasharray="4 4"/>'
        )
    parts.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 10}" text-anchor="middle" font-size="12">'
        f"{escape(text(x_axis, language))}</text>"
        f'<text transform="translate(16 {TOP + plot_h / 2}) rotate(-90)" text-anchor="middle" font-size="12">'
        f"{escape(text('chart.y', language))}</text>"
    )
    for index, line in enumerate(lines):
        colour, dashes = line_style(index)
        dash = f' stroke-dasharray="{dashes}"' if dashes else ""
        name = escape(line.name)
        last = line.points[-1][1] if line.points else INITIAL_RATING
        points = " ".join(f"{_f(x_of(games_so_far))},{_f(y_of(rating))}" for games_so_far, rating in line.points)
        parts.append(
            f'<polyline class="rating-line" data-bot="{name}" data-rating="{last:.1f}" points="{points}" '
            f'fill="none" stroke="{colour}" stroke-width="2"{dash}><title>{name}: {last:.0f}</title></polyline>'
        )
        legend_y = TOP + 4 + index * 14
        short = escape(line.name if len(line.name) <= LEGEND_CHARS else line.name[: LEGEND_CHARS - 1] + "…")
        parts.append(
            f'<line x1="{WIDTH - RIGHT + 12}" x2="{WIDTH - RIGHT + 30}" y1="{legend_y + 2}" y2="{legend_y + 2}" '
            f'stroke="{colour}" stroke-width="2"{dash}/>'
            f'<text x="{WIDTH - RIGHT + 34}" y="{legend_y + 6}" font-size="11">{short} ({last:.0f})</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))
