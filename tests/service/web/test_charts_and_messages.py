"""The rating chart (service/web/charts.py) and the pages' strings (service/web/messages.py): every string in both
languages with the same fields, and every key a template uses exists."""

from __future__ import annotations

import re
import string
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from service.web.charts import MAX_LINES, Line, line_style, nice_step, rating_chart
from service.web.messages import PAGES, counted
from store.models import VOID_REASONS

SVG = "{http://www.w3.org/2000/svg}"
TEMPLATES = Path(__file__).resolve().parents[3] / "service" / "web" / "templates"


@pytest.mark.parametrize(
    ("span", "most", "step"),
    [(100, 8, 20), (180, 8, 25), (1000, 8, 200), (7, 8, 1), (55, 6, 10), (0.3, 8, 0.05), (0, 8, 1)],
)
def test_nice_steps(span: float, most: int, step: float) -> None:
    assert nice_step(span, most) == pytest.approx(step)


def test_one_line_per_bot_with_its_last_rating() -> None:
    lines = [
        Line("greedy", [(0, 1500.0), (10, 1560.0), (20, 1602.5)]),
        Line("rand<om>", [(0, 1500.0), (20, 1397.5)]),
    ]
    svg = ET.fromstring(str(rating_chart(lines, 20, "en")))
    drawn = [p for p in svg.iter(f"{SVG}polyline") if p.get("class") == "rating-line"]
    assert [(p.get("data-bot"), p.get("data-rating")) for p in drawn] == [
        ("greedy", "1602.5"),
        ("rand<om>", "1397.5"),
    ]
    assert len(drawn[0].get("points").split()) == 3
    ticks = [text.text for text in svg.iter(f"{SVG}text")]
    assert "1500" in ticks and "0" in ticks and "20" in ticks


def test_at_most_max_lines_and_an_empty_pool_says_so() -> None:
    lines = [Line(f"bot{n}", [(0, 1500.0), (5, 1500.0 + n)]) for n in range(MAX_LINES + 4)]
    svg = str(rating_chart(lines, 5, "fr"))
    assert svg.count('class="rating-line"') == MAX_LINES
    assert "cote Elo" in svg
    assert "Aucune partie classée" in str(rating_chart([], 0, "fr"))


def test_no_two_lines_share_a_style_and_the_legend_draws_each() -> None:
    lines = [Line(f"bot{n}", [(0, 1500.0), (5, 1500.0 + n)]) for n in range(MAX_LINES)]
    svg = ET.fromstring(str(rating_chart(lines, 5, "en")))
    drawn = [p for p in svg.iter(f"{SVG}polyline") if p.get("class") == "rating-line"]
    styles = [(p.get("stroke"), p.get("stroke-dasharray")) for p in drawn]
    assert len(set(styles)) == len(styles) == MAX_LINES >= 16
    legend = [(key.get("stroke"), key.get("stroke-dasharray")) for key in svg.iter(f"{SVG}line") if key.get("x2")]
    assert all(style in legend for style in styles)
    assert all(line_style(n) == (p.get("stroke"), p.get("stroke-dasharray") or "") for n, p in enumerate(drawn))


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_page_string_has_both_languages_with_the_same_fields() -> None:
    for key, texts in PAGES.items():
        assert set(texts) == {"en", "fr"}, key
        assert all(texts.values()), key
        assert fields(texts["en"]) == fields(texts["fr"]), key


def test_every_key_the_templates_use_exists() -> None:
    used = set()
    for template in TEMPLATES.glob("*.html"):
        used |= set(re.findall(r"""\bt\(\s*["']([a-z0-9_.\-]+)["']""", template.read_text()))
    assert used, "no t(...) found in the templates"
    prefixes = {key for key in used if key.endswith(".")}  # t("void." ~ reason): a key made from a value
    assert sorted(used - prefixes - set(PAGES)) == []
    assert all(any(key.startswith(prefix) for key in PAGES) for prefix in prefixes), prefixes


def test_every_void_reason_has_its_words() -> None:
    assert all(f"void.{reason}" in PAGES for reason in VOID_REASONS)


@pytest.mark.parametrize(
    ("count", "language", "shown"),
    [
        (1, "en", "1 round"),
        (2, "en", "2 rounds"),
        (0, "en", "0 rounds"),
        (1, "fr", "1 ronde"),
        (0, "fr", "0 ronde"),
    ],
)
def test_counts_agree_with_their_number(count: int, language: str, shown: str) -> None:
    assert counted("count.rounds", count, language) == shown
