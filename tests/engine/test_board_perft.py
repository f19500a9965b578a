"""Legal-action counts from fixed positions (perft files, after python-chess).

``tests/engine/perft/board.json`` holds the positions and ``tests/engine/perft/board_counts.txt`` one count per
line (see ``tests/engine/perft/generate.py`` for the format; tests/engine/perft/README.md checks a number of them by
hand). A count that changes means the move generator changed: check it against docs/rules.md before regenerating
the file.
"""

from __future__ import annotations

import pytest

from engine.board.cards import CARDS
from tests.engine.perft.generate import COUNTS, count, depth2, load_positions

POSITIONS = {entry["name"]: entry for entry in load_positions()}


def _cases() -> list[tuple[str, str, bool, int]]:
    cases = []
    for line in COUNTS.read_text().splitlines():
        fields = line.split()
        if len(fields) == 3:
            name, card, expected = fields
            cases.append((name, card, False, int(expected)))
        else:
            name, card, depth, expected = fields
            assert depth == "depth2", line
            cases.append((name, card, True, int(expected)))
    return cases


CASES = _cases()


@pytest.mark.parametrize(
    ("name", "card", "deep", "expected"),
    CASES,
    ids=[f"{name}-{card}{'-depth2' if deep else ''}" for name, card, deep, _ in CASES],
)
def test_legal_action_count(name: str, card: str, deep: bool, expected: int) -> None:
    entry = POSITIONS[name]
    assert (depth2 if deep else count)(entry, card) == expected


def test_every_position_has_every_card_counted() -> None:
    counted = {(name, card) for name, card, deep, _ in CASES if not deep}
    for name, entry in POSITIONS.items():
        cards = ["hand"] if entry["settings"]["variant"] == "points" else list(CARDS)
        assert {(name, card) for card in cards} <= counted, name
    assert len(POSITIONS) >= 25
