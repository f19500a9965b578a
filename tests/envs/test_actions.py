"""The fixed action spaces: every legal id of random games of every ruleset has an index, and indices are shared
only where the module says (a 7 split in three or more parts, tiebreaker choices of one score)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from envs.actions import ACTION_IDS, BOARD_IDS, CARD_IDS, index_of, legal_indices
from tests.envs.variants import VARIANTS


def test_the_tables_hold_each_id_once() -> None:
    assert len(BOARD_IDS) == len(set(BOARD_IDS)) == 1892
    assert len(CARD_IDS) == len(set(CARD_IDS)) == 67


@pytest.mark.parametrize(("game", "settings"), VARIANTS)
def test_every_legal_action_has_an_index(game: str, settings: dict[str, Any]) -> None:
    for seed in range(6):
        state = engine.new_game(game, settings, seed)
        rng = random.Random(seed)
        while (asked := engine.decision(state)) is not None:
            actions = engine.legal_actions(state, asked.seat)
            chosen = legal_indices(game, actions)
            ids = {action.id for action in actions}
            assert set(chosen.values()) <= ids
            for action in actions:
                index = index_of(game, action)
                if ACTION_IDS[game][index] != action.id:  # a shared index: only these two cases
                    assert action.id.startswith("tiebreak:") or action.id.count(",") >= 2, action.id
            engine.apply(state, rng.choice(actions).id, events=False)


def test_a_tiebreaker_index_plays_the_fewest_cards_of_its_score() -> None:
    class Choice(engine.Action):
        def __init__(self, cards: list[str], score: int) -> None:
            super().__init__("tiebreak:" + (",".join(cards) or "none"), {"score": score})

    actions = [Choice([], 0), Choice(["5"], 5), Choice(["1", "4"], 5), Choice(["10", "slide21"], -1)]
    chosen = legal_indices("card", actions)
    assert {CARD_IDS[index]: played for index, played in chosen.items()} == {
        "tiebreak:score:0": "tiebreak:none",
        "tiebreak:score:5": "tiebreak:5",
        "tiebreak:bust": "tiebreak:10,slide21",
    }


def test_a_long_split_shares_its_first_two_parts_index_and_gives_way_to_their_split() -> None:
    two, three = engine.Action("7:red0+2,yellow1+5"), engine.Action("7:red0+2,yellow1+3,red3+2")
    assert index_of("board", two) == index_of("board", three) == BOARD_IDS.index("7:red0+2,yellow1+5")
    assert legal_indices("board", [three, two]) == {BOARD_IDS.index(two.id): two.id}
    assert legal_indices("board", [three]) == {BOARD_IDS.index(two.id): three.id}
